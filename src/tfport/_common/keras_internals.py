"""The one place tfport touches the internals of Keras 3 and tf_keras.

Every `keras.src.*` / `tf_keras.src.*` import and every read or write of a private
attribute of a Keras object lives here, behind a named function saying what it relies on
(tf_keras 2.16 - 2.21 and Keras 3.x, the tested range). `tests/test_boundary.py` checks that
nothing else does; `tests/unit/_common/test_tf_canary.py` touches every symbol in `SYMBOLS`.

Importing this module imports neither Keras nor TensorFlow.

Example:
    >>> from tfport._common import keras_internals
    >>> ("tf_keras.src.backend", "_SEED_GENERATOR") in keras_internals.SYMBOLS
    True
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from tfport._common.types import KerasModel, Tensor

# (module, attribute): every internal symbol of tf_keras / Keras 3 tfport uses.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("tf_keras.src.backend", "_SEED_GENERATOR"),
    ("tf_keras.src.backend", "deprecated_internal_set_learning_phase"),
    ("tf_keras.src.losses", "Loss"),
    ("tf_keras.src.utils.losses_utils", "scale_loss_for_distribution"),
    ("tf_keras.src.layers.normalization.batch_normalization", "BatchNormalizationBase"),
    ("tf_keras.src.optimizers.optimizer", "Optimizer"),
    ("tf_keras.src.engine.base_layer", "Layer"),
    ("tf_keras.src.engine.base_layer_v1", "Layer"),
    ("tf_keras.src.engine.training", "Model"),
    ("tf_keras.src.engine.training_v1", "Model"),
    ("tf_keras.src.utils.version_utils", "swap_class"),
    ("tf_keras.src.metrics", "clone_metrics"),
    ("keras.src.losses.loss", "scale_loss_for_distribution"),
    ("keras.src.losses.loss", "unscale_loss_for_distribution"),
)
# (module, class or None for the module, attribute): every private attribute of a Keras
# object read or written here. The class has it (a method) or sets it on its instances
# (`self.<attribute> = ...`); for a module, its source sets it (`x.<attribute> = ...`).
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = (
    ("tf_keras.src.losses", "Loss", "_get_reduction"),
    ("tf_keras.src.losses", "Loss", "_allow_sum_over_batch_size"),
    (
        "tf_keras.src.layers.normalization.batch_normalization",
        "BatchNormalizationBase",
        "_calculate_mean_and_var",
    ),
    (
        "tf_keras.src.layers.normalization.batch_normalization",
        "BatchNormalizationBase",
        "_assign_moving_average",
    ),
    ("tf_keras.src.engine.functional", "Functional", "_is_graph_network"),
    ("tf_keras.src.engine.training", "Model", "_get_compile_args"),
    ("tf_keras.src.engine.training", "Model", "_is_compiled"),
    ("tf_keras.src.engine.training_v1", "Model", "_make_train_function"),
    ("tf_keras.src.engine.training_v1", "Model", "_make_test_function"),
    ("tf_keras.src.engine.training_v1", "Model", "_compile_weights_loss_and_weighted_metrics"),
    ("tf_keras.src.engine.training_v1", "Model", "_compile_metrics"),
    ("tf_keras.src.engine.training_v1", "Model", "_compile_metric_functions"),
    ("tf_keras.src.models.cloning", None, "_original_attributes_cache"),
    ("tf_keras.src.layers.rnn.lstm", "LSTMCell", "_enable_caching_device"),
    ("tf_keras.src.optimizers.legacy.optimizer_v2", "OptimizerV2", "_create_all_weights"),
    ("keras.src.models.functional", "Functional", "_inputs_struct"),
    ("keras.src.models.functional", "Functional", "_outputs_struct"),
    ("keras.src.ops.node", None, "_keras_history"),
    ("keras.src.layers.layer", "Layer", "_call_has_training_arg"),
    ("keras.src.trainers.trainer", "Trainer", "_compile_loss"),
    ("keras.src.trainers.trainer", "Trainer", "_compile_metrics"),
    ("tf_keras.src.engine.base_layer", None, "_keras_mask"),
    ("tf_keras.src.backend", None, "_keras_initialized"),
)


def _symbol(module: str, name: str, loaded_only: bool = False) -> Any:
    """`<module>.<name>` (TensorFlow imported the tfport way first); None where a
    `tf_keras.src` module is missing (tf_keras is a dependency) or, with `loaded_only`,
    where `module` is not imported yet."""
    if loaded_only:
        owner = sys.modules.get(module)
        return None if owner is None else getattr(owner, name)
    from tfport._common.tfenv import import_tf

    import_tf()
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError:  # pragma: no cover - tf_keras is a dependency
        if module.startswith("tf_keras."):
            return None
        raise


def _set_symbol(module: str, name: str, value: object) -> None:
    """Sets `<module>.<name>` to `value` (a module global Keras looks up at each call)."""
    from tfport._common.tfenv import import_tf

    import_tf()
    setattr(importlib.import_module(module), name, value)


# --- tf_keras ---------------------------------------------------------------------------


# Seed holders of the graphs being built now (oldest first), and the holder they replaced.
_SEEDED: list = []
_UNSEEDED: list = []
_SEEDED_LOCK = threading.Lock()


@contextlib.contextmanager
def keras_seeded(seed: int | None) -> Iterator[None]:
    """Unseeded Keras initializers draw their seeds from `random.Random(seed)` inside.

    Keras 2 initializers without a seed (`tf.keras.layers`, `tf.compat.v1.layers`) take a
    fresh seed from Python's global `random` for each variable, so a graph-level seed
    does not fix them. Inside this context (when `seed` is not None) they take it from a
    private generator seeded with `seed`, so a graph built twice draws the same initial
    values. Keras keeps that generator per thread; here it is shared by every thread,
    because a strategy's replicas build the model in threads of their own (replica 0
    creates the variables, so `mirrored:N` and parameter-server tasks draw one device's
    initial values). The user's global `random` and numpy generators are not touched;
    the previous holder is restored on exit.

    Example:
        >>> with keras_seeded(42):
        ...     pass
    """
    if seed is None:
        yield
        return
    import random
    import types

    if _symbol("tf_keras.src.backend", "_SEED_GENERATOR") is None:  # pragma: no cover
        yield  # tf_keras (a dependency) missing
        return
    holder = types.SimpleNamespace(generator=random.Random(seed))
    with _SEEDED_LOCK:
        if not _SEEDED:
            _UNSEEDED[:] = [_symbol("tf_keras.src.backend", "_SEED_GENERATOR")]
        _SEEDED.append(holder)
        _set_symbol("tf_keras.src.backend", "_SEED_GENERATOR", holder)
    try:
        yield
    finally:
        with _SEEDED_LOCK:
            _SEEDED.remove(holder)
            restored = _SEEDED[-1] if _SEEDED else _UNSEEDED.pop()
            _set_symbol("tf_keras.src.backend", "_SEED_GENERATOR", restored)


@contextlib.contextmanager
def tf_keras_losses_allow_sum_over_batch() -> Iterator[None]:
    """tf_keras losses with `Reduction.AUTO` work under a strategy outside `Model.fit`.

    Wraps `losses.Loss._get_reduction` to set `_allow_sum_over_batch_size` for the call
    (tf_keras 2.x).
    """
    loss_class = _symbol("tf_keras.src.losses", "Loss")
    if loss_class is None:  # pragma: no cover - tf_keras is a dependency
        yield
        return
    original = loss_class._get_reduction

    def get_reduction(self: Any) -> Any:
        allowed = self._allow_sum_over_batch_size
        self._allow_sum_over_batch_size = True
        try:
            return original(self)
        finally:
            self._allow_sum_over_batch_size = allowed

    loss_class._get_reduction = get_reduction
    try:
        yield
    finally:
        loss_class._get_reduction = original


@contextlib.contextmanager
def loss_scaling_replaced(
    scale: Callable[[Tensor], Tensor], unscale: Callable[[Tensor], Tensor]
) -> Iterator[None]:
    """Keras's distribution loss scaling replaced in the block.

    tf_keras's `utils.losses_utils.scale_loss_for_distribution` and, when a Keras 3 model
    is in use (its module already imported), Keras 3's `losses.loss`
    `scale_loss_for_distribution` / `unscale_loss_for_distribution`.
    """
    found = [
        ("tf_keras.src.utils.losses_utils", "scale_loss_for_distribution", scale),
        ("keras.src.losses.loss", "scale_loss_for_distribution", scale),
        ("keras.src.losses.loss", "unscale_loss_for_distribution", unscale),
    ]
    saved = [
        (module, name, new, _symbol(module, name, loaded_only=module.startswith("keras.")))
        for module, name, new in found
    ]
    saved = [entry for entry in saved if entry[3] is not None]
    for module, name, new, _ in saved:
        _set_symbol(module, name, new)
    try:
        yield
    finally:
        for module, name, _, original in saved:
            _set_symbol(module, name, original)


@contextlib.contextmanager
def batch_norm_replaced(
    build: Callable[[Callable[..., object], object, object], None],
    calculate: Callable[..., object],
    assign: Callable[..., object] | None = None,
) -> Iterator[None]:
    """tf_keras BatchNormalization's `build` and statistics replaced in the block.

    `build(original, layer, input_shape)` and `calculate(original, layer, x, axes,
    keep_dims, mask)` wrap `BatchNormalizationBase.build` and its private
    `_calculate_mean_and_var` (tf_keras 2.x); `assign(original, layer, variable, value,
    momentum, inputs_size)`, when given, wraps its private `_assign_moving_average`.
    """
    base = _symbol(
        "tf_keras.src.layers.normalization.batch_normalization", "BatchNormalizationBase"
    )
    if base is None:  # pragma: no cover - tf_keras is a dependency
        yield
        return
    original_calculate, original_build = base._calculate_mean_and_var, base.build
    original_assign = base._assign_moving_average

    def new_build(self: Any, input_shape: object) -> None:
        build(original_build, self, input_shape)

    def new_calculate(
        self: Any, x: object, axes: object, keep_dims: bool, mask: object = None
    ) -> Any:
        return calculate(original_calculate, self, x, axes, keep_dims, mask)

    def new_assign(
        self: Any, variable: object, value: object, momentum: object, size: object
    ) -> Any:
        return assign(original_assign, self, variable, value, momentum, size)  # type: ignore[misc]

    base.build, base._calculate_mean_and_var = new_build, new_calculate
    if assign is not None:
        base._assign_moving_average = new_assign
    try:
        yield
    finally:
        base.build, base._calculate_mean_and_var = original_build, original_calculate
        base._assign_moving_average = original_assign


def tf_keras_optimizer_class() -> Any:
    """`tf_keras.src.optimizers.optimizer.Optimizer` (the current, non-legacy class)."""
    return _symbol("tf_keras.src.optimizers.optimizer", "Optimizer")


def restore_eager_classes(model: KerasModel) -> None:
    """Swaps `model`'s (and its submodules') classes back to eager tf_keras bases.

    Cloning in a graph swaps them to the v1 bases; `version_utils.swap_class` with
    `engine.training` / `training_v1` / `base_layer` / `base_layer_v1` (tf_keras 2.x).
    """
    layer = _symbol("tf_keras.src.engine.base_layer", "Layer")
    layer_v1 = _symbol("tf_keras.src.engine.base_layer_v1", "Layer")
    model_class = _symbol("tf_keras.src.engine.training", "Model")
    model_v1 = _symbol("tf_keras.src.engine.training_v1", "Model")
    swap_class = _symbol("tf_keras.src.utils.version_utils", "swap_class")
    for obj in [model, *getattr(model, "submodules", ())]:
        cls = type(obj)
        if isinstance(obj, model_class) or issubclass(cls, model_v1):
            swap_class(cls, model_class, model_v1, True)
        swap_class(cls, layer, layer_v1, True)


def set_learning_phase(training: bool) -> None:
    """tf_keras's `backend.deprecated_internal_set_learning_phase` (no deprecation warning)."""
    _symbol("tf_keras.src.backend", "deprecated_internal_set_learning_phase")(training)


def clone_metrics(metrics: object) -> Any:
    """tf_keras's `metrics.clone_metrics` (fresh metric objects of a compile argument)."""
    return _symbol("tf_keras.src.metrics", "clone_metrics")(metrics)


def is_graph_network(model: KerasModel) -> bool:
    """A functional tf_keras model (`_is_graph_network`, tf_keras 2.x)."""
    return bool(getattr(model, "_is_graph_network", False))


def compile_args(model: Any) -> dict:
    """The arguments `model.compile` received (`_get_compile_args`, tf_keras 2.x)."""
    return dict(model._get_compile_args())


def make_train_function(model: Any) -> None:
    """Builds a v1 graph model's train function (`_make_train_function`, tf_keras 2.x)."""
    model._make_train_function()


def make_test_function(model: Any) -> None:
    """Builds a v1 graph model's test function (`_make_test_function`, tf_keras 2.x)."""
    model._make_test_function()


def compile_sample_weights(model: Any, weights: object) -> None:
    """`_compile_weights_loss_and_weighted_metrics(weights)` of a v1 graph model."""
    model._compile_weights_loss_and_weighted_metrics(weights)


def has_subclassed_state(model: KerasModel) -> bool:
    """A subclassed model cloned in place holds `_original_attributes_cache` (tf_keras)."""
    return bool(getattr(model, "_original_attributes_cache", None))


def compiled_metrics(model: KerasModel) -> Any:
    """`model._compile_metrics` (tf_keras: metric list; Keras 3: CompileMetrics) or None."""
    return getattr(model, "_compile_metrics", None)


def compiled_metric_functions(model: Any) -> list:
    """A compiled v1 graph model's metric objects (`_compile_metric_functions`)."""
    return list(model._compile_metric_functions)


def is_compiled(model: KerasModel) -> bool:
    """False only when a Keras model says it is not compiled (`_is_compiled`)."""
    return getattr(model, "_is_compiled", True) is not False


# --- Keras 3 -----------------------------------------------------------------------------


def inputs_struct(model: KerasModel) -> Any:
    """A Keras 3 functional model's input structure (`_inputs_struct`), else None."""
    return getattr(model, "_inputs_struct", None)


def outputs_struct(model: KerasModel) -> Any:
    """A Keras 3 functional model's output structure (`_outputs_struct`), else None."""
    return getattr(model, "_outputs_struct", None)


def producing_layer_name(tensor: Any) -> str:
    """The name of the layer that made a Keras 3 symbolic tensor (`_keras_history`)."""
    return tensor._keras_history.operation.name


def call_has_training_arg(model: KerasModel) -> bool:
    """Whether a Keras 3 model's `call` takes `training` (`_call_has_training_arg`)."""
    return bool(getattr(model, "_call_has_training_arg", True))


def compiled_loss(model: KerasModel) -> Any:
    """A Keras 3 model's CompileLoss (`_compile_loss`), None when compiled without one."""
    return getattr(model, "_compile_loss", None)


def create_optimizer_variables(optimizer: Any, variables: list) -> None:
    """Creates a v1 graph-mode tf_keras optimizer's slots (`_create_all_weights`)."""
    optimizer._create_all_weights(variables)


def keras3_scale_loss_for_distribution(value: object) -> Any:
    """Keras 3's `losses.loss.scale_loss_for_distribution` (1/N under a strategy)."""
    return _symbol("keras.src.losses.loss", "scale_loss_for_distribution")(value)


def enable_caching_device(cell: object) -> None:
    """Sets a Keras RNN cell's `_enable_caching_device` (as the legacy estimator did)."""
    if hasattr(cell, "_enable_caching_device"):
        cell._enable_caching_device = True


def set_keras_mask(tensor: Any, mask: object) -> None:
    """Sets a tf_keras output tensor's mask (`tensor._keras_mask`, which tf_keras's
    `Layer.__call__` keeps on a call's outputs and legacy `RNNModel` set for its logits)."""
    tensor._keras_mask = mask


def keras_initialized(variable: object) -> bool:
    """Whether tf_keras's graph-mode session initialized `variable` (`_keras_initialized`,
    set by `backend._initialize_variables`, tf_keras >= 2.x)."""
    return hasattr(variable, "_keras_initialized")


def keras_mask(tensor: object) -> Any:
    """A tf_keras tensor's mask (`tensor._keras_mask`), None when it has none."""
    return getattr(tensor, "_keras_mask", None)
