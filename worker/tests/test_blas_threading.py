"""The worker fixes MKL's thread count before torch loads it (envace_worker/__init__.py): with MKL's
default dynamic threading, two trainings on one loaded machine parted in the last bits."""
import os
import subprocess
import sys

import pytest

WORKER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEMM = "import torch; (torch.ones(64, 64) @ torch.ones(64, 64)).sum().item()"


def _mkl_verbose(code: str, **env: str) -> str:
    """stdout of `code` in a fresh Python with MKL_VERBOSE on: one line per MKL call, which says
    whether dynamic threading was on (`Dyn:1`) for it."""
    base = {k: v for k, v in os.environ.items() if k not in ("MKL_DYNAMIC", "OMP_DYNAMIC")}
    run_env = {**base, "MKL_VERBOSE": "1", "PYTHONPATH": WORKER_DIR, **env}
    out = subprocess.run([sys.executable, "-c", code], env=run_env, check=True, capture_output=True,
                         text=True, timeout=120)
    return out.stdout


def _dyn_flags(stdout: str) -> set:
    return {part for line in stdout.splitlines() if "GEMM" in line
            for part in line.split() if part.startswith("Dyn:")}


@pytest.fixture(scope="module")
def without_worker() -> set:
    flags = _dyn_flags(_mkl_verbose(GEMM))
    if not flags:
        pytest.skip("this torch does not use MKL for float32 GEMM (nothing to pin)")
    return flags


def test_importing_the_worker_turns_mkl_dynamic_threading_off(without_worker):
    # the control: torch alone leaves MKL's default, so the assertion below can fail
    assert without_worker == {"Dyn:1"}
    assert _dyn_flags(_mkl_verbose("import envace_worker; " + GEMM)) == {"Dyn:0"}


def test_a_users_own_setting_wins(without_worker):
    out = _mkl_verbose("import envace_worker; " + GEMM, MKL_DYNAMIC="TRUE")
    assert _dyn_flags(out) == {"Dyn:1"}
