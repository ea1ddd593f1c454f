"""Serving input receivers: what an exported SavedModel takes as input."""

from __future__ import annotations

import collections
from collections.abc import Mapping
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Tensor

SINGLE_FEATURE_KEY = "feature"
SINGLE_RECEIVER_KEY = "input"
DEFAULT_EXAMPLES_KEY = "examples"


def _wrap(value: object, key: str, what: str) -> dict:
    tf = import_tf()
    if value is None:
        raise TfportInputError(message(f"{what} must not be None", "Pass tensors", **{what: None}))
    if not isinstance(value, dict):
        value = {key: value}
    for name, tensor in value.items():
        if not isinstance(name, str):
            raise TfportInputError(
                message(f"{what} keys must be strings", "Fix the keys", key=name)
            )
        if not isinstance(tensor, (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)):
            raise TfportInputError(
                message(
                    f"{what}[{name!r}] must be a tensor",
                    "Pass placeholders or tensors",
                    value=tensor,
                )
            )
    return value


class ServingInputReceiver(
    collections.namedtuple(
        "ServingInputReceiver", ["features", "receiver_tensors", "receiver_tensors_alternatives"]
    )
):
    """Features for model_fn and the tensors a served model receives.

    Example:
        >>> x = tf.compat.v1.placeholder(tf.float32, [None, 4])  # doctest: +SKIP
        >>> ServingInputReceiver({"x": x}, {"x": x})  # doctest: +SKIP
    """

    _estimator_api_names = (
        "estimator.export.ServingInputReceiver",
    )  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.export.ServingInputReceiver",)

    def __new__(
        cls,
        features: Features,
        receiver_tensors: Features,
        receiver_tensors_alternatives: Mapping[str, object] | None = None,
    ) -> ServingInputReceiver:
        features = _wrap(features, SINGLE_FEATURE_KEY, "features")
        receiver_tensors = _wrap(receiver_tensors, SINGLE_RECEIVER_KEY, "receiver_tensors")
        if receiver_tensors_alternatives is not None:
            receiver_tensors_alternatives = {
                k: _wrap(v, SINGLE_RECEIVER_KEY, "receiver_tensors_alternatives")
                for k, v in receiver_tensors_alternatives.items()
            }
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


class TensorServingInputReceiver(
    collections.namedtuple(
        "TensorServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"],
    )
):
    """Like ServingInputReceiver, but model_fn gets `features` as a single tensor.

    Example:
        >>> TensorServingInputReceiver(x, {"x": x})  # doctest: +SKIP
    """

    _estimator_api_names = (
        "estimator.export.TensorServingInputReceiver",
    )  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.export.TensorServingInputReceiver",)

    def __new__(
        cls,
        features: Tensor,
        receiver_tensors: Features,
        receiver_tensors_alternatives: Mapping[str, object] | None = None,
    ) -> TensorServingInputReceiver:
        tf = import_tf()
        if not isinstance(features, (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)):
            raise TfportInputError(
                message(
                    "TensorServingInputReceiver.features must be a single tensor",
                    "Use ServingInputReceiver for dicts",
                    features=features,
                )
            )
        receiver = ServingInputReceiver(
            {SINGLE_FEATURE_KEY: features}, receiver_tensors, receiver_tensors_alternatives
        )
        return super().__new__(
            cls, features, receiver.receiver_tensors, receiver.receiver_tensors_alternatives
        )


def build_parsing_serving_input_receiver_fn(
    feature_spec: dict, default_batch_size: int | None = None
):
    """Returns a receiver_fn that parses serialized `tf.Example`s with `feature_spec`.

    Example:
        >>> fn = build_parsing_serving_input_receiver_fn(
        ...     {"x": tf.io.FixedLenFeature([4], tf.float32)})  # doctest: +SKIP
    """

    def serving_input_receiver_fn() -> ServingInputReceiver:
        tf = import_tf()
        serialized = tf.compat.v1.placeholder(
            dtype=tf.string, shape=[default_batch_size], name="input_example_tensor"
        )
        features = tf.compat.v1.io.parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {DEFAULT_EXAMPLES_KEY: serialized})

    return serving_input_receiver_fn


def build_raw_serving_input_receiver_fn(features: dict, default_batch_size: int | None = None):
    """Returns a receiver_fn that feeds placeholders shaped like `features` to model_fn.

    Example:
        >>> fn = build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 4])})  # doctest: +SKIP
    """

    def serving_input_receiver_fn() -> ServingInputReceiver:
        tf = import_tf()
        receivers = {}
        for name, tensor in features.items():
            shape = [default_batch_size] + list(tensor.shape[1:])
            receivers[name] = tf.compat.v1.placeholder(dtype=tensor.dtype, shape=shape, name=name)
        return ServingInputReceiver(receivers, dict(receivers))

    return serving_input_receiver_fn


class SupervisedInputReceiver(
    collections.namedtuple("SupervisedInputReceiver", ["features", "labels", "receiver_tensors"])
):
    """Features, labels and the tensors fed to them, for TRAIN/EVAL exports.

    Example:
        >>> SupervisedInputReceiver({"x": x}, y, {"x": x, "y": y})  # doctest: +SKIP
    """

    def __new__(
        cls,
        features: Tensor | Mapping[str, object],
        labels: Tensor | Mapping[str, object],
        receiver_tensors: Features,
    ) -> Any:
        _wrap(features, SINGLE_FEATURE_KEY, "features")
        _wrap(labels, "labels", "labels")
        receiver_tensors = _wrap(receiver_tensors, SINGLE_RECEIVER_KEY, "receiver_tensors")
        return super().__new__(cls, features, labels, receiver_tensors)


def build_raw_supervised_input_receiver_fn(
    features: Tensor | Mapping[str, object],
    labels: Tensor | Mapping[str, object],
    default_batch_size: int | None = None,
) -> Any:
    """A receiver_fn taking raw features and labels (placeholders shaped like the given).

    `features` and `labels` are tensors or dicts of tensors (keys must not collide).

    Example:
        >>> fn = build_raw_supervised_input_receiver_fn({"x": x}, y)  # doctest: +SKIP
        >>> fn().labels  # doctest: +SKIP
    """
    tf = import_tf()
    if isinstance(features, dict) and isinstance(labels, dict):
        both = sorted(set(features) & set(labels))
        if both:
            raise TfportInputError(
                message(
                    "features and labels must not share keys",
                    "Rename the labels' keys",
                    shared_keys=both,
                )
            )
    for what, value in (("features", features), ("labels", labels)):
        items = value.values() if isinstance(value, dict) else [value]
        if not items or not all(isinstance(t, tf.Tensor) for t in items):
            raise TfportInputError(
                message(
                    f"{what} must be a Tensor or a dict of Tensors",
                    "Pass tensors shaped like one batch",
                    **{what: value},
                )
            )

    def placeholders(value: Any, default_name: str) -> tuple[Any, dict]:
        v1 = tf.compat.v1
        if isinstance(value, dict):
            made = {
                k: v1.placeholder(t.dtype, [default_batch_size] + t.shape.as_list()[1:], name=k)
                for k, t in value.items()
            }
            return made, dict(made)
        shape = [default_batch_size] + value.shape.as_list()[1:]
        made = v1.placeholder(value.dtype, shape, name=default_name)
        return made, {default_name: made}

    def supervised_input_receiver_fn() -> SupervisedInputReceiver:
        feats, feat_receivers = placeholders(features, "input")
        labs, label_receivers = placeholders(labels, "label")
        return SupervisedInputReceiver(feats, labs, {**feat_receivers, **label_receivers})

    return supervised_input_receiver_fn


# -- legacy `export.export`'s private helpers (receiver_fns written against them) ----------
def _check_tensor(tensor: object, name: object, error_label: str = "feature") -> None:
    """ValueError unless `tensor` is a Tensor, SparseTensor or RaggedTensor (or converts)."""
    tf = import_tf()
    if isinstance(tensor, (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)):
        return
    problem = ValueError(
        f"{error_label}{f' {name}' if name else ''} must be a Tensor, SparseTensor, or "
        "RaggedTensor."
    )
    if not hasattr(tensor, "tensor"):  # a Keras or distributed value converts
        raise problem
    try:
        tf.convert_to_tensor(tensor)
    except TypeError:
        raise problem from None


def _check_tensor_key(name: object, error_label: str = "feature", allow_ints: bool = False) -> None:
    """ValueError unless a receiver dict key is a string (or an int with `allow_ints`)."""
    if isinstance(name, str):
        return
    if not allow_ints:
        raise ValueError(f"{error_label} keys must be strings: {name}.")
    if not isinstance(name, int):
        raise ValueError(f"{error_label} keys must be strings or ints: {name}.")


def _placeholder_from_tensor(t: Any, default_batch_size: int | None = None) -> Any:
    """A placeholder like `t` (its op's name, dtype, shape), batch size `default_batch_size`."""
    tf = import_tf()
    shape = tf.TensorShape([default_batch_size]).concatenate(t.get_shape()[1:])
    name = getattr(getattr(t, "op", None), "name", None)
    return tf.compat.v1.placeholder(dtype=t.dtype, shape=shape, name=name)


def _placeholders_from_receiver_tensors_dict(
    input_vals: dict, default_batch_size: int | None = None
) -> dict:
    """`{name: placeholder like the tensor}` for a dict of tensors."""
    return {k: _placeholder_from_tensor(t, default_batch_size) for k, t in input_vals.items()}


def wrap_and_check_input_tensors(
    tensors: Any, field_name: str, allow_int_keys: bool = False
) -> dict:
    """`{key: tensor}` from a tensor or dict (a single tensor gets the default key).

    Example:
        >>> wrap_and_check_input_tensors(t, "features")  # doctest: +SKIP
    """
    tf = import_tf()
    if not isinstance(tensors, dict):
        default = "label" if field_name == "labels" else SINGLE_FEATURE_KEY
        tensors = {default: tensors}
    for name, tensor in tensors.items():
        ok_key = isinstance(name, str) or (allow_int_keys and isinstance(name, int))
        if not ok_key:
            raise ValueError(f"{field_name} keys must be strings: {name}.")
        if not isinstance(tensor, (tf.Tensor, tf.SparseTensor)):
            raise ValueError(f"{field_name} must be Tensor or SparseTensor: {tensor}.")
    return tensors


def build_supervised_input_receiver_fn_from_input_fn(input_fn: Any, **input_fn_args: Any) -> Any:
    """A receiver fn whose placeholders match what `input_fn(**input_fn_args)` returns.

    Example:
        >>> fn = build_supervised_input_receiver_fn_from_input_fn(train_input_fn)
        ... # doctest: +SKIP
    """
    from tfport.estimator._engine.api import receivers

    tf = import_tf()
    with tf.Graph().as_default():
        result = input_fn(**input_fn_args)
        if isinstance(result, tf.data.Dataset):
            result = tf.compat.v1.data.make_one_shot_iterator(result).get_next()
        features, labels = result if isinstance(result, (list, tuple)) else (result, None)
        specs = tf.nest.map_structure(_spec, (features, labels))
    return receivers.build_raw_supervised_input_receiver_fn(
        tf.nest.map_structure(_placeholder_maker, specs[0]),
        tf.nest.map_structure(_placeholder_maker, specs[1]),
    )


def _spec(t: Any) -> Any:
    return (t.dtype, t.shape)


def _placeholder_maker(spec: Any) -> Any:
    return import_tf().compat.v1.placeholder(spec[0], spec[1])
