"""A canned estimator's configuration and checkpoint as a Keras 3 functional model.

Example:
    >>> model = build(estimator, None, {})  # doctest: +SKIP
    >>> model.save("model.keras")  # doctest: +SKIP
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import numpy as np

from tfport._common.errors import TfportInputError, message
from tfport._common.types import CannedHeadConfig
from tfport.checkpoint import CheckpointReader
from tfport.keras._columns import Columns, constant_row

if TYPE_CHECKING:
    from tfport.estimator import Estimator

FAMILIES = {
    "dnn_model_fn": "dnn",
    "linear_model_fn": "linear",
    "combined_model_fn": "combined",
    "baseline_model_fn": "baseline",
}
CONVERTIBLE = (
    "DNN*, Linear*, DNNLinearCombined*, Baseline* (Classifier, Regressor, Estimator; "
    "tf.estimator and tf.compat.v1.estimator)"
)
_ACTIVATIONS = ("relu", "relu6", "elu", "selu", "sigmoid", "tanh", "softplus", "softsign")


def canned_spec(estimator: Estimator) -> tuple[str, dict]:
    """(family, model_fn keyword arguments) of a canned estimator, or a one-line refusal.

    The canned classes bind `head`, feature columns, hidden units, ... into the model_fn
    they hand to `Estimator`; they are read back from that closure (`estimator._model_fn`).
    """
    fn = getattr(estimator, "_model_fn", None)
    found = None
    if callable(fn):
        try:
            closure = inspect.getclosurevars(fn).nonlocals
        except (TypeError, ValueError):
            closure = {}
        inner, kwargs = closure.get("model_fn"), closure.get("kwargs")
        family = FAMILIES.get(getattr(inner, "__name__", ""))
        if family and isinstance(kwargs, dict) and "head" in kwargs:
            found = family, dict(kwargs)
    if found is None:
        raise TfportInputError(
            message(
                f"Only canned estimators convert to Keras: {CONVERTIBLE}",
                "For a custom model_fn, export to a folder (OUT not ending in .keras; "
                "tfport.keras.export_model_fn), or move its weights with `tfport ckpt port`",
                estimator=type(estimator).__name__,
            )
        )
    return found


class Weights:
    """Variables of one checkpoint found by scope and name suffix (slots never match)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.names: list[str] | None = None
        self._cache: dict[str, np.ndarray] = {}
        self.by_id: dict[int, str] = {}  # id(array handed out) -> its variable name

    def __call__(self, scope: str, suffix: str) -> np.ndarray:
        if self.names is None:  # opened on first use: configuration errors come first
            with CheckpointReader(self.path) as reader:
                self.path, self.names = reader.prefix, reader.names()
        hits = [n for n in self.names if n.startswith(scope) and ("/" + n).endswith(suffix)]
        if len(hits) != 1:
            raise TfportInputError(
                message(
                    "The checkpoint does not hold the variable this estimator's "
                    f"configuration needs ({scope}...{suffix})",
                    "Pass the checkpoint this estimator wrote (same feature columns and "
                    "hidden units)",
                    checkpoint=self.path,
                    matches=hits,
                )
            )
        name = hits[0]
        if name not in self._cache:
            with CheckpointReader(self.path) as reader:
                self._cache[name] = np.asarray(reader.read(name))
                self.by_id[id(self._cache[name])] = name
        return self._cache[name]


def _activation(fn: object) -> str:
    name = fn if isinstance(fn, str) else getattr(fn, "__name__", repr(fn))
    if name in _ACTIVATIONS:
        return name
    raise TfportInputError(
        message(
            "The DNN activation_fn has no exact Keras 3 equivalent",
            "Use one of " + ", ".join(_ACTIVATIONS),
            activation_fn=name,
        )
    )


def _dnn(ctx: Columns, kw: dict, units: int, columns_key: str, prefix: str = "") -> Any:
    from keras import layers

    net = ctx.input_layer("dnn/", kw[columns_key])
    activation = _activation(kw.get(prefix + "activation_fn", "relu"))
    for i, width in enumerate(kw[prefix + "hidden_units"]):
        dense = layers.Dense(width, activation=activation, name=f"dnn_hiddenlayer_{i}")
        net = dense(net)
        base = f"/hiddenlayer_{i}/"
        ctx.assign.append((dense, [ctx.weight("dnn/", base + v) for v in ("kernel", "bias")]))
        if kw.get("batch_norm"):
            norm = layers.BatchNormalization(epsilon=1e-3, name=f"dnn_batchnorm_{i}")
            net = norm(net)
            values = [ctx.weight("dnn/", f"/batchnorm_{i}/{v}") for v in _BN]
            ctx.assign.append((norm, values))
    logits = layers.Dense(units, name="dnn_logits")
    ctx.assign.append((logits, [ctx.weight("dnn/", "/logits/" + v) for v in ("kernel", "bias")]))
    return logits(net)


_BN = ("gamma", "beta", "moving_mean", "moving_variance")


def _logits(ctx: Columns, family: str, kw: dict, units: int) -> Any:
    if family == "dnn":
        return _dnn(ctx, kw, units, "feature_columns")
    if family == "linear":
        return ctx.linear_model("linear/", kw["feature_columns"], units, kw["sparse_combiner"])
    if family == "combined":
        parts = []
        if kw.get("dnn_feature_columns"):
            parts.append(_dnn(ctx, kw, units, "dnn_feature_columns", prefix="dnn_"))
        if kw.get("linear_feature_columns"):
            combiner = kw.get("linear_sparse_combiner", "sum")
            parts.append(ctx.linear_model("linear/", kw["linear_feature_columns"], units, combiner))
        return parts[0] if len(parts) == 1 else parts[0] + parts[1]
    return None  # baseline: made once the inputs are known


def _baseline(ctx: Columns, head: CannedHeadConfig, baseline_input: str | None) -> Any:
    weight = head.weight_column
    key = baseline_input or (weight if isinstance(weight, str) else getattr(weight, "key", "x"))
    like = ctx.raw(key, "float32", (None,))
    return constant_row(ctx, "baseline_bias", ctx.weight("baseline/", "/bias"), like)


def _head_outputs(head: CannedHeadConfig, logits: Any) -> dict:
    from keras import layers, ops

    logits = layers.Identity(name="logits")(logits)
    if head.kind == "regression":
        return {"predictions": layers.Identity(name="predictions")(logits)}
    n, out = head.n_classes, {"logits": logits}
    if n == 2:
        out["logistic"] = layers.Activation("sigmoid", name="logistic")(logits)
        scores = ops.concatenate([ops.zeros_like(logits), logits], axis=-1)
    else:
        scores = logits
    out["probabilities"] = layers.Softmax(name="probabilities")(scores)
    out["class_ids"] = ops.cast(ops.expand_dims(ops.argmax(scores, axis=-1), -1), "int64")
    out["all_class_ids"] = ops.cast(ops.cumsum(ops.ones_like(scores), axis=1) - 1, "int32")
    names = [str(v) for v in head.vocabulary] if head.vocabulary else [str(i) for i in range(n)]
    invert = layers.StringLookup(vocabulary=names, invert=True, name="class_names")
    out["classes"] = invert(out["class_ids"] + 1)
    out["all_classes"] = invert(ops.cast(out["all_class_ids"], "int64") + 1)
    return out


def build(
    estimator: Estimator,
    checkpoint_path: str | None,
    input_shapes: dict | None,
    baseline_input: str | None = None,
) -> Any:
    """The Keras 3 functional model of `estimator` with the checkpoint's weights."""
    return build_with_names(estimator, checkpoint_path, input_shapes, baseline_input)[0]


def build_with_names(
    estimator: Estimator,
    checkpoint_path: str | None,
    input_shapes: dict | None,
    baseline_input: str | None = None,
) -> tuple[Any, dict]:
    """(model, {`layer/i`: checkpoint variable name}) for every weight read from the
    checkpoint (constant helpers, e.g. the zero kernel of a bias row, are left out)."""
    import keras

    family, kw = canned_spec(estimator)
    path = checkpoint_path or getattr(estimator, "model_dir", None)
    if not path:
        raise TfportInputError(
            message("The estimator has no model_dir", "Pass checkpoint_path", estimator=estimator)
        )
    weights = Weights(path)
    ctx = Columns(weights, input_shapes or {})
    head = kw["head"]
    logits = _logits(ctx, family, kw, head.logits_dimension)
    if logits is None:
        logits = _baseline(ctx, head, baseline_input)
    outputs = _head_outputs(head, logits)
    inputs = dict(sorted(ctx.inputs.items()))
    model = keras.Model(inputs=inputs, outputs=outputs, name=f"{type(estimator).__name__}")
    names = {}
    for layer, values in ctx.assign:
        layer.set_weights([np.asarray(v, np.float32) for v in values])
        for i, value in enumerate(values):
            if id(value) in weights.by_id:
                names[f"{layer.name}/{i}"] = weights.by_id[id(value)]
    return model, names
