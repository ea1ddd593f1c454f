"""`tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec` on CPUs and GPUs.

On a TPU, a TPUEstimator given an `EmbeddingConfigSpec` moves the embedding tables of
its feature columns to the TPU embedding engine and trains them there with the spec's
optimization parameters. Without TPU embedding hardware (legacy `use_tpu=False`, the
only way TF 2.15 ran such a model off a TPU) the spec is checked and kept, and the
columns of `tf.compat.v1.tpu.experimental.embedding_column` /
`shared_embedding_columns` are ordinary embedding lookups: their tables get the
ordinary names (`input_layer/<key>_embedding/embedding_weights`,
`<keys>_shared_embedding`) and are trained by the model_fn's optimizer, as legacy did.
tfport runs `use_tpu=True` the same way (legacy failed there for lack of TPU cores), so
both give the same numbers.

TF 2.21 dropped the TF1 optimization parameter classes of
`tf.compat.v1.tpu.experimental`; `AdagradParameters`, `AdamParameters`, `FtrlParameters`
and `StochasticGradientDescentParameters` here stand in for the four TF 2.15 had there
(`tfport.install()` puts them back where TensorFlow lacks them).

Example:
    >>> params = AdagradParameters(0.1)
    >>> params.learning_rate, params.initial_accumulator
    (0.1, 0.1)
"""

from __future__ import annotations

import logging
import numbers
from collections.abc import Callable
from typing import Any, NamedTuple

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.types import FeatureColumns

log = logging.getLogger("tfport")


class _EmbeddingConfigSpecFields(NamedTuple):
    """EmbeddingConfigSpec's fields, in the legacy order."""

    feature_columns: list | None
    tensor_core_feature_columns: list | None
    optimization_parameters: Any
    clipping_limit: Any
    pipeline_execution_with_tensor_core: bool
    experimental_gradient_multiplier_fn: Any
    feature_to_config_dict: Any
    table_to_config_dict: Any
    partition_strategy: str
    profile_data_directory: Any


class _OptimizationParameters:
    """What every TF1 TPU embedding optimizer takes (learning rate, clipping, decay)."""

    def __init__(
        self,
        learning_rate: float | Callable[..., object],
        use_gradient_accumulation: bool = True,
        clip_weight_min: float | None = None,
        clip_weight_max: float | None = None,
        weight_decay_factor: float | None = None,
        multiply_weight_decay_factor_by_learning_rate: bool | None = None,
        clip_gradient_min: float | None = None,
        clip_gradient_max: float | None = None,
    ) -> None:
        if not callable(learning_rate) and (
            not isinstance(learning_rate, numbers.Real) or learning_rate <= 0
        ):
            raise TfportInputError(
                message(
                    f"{type(self).__name__}: learning_rate must be a positive number",
                    "Pass e.g. learning_rate=0.1",
                    learning_rate=learning_rate,
                )
            )
        self.learning_rate = learning_rate
        self.use_gradient_accumulation = use_gradient_accumulation
        self.clip_weight_min = clip_weight_min
        self.clip_weight_max = clip_weight_max
        self.weight_decay_factor = weight_decay_factor
        self.multiply_weight_decay_factor_by_learning_rate = (
            multiply_weight_decay_factor_by_learning_rate
        )
        self.clip_gradient_min = clip_gradient_min
        self.clip_gradient_max = clip_gradient_max

    def __repr__(self) -> str:
        return f"{type(self).__name__}(learning_rate={self.learning_rate!r})"


class AdagradParameters(_OptimizationParameters):
    """`tf.compat.v1.tpu.experimental.AdagradParameters` (TF 1 TPU embedding Adagrad).

    Example:
        >>> AdagradParameters(0.5, initial_accumulator=0.2).initial_accumulator
        0.2
    """

    def __init__(
        self,
        learning_rate: float | Callable[..., object],
        initial_accumulator: float = 0.1,
        **kwargs: Any,
    ):
        super().__init__(learning_rate, **kwargs)
        self.initial_accumulator = initial_accumulator


class AdamParameters(_OptimizationParameters):
    """`tf.compat.v1.tpu.experimental.AdamParameters` (TF 1 TPU embedding Adam).

    Example:
        >>> AdamParameters(0.01, beta2=0.99).beta2
        0.99
    """

    def __init__(
        self,
        learning_rate: float | Callable[..., object],
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-08,
        lazy_adam: bool = True,
        sum_inside_sqrt: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lazy_adam, self.sum_inside_sqrt = lazy_adam, sum_inside_sqrt


class StochasticGradientDescentParameters(_OptimizationParameters):
    """`tf.compat.v1.tpu.experimental.StochasticGradientDescentParameters`.

    Example:
        >>> StochasticGradientDescentParameters(0.3).learning_rate
        0.3
    """


class FtrlParameters(_OptimizationParameters):
    """`tf.compat.v1.tpu.experimental.FtrlParameters` (TF 1 TPU embedding FTRL).

    Example:
        >>> FtrlParameters(0.1, l1_regularization_strength=0.5).l1_regularization_strength
        0.5
    """

    def __init__(
        self,
        learning_rate: float | Callable[..., object],
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        use_gradient_accumulation: bool = True,
        clip_weight_min: float | None = None,
        clip_weight_max: float | None = None,
        weight_decay_factor: float | None = None,
        multiply_weight_decay_factor_by_learning_rate: bool | None = None,
        multiply_linear_by_learning_rate: bool = False,
        beta: float = 0,
        allow_zero_accumulator: bool = False,
        clip_gradient_min: float | None = None,
        clip_gradient_max: float | None = None,
    ) -> None:
        super().__init__(
            learning_rate,
            use_gradient_accumulation,
            clip_weight_min,
            clip_weight_max,
            weight_decay_factor,
            multiply_weight_decay_factor_by_learning_rate,
            clip_gradient_min,
            clip_gradient_max,
        )
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.multiply_linear_by_learning_rate = multiply_linear_by_learning_rate
        self.beta = beta
        self.allow_zero_accumulator = allow_zero_accumulator


# The names tfport.install() gives tf.compat.v1.tpu.experimental where TensorFlow lacks them.
OPTIMIZATION_PARAMETERS = {
    cls.__name__: cls
    for cls in (
        AdagradParameters,
        AdamParameters,
        FtrlParameters,
        StochasticGradientDescentParameters,
    )
}


def _is_optimization_parameters(value: object) -> bool:
    """Ours, or TensorFlow's own TF1 classes where an older TensorFlow still has them."""
    if isinstance(value, _OptimizationParameters):
        return True
    return any(
        type(value).__name__ == name and "tpu_embedding" in type(value).__module__
        for name in (
            *OPTIMIZATION_PARAMETERS,
            "ProximalAdagradParameters",
            "MomentumParameters",
            "RMSPropParameters",
        )
    )


def _column_classes() -> tuple:
    """Feature column classes an EmbeddingConfigSpec accepts (TPU and ordinary)."""
    return (
        *tf_internals.core_numeric_column_classes(),
        *tf_internals.core_embedding_column_classes(),
        tf_internals.shared_embedding_column_class(),
        *tf_internals.tpu_embedding_column_classes(),
    )


def _split_columns(
    feature_columns: FeatureColumns, optimization_parameters: object
) -> tuple[list, list]:
    """(embedding-core columns, tensor-core columns), after checking every column."""
    supported = _column_classes()
    core: list = []
    tensor_core: list = []
    for column in feature_columns:
        if not isinstance(column, supported):
            raise TfportInputError(
                message(
                    "EmbeddingConfigSpec: every feature column must be a numeric, embedding "
                    "or tf.compat.v1.tpu.experimental embedding column",
                    "Wrap categorical columns with tf.compat.v1.tpu.experimental."
                    "embedding_column or shared_embedding_columns",
                    column=type(column).__name__,
                )
            )
        device = tf_internals.embedding_lookup_device(column)
        on_tensor_core = device is not None and getattr(device, "name", "") == "TPU_TENSOR_CORE"
        (tensor_core if on_tensor_core else core).append(column)
    if not _is_optimization_parameters(optimization_parameters):
        raise TfportInputError(
            message(
                "EmbeddingConfigSpec: optimization_parameters must be one of "
                "tf.compat.v1.tpu.experimental's AdagradParameters, AdamParameters, "
                "StochasticGradientDescentParameters, ...",
                received=type(optimization_parameters).__name__,
            )
        )
    return core, tensor_core


class EmbeddingConfigSpec(_EmbeddingConfigSpecFields):
    """The TPU embedding specification of a TPUEstimator (legacy namedtuple).

    Exactly one of `feature_columns` (with `optimization_parameters`) or the pair
    `feature_to_config_dict` / `table_to_config_dict` is given. Off a TPU the columns are
    ordinary embedding lookups trained by the model_fn's optimizer (legacy CPU behaviour).

    Example:
        >>> spec = EmbeddingConfigSpec(
        ...     feature_columns=[tf.compat.v1.tpu.experimental.embedding_column(cat, 4)],
        ...     optimization_parameters=AdagradParameters(0.1))  # doctest: +SKIP
    """

    _estimator_api_names = ()  # legacy's estimator_export names
    _estimator_api_names_v1 = ["estimator.tpu.experimental.EmbeddingConfigSpec"]

    def __new__(
        cls,
        feature_columns: FeatureColumns | None = None,
        optimization_parameters: object = None,
        clipping_limit: float | None = None,
        pipeline_execution_with_tensor_core: bool = False,
        experimental_gradient_multiplier_fn: Callable[..., object] | None = None,
        feature_to_config_dict: Any = None,
        table_to_config_dict: Any = None,
        partition_strategy: str = "div",
        profile_data_directory: str | None = None,
    ) -> EmbeddingConfigSpec:
        configs = bool(feature_to_config_dict and table_to_config_dict)
        if bool(feature_columns) == configs:
            raise TfportInputError(
                message(
                    "EmbeddingConfigSpec needs exactly one of feature_columns and the pair "
                    "feature_to_config_dict / table_to_config_dict",
                    feature_columns=bool(feature_columns),
                    config_dicts=configs,
                )
            )
        if partition_strategy not in ("div", "mod"):
            raise TfportInputError(
                message(
                    "EmbeddingConfigSpec: partition_strategy must be 'div' or 'mod'",
                    partition_strategy=partition_strategy,
                )
            )
        core = tensor_core = None
        if feature_columns:
            core, tensor_core = _split_columns(list(feature_columns), optimization_parameters)
        else:
            _check_config_dicts(feature_to_config_dict, table_to_config_dict)
        return super().__new__(
            cls,
            feature_columns=core,
            tensor_core_feature_columns=tensor_core,
            optimization_parameters=optimization_parameters,
            clipping_limit=clipping_limit,
            pipeline_execution_with_tensor_core=pipeline_execution_with_tensor_core,
            experimental_gradient_multiplier_fn=experimental_gradient_multiplier_fn,
            feature_to_config_dict=feature_to_config_dict,
            table_to_config_dict=table_to_config_dict,
            partition_strategy=partition_strategy,
            profile_data_directory=profile_data_directory,
        )


def _check_config_dicts(feature_to_config_dict: dict, table_to_config_dict: dict) -> None:
    """Every feature's `table_id` names a table of `table_to_config_dict`."""
    for feature, config in feature_to_config_dict.items():
        table = getattr(config, "table_id", None)
        if table not in table_to_config_dict:
            raise TfportInputError(
                message(
                    f"EmbeddingConfigSpec: feature {feature!r} refers to a table that "
                    "table_to_config_dict lacks",
                    table_id=table,
                    tables=sorted(table_to_config_dict),
                )
            )


def check_for_estimator(spec: object, use_tpu: bool, eval_on_tpu: bool) -> None:
    """Checks a TPUEstimator's `embedding_config_spec` as legacy did, and says how it runs.

    Args:
        spec: the `embedding_config_spec` argument (None: nothing to check).
        use_tpu: the TPUEstimator's `use_tpu`.
        eval_on_tpu: the TPUEstimator's `eval_on_tpu`.

    Raises:
        TfportInputError: `spec` is no EmbeddingConfigSpec, or asks for `'mod'` sharding
            (which legacy refused off a TPU).

    Example:
        >>> check_for_estimator(None, use_tpu=False, eval_on_tpu=True)
    """
    if spec is None:
        return
    if not isinstance(spec, tuple) or type(spec).__name__ != "EmbeddingConfigSpec":
        raise TfportInputError(
            message(
                "TPUEstimator: embedding_config_spec must be a "
                "tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec",
                received=type(spec).__name__,
            )
        )
    if getattr(spec, "partition_strategy", "div") == "mod":
        raise TfportInputError(
            message(
                "TPUEstimator: embedding_config_spec(partition_strategy='mod') is not "
                "supported off a TPU (as legacy)",
                "Use partition_strategy='div'",
                use_tpu=use_tpu,
                eval_on_tpu=eval_on_tpu,
            )
        )
    log.info(
        "TPUEstimator(embedding_config_spec=...): no TPU embedding engine here; the "
        "embedding columns are ordinary lookups trained by the model_fn's optimizer "
        "(as legacy use_tpu=False)."
    )
