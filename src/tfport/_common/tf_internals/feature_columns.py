"""TensorFlow internals of feature columns: the v1 and v2 column classes tfport checks
for, and the v2 transformation cache it builds columns with.

Example:
    >>> from tfport._common.tf_internals import feature_columns
    >>> ("feature_column.feature_column_v2", "CategoricalColumn") in feature_columns.SYMBOLS
    True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

from tfport._common.tf_internals._access import tf_symbol, tf_symbol_replaced

# (module under `tensorflow.python`, attribute): the internal symbols used here.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("feature_column.feature_column", "_NumericColumn"),
    ("feature_column.feature_column", "_EmbeddingColumn"),
    ("feature_column.feature_column", "_SharedEmbeddingColumn"),
    ("feature_column.feature_column_v2", "NumericColumn"),
    ("feature_column.feature_column_v2", "EmbeddingColumn"),
    ("feature_column.feature_column_v2", "SharedEmbeddingColumn"),
    ("feature_column.feature_column_v2", "CategoricalColumn"),
    ("feature_column.feature_column_v2", "FeatureTransformationCache"),
    ("feature_column.feature_column", "_internal_input_layer"),
)
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = ()

# --- v1 columns (`feature_column.feature_column`, TF >= 1.x) -------------------------------


def numeric_column_v1_class() -> Any:
    """The v1 numeric column class `_NumericColumn`.

    Example:
        >>> numeric_column_v1_class().__name__
        '_NumericColumn'
    """
    return tf_symbol("feature_column.feature_column", "_NumericColumn")


def embedding_column_v1_class() -> Any:
    """The v1 embedding column class `_EmbeddingColumn`.

    Example:
        >>> embedding_column_v1_class().__name__
        '_EmbeddingColumn'
    """
    return tf_symbol("feature_column.feature_column", "_EmbeddingColumn")


def shared_embedding_column_v1_class() -> Any:
    """The v1 shared embedding column class `_SharedEmbeddingColumn`.

    Example:
        >>> shared_embedding_column_v1_class().__name__
        '_SharedEmbeddingColumn'
    """
    return tf_symbol("feature_column.feature_column", "_SharedEmbeddingColumn")


# --- v2 columns (`feature_column.feature_column_v2`, TF >= 2.0) ----------------------------


def numeric_column_class() -> Any:
    """The v2 numeric column class `NumericColumn` (what `tf.feature_column.numeric_column`
    makes).

    Example:
        >>> numeric_column_class().__name__
        'NumericColumn'
    """
    return tf_symbol("feature_column.feature_column_v2", "NumericColumn")


def embedding_column_class() -> Any:
    """The v2 embedding column class `EmbeddingColumn`.

    Example:
        >>> embedding_column_class().__name__
        'EmbeddingColumn'
    """
    return tf_symbol("feature_column.feature_column_v2", "EmbeddingColumn")


def shared_embedding_column_class() -> Any:
    """The v2 shared embedding column class `SharedEmbeddingColumn`.

    Example:
        >>> shared_embedding_column_class().__name__
        'SharedEmbeddingColumn'
    """
    return tf_symbol("feature_column.feature_column_v2", "SharedEmbeddingColumn")


def categorical_column_class() -> Any:
    """The base of the v2 categorical columns, `CategoricalColumn`.

    Example:
        >>> categorical_column_class().__name__
        'CategoricalColumn'
    """
    return tf_symbol("feature_column.feature_column_v2", "CategoricalColumn")


def feature_transformation_cache(features: object) -> Any:
    """A new v2 `FeatureTransformationCache(features)`: each column's transformed input,
    computed once per call of the columns that share it.

    Example:
        >>> cache = feature_transformation_cache({"x": [[1.0]]})
        >>> type(cache).__name__
        'FeatureTransformationCache'
    """
    return tf_symbol("feature_column.feature_column_v2", "FeatureTransformationCache")(features)


def core_embedding_column_classes() -> tuple:
    """The ordinary embedding columns: v1 `_EmbeddingColumn`, v2 `EmbeddingColumn`, v1
    `_SharedEmbeddingColumn` (`feature_column.feature_column*`, TF >= 2.0).

    Example:
        >>> len(core_embedding_column_classes())
        3
    """
    return (
        embedding_column_v1_class(),
        embedding_column_class(),
        shared_embedding_column_v1_class(),
    )


def core_numeric_column_classes() -> tuple:
    """The numeric columns: v1 `_NumericColumn` and v2 `NumericColumn` (TF >= 2.0).

    Example:
        >>> len(core_numeric_column_classes())
        2
    """
    return numeric_column_v1_class(), numeric_column_class()


@contextlib.contextmanager
def input_layers_recorded() -> Iterator[list[tuple[object, list, object, dict]]]:
    """Within it, every `tf.compat.v1.feature_column.input_layer` call is recorded (it
    calls `feature_column._internal_input_layer`, TF >= 1.13): the list yielded gets
    `(features, columns, output tensor, {column: [variables]})` per call.

    Example:
        >>> with input_layers_recorded() as calls:
        ...     pass
        >>> calls
        []
    """
    calls: list[tuple[object, list, object, dict]] = []
    original = tf_symbol("feature_column.feature_column", "_internal_input_layer")

    def recording(
        features: object, feature_columns: Iterable[object], *args: object, **kwargs: object
    ) -> object:
        single = hasattr(feature_columns, "name")  # one column (a namedtuple) or several
        columns: list[object] = [feature_columns] if single else list(feature_columns)
        given = kwargs.get("cols_to_vars")
        to_vars = given if isinstance(given, dict) else {}
        kwargs["cols_to_vars"] = to_vars
        out = original(features, columns, *args, **kwargs)
        calls.append((features, columns, out, to_vars))
        return out

    with tf_symbol_replaced("feature_column.feature_column", "_internal_input_layer", recording):
        yield calls
