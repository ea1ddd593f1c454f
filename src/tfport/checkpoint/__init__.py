"""Checkpoint toolkit: read, write, inspect, diff, convert and port TF checkpoints.

Reading, writing, inspecting, diffing and converting never import TensorFlow;
`assignment_map`, `restore` and `port` do (they work on models).

Example:
    >>> from tfport import checkpoint
    >>> with checkpoint.CheckpointReader("model_dir") as ckpt:  # doctest: +SKIP
    ...     print(ckpt.names())
"""

from typing import TYPE_CHECKING

from tfport.checkpoint._convert import convert
from tfport.checkpoint._diff import diff_checkpoints
from tfport.checkpoint._errors import (
    CheckpointError,
    CheckpointNotFoundError,
    CheckpointsDifferError,
    ChecksumMismatchError,
    CorruptCheckpointError,
    MappingError,
    MissingShardError,
    UnsupportedCheckpointError,
)
from tfport.checkpoint._inspect import classify, inspect_checkpoint
from tfport.checkpoint._paths import resolve_prefix, state_path
from tfport.checkpoint._reader import CheckpointReader, TensorEntry
from tfport.checkpoint._reports import ConvertReport, DiffResult, InspectReport, PortReport
from tfport.checkpoint._writer import CheckpointWriter

if TYPE_CHECKING:  # loaded on first use (they import TensorFlow): see __getattr__
    from tfport.checkpoint._port import assignment_map, port, restore


def __getattr__(name: str) -> object:
    # The model-facing API imports TensorFlow: load it only when asked for.
    if name in ("assignment_map", "restore", "port"):
        from tfport.checkpoint import _port

        return getattr(_port, name)
    raise AttributeError(f"module 'tfport.checkpoint' has no attribute {name!r}")


__all__ = [
    "ConvertReport",
    "DiffResult",
    "InspectReport",
    "PortReport",
    "CheckpointError",
    "CheckpointNotFoundError",
    "CheckpointReader",
    "CheckpointWriter",
    "CheckpointsDifferError",
    "ChecksumMismatchError",
    "CorruptCheckpointError",
    "MappingError",
    "MissingShardError",
    "TensorEntry",
    "UnsupportedCheckpointError",
    "assignment_map",
    "classify",
    "convert",
    "diff_checkpoints",
    "inspect_checkpoint",
    "port",
    "resolve_prefix",
    "restore",
    "state_path",
]
