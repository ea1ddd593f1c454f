"""`tf.estimator.MultiHead`: several heads trained together on one model's logits."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Labels, Mode, OptimizerArg, Tensor, TFModule
from tfport.estimator._engine.api.spec import EstimatorSpec, ModeKeys
from tfport.estimator._heads import base, head_outputs
from tfport.estimator._heads.base_head import keras_optimizer_train_op


class _TrainOpFn(TypedDict, total=False):
    """The keyword a head's TRAIN spec gets from `MultiHead` (its train_op_fn)."""

    train_op_fn: Callable[[Tensor], object]


class MultiHead(base.Head):
    """Sums the (weighted) losses of `heads`; predictions keyed `(head.name, key)`.

    Logits are a dict `{head.name: logits}` or one tensor that is split in the order of
    `heads` by their `logits_dimension`; labels a dict `{head.name: labels}`. Metric keys
    carry each head's name (`accuracy/head1`), plus `loss/<name>` per head.

    Example:
        >>> head = MultiHead([BinaryClassHead(name="a"), RegressionHead(name="b")])
        ... # doctest: +SKIP
    """

    _estimator_api_names = ("estimator.MultiHead",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.MultiHead",)

    def __init__(
        self, heads: Sequence[base.Head], head_weights: Sequence[float] | None = None
    ) -> None:
        heads = list(heads or [])
        if not heads:
            raise TfportInputError(
                message("Must specify heads", "Pass a list of heads", heads=heads)
            )
        for head in heads:
            if not isinstance(head, base.Head) or not head.name:
                raise TfportInputError(
                    message(
                        "All given heads must be tf.estimator.Head objects with a name",
                        "Build each head with name=...",
                        head=head,
                    )
                )
        if head_weights is not None and len(head_weights) != len(heads):
            raise TfportInputError(
                message(
                    "heads and head_weights must have the same size",
                    "Give one weight per head",
                    heads=len(heads),
                    head_weights=len(head_weights),
                )
            )
        reductions = {h.loss_reduction for h in heads}
        if len(reductions) > 1:
            raise TfportInputError(
                message(
                    "All heads of a MultiHead must have the same loss_reduction",
                    "Use one reduction",
                    loss_reductions=sorted(map(str, reductions)),
                )
            )
        self._heads = tuple(heads)
        self._weights = tuple(head_weights) if head_weights is not None else None

    name = property(lambda self: "_".join(h.name for h in self._heads))
    logits_dimension = property(lambda self: sum(h.logits_dimension for h in self._heads))
    loss_reduction = property(lambda self: self._heads[0].loss_reduction)
    heads = property(lambda self: self._heads)

    def _split_logits(self, logits: Tensor | Mapping[str, Tensor]) -> dict:
        tf = import_tf()
        if isinstance(logits, dict):
            missing = [h.name for h in self._heads if h.name not in logits]
            if missing:
                raise TfportInputError(
                    message("logits must hold every head's name", "Add them", missing_keys=missing)
                )
            return {h.name: logits[h.name] for h in self._heads}
        logits = tf.convert_to_tensor(logits)
        sizes = [h.logits_dimension for h in self._heads]
        return dict(zip([h.name for h in self._heads], tf.split(logits, sizes, axis=-1)))

    def _labels(self, labels: Labels) -> dict:
        if not isinstance(labels, dict):
            raise TfportInputError(
                message(
                    "MultiHead labels must be a dict {head name: labels}",
                    "Return a dict of labels from input_fn",
                    labels=type(labels).__name__,
                )
            )
        missing = [h.name for h in self._heads if h.name not in labels]
        if missing:
            raise TfportInputError(
                message("labels must hold every head's name", "Add them", missing_keys=missing)
            )
        return labels

    def _check_logits_and_labels(
        self, logits: Tensor | Mapping[str, Tensor], labels: Labels = None
    ) -> dict:
        """`{head name: logits}` (a dict as given, else split); checks that `logits` and
        `labels` (when given) hold every head's name."""
        if isinstance(logits, dict):
            missing = [h.name for h in self._heads if h.name not in logits]
            if missing:
                raise TfportInputError(
                    message(
                        "logits has missing values for head(s)",
                        "Give logits for every head name",
                        missing_heads=missing,
                    )
                )
            logits_dict = logits
        else:
            logits_dict = self._split_logits(logits)
        if labels is not None:
            self._labels(labels)
        return logits_dict

    def _merge_predict_export_outputs(self, all_estimator_spec: Any) -> dict:
        """The PREDICT export outputs of the heads' specs (in `heads` order), merged.

        `serving_default` is the first head's default output; each head's outputs under
        `<head name>` (its default) and `<head name>/<key>`; `predict` a PredictOutput of
        every head's predict outputs, keyed `<head name>/<output key>`.
        """
        predict_output = tf_internals.predict_output_class()
        default = _default_export_output(all_estimator_spec[0].export_outputs, self._heads[0].name)
        outputs = {head_outputs.SERVING_DEFAULT: default}
        merged: dict = {}
        for head, spec in zip(self._heads, all_estimator_spec):
            for key, value in spec.export_outputs.items():
                own = head.name if key == head_outputs.SERVING_DEFAULT else f"{head.name}/{key}"
                outputs[own] = value
                if key == head_outputs.PREDICT and isinstance(value, predict_output):
                    merged.update({f"{head.name}/{k}": v for k, v in value.outputs.items()})
        outputs[head_outputs.PREDICT] = predict_output(merged)
        return outputs

    def _weight(self, i: int) -> float:
        return 1.0 if self._weights is None else float(self._weights[i])

    def loss(
        self,
        labels: Labels,
        logits: Tensor | Mapping[str, Tensor],
        features: Features | None = None,
        mode: Mode | None = None,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> Any:
        """The weighted sum of the heads' training losses (plus regularization)."""
        tf = import_tf()
        labels = self._labels(labels)
        logits = self._check_logits_and_labels(logits, labels)
        total = tf.math.add_n(
            [
                h.loss(labels[h.name], logits[h.name], features, mode) * self._weight(i)
                for i, h in enumerate(self._heads)
            ]
        )
        if regularization_losses:
            total = total + tf.math.add_n(list(regularization_losses))
        return total

    def predictions(
        self, logits: Tensor | Mapping[str, Tensor], keys: str | Sequence[str] | None = None
    ) -> dict:
        """`{(head name, key): tensor}` over all heads."""
        logits = self._check_logits_and_labels(logits)
        out = {}
        for h in self._heads:
            for key, value in h.predictions(logits[h.name]).items():
                if keys is None or key in keys:
                    out[(h.name, key)] = value
        return out

    def metrics(self, regularization_losses: Sequence[Tensor] | None = None) -> dict:
        """Every head's metric objects (keys carry the head names)."""
        out: dict = {}
        for h in self._heads:
            out.update(h.metrics(regularization_losses))
        return out

    def update_metrics(  # type: ignore[override]  # legacy: no `mode` here
        self,
        eval_metrics: dict,
        features: Features,
        logits: Tensor | Mapping[str, Tensor],
        labels: Labels,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> dict:
        """Updates every head's metrics with one batch."""
        labels = self._labels(labels)
        logits = self._check_logits_and_labels(logits, labels)
        for h in self._heads:
            h.update_metrics(eval_metrics, features, logits[h.name], labels[h.name])
        return eval_metrics

    def create_estimator_spec(
        self,
        features: Features,
        mode: str,
        logits: Tensor | Mapping[str, Tensor],
        labels: Labels = None,
        optimizer: OptimizerArg | None = None,
        trainable_variables: Sequence[object] | None = None,
        train_op_fn: Callable[[Tensor], object] | None = None,
        update_ops: Sequence[object] | None = None,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> EstimatorSpec:
        """One spec over all heads: summed loss, merged predictions and metrics."""
        tf = import_tf()
        logits = self._check_logits_and_labels(logits, labels)
        specs = []
        for h in self._heads:
            head_labels = None if mode == ModeKeys.PREDICT else self._labels(labels)[h.name]
            # As legacy: each head builds its TRAIN spec with a no-op train_op_fn (its loss
            # summary, and its `training` name scope: the real train op's optimizer then
            # lives under `training_<number of heads>/`, as in legacy checkpoints).
            kwargs: _TrainOpFn = {"train_op_fn": _no_op_train_fn} if mode == ModeKeys.TRAIN else {}
            specs.append(
                h.create_estimator_spec(features, mode, logits[h.name], head_labels, **kwargs)
            )
        predictions = {
            (h.name, k): v for h, s in zip(self._heads, specs) for k, v in s.predictions.items()
        }
        if mode == ModeKeys.PREDICT:
            outputs = self._merge_predict_export_outputs(specs)
            return EstimatorSpec(mode, predictions=predictions, export_outputs=outputs)
        with tf.compat.v1.name_scope(None, "head"):
            loss = tf.math.add_n([s.loss * self._weight(i) for i, s in enumerate(specs)])
            if regularization_losses:
                loss = loss + tf.math.add_n(list(regularization_losses))
        if mode == ModeKeys.EVAL:
            metrics: dict = {}
            for h, s in zip(self._heads, specs):
                metrics.update(s.eval_metric_ops or {})
                metrics[f"loss/{h.name}"] = tf.compat.v1.metrics.mean(s.loss)
            return EstimatorSpec(mode, predictions=predictions, loss=loss, eval_metric_ops=metrics)
        train_op = _train_op(
            tf, loss, optimizer, trainable_variables, train_op_fn, update_ops, self.loss_reduction
        )
        with tf.compat.v1.get_default_graph().name_scope(None):
            tf.compat.v1.summary.scalar("loss", loss)
            if regularization_losses:
                reg = tf.math.add_n(list(regularization_losses))
                tf.compat.v1.summary.scalar("regularization_loss", reg)
        return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op)


def _train_op(
    tf: TFModule,
    loss: Tensor,
    optimizer: Any,
    variables: Sequence[object] | None,
    train_op_fn: Any,
    update_ops: Sequence[object] | None,
    reduction: str,
) -> Any:
    v1 = tf.compat.v1
    if (optimizer is None) == (train_op_fn is None):
        raise TfportInputError(
            message(
                "Exactly one of optimizer and train_op_fn is needed",
                "Pass one",
                optimizer=optimizer,
            )
        )
    with v1.get_default_graph().name_scope(None), v1.name_scope("training"):
        if optimizer is not None:
            if variables is None:
                variables = v1.trainable_variables()
            train_op = keras_optimizer_train_op(optimizer, loss, variables, reduction != "sum")
        else:
            train_op = train_op_fn(loss)
        extra = v1.get_collection(v1.GraphKeys.UPDATE_OPS) + list(update_ops or [])
        return tf.group(train_op, *extra) if extra else train_op


# -- legacy `multi_head`'s private helpers -------------------------------------------------
def _default_export_output(export_outputs: dict, head_name: str | None) -> Any:
    """A head's only export output, else its `serving_default` one (ValueError without)."""
    if len(export_outputs) == 1:
        return next(iter(export_outputs.values()))
    if "serving_default" in export_outputs:
        return export_outputs["serving_default"]
    raise ValueError(
        f"{head_name} did not specify default export_outputs. Given: {export_outputs} "
        "Suggested fix: Use one of the heads in tf.estimator, or include key serving_default "
        "in export_outputs."
    )


def _no_op_train_fn(loss: Tensor) -> Any:
    """A train_op_fn that trains nothing (`tf.no_op()`)."""
    del loss
    return import_tf().no_op()
