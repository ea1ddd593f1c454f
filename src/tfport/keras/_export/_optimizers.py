"""A canned estimator's optimizer and head loss as their exact Keras 3 equivalents.

Only what maps exactly is mapped; anything else is refused in one line naming it.
The optimizer is the one the estimator's model_fn makes (tfport's canned resolution:
names, instances, callables, the families' default learning rates).

Example:
    >>> keras_optimizer(estimator_optimizer("dnn", kw))  # doctest: +SKIP
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.types import CannedHeadConfig, OptimizerArg, TFModule

MAPPED = (
    "SGD/GradientDescent, Adagrad, Adam (not amsgrad), Ftrl (dense weights only); "
    "v1 tf.compat.v1.train or legacy Keras, constant learning rate"
)
LOSSES = "classifier (softmax / sigmoid cross entropy), regression (squared error)"
_MEAN = (
    "sum_over_batch_size",
    "auto",
    "weighted_sum_over_batch_size",
    "weighted_mean",
    "sum_by_nonzero_weights",
)


def refuse(what: str, name: object, fix: str = "") -> TfportInputError:
    """The one-line refusal of `--train-step`."""
    return TfportInputError(
        message(
            f"--train-step: {what} has no exact Keras 3 equivalent",
            fix or f"Supported: {MAPPED}; losses: {LOSSES}",
            name=name,
        )
    )


_NAMES = ("Adagrad", "Adam", "Ftrl", "RMSProp", "SGD")
_V1 = {"SGD": "GradientDescentOptimizer", "RMSProp": "RMSPropOptimizer"}
_V2 = {"RMSProp": "RMSprop"}


def _resolve(tf: TFModule, opt: OptimizerArg, lr: float | None, v2: bool) -> Any:
    """The canned estimators' optimizer resolution (tfport's `_canned.optimizers`)."""
    if isinstance(opt, str) and opt in _NAMES:
        if v2:
            cls = getattr(tf.keras.optimizers.legacy, _V2.get(opt, opt))
            return cls(learning_rate=lr) if lr else cls()
        return getattr(tf.compat.v1.train, _V1.get(opt, opt + "Optimizer"))(learning_rate=lr)
    if isinstance(opt, type):
        return opt(learning_rate=lr) if lr else opt()
    base = tf.keras.optimizers.legacy.Optimizer if v2 else tf.compat.v1.train.Optimizer
    return opt() if callable(opt) and not isinstance(opt, base) else opt


def estimator_optimizer(family: str, kw: dict) -> Any:
    """The optimizer instance the canned model_fn of `family` makes from `kw` (a fresh one
    where the estimator was given a name, class or callable)."""
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    v2 = kw["head"].v2
    if family == "combined":
        raise refuse(
            "a wide & deep estimator (two optimizers over two variable sets)",
            "DNNLinearCombined",
            "Compare a DNN*, Linear* or Baseline* estimator (Keras compiles one optimizer)",
        )
    if family == "dnn":
        return _resolve(tf, kw.get("optimizer", "Adagrad"), None if v2 else 0.05, v2)
    if family == "linear":
        opt = kw.get("optimizer", "Ftrl")
        if opt is None:
            lr = min(0.2, 1.0 / math.sqrt(max(len(kw["feature_columns"]), 1)))
            return _resolve(tf, "Ftrl", lr, v2)
        return _resolve(tf, opt, 0.2, v2)
    return _resolve(tf, kw.get("optimizer", "Ftrl"), 0.3, v2)


def _number(value: object, what: str, name: str) -> float:
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, np.ndarray) and value.shape == ():
        return float(value)
    raise refuse(f"a {what} that is not a constant number", name)


def keras_optimizer(opt: object, sparse: bool) -> Any:
    """The Keras 3 optimizer with the same update as `opt` (v1 or legacy Keras).

    Args:
        opt: the estimator's optimizer instance.
        sparse: whether some weights get sparse (embedding) gradients.
    """
    import keras

    name = type(opt).__name__
    if hasattr(opt, "get_config") and not hasattr(opt, "compute_gradients"):
        cfg = opt.get_config()  # legacy Keras (OptimizerV2)
        for key in ("decay", "clipnorm", "clipvalue", "global_clipnorm"):
            if cfg.get(key):
                raise refuse(f"{name} with {key}={cfg[key]!r}", name)
        lr = _number(cfg.get("learning_rate"), "learning rate", name)
        if name == "SGD":
            return keras.optimizers.SGD(lr, momentum=cfg["momentum"], nesterov=cfg["nesterov"])
        if name == "Adagrad":  # legacy: g / (sqrt(acc) + eps), Keras 3: g / sqrt(acc + eps)
            return keras.optimizers.Adagrad(
                lr, cfg["initial_accumulator_value"], epsilon=cfg["epsilon"]
            )
        if name == "Adam" and not cfg.get("amsgrad"):
            return keras.optimizers.Adam(lr, cfg["beta_1"], cfg["beta_2"], cfg["epsilon"])
        if name == "Ftrl" and not sparse:
            return keras.optimizers.Ftrl(
                lr,
                cfg["learning_rate_power"],
                cfg["initial_accumulator_value"],
                cfg["l1_regularization_strength"],
                cfg["l2_regularization_strength"],
                l2_shrinkage_regularization_strength=cfg["l2_shrinkage_regularization_strength"],
                beta=cfg.get("beta", 0.0),
            )
    else:
        hp = tf_internals.v1_optimizer_hyperparameters(opt)
        lr = _number(hp["learning_rate"], "lr", name)
        if name == "GradientDescentOptimizer":
            return keras.optimizers.SGD(lr)
        if name == "AdagradOptimizer":  # v1: g / sqrt(acc)
            return keras.optimizers.Adagrad(lr, hp["initial_accumulator_value"], epsilon=0.0)
        if name == "AdamOptimizer":
            return keras.optimizers.Adam(lr, hp["beta1"], hp["beta2"], hp["epsilon"])
        if name == "FtrlOptimizer" and not sparse:
            return keras.optimizers.Ftrl(
                lr,
                hp["learning_rate_power"],
                hp["initial_accumulator_value"],
                hp["l1_regularization_strength"],
                hp["l2_regularization_strength"],
                l2_shrinkage_regularization_strength=hp["l2_shrinkage_regularization_strength"],
                beta=hp["beta"],
            )

    if "Ftrl" in name and sparse:
        raise refuse(
            "Ftrl on embedding / categorical weights (Keras 3's Ftrl updates every row of a "
            "table, TensorFlow's only the rows in the batch)",
            name,
        )
    raise refuse(f"the optimizer {name}", name)


def keras_loss(head: CannedHeadConfig) -> tuple[Any, Any]:
    """(Keras 3 loss on the `logits` output, labels -> the loss's labels) of a head."""
    import keras

    if getattr(head, "loss_fn", None) is not None:
        raise refuse("a head with a custom loss_fn", head.loss_fn)
    if head.weight_column is not None:
        raise refuse(
            "a head with a weight_column", head.weight_column, "Compare without example weights"
        )
    reduction = str(head.loss_reduction)
    if reduction in ("weighted_sum", "sum"):
        keras_reduction = "sum"
    elif reduction in _MEAN:
        keras_reduction = "sum_over_batch_size"
    else:
        raise refuse(f"the loss reduction {reduction!r}", reduction)
    kind = head.kind
    if kind == "classifier":
        vocab = [str(v) for v in head.vocabulary] if head.vocabulary else None

        def ids(labels: np.ndarray) -> np.ndarray:
            labels = np.asarray(labels).reshape(-1, 1)
            if vocab is None:
                return labels.astype(np.int64)
            text = [v.decode() if isinstance(v, bytes) else str(v) for v in labels.reshape(-1)]
            return np.array([vocab.index(t) for t in text], np.int64).reshape(-1, 1)

        if head.n_classes == 2:
            loss = keras.losses.BinaryCrossentropy(from_logits=True, reduction=keras_reduction)
            return loss, lambda labels: ids(labels).astype(np.float32)
        loss = keras.losses.SparseCategoricalCrossentropy(
            from_logits=True, reduction=keras_reduction
        )
        return loss, ids
    if kind == "regression":
        dim = head.label_dimension
        if keras_reduction == "sum" and dim != 1:
            raise refuse("a summed squared error over label_dimension > 1", dim)
        loss = keras.losses.MeanSquaredError(reduction=keras_reduction)
        return loss, lambda labels: np.asarray(labels, np.float32).reshape(-1, dim)
    raise refuse(f"the {kind} head's loss", kind)
