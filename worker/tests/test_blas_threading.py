"""The worker sets MKL's reproducibility conditions before torch loads it (envace_worker/__init__.py):
fixed thread counts (with MKL's default dynamic threading, two trainings on one loaded machine parted
in the last bits) and a fixed CNR branch (with fixed threads but CNR off, they still parted in CI)."""
import os
import subprocess
import sys

import pytest

WORKER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEMM = "import torch; (torch.ones(64, 64) @ torch.ones(64, 64)).sum().item()"
SETTINGS = ("MKL_DYNAMIC", "OMP_DYNAMIC", "MKL_CBWR")


def _mkl_verbose(code: str, **env: str) -> str:
    """stdout of `code` in a fresh Python with MKL_VERBOSE on: one line per MKL call, which says
    whether dynamic threading was on (`Dyn:1`) and which CNR branch it ran under (`CNR:OFF`)."""
    base = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    run_env = {**base, "MKL_VERBOSE": "1", "PYTHONPATH": WORKER_DIR, **env}
    out = subprocess.run([sys.executable, "-c", code], env=run_env, check=True, capture_output=True,
                         text=True, timeout=120)
    return out.stdout


def _flags(stdout: str, prefix: str) -> set:
    return {part for line in stdout.splitlines() if "GEMM" in line
            for part in line.split() if part.startswith(prefix)}


@pytest.fixture(scope="module")
def without_worker() -> str:
    out = _mkl_verbose(GEMM)
    if not _flags(out, "Dyn:"):
        pytest.skip("this torch does not use MKL for float32 GEMM (nothing to pin)")
    return out


@pytest.fixture(scope="module")
def with_worker() -> str:
    return _mkl_verbose("import envace_worker; " + GEMM)


def test_importing_the_worker_turns_mkl_dynamic_threading_off(without_worker, with_worker):
    # the control: torch alone leaves MKL's default, so the assertion below can fail
    assert _flags(without_worker, "Dyn:") == {"Dyn:1"}
    assert _flags(with_worker, "Dyn:") == {"Dyn:0"}


def test_importing_the_worker_fixes_a_cnr_branch(without_worker, with_worker):
    assert _flags(without_worker, "CNR:") == {"CNR:OFF"}
    assert _flags(with_worker, "CNR:") == {"CNR:AUTO"}


def test_a_users_own_setting_wins(without_worker):
    out = _mkl_verbose("import envace_worker; " + GEMM, MKL_DYNAMIC="TRUE", MKL_CBWR="")
    assert _flags(out, "Dyn:") == {"Dyn:1"}
    assert _flags(out, "CNR:") == {"CNR:OFF"}
