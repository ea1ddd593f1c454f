"""Legacy `tpu_estimator`'s graph checks and small helpers, with legacy's results and errors.

`_CapturingContext(message)` refuses ops that read a TPU computation's tensors (graph
code run around it, such as a `scaffold_fn`), `_validate_tpu_training_graph(ctx)` wants a
`CrossReplicaSum` when several replicas train under v1 control flow,
`_verify_cross_hosts_transfer_size` refuses tensors of 1 GiB or more, `_NotSaver` stands
in for a saver that only logs, and `_check_add_preemption_hook(cluster)` says whether a
Cloud TPU preemption hook applies (only on Google Compute Engine with a
`TPUClusterResolver` whose Cloud TPU API answers).

Example:
    >>> _NotSaver("no checkpoints").save("ignored")
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import GraphTensor, TPUDeployment

tf = import_tf()
log = logging.getLogger("tfport")
_CROSS_REPLICA_SUM_OP = "CrossReplicaSum"
_ONE_GIGABYTE = 1024 * 1024 * 1024


class _NotSaver:
    """A saver whose `save` logs `message` instead of saving.

    Example:
        >>> _NotSaver("saving is off").save()
    """

    def __init__(self, message: str) -> None:
        self._message = message

    def save(self, *args: object, **kwargs: object) -> None:
        """Logs the message (nothing is saved)."""
        del args, kwargs
        log.info(self._message)


class _CapturingContext(tf_internals.control_flow_context_class()):  # type: ignore[misc]
    """A graph context refusing ops whose inputs come from a TPU computation.

    Example:
        >>> with _CapturingContext(message="Inside scaffold_fn"):  # doctest: +SKIP
        ...     scaffold = scaffold_fn()
    """

    def __init__(self, message: str) -> None:
        super().__init__()
        self._message = message

    def to_control_flow_context_def(
        self, context_def: object, export_scope: str | None = None
    ) -> Any:
        """The base context's (this context adds nothing to a MetaGraph)."""
        return super().to_control_flow_context_def(context_def, export_scope)

    def AddOp(self, op: Any) -> None:  # noqa: N802 - legacy's name
        """Raises ValueError for an op with an input made inside a TPU computation."""
        attr = tf_internals.tpu_replicate_attr()
        for c in op.inputs:
            if attr in c.op.node_def.attr:
                raise ValueError(
                    f"{self._message}: Op {op} depends on TPU computation {c}, which is not "
                    "allowed."
                )

    def AddValue(self, value: GraphTensor) -> Any:  # noqa: N802 - legacy's name
        """Checks `value`'s op, returns `value`."""
        self.AddOp(value.op)
        return value

    def __enter__(self) -> None:
        self.Enter()

    def __exit__(self, _: object, __: object, ___: object) -> None:
        self.Exit()


def _validate_tpu_training_graph(ctx: TPUDeployment) -> None:
    """Raises ValueError when several replicas train without a `CrossReplicaSum` op (a
    CrossShardOptimizer's); nothing to check under control flow v2 (TF2's default).

    Example:
        >>> _validate_tpu_training_graph(ctx)  # doctest: +SKIP
    """
    if tf.compat.v1.control_flow_v2_enabled():
        return
    ops = tf.compat.v1.get_default_graph().get_operations()
    if not any(o.type == _CROSS_REPLICA_SUM_OP for o in ops) and ctx.num_replicas > 1:
        raise ValueError("CrossShardOptimizer must be used for model training on TPUs.")


def _verify_cross_hosts_transfer_size(tensor_dict: Any, message: str) -> None:
    """Raises ValueError when the tensors of `tensor_dict` hold 1 GiB or more together.

    Example:
        >>> _verify_cross_hosts_transfer_size({"x": tf.zeros([2, 3])}, "outfeed")
        ... # doctest: +SKIP
    """
    total = 0
    shapes = {}
    for key, tensor in tensor_dict.items():
        shapes[key] = tensor.shape
        total += np.prod(tensor.shape) * tensor.dtype.size
    if total >= _ONE_GIGABYTE:
        listed = "\n".join(f" -- Key: {k}, Shape: {v}" for k, v in shapes.items())
        raise ValueError(
            f"{message} The transfer size is larger than the protobuf limit. Please consider "
            "to use Tensors with smaller shapes or reduce batch size. Given:\n" + listed
        )


def _check_add_preemption_hook(cluster: object) -> Any:
    """Whether a Cloud TPU preemption hook applies: on Google Compute Engine, `cluster`
    a `TPUClusterResolver` whose Cloud TPU API is available (legacy's falsy value else:
    TensorFlow's GCE check always answers True, so `None` for no cluster).

    Example:
        >>> _check_add_preemption_hook(TPUClusterResolver("local"))  # doctest: +SKIP
        False
    """
    return (
        tf_internals.is_running_in_gce()
        and cluster
        and isinstance(cluster, tf.distribute.cluster_resolver.TPUClusterResolver)
        and tf_internals.cloud_tpu_client(cluster).api_available()
    )
