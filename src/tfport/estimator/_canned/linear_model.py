"""`LinearModel` of legacy `canned.linear`: a Keras (tf_keras) model computing a weighted sum
of v2 feature columns, as libraries used it inside their own model_fns and Keras models.

Variables are legacy's: `<name>/<column>/weights` (shape `[num_buckets or width, units]`)
and `<name>/bias_weights`, created through `tf.compat.v1.get_variable` in the caller's
variable scope (so they take partitioners and reuse like legacy's), zero-initialized.
Columns are read in name order; categorical columns are summed with `sparse_combiner`.

Example:
    >>> from tfport.estimator._canned.linear_model import LinearModel
    >>> LinearModel.__name__
    'LinearModel'
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumn, FeatureColumns, Features

tf = import_tf()
_Layer: Any = tf.keras.layers.Layer
_Model: Any = tf.keras.Model

__all__ = ["LinearModel"]
# graph -> {"names": names Keras gave replica 0's unnamed LinearModels, r: how many replica r took}
_AUTO_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _scope_name(column_name: str) -> str:
    """A column name made valid as a variable scope (legacy's sanitizing)."""
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", column_name)


def _normalize(feature_columns: FeatureColumns) -> list:
    """The columns as a list sorted by name; ValueError if empty, not columns, or duplicated."""
    base = tf.__internal__.feature_column.FeatureColumn
    if isinstance(feature_columns, base):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    columns = list(feature_columns)
    if not columns:
        raise ValueError("feature_columns must not be empty.")
    names: dict[str, Any] = {}
    for column in columns:
        if not isinstance(column, base):
            raise ValueError(f"Items of feature_columns must be a FeatureColumn. Given: {column}.")
        if column.name in names:
            raise ValueError(
                "Duplicate feature column name found for columns: "
                f"{names[column.name]} and {column}. This usually means that these columns "
                "refer to same base feature. Either one must be discarded or a duplicated "
                "but renamed item must be inserted in features dict."
            )
        names[column.name] = column
    return sorted(columns, key=lambda c: c.name)


def _is_categorical(column: FeatureColumn) -> bool:
    return isinstance(column, tf_internals.categorical_column_class())


def _weighted_sum(column: Any, cache: Any, state: Any, combiner: str, weights: Any) -> Any:
    """`[batch, units]`: the column's input times its weights (categorical: a sparse lookup)."""
    if _is_categorical(column):
        sparse = column.get_sparse_tensors(cache, state)
        ids = tf.sparse.reshape(sparse.id_tensor, [sparse.id_tensor.dense_shape[0], -1])
        values = sparse.weight_tensor
        if values is not None:
            values = tf.sparse.reshape(values, [values.dense_shape[0], -1])
        return tf.nn.safe_embedding_lookup_sparse(
            weights, ids, sparse_weights=values, combiner=combiner, name="weighted_sum"
        )
    dense = column.get_dense_tensor(cache, state)
    width = column.variable_shape.num_elements()
    dense = tf.reshape(dense, (tf.shape(dense)[0], width))
    return tf.matmul(dense, weights, name="weighted_sum")


def _check_batch_sizes(sums: list, columns: list) -> None:
    sizes = {}
    for value, column in zip(sums, columns):
        size = value.shape[0] if value.shape.rank else None
        if size is not None:
            sizes[column.name] = size
    if len(set(sizes.values())) > 1:
        raise ValueError(f"Batch size (first dimension) of each feature must be same. {sizes}")


class _LinearModelLayer(_Layer):
    """The layer behind `LinearModel`: one weight variable per column, and a bias."""

    def __init__(
        self,
        feature_columns: FeatureColumns,
        units: int = 1,
        sparse_combiner: str = "sum",
        trainable: bool = True,
        name: str | None = None,
        **kwargs: object,
    ) -> None:
        super().__init__(name=name, trainable=trainable, **kwargs)
        self._feature_columns = _normalize(feature_columns)
        dense_base = tf.__internal__.feature_column.DenseColumn
        for column in self._feature_columns:
            if not isinstance(column, dense_base) and not _is_categorical(column):
                raise ValueError(
                    "Items of feature_columns must be either a DenseColumn or "
                    f"CategoricalColumn. Given: {column}"
                )
        self._units = units
        self._sparse_combiner = sparse_combiner
        self._state_manager = tf.__internal__.feature_column.StateManager(self, self.trainable)
        self.bias = None

    def build(self, _: Any) -> None:
        v1 = tf.compat.v1
        zeros = tf.keras.initializers.zeros()
        with v1.variable_scope(self.name, auxiliary_name_scope=False):
            for column in self._feature_columns:
                with v1.variable_scope(_scope_name(column.name), auxiliary_name_scope=False):
                    column.create_state(self._state_manager)
                    rows = (
                        column.num_buckets
                        if _is_categorical(column)
                        else column.variable_shape.num_elements()
                    )
                    self._state_manager.create_variable(
                        column,
                        name="weights",
                        dtype=tf.float32,
                        shape=(rows, self._units),
                        initializer=zeros,
                        trainable=self.trainable,
                    )
            self.bias = self.add_weight(
                name="bias_weights",
                dtype=tf.float32,
                shape=[self._units],
                initializer=zeros,
                trainable=self.trainable,
                use_resource=True,
                getter=v1.get_variable,
            )
        super().build(None)

    def call(self, features: Features) -> Any:
        if not isinstance(features, dict):
            raise ValueError(f"We expected a dictionary here. Instead we got: {features}")
        with tf.compat.v1.name_scope(self.name):
            cache = tf.__internal__.feature_column.FeatureTransformationCache(features)
            sums = []
            for column in self._feature_columns:
                with tf.compat.v1.name_scope(_scope_name(column.name)):
                    weights = self._state_manager.get_variable(column, "weights")
                    sums.append(
                        _weighted_sum(
                            column, cache, self._state_manager, self._sparse_combiner, weights
                        )
                    )
            _check_batch_sizes(sums, self._feature_columns)
            no_bias = tf.math.add_n(sums, name="weighted_sum_no_bias")
            return tf.nn.bias_add(no_bias, self.bias, name="weighted_sum")

    def get_config(self) -> dict:
        serialize = tf.__internal__.feature_column.serialize_feature_column
        config = {
            "feature_columns": [serialize(c) for c in self._feature_columns],
            "units": self._units,
            "sparse_combiner": self._sparse_combiner,
        }
        return {**super().get_config(), **config}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Mapping[str, object] | None = None) -> Any:
        deserialize = tf.__internal__.feature_column.deserialize_feature_column
        config = dict(config)
        columns = [deserialize(c, custom_objects) for c in config.pop("feature_columns")]
        return cls(feature_columns=columns, **config)


def _replica_id() -> int:
    """This replica's id, 0 outside replicas (no op made: later op seeds stay legacy's)."""
    return tf_internals.replica_id() or 0


def _replica0_name(replica: int) -> Any:
    """The name replica 0's unnamed model of the same rank got (None: let Keras name it).

    Each replica builds the model_fn in one graph, and Keras would number a replica's
    unnamed models on (`linear_model_1`, ...): variables replica 0 does not have.
    """
    state = _AUTO_NAMES.setdefault(tf.compat.v1.get_default_graph(), {"names": []})
    rank = state.get(replica, 0)
    state[replica] = rank + 1
    return state["names"][rank] if rank < len(state["names"]) else None


class LinearModel(_Model):
    """A linear prediction `[batch, units]` from `feature_columns` (legacy `canned.linear`).

    Categorical columns count as indicator columns (one weight per bucket and unit); dense
    columns multiply their flattened value. `bias` is the `[units]` bias variable.

    Args:
        feature_columns: v2 `DenseColumn`s and `CategoricalColumn`s.
        units: width of the output.
        sparse_combiner: how a multivalent categorical column combines (`'sum'`, `'mean'`,
            `'sqrtn'`).
        trainable: whether the variables are trainable.
        name: the model's name: the scope of its variables.
        **kwargs: other Keras layer arguments.

    Example:
        >>> model = LinearModel([tf.feature_column.numeric_column("x")], units=2)
        ... # doctest: +SKIP
        >>> logits = model({"x": x})  # doctest: +SKIP
    """

    def __init__(
        self,
        feature_columns: FeatureColumns,
        units: int = 1,
        sparse_combiner: str = "sum",
        trainable: bool = True,
        name: str | None = None,
        **kwargs: object,
    ) -> None:
        auto, replica = name is None, _replica_id()
        if auto and replica > 0:
            name = _replica0_name(replica)
        super().__init__(name=name, **kwargs)
        if auto and replica == 0:
            graph = tf.compat.v1.get_default_graph()
            _AUTO_NAMES.setdefault(graph, {"names": []})["names"].append(self.name)
        self.layer = _LinearModelLayer(
            feature_columns, units, sparse_combiner, trainable, name=self.name, **kwargs
        )

    def call(self, features: Features) -> Any:
        """The weighted sum of `features` (a dict keyed by the columns' keys)."""
        return self.layer(features)

    @property
    def bias(self) -> Any:
        """The bias variable (None before the first call)."""
        return self.layer.bias
