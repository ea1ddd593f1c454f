"""Typed errors of the checkpoint toolkit (all are `TfportError`s, so the CLI maps them).

Example:
    >>> issubclass(CorruptCheckpointError, ValueError)
    True
"""

from __future__ import annotations

from tfport._common.errors import TfportInputError, TfportOperationError


class CheckpointError(TfportInputError):
    """Base class: the checkpoint given cannot be used as it is (CLI exit 2)."""


class CheckpointNotFoundError(CheckpointError, FileNotFoundError):
    """No checkpoint at the path given (no `.index`, no `checkpoint` file)."""


class MissingShardError(CheckpointNotFoundError):
    """The index names a `.data-NNNNN-of-MMMMM` shard that is not on disk."""


class CorruptCheckpointError(CheckpointError):
    """The index or a data shard is malformed, truncated or inconsistent."""


class ChecksumMismatchError(CorruptCheckpointError):
    """A tensor's bytes do not match the crc32c recorded in the index."""


class UnsupportedCheckpointError(CheckpointError):
    """A valid checkpoint using a feature tfport does not handle (say which)."""


class MappingError(CheckpointError):
    """Checkpoint names could not be matched onto a model without ambiguity."""


class CheckpointsDifferError(TfportOperationError):
    """`diff` found differences (CLI exit 1)."""
