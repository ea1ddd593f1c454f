"""Turns what users pass (a prefix, a model_dir, a `checkpoint` file, an `.index`) into a prefix.

Example:
    >>> data_path("/m/model.ckpt-40", 0, 1)
    '/m/model.ckpt-40.data-00000-of-00001'
"""

from __future__ import annotations

import os
import re

from tfport._common.errors import message
from tfport.checkpoint._errors import CheckpointNotFoundError

_STATE = re.compile(r'^\s*model_checkpoint_path\s*:\s*"((?:[^"\\]|\\.)*)"', re.M)


def state_path(quoted: str) -> str:
    """A path as the `checkpoint` state file quotes it, read as TensorFlow reads it: text
    proto escapes (octal `\\303\\250`, `\\"`...) unescaped to bytes, decoded as UTF-8.

    Example:
        >>> state_path("mod\\\\303\\\\250le.ckpt-12")
        'modèle.ckpt-12'
    """
    from google.protobuf import text_encoding

    try:
        return text_encoding.CUnescape(quoted).decode("utf-8")
    except (UnicodeDecodeError, ValueError):
        return text_encoding.CUnescape(quoted).decode("utf-8", "surrogateescape")


def data_path(prefix: str, shard: int, num_shards: int) -> str:
    """The path of data shard `shard` of `num_shards` for `prefix`."""
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def resolve_prefix(path: str | os.PathLike[str]) -> str:
    """Returns the checkpoint prefix that `path` designates.

    Accepts a prefix (`model.ckpt-40`), its `.index` or a `.data-*` file, a folder
    holding a `checkpoint` state file (its `model_checkpoint_path`) or the
    `checkpoint` file itself.

    Raises:
        CheckpointNotFoundError: when no `.index` can be found.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        return _from_state(os.path.join(path, "checkpoint"), path)
    if os.path.basename(path) == "checkpoint" and os.path.isfile(path):
        return _from_state(path, path)
    for suffix in (".index",):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    match = re.match(r"^(.*)\.data-\d{5}-of-\d{5}$", path)
    if match:
        path = match.group(1)
    if not os.path.isfile(path + ".index"):
        raise CheckpointNotFoundError(
            message(
                f"No checkpoint index at {path}.index",
                "Pass a checkpoint prefix (model.ckpt-40), its .index file, a model_dir "
                "or its `checkpoint` file",
                path=path,
            )
        )
    return path


def _from_state(state_file: str, given: str) -> str:
    folder = os.path.dirname(os.path.abspath(state_file))
    try:
        with open(state_file, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as err:
        raise CheckpointNotFoundError(
            message(
                f"Cannot read the checkpoint state file {state_file} ({err.__class__.__name__})",
                "Pass the checkpoint prefix itself (model.ckpt-40)",
                path=given,
            )
        ) from None
    match = _STATE.search(text)
    if not match:
        raise CheckpointNotFoundError(
            message(
                f"{state_file} names no model_checkpoint_path",
                "Pass the checkpoint prefix itself (model.ckpt-40)",
                path=given,
            )
        )
    prefix = state_path(match.group(1))
    if not os.path.isabs(prefix):
        prefix = os.path.join(folder, prefix)
    if not os.path.isfile(prefix + ".index"):
        # Files moved with their model_dir: try the basename next to the state file.
        local = os.path.join(folder, os.path.basename(prefix))
        if os.path.isfile(local + ".index"):
            return local
    return resolve_prefix(prefix)
