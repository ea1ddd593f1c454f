"""Graph-mode optimizers for Keras models: tf_keras legacy `OptimizerV2` built from any config.

Estimators run in `tf.compat.v1` graphs, where only the legacy optimizers
(`tf_keras.optimizers.legacy.*`) and TF1 optimizers work. Current tf_keras
optimizers and Keras 3 optimizers are mapped to the legacy class of the same
name with the hyperparameters both understand (learning rate, momentum,
betas, epsilon, clipping, ...). The legacy `model_to_estimator` replaced them
with a default-configured legacy optimizer (losing the learning rate); here
the config is kept.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Sequence
from typing import Any

from tfport._common import keras_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.types import KerasOptimizer, Variable

log = logging.getLogger("tfport")

_CLIP_KEYS = ("clipnorm", "clipvalue", "global_clipnorm")
_DROPPED_IF_SET = {"weight_decay": (None, 0, 0.0), "use_ema": (False,)}


def legacy_class_and_config(optimizer: object) -> tuple[type, dict | None]:
    """Returns the legacy tf_keras optimizer class and config to rebuild `optimizer` in a graph.

    Example:
        >>> cls, cfg = legacy_class_and_config(tf_keras.optimizers.SGD(0.1))  # doctest: +SKIP
        >>> cls.__name__, cfg["learning_rate"]  # doctest: +SKIP
        ('SGD', 0.1)
    """
    from tf_keras.optimizers import legacy

    if isinstance(optimizer, legacy.Optimizer):
        return type(optimizer), _config_or_none(optimizer)
    if not hasattr(optimizer, "get_config"):  # a TF1 optimizer wrapped by tf_keras
        return type(optimizer), None
    name = type(optimizer).__name__
    cls = getattr(legacy, name, None)
    if cls is None or not isinstance(cls, type):
        raise TfportInputError(
            message(
                f"The Keras optimizer {name} has no graph-mode (legacy) equivalent, which an "
                "Estimator needs",
                "Compile the model with one of SGD, Adam, Adagrad, Adadelta, Adamax, Ftrl, Nadam, "
                "RMSprop",
                optimizer=name,
            )
        )
    return cls, _translate(cls, optimizer.get_config())


def build(cls: Any, config: dict | None, iterations: object) -> Any:
    """Builds the graph optimizer whose `iterations` is the Estimator's global step.

    Example:
        >>> opt = build(*legacy_class_and_config(model.optimizer), global_step)  # doctest: +SKIP
    """
    opt = cls.from_config(config) if config is not None else cls()
    if iterations is not None:
        opt.iterations = iterations
    return opt


def _config_or_none(optimizer: KerasOptimizer) -> dict | None:
    try:
        return optimizer.get_config()
    except (NotImplementedError, AttributeError):
        return None


def _translate(cls: type, config: dict) -> dict:
    accepted = set(inspect.signature(cls).parameters) | {"self"} | set(_CLIP_KEYS)
    out = {}
    for key, value in config.items():
        if key in _DROPPED_IF_SET and value not in _DROPPED_IF_SET[key]:
            log.warning(
                "model_to_estimator: optimizer option %s=%r has no graph-mode "
                "equivalent and is ignored",
                key,
                value,
            )
        if key in accepted and value is not None:
            out[key] = _plain(value)
    return out


def _plain(value: object) -> Any:
    if hasattr(value, "item") and getattr(value, "shape", None) == ():
        return value.item()
    if isinstance(value, dict) and "class_name" in value and "config" in value:
        return _schedule(value)
    return value


def _schedule(value: dict) -> Any:
    """A serialized learning-rate schedule (Keras 3 or tf_keras) as a tf_keras schedule."""
    from tf_keras.optimizers import schedules

    cls = getattr(schedules, value["class_name"], None)
    if cls is None:
        raise TfportInputError(
            message(
                f"The learning-rate schedule {value['class_name']} has no tf_keras equivalent",
                "Use a built-in schedule (ExponentialDecay, PiecewiseConstantDecay, ...)",
                schedule=value["class_name"],
            )
        )
    return cls.from_config(value["config"])


def graph_methods() -> list[tuple[type, str, Any]]:
    """The TF1 graph-mode methods tf_keras's current optimizers lack: `(class, name, fn)`.

    The TF2 migration guide's model_fn (TF 2.0-era) called
    `optimizer.get_updates(loss, vars)[0]` and `optimizer.get_gradients(loss, vars)` on
    `tf.keras.optimizers.Adam` after `optimizer.iterations = global_step`; tf_keras 2.21's
    optimizers dropped them, but their graph-mode `apply_gradients` works. These are the
    legacy `OptimizerV2` methods over it (`tfport.install()` adds them, `uninstall()`
    removes them).

    Example:
        >>> [name for _, name, _ in graph_methods()]  # doctest: +SKIP
        ['get_gradients', 'get_updates']
    """
    cls = keras_internals.tf_keras_optimizer_class()
    out = []
    for name, fn in (("get_gradients", _get_gradients), ("get_updates", _get_updates)):
        if name not in cls.__dict__:
            out.append((cls, name, fn))
    return out


def _get_gradients(self: Any, loss: object, params: Sequence[Variable]) -> list:
    """Gradients of `loss` for `params` in the current graph (legacy `get_gradients`)."""
    import tensorflow as tf

    params = tf.nest.flatten(params)
    grads = tf.compat.v1.gradients(loss, params)
    for grad, param in zip(grads, params):
        if grad is None:
            raise TfportInputError(
                message(
                    f"Variable {param.name} has no gradient for the loss",
                    "Make sure every variable passed to get_updates/get_gradients is used by "
                    "the loss with differentiable ops",
                    variable=param.name,
                )
            )
    return grads


def _get_updates(self: Any, loss: object, params: Sequence[Variable]) -> list:
    """`[update_op]` for `loss`, as the `OptimizerV2.get_updates` that TF 2.0 ran.

    tf_keras 2.21's optimizers build, in a graph, updates that nothing runs; their legacy
    twins (`tf.keras.optimizers.legacy.*`, the OptimizerV2 of TF 2.0) still implement
    `get_updates`. The twin is made once per optimizer from its config and shares its
    `iterations` (the global step after `optimizer.iterations = global_step`).
    """
    twin = self.__dict__.get("_tfport_legacy_twin")
    if twin is None:
        twin = _legacy_twin(self)
        self.__dict__["_tfport_legacy_twin"] = twin
    return twin.get_updates(loss, params)


def _legacy_twin(optimizer: KerasOptimizer) -> Any:
    import inspect

    import tf_keras

    cls = getattr(tf_keras.optimizers.legacy, type(optimizer).__name__, None)
    if cls is None:
        raise TfportInputError(
            message(
                f"{type(optimizer).__name__}.get_updates has no legacy (OptimizerV2) equivalent",
                "Use apply_gradients, or one of tf.keras.optimizers.legacy's optimizers",
                optimizer=type(optimizer).__name__,
            )
        )
    config = {}  # get_config() needs eager execution: read the hyperparameters directly
    for name in inspect.signature(cls.__init__).parameters:
        if name in ("self", "name", "kwargs"):
            continue
        value = getattr(optimizer, "_" + name if name == "learning_rate" else name, None)
        if value is not None:
            config[name] = value
    twin = cls(**config)
    twin.iterations = optimizer.iterations
    return twin
