"""Estimator features/labels -> Keras model inputs/targets, with clear errors."""

from __future__ import annotations

from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features


def split_sample_weights(features: Features | None) -> tuple[Any, Any]:
    """Splits `{"features": ..., "sample_weights": ...}` (the legacy convention).

    Example:
        >>> split_sample_weights({"features": 1, "sample_weights": 2})
        (1, 2)
        >>> split_sample_weights({"x": 1})
        ({'x': 1}, None)
    """
    if isinstance(features, dict) and set(features) == {"features", "sample_weights"}:
        return features["features"], features["sample_weights"]
    return features, None


def ordered(obj: object, names: list[str] | None, what: str, where: str) -> list | None:
    """Returns `obj` (tensor, list or dict) as a list in the model's `names` order.

    Raises TfportInputError listing expected and received keys when a dict
    lacks some of `names`.

    Example:
        >>> [int(t) for t in ordered({"b": 2, "a": 1}, ["a", "b"], "features", "inputs")]
        [1, 2]
    """
    if obj is None:
        return None
    if isinstance(obj, (list, tuple)):
        return [_tensor(x) for x in obj]
    if isinstance(obj, dict):
        if names is None:
            return [_tensor(obj[k]) for k in sorted(obj)]
        missing = [n for n in names if n not in obj]
        if missing:
            raise TfportInputError(
                message(
                    f"The {what} dict does not cover the Keras model's {where}: "
                    f"missing {sorted(missing)}",
                    f"Key the {what} by the model's {where} names (a Sequential model's input "
                    f"is '<first layer name>_input')",
                    expected_keys=list(names),
                    received_keys=sorted(obj),
                )
            )
        return [_tensor(obj[n]) for n in names]
    return [_tensor(obj)]


def check_count(tensors: list | None, names: list[str], what: str) -> None:
    """Raises when a list/tensor of `what` has another length than the model's names.

    Example:
        >>> check_count([1], ["a"], "features")
    """
    if tensors is not None and names and len(tensors) != len(names):
        raise TfportInputError(
            message(
                f"Got {len(tensors)} {what} tensor(s) for a Keras model with {len(names)}",
                f"Return a dict keyed by {names} from the input_fn",
                expected_keys=list(names),
                received_count=len(tensors),
            )
        )


def _tensor(x: object) -> Any:
    tf = import_tf()
    if tf.is_tensor(x) or isinstance(x, tf.SparseTensor):
        return x
    return tf.compat.v1.convert_to_tensor_or_sparse_tensor(x)


def replicas_in_sync() -> int:
    """Replicas of the distribution strategy the model_fn runs under (1 without one).

    Example:
        >>> replicas_in_sync()  # doctest: +SKIP
        1
    """
    tf = import_tf()
    if not tf.distribute.has_strategy():
        return 1
    context = tf.distribute.get_replica_context()
    if context is None:
        return 1
    return int(context.num_replicas_in_sync)
