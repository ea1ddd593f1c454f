"""Legacy `tpu._tpu_estimator_embedding` internals: from TPU embedding feature columns to
table/feature configs, the embedding variable names, and the per-core input split.

TF 2.21 has no TF1 TPU embedding engine (`tpu_embedding.TPUEmbedding`); tfport trains an
`EmbeddingConfigSpec`'s columns as ordinary embedding lookups (`estimator/_tpu/embedding.py`).
Everything here that does not need that engine works; `EmbeddingConfig.get_tpu_embedding`
and `split_inputs` with embedding tables raise one line saying so.

Example:
    >>> tables, features = get_configs_from_feature_columns([column])  # doctest: +SKIP
    >>> tables["tbl_a"].dimension  # doctest: +SKIP
    4
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import FeatureColumns, Labels, TPUDeployment
from tfport.estimator._engine.api.spec import ModeKeys

if TYPE_CHECKING:
    from tfport.estimator._tpu.embedding import EmbeddingConfigSpec

tf = import_tf()
log = logging.getLogger("tfport")
_TABLE_PREFIX = "tbl_"
_NO_ENGINE = "the TF1 TPU embedding engine (tpu_embedding.TPUEmbedding) does not exist in TF 2.21"
_USE = (
    "Pass the EmbeddingConfigSpec to TPUEstimator(embedding_config_spec=...): tfport trains "
    "its columns as ordinary embedding lookups, as legacy did with use_tpu=False"
)


class TableConfig(
    collections.namedtuple(
        "TableConfig",
        "vocabulary_size dimension initializer combiner hot_id_replication "
        "learning_rate learning_rate_fn optimization_parameters",
    )
):
    """One embedding table (legacy `tpu_embedding.TableConfig`'s fields and defaults)."""

    def __new__(
        cls,
        vocabulary_size: int,
        dimension: int,
        initializer: Callable[..., object] | None = None,
        combiner: str | None = "mean",
        hot_id_replication: bool = False,
        learning_rate: float | None = None,
        learning_rate_fn: Callable[..., object] | None = None,
        optimization_parameters: object = None,
    ) -> TableConfig:
        return super().__new__(
            cls,
            vocabulary_size,
            dimension,
            initializer,
            combiner,
            hot_id_replication,
            learning_rate,
            learning_rate_fn,
            optimization_parameters,
        )


class FeatureConfig(
    collections.namedtuple("FeatureConfig", "table_id max_sequence_length weight_key")
):
    """One feature's table (legacy `tpu_embedding.FeatureConfig`'s fields and defaults)."""

    def __new__(
        cls, table_id: str, max_sequence_length: int = 0, weight_key: str | None = None
    ) -> FeatureConfig:
        return super().__new__(cls, table_id, max_sequence_length, weight_key)


_SLOTS = {  # optimization parameters class name -> (slot names class, slot suffixes)
    "AdagradParameters": ("AdagradSlotVariableNames", ("accumulator",), ("Adagrad",)),
    "AdamParameters": ("AdamSlotVariableNames", ("m", "v"), ("Adam/m", "Adam/v")),
    "FtrlParameters": ("FtrlSlotVariableNames", ("accumulator", "linear"), ("Ftrl", "Ftrl_1")),
    "MomentumParameters": ("MomentumSlotVariableNames", ("momenta",), ("Momentum",)),
    "RMSPropParameters": ("RMSPropSlotVariableNames", ("ms", "mom"), ("RMSProp/ms", "RMSProp/mom")),
    "ProximalAdagradParameters": (
        "ProximalAdagradSlotVariableNames",
        ("accumulator",),
        ("ProximalAdagrad",),
    ),
}
SLOT_VARIABLE_NAMES = {
    name: collections.namedtuple(name, fields) for name, fields, _ in _SLOTS.values()
}


def get_tpu_embedding_columns(feature_columns: FeatureColumns) -> list:
    """The columns of `feature_columns` that TPU embedding serves (TPU embedding columns).

    Example:
        >>> get_tpu_embedding_columns([numeric, tpu_embedding])  # doctest: +SKIP
        [tpu_embedding]
    """
    classes = tf_internals.tpu_embedding_column_classes()
    return [column for column in feature_columns if isinstance(column, classes)]


def get_configs_from_feature_columns(feature_columns: Any) -> tuple[dict, dict]:
    """(table name -> TableConfig, feature key -> FeatureConfig) of TPU embedding columns.

    Tables are named `tbl_<embedding variable name>`; shared columns share one table.

    Example:
        >>> tables, features = get_configs_from_feature_columns(columns)  # doctest: +SKIP
    """
    columns = list(feature_columns)
    allowed = tf_internals.tpu_embedding_column_classes()
    for column in columns:
        if not isinstance(column, allowed):
            raise TypeError(
                message(
                    "get_configs_from_feature_columns takes TPU embedding columns only",
                    "Make them with tf.compat.v1.tpu.experimental.embedding_column or "
                    "shared_embedding_columns",
                    column=type(column).__name__,
                )
            )
    tables: dict = {}
    features: dict = {}
    for column in columns:
        key = column.get_feature_key_name()
        table = _TABLE_PREFIX + column.get_embedding_var_name()
        if key in features:
            raise ValueError(
                message(
                    f"Feature {key!r} is used with multiple embeddings, which is not supported",
                    "Give each feature one embedding column",
                    feature=key,
                )
            )
        features[key] = FeatureConfig(
            table, column.get_max_sequence_length(), column.get_weight_key_name()
        )
        vocabulary_size, dimension = column.get_embedding_table_size()
        tables[table] = TableConfig(
            vocabulary_size,
            dimension,
            initializer=column.get_initializer(),
            combiner=column.get_combiner(),
            learning_rate_fn=column.get_learning_rate_fn(),
        )
    return tables, features


def get_full_variable_names(
    graph: Any, table_to_config_dict: dict, optimization_parameters: object = None
) -> tuple[dict, dict]:
    """(table -> embedding variable name, table -> slot variable names) as a CPU run names
    them, from the scopes TF's TPU embedding columns recorded in `graph` (then cleared).

    Example:
        >>> names, slots = get_full_variable_names(graph, tables)  # doctest: +SKIP
    """
    key = tf_internals.tpu_column_scope_collection()
    collection = graph.get_collection_ref(key)
    if not collection:
        raise RuntimeError(
            message(
                "The TPU embedding feature columns recorded no variable scope in this graph",
                "Use the feature columns given to TPUEstimator in its model_fn, built "
                "for a TPU (columns built off a TPU are ordinary lookups)",
                tables=sorted(table_to_config_dict),
            )
        )
    names, slots = {}, {}
    for table in table_to_config_dict:
        scope, var = collection[0][table[len(_TABLE_PREFIX) :]]
        full = f"{scope}/{var}" if scope else var
        names[table] = full
        if optimization_parameters:
            slots[table] = _slot_names(full, optimization_parameters)
    graph.clear_collection(key)
    return names, slots


def _slot_names(full: str, optimization_parameters: object) -> Any:
    kind = type(optimization_parameters).__name__
    if kind == "StochasticGradientDescentParameters":
        return None
    if kind not in _SLOTS:
        raise ValueError(
            message(
                "No slot variable names are known for these optimization parameters",
                "Use Adagrad, Adam, Ftrl, Momentum, RMSProp, ProximalAdagrad or SGD parameters",
                optimization_parameters=kind,
            )
        )
    name, _, suffixes = _SLOTS[kind]
    return SLOT_VARIABLE_NAMES[name](*(f"{full}/{suffix}" for suffix in suffixes))


class EmbeddingConfig:
    """The internal form of an `EmbeddingConfigSpec` for one TPUEstimator (legacy).

    Example:
        >>> config = EmbeddingConfig(spec, 32, 32, 1, 8, run_config)  # doctest: +SKIP
        >>> config.has_embedding_tables()  # doctest: +SKIP
        True
    """

    def __init__(
        self,
        embedding_config_spec: EmbeddingConfigSpec,
        train_batch_size: int | None,
        eval_batch_size: int | None,
        num_hosts: int,
        num_cores: int,
        run_config: object,
    ) -> None:
        if not embedding_config_spec:
            raise ValueError(
                message(
                    "EmbeddingConfig needs an EmbeddingConfigSpec",
                    "Pass tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec(...)",
                    embedding_config_spec=embedding_config_spec,
                )
            )
        self._embedding_config_spec = embedding_config_spec
        self._train_batch_size = train_batch_size
        self._eval_batch_size = eval_batch_size
        self._num_hosts = num_hosts
        self._num_cores = num_cores
        self._run_config = run_config
        if embedding_config_spec.feature_columns:
            self._table_to_config_dict, self._feature_to_config_dict = (
                get_configs_from_feature_columns(embedding_config_spec.feature_columns)
            )
        else:
            self._table_to_config_dict = embedding_config_spec.table_to_config_dict
            self._feature_to_config_dict = embedding_config_spec.feature_to_config_dict
        self._partition_strategy = embedding_config_spec.partition_strategy
        self.dummy_table_variables = None
        self._grad_multiplier_fn = embedding_config_spec.experimental_gradient_multiplier_fn

    def get_grad_multiplier(self) -> Any:
        """The spec's gradient multiplier at the global step (float32), or None."""
        if self._grad_multiplier_fn:
            value = self._grad_multiplier_fn(tf.compat.v1.train.get_global_step())
            return tf.convert_to_tensor(value, dtype=tf.float32)
        return None

    def has_embedding_tables(self) -> bool:
        """Whether the spec defines any embedding table."""
        return bool(self._table_to_config_dict)

    def _create_tpu_embedding(self, mode: str) -> Any:
        if mode not in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            raise ValueError(f"Mode {mode} is not supported.")
        raise TfportInputError(
            message(f"EmbeddingConfig.get_tpu_embedding: {_NO_ENGINE}", _USE, mode=mode)
        )

    def get_tpu_embedding(self, mode: str) -> Any:
        """The TPU embedding engine of `mode` (raises: TF 2.21 has none)."""
        return self._create_tpu_embedding(mode)


def split_inputs(
    ctx: TPUDeployment, features: dict[str, object], labels: Labels, num_cores_per_batch: int = 1
) -> tuple:
    """(features, labels, one enqueue-data dict per core) of one input batch.

    Tensor-core embedding columns' sparse ids become padded ids plus a mask feature;
    inputs of TPU embedding tables need the TPU embedding engine (one line says so).

    Example:
        >>> features, labels, enqueue = split_inputs(ctx, features, labels)  # doctest: +SKIP
    """
    if getattr(ctx, "embedding_config", None):
        raise TfportInputError(
            message(
                f"split_inputs of TPU embedding tables: {_NO_ENGINE}",
                _USE,
                embedding_config=type(ctx.embedding_config).__name__,
            )
        )
    for column in getattr(ctx, "tensor_core_embedding_columns", None) or ():
        _pad_tensor_core_feature(ctx, column, features)
    return features, labels, [{} for _ in range(num_cores_per_batch)]


def _pad_tensor_core_feature(ctx: TPUDeployment, column: Any, features: dict) -> None:
    key = column.categorical_column.key
    sparse = features.pop(key)
    if not sparse.dtype.is_integer:
        raise ValueError(
            message(
                f"Feature {key!r} of a tensor-core embedding column holds non-integer ids",
                "Convert string ids to int ids in the input_fn",
                dtype=sparse.dtype.name,
            )
        )
    values, mask, suffix, size = tf_internals.tensor_core_padding(column, sparse)
    for tensor in (values, mask):
        tensor.set_shape([ctx.batch_size_for_input_fn, size])
    features[key] = values
    if key + suffix in features:
        raise ValueError(f"Mask key {key + suffix} for Tensor Core embedding is already in use.")
    features[key + suffix] = mask
