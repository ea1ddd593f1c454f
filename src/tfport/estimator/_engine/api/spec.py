"""`ModeKeys` and `EstimatorSpec`, validated as the legacy Estimator validated them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Hook, TFModule


class ModeKeys:
    """Standard names for Estimator modes (the legacy string values).

    Example:
        >>> ModeKeys.PREDICT
        'infer'
    """

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


class _EstimatorSpecFields(NamedTuple):
    """EstimatorSpec's fields, in the legacy order (a namedtuple, as legacy's was)."""

    mode: str
    predictions: Any
    loss: Any
    train_op: Any
    eval_metric_ops: dict[str, Any] | None
    export_outputs: dict[str, Any] | None
    training_chief_hooks: tuple[Any, ...]
    training_hooks: tuple[Any, ...]
    scaffold: Any
    evaluation_hooks: tuple[Any, ...]
    prediction_hooks: tuple[Any, ...]


class EstimatorSpec(_EstimatorSpecFields):
    """What a `model_fn` returns: the ops and objects of one mode.

    TRAIN needs `loss` and `train_op`, EVAL needs `loss`, PREDICT needs
    `predictions`. Errors name the field and the received value.

    Example:
        >>> spec = EstimatorSpec(ModeKeys.PREDICT, predictions={"y": y})  # doctest: +SKIP
    """

    _estimator_api_names = ("estimator.EstimatorSpec",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.EstimatorSpec",)

    def __new__(
        cls,
        mode: str,
        predictions: object = None,
        loss: object = None,
        train_op: object = None,
        eval_metric_ops: dict | None = None,
        export_outputs: dict | None = None,
        training_chief_hooks: Iterable[Hook] | None = None,
        training_hooks: Iterable[Hook] | None = None,
        scaffold: object = None,
        evaluation_hooks: Iterable[Hook] | None = None,
        prediction_hooks: Iterable[Hook] | None = None,
    ) -> EstimatorSpec:
        tf = import_tf()
        _check_mode(mode)
        predictions = _check_predictions(tf, mode, predictions)
        loss = _check_loss(tf, mode, loss)
        if mode == ModeKeys.TRAIN and train_op is None:
            raise TfportInputError(
                message(
                    "EstimatorSpec for mode TRAIN has no train_op",
                    "Return the op that applies the gradients, e.g. optimizer.minimize(loss, "
                    "global_step=tf.compat.v1.train.get_global_step())",
                    train_op=train_op,
                )
            )
        if train_op is not None and not isinstance(train_op, (tf.Operation, tf.Tensor)):
            if hasattr(train_op, "op"):
                train_op = train_op.op
            else:
                raise TfportInputError(
                    message(
                        "EstimatorSpec.train_op must be a tf.Operation or tf.Tensor",
                        "Return the result of optimizer.minimize(...) or tf.group(...)",
                        train_op=train_op,
                    )
                )
        eval_metric_ops = _check_metric_ops(tf, eval_metric_ops)
        export_outputs = _check_export_outputs(export_outputs)
        scaffold = scaffold or tf.compat.v1.train.Scaffold()
        hooks = {}
        for name, value in (
            ("training_chief_hooks", training_chief_hooks),
            ("training_hooks", training_hooks),
            ("evaluation_hooks", evaluation_hooks),
            ("prediction_hooks", prediction_hooks),
        ):
            hooks[name] = check_hooks(tf, value, f"EstimatorSpec.{name}")
        return super().__new__(
            cls,
            mode=mode,
            predictions=predictions,
            loss=loss,
            train_op=train_op,
            eval_metric_ops=eval_metric_ops,
            export_outputs=export_outputs,
            scaffold=scaffold,
            **hooks,
        )

    def _replace(self, **kwds: object) -> EstimatorSpec:
        """A copy with the fields in `kwds` replaced, validated again (legacy's signature)."""
        fields = self._asdict()
        fields.update(kwds)
        return EstimatorSpec(**fields)


def _check_mode(mode: object) -> None:
    if mode not in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
        raise TfportInputError(
            message(
                "EstimatorSpec.mode must be one of ModeKeys.TRAIN, EVAL or PREDICT",
                "Pass the `mode` argument your model_fn received",
                mode=mode,
            )
        )


def _is_tensorlike(tf: TFModule, value: object) -> bool:
    return isinstance(value, (tf.Tensor, tf.SparseTensor, tf.Variable)) or hasattr(value, "op")


def _check_predictions(tf: TFModule, mode: str, predictions: object) -> Any:
    if predictions is None:
        if mode == ModeKeys.PREDICT:
            raise TfportInputError(
                message(
                    "EstimatorSpec for mode PREDICT has no predictions",
                    "Return a tensor or a dict of tensors as `predictions`",
                    predictions=predictions,
                )
            )
        return {}
    items = predictions.items() if isinstance(predictions, dict) else [("predictions", predictions)]
    for key, value in items:
        if not _is_tensorlike(tf, value):
            raise TfportInputError(
                message(
                    f"EstimatorSpec.predictions[{key!r}] must be a tensor",
                    "Return tensors built inside model_fn",
                    predictions=value,
                )
            )
    return predictions


def _check_loss(tf: TFModule, mode: str, loss: Any) -> Any:
    if loss is None:
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise TfportInputError(
                message(
                    f"EstimatorSpec for mode {mode.upper()} has no loss",
                    "Return a scalar loss tensor as `loss`",
                    loss=loss,
                )
            )
        return None
    if not _is_tensorlike(tf, loss):
        raise TfportInputError(
            message("EstimatorSpec.loss must be a scalar tensor", "Return a tensor", loss=loss)
        )
    shape = loss.shape
    if shape.rank is not None and shape.num_elements() not in (None, 1):
        raise TfportInputError(
            message(
                "EstimatorSpec.loss must be a scalar",
                "Reduce it, e.g. tf.reduce_mean(per_example_loss)",
                loss_shape=str(shape),
            )
        )
    if shape.rank not in (None, 0):
        loss = tf.reshape(loss, [])
    return loss


def _check_metric_ops(tf: TFModule, metric_ops: object) -> dict:
    if metric_ops is None:
        return {}
    if not isinstance(metric_ops, dict):
        raise TfportInputError(
            message(
                "EstimatorSpec.eval_metric_ops must be a dict of name -> (value_op, update_op) "
                "or Keras Metric",
                "Return e.g. {'accuracy': tf.compat.v1.metrics.accuracy(labels, classes)}",
                eval_metric_ops=metric_ops,
            )
        )
    for key, value in metric_ops.items():
        is_metric = hasattr(value, "result") and hasattr(value, "update_state")
        if not is_metric and not (isinstance(value, tuple) and len(value) == 2):
            raise TfportInputError(
                message(
                    f"EstimatorSpec.eval_metric_ops[{key!r}] must be a (value_op, update_op) "
                    "pair or a Keras Metric",
                    "Use tf.compat.v1.metrics.* or a tf.keras.metrics.Metric object",
                    value=value,
                )
            )
    return dict(metric_ops)


def _check_export_outputs(export_outputs: object) -> Any:
    if export_outputs is None:
        return None
    if not isinstance(export_outputs, dict):
        raise TfportInputError(
            message(
                "EstimatorSpec.export_outputs must be a dict of signature name -> ExportOutput",
                "Use tfport.estimator.export.PredictOutput(...) etc.",
                export_outputs=export_outputs,
            )
        )
    from tfport._common import tf_internals

    export_output_class = tf_internals.export_output_class()
    for key, value in export_outputs.items():
        if not isinstance(key, str) or not isinstance(value, export_output_class):
            raise TfportInputError(
                message(
                    "EstimatorSpec.export_outputs entries must be str -> ExportOutput",
                    "Use tfport.estimator.export.PredictOutput / ClassificationOutput / "
                    "RegressionOutput",
                    key=key,
                    value=value,
                )
            )
    return dict(export_outputs)


def check_hooks(tf: TFModule, hooks: Iterable[object] | None, where: str) -> tuple:
    """Returns `hooks` as a tuple, checking each is a `SessionRunHook`.

    Example:
        >>> check_hooks(tf, None, "train(hooks)")  # doctest: +SKIP
        ()
    """
    hooks = tuple(hooks or ())
    for hook in hooks:
        if not isinstance(hook, tf.compat.v1.train.SessionRunHook):
            raise TfportInputError(
                message(
                    f"{where} must hold tf.compat.v1.train.SessionRunHook objects",
                    "Subclass SessionRunHook or pass tfport.estimator hooks",
                    hook=hook,
                )
            )
    return hooks


# -- legacy `model_fn`'s private validators, with its signatures (libraries building or
# checking their own specs call them; `tfport._legacy_tree` places them) --------------------
def _validate_estimator_spec_loss(loss: object, mode: str) -> Any:
    """The spec's scalar loss (None outside TRAIN/EVAL), checked as `EstimatorSpec` does."""
    return _check_loss(import_tf(), mode, loss)


def _validate_estimator_spec_predictions(predictions: object, mode: str) -> Any:
    """The spec's predictions (a tensor or dict of tensors), checked as `EstimatorSpec` does."""
    return _check_predictions(import_tf(), mode, predictions)


def _validate_estimator_spec_train_op(train_op: object, mode: str) -> Any:
    """The spec's train_op, a tensor or an operation (None outside TRAIN); legacy's errors."""
    if train_op is None:
        if mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        return None
    _check_is_tensor_or_operation(train_op, "train_op")
    return train_op


def _validate_estimator_spec_hooks(hooks: Iterable[object] | None) -> tuple:
    """`hooks` as a tuple of SessionRunHooks (TypeError otherwise, as legacy)."""
    tf = import_tf()
    hooks = tuple(hooks or ())
    for hook in hooks:
        if not isinstance(hook, tf.compat.v1.train.SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook}")
    return hooks


def _validate_estimator_spec_export_outputs(
    export_outputs: object, predictions: object, mode: str
) -> Any:
    """The export outputs of a PREDICT spec (TensorFlow's `get_export_outputs`: given ones
    checked, a default `PredictOutput` of `predictions` added); other modes' unchanged."""
    if mode != ModeKeys.PREDICT:
        return export_outputs
    from tfport._common import tf_internals

    return tf_internals.get_export_outputs(export_outputs, predictions)


def _validate_eval_metric_ops(eval_metric_ops: object) -> dict:
    """`eval_metric_ops` as a dict of (value, update) pairs or Keras metrics."""
    return _check_metric_ops(import_tf(), eval_metric_ops)


def _validate_scaffold(scaffold: object) -> Any:
    """`scaffold`, or a default `Scaffold` (TypeError for anything else, as legacy)."""
    tf = import_tf()
    scaffold = scaffold or tf.compat.v1.train.Scaffold()
    if not isinstance(scaffold, tf.compat.v1.train.Scaffold):
        raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")
    return scaffold


def _check_is_tensor_or_operation(x: object, name: str) -> None:
    """TypeError unless `x` is a tf.Operation or a tensor."""
    tf = import_tf()
    if not isinstance(x, (tf.Operation, tf.Tensor, tf.Variable)):
        raise TypeError(f"{name} must be Operation or Tensor, given: {x}")


def _check_is_tensor(x: object, tensor_name: str) -> Any:
    """`x` if it is a tensor (TypeError otherwise)."""
    tf = import_tf()
    if not isinstance(x, (tf.Tensor, tf.Variable)):
        raise TypeError(f"{tensor_name} must be Tensor, given: {x}")
    return x


def _update_variable_collection(collection_name: str, vars_to_add: Iterable[object]) -> None:
    """Adds to graph collection `collection_name` the variables it does not hold yet."""
    v1 = import_tf().compat.v1
    held = set(v1.get_collection(collection_name))
    for variable in set(vars_to_add) - held:
        v1.add_to_collection(collection_name, variable)
