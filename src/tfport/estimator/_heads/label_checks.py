"""Label checks of the heads: clear errors naming the labels that are wrong.

A label's dtype is checked while the graph is built. Label values are only known at run
time: the heads add assertions whose message starts with `LABEL_MARKER`, and
`translate_run_error` turns the resulting `InvalidArgumentError` into a `TfportInputError`.

Example:
    >>> translate_run_error(ValueError("x"))
    ValueError('x')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Tensor

LABEL_MARKER = "tfport-canned-label-check"


def check_label_dtype(labels: Tensor, vocabulary: Sequence[str] | None, kind: str) -> None:
    """Raises when labels' dtype cannot be used by the head (before any graph work).

    Example:
        >>> check_label_dtype(labels, None, "multi_class")  # doctest: +SKIP
    """
    tf = import_tf()
    dtype = tf.as_dtype(labels.dtype)
    if vocabulary is not None and dtype != tf.string:
        raise TfportInputError(
            message(
                "labels must be strings when label_vocabulary is given",
                "Return string labels or drop label_vocabulary",
                labels_dtype=dtype.name,
            )
        )
    if vocabulary is None and dtype == tf.string:
        raise TfportInputError(
            message(
                "labels are strings but the estimator has no label_vocabulary",
                "Pass label_vocabulary=[...] or return integer class ids",
                labels_dtype=dtype.name,
            )
        )
    if vocabulary is None and kind == "multi_class" and not dtype.is_integer:
        raise TfportInputError(
            message(
                "labels of a multi-class classifier must be integer class ids",
                "Cast labels to int64 in input_fn",
                labels_dtype=dtype.name,
            )
        )


def assert_labels(condition: object, labels: Tensor, what: str) -> Any:
    """An assertion op on label values; its failure is translated by `translate_run_error`.

    The failing message carries only the offending labels. `what` must not hold brackets.

    Example:
        >>> assert_labels(labels >= 0, labels, "labels must be >= 0")  # doctest: +SKIP
    """
    tf = import_tf()
    bad = tf.boolean_mask(labels, tf.logical_not(condition))
    return tf.debugging.Assert(
        tf.reduce_all(condition), [f"{LABEL_MARKER}: {what}", bad], summarize=10
    )


_FOUND = re.compile(re.escape(LABEL_MARKER) + r": ([^\]]*)\] \[(.*?)\]\s*(?:\n|$)", re.S)


def translate_run_error(err: Exception) -> Exception:
    """The `TfportInputError` for a failed label assertion, else `err` itself.

    Example:
        >>> translate_run_error(ValueError("x"))
        ValueError('x')
    """
    text = str(getattr(err, "message", err))
    if LABEL_MARKER not in text:
        return err
    found = _FOUND.search(text)
    what = found.group(1).strip() if found else "labels are out of range"
    received = found.group(2).split() if found else "?"
    return TfportInputError(message(what, "Fix the labels returned by input_fn", labels=received))
