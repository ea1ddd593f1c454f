"""Each replica's share of the global batch: the factor its mean-reduced loss is scaled by.

Under N replicas every replica computes the mean loss of its own minibatch and the
replicas' gradients are summed. One device's gradient is the mean over the global
batch, so replica r's loss must be weighted by `b_r / B` (its minibatch size over the
global batch size). When the global batch divides evenly that is the usual `1/N`; on
a short or uneven last batch it is not. The replicated step sets each replica's share
(`scope`); the loss-scaling sites (v1 and Keras optimizers, heads, CrossShardOptimizer)
read it with `mean_scale()`.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from tfport._common.tfenv import import_tf
from tfport._common.types import TFModule

_LOCAL = threading.local()  # replica functions run in one thread per replica


@contextlib.contextmanager
def scope(share: object) -> Iterator[None]:
    """Makes `share` (a scalar tensor, b_r / B) this replica thread's loss factor.

    Example:
        >>> with scope(0.5):
        ...     mean_scale()
        0.5
    """
    previous = getattr(_LOCAL, "share", None)
    _LOCAL.share = share
    try:
        yield
    finally:
        _LOCAL.share = previous


def mean_scale() -> Any:
    """The factor for this replica's mean-reduced loss: its batch share, else 1/N.

    Returns 1.0 outside any strategy.

    Example:
        >>> mean_scale()
        1.0
    """
    share = getattr(_LOCAL, "share", None)
    tf = import_tf()
    if share is not None and not _elsewhere(tf, share):
        return share
    replicas = tf.distribute.get_strategy().num_replicas_in_sync
    return 1.0 / replicas if replicas > 1 else 1.0


def _elsewhere(tf: TFModule, share: object) -> bool:
    """True when code runs eagerly or in another graph than the share's (Keras 3 builds
    its losses once eagerly, a pass whose values are dropped): the share can't be used."""
    if not tf.is_tensor(share) or not hasattr(share, "graph"):
        return False
    if tf.executing_eagerly():
        return True
    graph = tf.compat.v1.get_default_graph()
    while graph is not None and graph is not share.graph:
        graph = getattr(graph, "outer_graph", None)
    return graph is None


def scaled(loss: Any) -> Any:
    """`loss * mean_scale()` (unchanged outside replicas).

    Example:
        >>> scaled(2.0)
        2.0
    """
    factor = mean_scale()
    if isinstance(factor, float) and factor == 1.0:
        return loss
    tf = import_tf()
    return loss * tf.cast(factor, loss.dtype) if tf.is_tensor(factor) else loss * factor


def unscaled(loss: Any) -> Any:
    """`loss / mean_scale()`: a scaled loss back to this replica's own value.

    Example:
        >>> unscaled(2.0)
        2.0
    """
    factor = mean_scale()
    if isinstance(factor, float) and factor == 1.0:
        return loss
    tf = import_tf()
    factor = tf.cast(factor, loss.dtype) if tf.is_tensor(factor) else factor
    return tf.math.divide_no_nan(loss, factor)
