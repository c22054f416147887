"""Trainer state on disk without pickle: AdamW state, step and RNG state as
`trainer_state/tensors.safetensors` (every tensor) plus `trainer_state/state.json` (everything else,
with the tensors named by key). A pickle is a program (HF moved to safetensors for that reason);
nothing read here can run code.

The state lives in a subfolder so that the checkpoint's model folder is what an inference engine
loads as it is: vLLM loads every `*.safetensors` at a model folder's top level and refuses a
trainer-state file there ("no module or parameter named 'rng'"). Checkpoints written with the
state at the top level (`trainer_state.safetensors` + `trainer_state.json`) still load.

Checkpoints written before this format hold `trainer_state.pt` (a pickle). They still load, through
`torch.load(weights_only=True)`, whose unpickler builds only tensors and plain containers and
refuses any other global (so an `os.system` inside is an error, never a call); anything it refuses
is reported with how to re-save the checkpoint.

`read` validates everything (names, shapes, dtypes, the RNG state) and returns a `TrainerState`
that the trainer applies only after the weights were validated too: a failed load changes nothing.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass

import torch

from .errors import BadRequest

STATE_DIR = "trainer_state"
TENSORS_FILE = f"{STATE_DIR}/tensors.safetensors"
JSON_FILE = f"{STATE_DIR}/state.json"
TOP_LEVEL = ("trainer_state.safetensors", "trainer_state.json")   # the layout before STATE_DIR
LEGACY_FILE = "trainer_state.pt"
FORMAT = "envace-trainer-state/1"


@dataclass
class TrainerState:
    optimizer: dict          # named optimizer state: {"state": {name: {key: value}}, "param_groups": [...]}
    step: int
    torch_rng: torch.Tensor
    python_rng: tuple


def exists(path: str) -> bool:
    return any(os.path.exists(os.path.join(path, f)) for f in (JSON_FILE, TOP_LEVEL[1], LEGACY_FILE))


def write(path: str, optimizer: dict, step: int, torch_rng: torch.Tensor, python_rng: tuple) -> None:
    from safetensors.torch import save_file

    tensors, state = {}, {}
    for name, entry in optimizer["state"].items():
        out = {}
        for key, value in entry.items():
            if isinstance(value, torch.Tensor):
                ref = f"t{len(tensors)}"
                tensors[ref] = value.detach().to("cpu").contiguous().clone()
                out[key] = {"tensor": ref}
            else:
                out[key] = {"value": value}
        state[str(name)] = out
    tensors["rng.torch"] = torch_rng.to("cpu").contiguous().clone()
    groups = [{k: (list(v) if isinstance(v, tuple) else v) for k, v in g.items()} for g in optimizer["param_groups"]]
    meta = {"format": FORMAT, "step": step, "param_groups": groups, "state": state,
            "rng_python": [python_rng[0], list(python_rng[1]), python_rng[2]]}
    # the JSON is written last: a directory with it names a complete state (a kill during save
    # leaves no JSON, and `exists` says no state)
    os.makedirs(os.path.join(path, STATE_DIR), exist_ok=True)
    save_file(tensors, os.path.join(path, TENSORS_FILE))
    tmp = os.path.join(path, JSON_FILE + ".tmp")
    with open(tmp, "w") as f:
        json.dump(meta, f)
    os.replace(tmp, os.path.join(path, JSON_FILE))


def read(path: str, param_shapes: dict) -> TrainerState:
    """Reads and validates the state at `path` against the trainable parameters' names and shapes.
    Raises BadRequest (naming what is wrong) and changes nothing."""
    if os.path.exists(os.path.join(path, JSON_FILE)):
        st = _read_current(path, TENSORS_FILE, JSON_FILE)
    elif os.path.exists(os.path.join(path, TOP_LEVEL[1])):
        st = _read_current(path, *TOP_LEVEL)
    elif os.path.exists(os.path.join(path, LEGACY_FILE)):
        st = _read_legacy(path)
    else:
        raise BadRequest(f"{path} has no optimizer state ({JSON_FILE}); load with optimizer: false")
    _validate(st, param_shapes, path)
    return st


def _read_current(path: str, tensors_file: str, json_file: str) -> TrainerState:
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    try:
        with open(os.path.join(path, json_file)) as f:
            meta = json.load(f)
        tensors = load_file(os.path.join(path, tensors_file))
    except (OSError, ValueError, RecursionError, SafetensorError) as e:
        raise BadRequest(f"unreadable trainer state in {path}: {type(e).__name__}: {e}", code="load_failed") from e
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise BadRequest(f"{path}/{json_file} is not {FORMAT}", code="load_failed")

    def tensor(ref):
        if ref not in tensors:
            raise BadRequest(f"{path}/{json_file} names tensor {ref!r}, which {tensors_file} lacks", code="load_failed")
        return tensors[ref]

    try:
        state = {}
        for name, entry in meta["state"].items():
            state[name] = {k: tensor(v["tensor"]) if "tensor" in v else v["value"] for k, v in entry.items()}
        groups = [{k: (tuple(v) if k == "betas" else v) for k, v in g.items()} for g in meta["param_groups"]]
        version, internal, gauss = meta["rng_python"]
        return TrainerState({"state": state, "param_groups": groups}, meta["step"], tensor("rng.torch"),
                            (version, tuple(internal), gauss))
    except BadRequest:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise BadRequest(f"malformed {path}/{json_file}: {type(e).__name__}: {e}", code="load_failed") from e


def _read_legacy(path: str) -> TrainerState:
    import pickle

    file = os.path.join(path, LEGACY_FILE)
    try:
        st = torch.load(file, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, OSError, ValueError, AttributeError, TypeError) as e:
        raise BadRequest(
            f"refused {file}: it is a pickle that torch's weights-only loader will not read safely "
            f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}). Nothing in it was run. "
            "If you trust the file, re-save the checkpoint with a current envace worker (load it there with "
            "optimizer: false, or convert it yourself into trainer_state/tensors.safetensors + trainer_state/state.json).",
            code="unsafe_checkpoint") from e
    try:
        return TrainerState(st["optimizer"], st["step"], st["rng"]["torch"], st["rng"]["python"])
    except (KeyError, TypeError) as e:
        raise BadRequest(f"malformed {file}: {type(e).__name__}: {e}", code="load_failed") from e


def _validate(st: TrainerState, param_shapes: dict, path: str) -> None:
    def bad(msg):
        raise BadRequest(f"trainer state in {path} does not fit this model: {msg}", code="load_failed")

    if isinstance(st.step, bool) or not isinstance(st.step, int) or st.step < 0:
        bad(f"step {st.step!r} is not a non-negative integer")
    opt = st.optimizer
    if not isinstance(opt, dict) or not isinstance(opt.get("state"), dict) or not isinstance(
            opt.get("param_groups"), list):
        bad("optimizer state must have `state` and `param_groups`")
    positional = all(isinstance(i, int) for g in opt["param_groups"] if isinstance(g, dict)
                     for i in g.get("params", []))
    names = list(param_shapes)
    listed = []
    for g in opt["param_groups"]:
        if not isinstance(g, dict) or not isinstance(g.get("params"), list):
            bad("every param group needs a `params` list")
        for key in ("lr", "eps", "weight_decay"):
            v = g.get(key)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                bad(f"param group {key} = {v!r}")
        listed += g["params"]
    if positional:   # a checkpoint from before parameters were named: positions in the same order
        if sorted(listed) != list(range(len(names))):
            bad(f"its param groups list {len(listed)} parameters by position; this model trains {len(names)}")
        shape_of = {i: param_shapes[n] for i, n in enumerate(names)}
    else:
        if sorted(map(str, listed)) != sorted(names):
            missing = sorted(set(names) - set(map(str, listed)))[:3]
            extra = sorted(set(map(str, listed)) - set(names))[:3]
            bad(f"parameter names differ (missing {missing}, unknown {extra})")
        shape_of = param_shapes
    for name, entry in opt["state"].items():
        if name not in shape_of:
            bad(f"state for unknown parameter {name!r}")
        if not isinstance(entry, dict):
            bad(f"state of {name!r} is not a mapping")
        for key, value in entry.items():
            if key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
                if not isinstance(value, torch.Tensor) or tuple(value.shape) != tuple(shape_of[name]):
                    got = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
                    bad(f"{key} of {name!r} has shape {got}, the parameter {tuple(shape_of[name])}")
                if not value.is_floating_point():
                    bad(f"{key} of {name!r} is not floating point")
            elif key == "step":
                v = value.item() if isinstance(value, torch.Tensor) and value.numel() == 1 else value
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                    bad(f"step of {name!r} = {v!r}")
    rng = st.torch_rng
    if not isinstance(rng, torch.Tensor) or rng.dtype != torch.uint8 or rng.dim() != 1:
        bad("the torch RNG state is not a uint8 vector")
    if rng.numel() != torch.get_rng_state().numel():
        bad(f"the torch RNG state has {rng.numel()} bytes, expected {torch.get_rng_state().numel()}")
    py = st.python_rng
    if not (isinstance(py, tuple) and len(py) == 3 and isinstance(py[1], tuple) and len(py[1]) == 625
            and all(isinstance(x, int) and not isinstance(x, bool) for x in py[1])):
        bad("the Python RNG state is malformed")
    try:   # on throwaway generators: whatever they refuse is refused before anything changes
        import random

        random.Random().setstate(py)
        torch.Generator().set_state(rng)
    except (ValueError, TypeError, OverflowError, RuntimeError) as e:
        bad(f"the RNG state is not usable: {e}")
