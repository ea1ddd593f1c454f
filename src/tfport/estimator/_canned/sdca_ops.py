"""The graph of a `LinearSDCA` step around TensorFlow's SDCA kernel (`SdcaOptimizerV2`).

Checkpoint names are the legacy ones: the model weights (`linear/linear_model/...`), one
`<weights>_unshrunk` variable each (the solver's weights before the L1 proximal step), and
the example-state table, `ShardedMutableHashTable-<i>-of-<n>-keys/-values` (a
`DenseHashTable` per shard, keyed by the `SdcaFprint` of the example id, sharded on the
fingerprint's first half modulo the number of shards, as legacy).

Example:
    >>> spec = sdca_model_fn(features, labels, mode, config, head=head,
    ...                      feature_columns=cols, optimizer=sdca)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._canned import checks, linear
from tfport.estimator._canned.dense_tables import _ShardedMutableDenseHashTable
from tfport.estimator._engine.api.spec import ModeKeys

if TYPE_CHECKING:
    from tfport._common.types import (
        FeatureColumn,
        FeatureColumns,
        Features,
        KeyedColumn,
        Labels,
        ModelHead,
        OptimizerArg,
        TFModule,
    )
    from tfport.estimator._engine.api.run_config import RunConfig


class _SparseFeatureColumn:
    """One sparse column of a batch as SDCA reads it: parallel `[N]` tensors of example
    indices and feature indices (int64) and, optionally, feature values (float32, None:
    every value 1).

    Example:
        >>> col = _SparseFeatureColumn([0, 1, 1], [5, 6, 10], [1.0, 1.0, 0.5])
        ... # doctest: +SKIP
        >>> col.feature_indices.dtype  # doctest: +SKIP
        tf.int64
    """

    def __init__(self, example_indices: Any, feature_indices: Any, feature_values: Any) -> None:
        tf = import_tf()
        with tf.compat.v1.name_scope(None, "SparseFeatureColumn"):
            self._example_indices = tf.convert_to_tensor(
                example_indices, name="example_indices", dtype=tf.int64
            )
            self._feature_indices = tf.convert_to_tensor(
                feature_indices, name="feature_indices", dtype=tf.int64
            )
        self._feature_values = None
        if feature_values is not None:
            with tf.compat.v1.name_scope(None, "SparseFeatureColumn"):
                self._feature_values = tf.convert_to_tensor(
                    feature_values, name="feature_values", dtype=tf.float32
                )

    @property
    def example_indices(self) -> Any:
        """The example of each entry (`[N]` int64)."""
        return self._example_indices

    @property
    def feature_indices(self) -> Any:
        """The feature id of each entry (`[N]` int64)."""
        return self._feature_indices

    @property
    def feature_values(self) -> Any:
        """The value of each entry (`[N]` float32), or None (all 1)."""
        return self._feature_values


def _single(variables: Any, column: FeatureColumn) -> Any:
    parts = list(variables) if isinstance(variables, (list, tuple)) else [variables]
    parts = linear._expand(parts)
    if len(parts) != 1:
        raise TfportInputError(
            message(
                "LinearSDCA does not support partitioned weights",
                "Train without parameter servers (or with one partition per column)",
                column=getattr(column, "name", column),
                partitions=len(parts),
            )
        )
    return parts[0]


def _unique_ids(tf: TFModule, pair: Any) -> tuple:
    """(example index, feature id, value) of a column's ids: negative ids dropped, ids
    repeated within an example merged (their weights summed)."""
    ids = pair.id_tensor
    if pair.weight_tensor is not None:
        values = pair.weight_tensor.values
    else:
        values = tf.ones([tf.shape(ids.indices)[0]], tf.float32)
    rows = tf.reshape(ids.indices[:, 0], [-1])
    flat = tf.cast(tf.reshape(ids.values, [-1]), tf.int64)
    keep = tf.math.greater_equal(flat, 0)
    flat, rows, values = (tf.boolean_mask(t, keep) for t in (flat, rows, values))
    width = tf.math.reduce_max(flat) + 1
    merged, idx = tf.unique(width * rows + flat)
    count = tf.shape(merged)[0]
    rows = tf.math.unsorted_segment_min(rows, idx, count)
    values = tf.reshape(tf.math.unsorted_segment_sum(values, idx, count), [-1])
    return rows, merged - width * rows, values


class SDCAModel:
    """One SDCA problem: the batch, the model variables and their unshrunk copies.

    Example:
        >>> model = SDCAModel(sdca, "logistic_loss", batch, weights)  # doctest: +SKIP
        >>> train_op = model.update_weights(model.minimize(step))  # doctest: +SKIP
    """

    def __init__(self, sdca: Any, loss_type: str, batch: dict, weights: dict) -> None:
        tf = import_tf()
        l2 = sdca._symmetric_l2_regularization
        if l2 <= 0.0:
            raise TfportInputError(
                message("symmetric_l2_regularization should be positive", "Pass l2 > 0", l2=l2)
            )
        if sdca._symmetric_l1_regularization < 0.0:
            raise TfportInputError(
                message(
                    "symmetric_l1_regularization should be non-negative",
                    "Pass l1 >= 0",
                    l1=sdca._symmetric_l1_regularization,
                )
            )
        self.sdca, self.loss_type, self.batch, self.weights = sdca, loss_type, batch, weights
        self.unshrunk = {
            kind: [
                tf.compat.v1.Variable(
                    tf.zeros(v.shape, tf.float32), name=v.op.name + "_unshrunk", trainable=False
                )
                for v in variables
            ]
            for kind, variables in weights.items()
        }
        self.table = _ShardedMutableDenseHashTable(
            key_dtype=tf.int64,
            value_dtype=tf.float32,
            default_value=[0.0, 0.0, 0.0, 0.0],
            empty_key=[0, 0],  # SdcaFprint never yields 0 or 1 in its low half
            deleted_key=[1, 1],
            num_shards=sdca._num_table_shards or 1,
        )
        tf.compat.v1.summary.scalar("approximate_duality_gap", self.approximate_duality_gap())
        tf.compat.v1.summary.scalar("examples_seen", self.table.size())

    def _norm(self, fn: Any) -> Any:
        tf = import_tf()
        variables = [v for kind in ("sparse", "dense") for v in self.weights[kind]]
        return tf.math.add_n([tf.math.reduce_sum(fn(tf.cast(v, tf.float64))) for v in variables])

    def approximate_duality_gap(self) -> Any:
        """(primal + dual losses + l1 |w| + l2 |w|^2) / total example weight, from the
        example-state table (NaN before any example is seen).

        Example:
            >>> gap = model.approximate_duality_gap()  # doctest: +SKIP
        """
        tf = import_tf()
        sdca = self.sdca
        with tf.compat.v1.name_scope("sdca/approximate_duality_gap"):
            sums: list = []
            for shard in self.table.table_shards:
                with tf.control_dependencies(sums):  # one shard's float64 copy at a time
                    sums.append(tf.math.reduce_sum(tf.cast(shard.export()[1], tf.float64), 0))
            total = tf.math.add_n(sums)
            l1 = sdca._symmetric_l1_regularization * self._norm(tf.math.abs)
            l2 = sdca._symmetric_l2_regularization * self._norm(tf.math.square)
            return (total[1] + total[2] + l1 + l2) / total[3]

    def minimize(self, global_step: Any = None, name: str | None = None) -> Any:
        """The solver step: new duals into the table, deltas into the unshrunk weights
        (then `global_step` + 1 when given; `name`: the returned op's name scope/name).

        Sparse columns may come without values (`None`): the kernel counts them as 1.
        """
        tf = import_tf()
        sdca, batch = self.sdca, self.batch
        with tf.compat.v1.name_scope(name, "sdca/minimize"):
            keys = tf.raw_ops.SdcaFprint(input=batch["example_ids"])
            state = self.table.lookup(keys)
            sparse = batch["sparse"]
            indices = [tf.cast(tf.unique(tf.cast(f, tf.int32))[0], tf.int64) for _, f, _ in sparse]
            gathered = [
                tf.gather(w, i) for w, i in zip(self.unshrunk["sparse"], indices)
            ]  # fmt: skip
            esu, sfw, dfw = tf.raw_ops.SdcaOptimizerV2(
                sparse_example_indices=[r for r, _, _ in sparse],
                sparse_feature_indices=[f for _, f, _ in sparse],
                sparse_feature_values=[v for _, _, v in sparse if v is not None],
                dense_features=batch["dense"],
                example_weights=batch["example_weights"],
                example_labels=batch["labels"],
                sparse_indices=indices,
                sparse_weights=gathered,
                dense_weights=[tf.convert_to_tensor(w) for w in self.unshrunk["dense"]],
                example_state_data=state,
                loss_type=self.loss_type,
                l1=float(sdca._symmetric_l1_regularization),
                l2=float(sdca._symmetric_l2_regularization),
                num_loss_partitions=int(sdca._num_loss_partitions),
                num_inner_iterations=1,
                adaptive=bool(sdca._adaptive),
            )
            with tf.control_dependencies([esu]):
                ops = [self.table.insert(keys, esu)]
                for w, i, u in zip(self.unshrunk["sparse"], indices, sfw):
                    ops.append(tf.compat.v1.scatter_add(w, i, u))
                for w, u in zip(self.unshrunk["dense"], dfw):
                    ops.append(tf.compat.v1.assign_add(w, u))
            if global_step is None:
                return tf.group(*ops)
            with tf.control_dependencies(ops):
                return tf.compat.v1.assign_add(global_step, 1, name=name).op

    def update_weights(self, train_op: Any) -> Any:
        """Copies the unshrunk weights into the model's, then the L1 proximal step."""
        tf = import_tf()
        pairs = [
            (v, s)
            for kind in ("sparse", "dense")
            for v, s in zip(self.weights[kind], self.unshrunk[kind])
        ]
        with tf.control_dependencies([train_op]):
            ops = [v.assign(s) for v, s in pairs]
        l1 = self.sdca._symmetric_l1_regularization
        if l1 > 0:
            shrink = l1 / self.sdca._symmetric_l2_regularization
            with tf.control_dependencies(ops):
                ops = [
                    v.assign(tf.math.sign(v) * tf.math.maximum(0.0, tf.math.abs(v) - shrink))
                    for v, _ in pairs
                ]
        return tf.group(*ops)


def train_step(
    sdca: Any,
    weight_column: str | KeyedColumn | None,
    loss_type: str,
    feature_columns: Any,
    features: dict,
    targets: object,
    cols_to_vars: dict,
    bias: list,
    global_step: object,
) -> tuple:
    """`(SDCAModel, train_op)` of one step; `cols_to_vars`: column -> its weights.

    Example:
        >>> model, op = train_step(sdca, None, "squared_loss", cols, features, labels,
        ...                        cols_to_vars, bias, step)  # doctest: +SKIP
    """
    tf = import_tf()
    CategoricalColumn = tf_internals.categorical_column_class()

    key = sdca._example_id_column
    if key not in features:
        raise TfportInputError(
            message(
                f"LinearSDCA needs the example id column {key!r} in every training batch",
                f"Return features[{key!r}] (a string Tensor of shape [batch_size]) from "
                "input_fn, or fix example_id_column",
                features=sorted(features),
            )
        )
    batch_size = tf.shape(targets)[0]
    cache = tf.__internal__.feature_column.FeatureTransformationCache(features)
    sparse, sparse_w, dense, dense_w = [], [], [], []
    for column in sorted(feature_columns, key=lambda c: c.name):
        if isinstance(column, CategoricalColumn):
            sparse.append(_unique_ids(tf, column.get_sparse_tensors(cache, None)))
            sparse_w.append(_single(cols_to_vars[column], column))
        elif isinstance(column, tf.__internal__.feature_column.DenseColumn):
            if column.variable_shape.ndims != 1:
                raise TfportInputError(
                    message(
                        "LinearSDCA takes dense columns of rank 1 only",
                        "Reshape the column to a vector",
                        column=column.name,
                        rank=column.variable_shape.ndims,
                    )
                )
            dense.append(column.get_dense_tensor(cache, None))
            dense_w.append(_single(cols_to_vars[column], column))
        else:
            raise TfportInputError(
                message(
                    "LinearSDCA does not support this column type",
                    "Use numeric, bucketized or categorical columns",
                    column=type(column).__name__,
                )
            )
    dense.append(tf.ones([batch_size, 1]))
    dense_w.append(_single(bias, "bias"))
    name = getattr(weight_column, "key", weight_column)
    example_weights = (
        tf.cast(tf.reshape(features[name], [-1]), tf.float32) if name else tf.ones([batch_size])
    )
    batch = {
        "sparse": sparse,
        "dense": dense,
        "labels": tf.cast(tf.reshape(targets, [-1]), tf.float32),
        "example_weights": example_weights,
        "example_ids": tf.convert_to_tensor(features[key]),
    }
    model = SDCAModel(sdca, loss_type, batch, {"sparse": sparse_w, "dense": dense_w})
    return model, model.minimize(global_step)


def sdca_model_fn(
    features: Features,
    labels: Labels,
    mode: str,
    config: RunConfig | None,
    *,
    head: ModelHead,
    feature_columns: FeatureColumns,
    optimizer: OptimizerArg,
    partitioner: Callable[..., object] | None = None,
    sparse_combiner: str = "sum",
) -> Any:
    """The Linear model_fn when `optimizer` is a `LinearSDCA` (v1 and v2 heads).

    Example:
        >>> sdca_model_fn(features, labels, mode, config, head=head, feature_columns=cols,
        ...               optimizer=LinearSDCA("id"))  # doctest: +SKIP
    """
    tf = import_tf()
    v1 = tf.compat.v1
    checks.check_features(features, feature_columns, "Linear estimator")
    features = cast("dict[str, object]", features)  # check_features refused anything else
    values = tuple(features.values())

    if head.v2:  # the legacy v2 path builds its SDCA graph outside the `linear` scope
        with v1.variable_scope("linear", values=values):
            logits, cols_to_vars, bias = _logits(features, feature_columns)
        _summaries(cols_to_vars, bias)  # legacy v2: `bias`, not `linear/bias`
        return _spec(head, features, labels, mode, optimizer, logits, cols_to_vars, bias)
    replicas = getattr(config, "num_ps_replicas", 0) or 0
    partitioner = partitioner or v1.min_max_variable_partitioner(
        max_partitions=replicas, min_slice_size=64 << 20
    )
    with v1.variable_scope("linear", values=values, partitioner=partitioner):
        logits, cols_to_vars, bias = _logits(features, feature_columns)
        _summaries(cols_to_vars, bias)
        return _spec(head, features, labels, mode, optimizer, logits, cols_to_vars, bias)


def _logits(features: dict, feature_columns: FeatureColumns) -> tuple:
    """(logits, column -> weights, bias) of `linear_model` with one unit, sum combiner."""
    tf = import_tf()
    cols_to_vars: dict = {}
    logits = tf.compat.v1.feature_column.linear_model(
        features, list(feature_columns), units=1, cols_to_vars=cols_to_vars
    )
    bias = linear._expand(cols_to_vars.pop("bias"))
    return logits, cols_to_vars, bias


def _summaries(cols_to_vars: dict, bias: list) -> None:
    weights = linear._expand(v for vs in cols_to_vars.values() for v in vs)
    linear.add_linear_summaries(bias, weights, 1)


def _spec(
    head: Any,
    features: dict,
    labels: Labels,
    mode: str,
    sdca: Any,
    logits: Any,
    cols_to_vars: dict,
    bias: list,
) -> Any:
    train_op_fn = None
    if mode == ModeKeys.TRAIN:
        tf = import_tf()
        model, step = train_step(
            sdca, head.weight_column, sdca._loss_type_for(head), list(cols_to_vars),
            features, labels, cols_to_vars, bias, tf.compat.v1.train.get_global_step(),
        )  # fmt: skip
        update = model.update_weights(step)

        def train_op_fn(loss: Any) -> Any:
            del loss
            return tf.group(step, update)

    return head.create_estimator_spec(features, mode, logits, labels, train_op_fn=train_op_fn)
