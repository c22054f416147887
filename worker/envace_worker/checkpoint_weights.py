"""Reading a checkpoint's weights for `/v1/train/load` without pickle and without touching the
model until everything was read and checked: `read` returns a function that applies the weights,
or raises BadRequest. Only safetensors files are read (a `pytorch_model.bin` is a pickle)."""
from __future__ import annotations

import json
import os

import torch

from .errors import BadRequest
from .paths import confine

ADAPTER_FILE = "adapter_model.safetensors"


def read(host, path: str):
    """Reads and validates the weights at `path` for `host`'s model; returns `apply()`."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    try:
        if host.lora:
            tensors = load_file(os.path.join(path, ADAPTER_FILE))
        else:
            tensors = {}
            for file in _weight_files(path):
                tensors.update(load_file(file))
    except (OSError, SafetensorError, ValueError, RecursionError) as e:
        raise BadRequest(f"unreadable weights in {path}: {type(e).__name__}: {e}", code="load_failed") from e
    return _adapter_apply(host, tensors, path) if host.lora else _full_apply(host, tensors, path)


def _weight_files(path: str) -> list:
    single = os.path.join(path, "model.safetensors")
    if os.path.exists(single):
        return [single]
    index = os.path.join(path, "model.safetensors.index.json")
    if not os.path.exists(index):
        raise BadRequest(f"{path} has no model.safetensors (or .index.json); only safetensors weights are loaded, "
                         "never pickled ones (pytorch_model.bin)", code="load_failed")
    with open(index) as f:
        shards = sorted(set(json.load(f)["weight_map"].values()))
    return [confine(path, s) for s in shards]   # an index cannot point outside its checkpoint


def _check_shapes(expected: dict, tensors: dict, path: str) -> None:
    unknown = sorted(set(tensors) - set(expected))
    if unknown:
        raise BadRequest(f"{path} has weights this model lacks: {unknown[:3]}", code="load_failed")
    for k, v in tensors.items():
        if tuple(v.shape) != tuple(expected[k].shape):
            raise BadRequest(f"{path}: {k} has shape {tuple(v.shape)}, this model's {tuple(expected[k].shape)}",
                             code="load_failed")
        if not v.is_floating_point() and expected[k].is_floating_point():
            raise BadRequest(f"{path}: {k} is {v.dtype}, not floating point", code="load_failed")


def _full_apply(host, tensors: dict, path: str):
    expected = host.model.state_dict()
    _check_shapes(expected, tensors, path)
    present = {expected[k].data_ptr() for k in tensors}
    # save_pretrained leaves out tied weights (lm_head tied to the embeddings): those are fine
    missing = [k for k in expected if k not in tensors and expected[k].data_ptr() not in present]
    if missing:
        raise BadRequest(f"{path} lacks weights of this model: {missing[:3]}", code="load_failed")

    @torch.no_grad()
    def apply():
        for k, v in tensors.items():
            expected[k].copy_(v)

    return apply


def _adapter_apply(host, tensors: dict, path: str):
    from peft.utils import get_peft_model_state_dict, set_peft_model_state_dict

    expected = get_peft_model_state_dict(host.model)
    _check_shapes(expected, tensors, path)
    missing = sorted(set(expected) - set(tensors))
    if missing:
        raise BadRequest(f"{path} lacks adapter weights of this model: {missing[:3]}", code="load_failed")
    return lambda: set_peft_model_state_dict(host.model, tensors)
