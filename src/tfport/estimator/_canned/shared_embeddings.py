"""`input_layer` that also takes v2 `tf.feature_column.shared_embeddings` columns.

TF's v1 `input_layer` refuses v2 `SharedEmbeddingColumn`s (legacy v2 canned estimators
read them through `DenseFeatures`). Here the other columns still go through one
`input_layer` call (same variable names), the shared ones through their v2
`get_dense_tensor`, and the pieces are concatenated in column-name order, as both layers
do. The shared table is created at the root variable scope, named like its creator
(`<a>_<b>_shared_embedding`), as the legacy v2 estimators (TF 2.15) did.

Example:
    >>> net = input_layer(features, [numeric, shared_a, shared_b])  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumn


def is_v2_shared(column: FeatureColumn) -> bool:
    """Whether `column` is a v2 `SharedEmbeddingColumn` (from `shared_embeddings`)."""
    return type(column).__name__ == "SharedEmbeddingColumn" and hasattr(
        column, "shared_embedding_column_creator"
    )


def input_layer(features: dict, columns: list) -> Any:
    """`tf.compat.v1.feature_column.input_layer(features, columns)`, v2 shared embeddings
    included.

    Example:
        >>> with tf.compat.v1.variable_scope("input_from_feature_columns"):  # doctest: +SKIP
        ...     net = input_layer(features, columns)
    """
    tf = import_tf()
    v1 = tf.compat.v1
    shared = [c for c in columns if is_v2_shared(c)]
    if not shared:
        return v1.feature_column.input_layer(features, columns)
    others = sorted((c for c in columns if not is_v2_shared(c)), key=lambda c: c.name)
    pieces: dict[str, Any] = {}
    if others:
        net = v1.feature_column.input_layer(features, others)
        widths = [c.variable_shape.num_elements() for c in others]
        for column, piece in zip(others, tf.split(net, widths, axis=1)):
            pieces[column.name] = piece
    with v1.variable_scope(
        v1.VariableScope(reuse=v1.AUTO_REUSE, name=""), auxiliary_name_scope=False
    ):
        for column in shared:  # the table first, at the root scope (legacy name)
            column.shared_embedding_column_creator.embedding_weights  # noqa: B018
    cache = tf_internals.feature_transformation_cache(features)
    for column in sorted(shared, key=lambda c: c.name):
        dense = column.get_dense_tensor(cache, None)
        width = column.variable_shape.num_elements()
        pieces[column.name] = tf.reshape(dense, (-1, width))
    return tf.concat([pieces[name] for name in sorted(pieces)], axis=1)
