"""The errors of the legacy checkpoint converter: tfport's one line, legacy's exception types.

Legacy's `tools/checkpoint_converter.py` let TensorFlow and protobuf raise: a missing
checkpoint or graph file gave `tf.errors.NotFoundError`, a graph that is not a text
GraphDef gave `google.protobuf.text_format.ParseError`. These classes are both those
types and tfport's :class:`TfportInputError` (CLI exit 2, one line), so code that
caught legacy's errors still catches them. This module imports TensorFlow (for its
error class); `checkpoint_converter` imports it only when it raises.

Example:
    >>> err = ConverterNotFoundError("No checkpoint at /x. Pass one. Received: path='/x'")
    >>> isinstance(err, tf.errors.NotFoundError), str(err)[:22]
    (True, 'No checkpoint at /x. P')
"""

from __future__ import annotations

from typing import Any

from google.protobuf import text_format

from tfport._common.errors import TfportInputError
from tfport._common.tfenv import import_tf
from tfport.checkpoint._errors import CheckpointNotFoundError

tf = import_tf()
_TF_NOT_FOUND: Any = tf.errors.NotFoundError


class GraphParseError(TfportInputError, text_format.ParseError):
    """`source_graph` is not a text-format GraphDef (legacy: `text_format.ParseError`)."""


class ConverterNotFoundError(CheckpointNotFoundError, _TF_NOT_FOUND):
    """A missing checkpoint or graph file (legacy: `tf.errors.NotFoundError`).

    Args:
        text: the one-line message.
    """

    def __init__(self, text: str) -> None:
        _TF_NOT_FOUND.__init__(self, None, None, text)

    def __str__(self) -> str:
        return self.message
