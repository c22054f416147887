"""Publishing the current weights for an inference engine (Tinker's `save_weights_for_sampler`):
after an optimizer step the orchestrator asks for the weights in a form vLLM (or SGLang) loads as
it is, under a versioned name, and hot-loads them into its rollout endpoints.

POST /v1/train/publish {name, dir="published", keep=3}
  -> {version: "<name>@<step>", path (absolute, for the engine), dir (relative to the checkpoint
      root), step, format: "lora"|"full", pruned: [versions removed]}
  - LoRA runs: a PEFT adapter directory (adapter_config.json + adapter_model.safetensors with
    Hugging Face module names), what vLLM's `/v1/load_lora_adapter` reads. Full fine-tuning: an HF
    `save_pretrained` checkpoint (config, model.safetensors, tokenizer) that vLLM reloads from disk.
  - No optimizer state and no pickle: only what sampling needs.
  - The version directory appears atomically (written under a temporary name, then renamed), so
    an engine that loads `path` never sees half a checkpoint. Publishing the same step again
    replaces it (a resumed run republishes its restored weights).
  - Only the newest `keep` versions of `name` stay on disk; older ones are deleted. An engine that
    still serves an older version keeps it in memory, but cannot load it again.
  - `dir` is confined to the worker's checkpoint root like save/load paths.
Runs on the model thread of rank 0 (between optimizer steps, never during one); under FSDP rank 0
holds the unsharded sampling copy, so no other rank takes part.
"""
from __future__ import annotations

import os
import re
import shutil
import uuid
from dataclasses import dataclass

from .errors import BadRequest
from .paths import confine

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
MAX_KEEP = 1000


@dataclass(frozen=True)
class PublishRequest:
    name: str
    dir: str          # as the caller wrote it (relative to the checkpoint root)
    root: str         # the confined absolute directory that holds the versions
    keep: int


def parse(body: dict, checkpoint_root: str) -> PublishRequest:
    name = body.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise BadRequest("name must be 1-64 characters of letters, digits, '.', '_' or '-' (a run name), "
                         "starting with a letter or digit")
    d = body.get("dir", "published")
    keep = body.get("keep", 3)
    if isinstance(keep, bool) or not isinstance(keep, int) or not (1 <= keep <= MAX_KEEP):
        raise BadRequest(f"keep must be an integer in [1, {MAX_KEEP}]")
    root = confine(checkpoint_root, d)
    return PublishRequest(name, d, root, keep)


def version_name(name: str, step: int) -> str:
    return f"{name}@{step}"


def versions_on_disk(root: str, name: str) -> list:
    """(step, directory name) of the published versions of `name` under `root`, oldest first."""
    if not os.path.isdir(root):
        return []
    pat = re.compile(rf"^{re.escape(name)}@(\d+)$")
    out = []
    for entry in os.listdir(root):
        m = pat.match(entry)
        if m and os.path.isdir(os.path.join(root, entry)) and not os.path.islink(os.path.join(root, entry)):
            out.append((int(m.group(1)), entry))
    return sorted(out)


def _write(host, tmp: str) -> str:
    os.makedirs(tmp)
    host.model.save_pretrained(tmp)          # PEFT under LoRA: the adapter files only
    if not host.lora:
        host.tokenizer.save_pretrained(tmp)  # vLLM reloads a full checkpoint with its tokenizer
    return "lora" if host.lora else "full"


def publish(host, step: int, req: PublishRequest) -> dict:
    """Writes `<name>@<step>` under the request's dir and prunes older versions of `name`."""
    version = version_name(req.name, step)
    os.makedirs(req.root, exist_ok=True)
    final = os.path.join(req.root, version)
    tmp = os.path.join(req.root, f".{version}.tmp-{uuid.uuid4().hex[:8]}")
    try:
        fmt = _write(host, tmp)
        if os.path.isdir(final):
            shutil.rmtree(final)
        os.rename(tmp, final)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise BadRequest(f"could not publish {version} under {req.dir}: {e}", code="publish_failed") from e
    # this version plus the keep-1 newest others stay (by step); the rest go, oldest first
    others = [entry for _, entry in versions_on_disk(req.root, req.name) if entry != version]
    pruned = others[:max(len(others) - (req.keep - 1), 0)]
    for entry in pruned:
        shutil.rmtree(os.path.join(req.root, entry), ignore_errors=True)
    rel = os.path.join(req.dir, version)
    return {"version": version, "path": final, "dir": rel, "step": step, "format": fmt, "pruned": pruned}
