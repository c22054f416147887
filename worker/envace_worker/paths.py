"""Request paths confined to a root directory (`serve --checkpoint-root`): a path from a request is
read or written only if it resolves, symlinks followed, inside the root."""
from __future__ import annotations

import os

from .errors import BadRequest


def confine(root: str, path: str) -> str:
    """The real absolute path of `path` (relative paths are taken from `root`), or BadRequest (400)
    when it lies outside `root`: `..`, an absolute path elsewhere, or a symlink that leads out."""
    if not isinstance(path, str) or not path or "\x00" in path:
        raise BadRequest("path must be a non-empty string")
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, path))
    if real != real_root and os.path.commonpath([real_root, real]) != real_root:
        raise BadRequest(f"path {path!r} is outside the worker's checkpoint root {real_root} "
                         "(start the worker with --checkpoint-root to choose another)", code="path_outside_root")
    return real
