"""Feature columns as Keras 3 layers and `keras.ops`, with TensorFlow's exact semantics.

Dense inputs only: a categorical feature holds one value per example (`[batch]` or
`[batch, 1]`), or several padded with `''` / `-1` (what `tf.sparse.to_dense` makes of a
parsed `VarLenFeature`); feature columns drop those pad values, and so does this model.

Example:
    >>> ctx = Columns(weights, input_shapes={})  # doctest: +SKIP
    >>> net = ctx.input_layer("dnn/", feature_columns)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from tfport._common.errors import TfportInputError, message
from tfport._common.types import NamedColumn, Tensor

SUPPORTED = (
    "numeric_column",
    "bucketized_column",
    "categorical_column_with_vocabulary_list / _file",
    "categorical_column_with_identity",
    "categorical_column_with_hash_bucket",
    "crossed_column",
    "embedding_column",
    "shared_embedding_columns / shared_embeddings",
    "indicator_column",
    "weighted_categorical_column",
)
_DEFAULT_CROSS_HASH_KEY = 0xDECAFCAFFE


def kind(column: object) -> str:
    """The column's class name without the leading underscore and a `V2` suffix."""
    name = type(column).__name__.lstrip("_")
    return name[:-2] if name.endswith("V2") else name


def unsupported(column: object, why: str = "") -> TfportInputError:
    """The one-line refusal naming the column and its kind."""
    return TfportInputError(
        message(
            f"Feature column {getattr(column, 'name', column)!r} ({kind(column)}) is not "
            "supported by the Keras export" + (f": {why}" if why else ""),
            "Supported: " + ", ".join(SUPPORTED),
            column=column,
        )
    )


class Cat:
    """Categorical ids of a batch: `ids` [b, k] int32, `mask` [b, k] float32 (1 = kept),
    `weights` [b, k] float32 or None, `size` (number of buckets), `raw` ([b, k] input)."""

    def __init__(self, ids: Any, mask: Any, size: int, weights: Any = None) -> None:
        self.ids, self.mask, self.size, self.weights = ids, mask, size, weights

    def scale(self) -> Any:
        """Per-value factor: the mask, times the weights for a weighted column."""
        return self.mask if self.weights is None else self.mask * self.weights


class Columns:
    """Builds Keras tensors for feature columns over one set of `keras.Input`s.

    Args:
        weight: `weight(scope, suffix)` -> numpy array of the checkpoint variable under
            `scope` whose name ends with `suffix`.
        input_shapes: per-example shape overrides by feature key.
    """

    def __init__(
        self,
        weight: Callable[[str, str], np.ndarray],
        input_shapes: dict,
        api: tuple[object, object] | None = None,
    ) -> None:
        self.weight = weight
        self._api = api
        self.input_shapes = dict(input_shapes or {})
        self.inputs: dict[str, Any] = {}
        self.assign: list[tuple[Any, list]] = []  # (layer, weights) set once the model exists
        self._shared: dict[str, Any] = {}
        self._names: dict[str, int] = {}

    def name(self, base: str) -> str:
        """A unique layer name (a column used twice gets `_1`, `_2`, ...)."""
        base = _clean(base)
        count = self._names.get(base, 0)
        self._names[base] = count + 1
        return base if count == 0 else f"{base}_{count}"

    def api(self) -> tuple:
        """(layers, ops): `keras.layers` and `keras.ops`, or stand-ins given to the
        constructor (the model_fn export records the calls as model.py source)."""
        if self._api is not None:
            return self._api
        from keras import layers, ops

        return layers, ops

    # --- raw inputs -------------------------------------------------------------------

    def raw(self, key: str, dtype: str, shape: tuple = (1,)) -> Any:
        """The `keras.Input` of feature `key` (made on first use)."""
        import keras

        if key not in self.inputs:
            shape = tuple(self.input_shapes.get(key, shape))
            self.inputs[key] = keras.Input(shape=shape, dtype=dtype, name=key)
        return self.inputs[key]

    @staticmethod
    def _dtype(tf_dtype: object) -> str:
        name = getattr(tf_dtype, "name", str(tf_dtype))
        return "string" if name == "string" else "int64" if "int" in name else "float32"

    def _kept(self, raw: Tensor) -> Any:
        _, ops = self.api()

        pad = "" if raw.dtype == "string" else -1
        return ops.cast(ops.not_equal(raw, pad), "float32")

    # --- categorical ids ---------------------------------------------------------------

    def categorical(self, column: Any) -> Cat:
        """Ids, mask and size of a categorical column (bucketized included)."""
        layers, ops = self.api()

        k = kind(column)
        if k == "WeightedCategoricalColumn":
            inner = self.categorical(column.categorical_column)
            w = ops.cast(self.raw(column.weight_feature_key, "float32"), "float32")
            return Cat(inner.ids, inner.mask, inner.size, w)
        if k == "BucketizedColumn":
            bucket = self._buckets(column)
            n = len(column.boundaries) + 1
            offsets = (ops.cumsum(ops.ones_like(bucket), axis=1) - 1) * n
            ids = bucket + offsets
            return Cat(ids, ops.ones_like(ids, dtype="float32"), n * int(bucket.shape[-1]))
        if k == "HashedCategoricalColumn":
            raw = self.raw(column.key, self._dtype(column.dtype))
            ids = layers.Hashing(
                num_bins=column.hash_bucket_size, name=self.name(f"hash_{column.name}")
            )(raw)
            return Cat(ops.cast(ids, "int32"), self._kept(raw), column.hash_bucket_size)
        if k == "IdentityCategoricalColumn":
            raw = self.raw(column.key, "int64")
            n = column.number_buckets
            in_range = ops.logical_and(ops.greater_equal(raw, 0), ops.less(raw, n))
            mask = self._kept(raw)
            if column.default_value is None:
                ids = ops.where(in_range, raw, 0)
                mask = mask * ops.cast(in_range, "float32")
            else:
                ids = ops.where(in_range, raw, column.default_value)
            return Cat(ops.cast(ids, "int32"), mask, n)
        if k in ("VocabularyListCategoricalColumn", "VocabularyFileCategoricalColumn"):
            return self._vocabulary(column, k)
        if k == "CrossedColumn":
            return self._crossed(column)
        raise unsupported(column)

    def _buckets(self, column: Any) -> Any:
        layers, ops = self.api()

        source = self.numeric(column.source_column)
        disc = layers.Discretization(
            bin_boundaries=[float(b) for b in column.boundaries],
            name=self.name(f"buckets_{column.name}"),
        )
        return ops.cast(disc(source), "int32")

    def _vocabulary(self, column: Any, k: str) -> Cat:
        layers, ops = self.api()

        if k == "VocabularyFileCategoricalColumn":
            vocab = _read_vocabulary(column)
        else:
            vocab = list(column.vocabulary_list)
        dtype = self._dtype(column.dtype)
        raw = self.raw(column.key, dtype)
        if dtype == "string":
            vocab = [v.decode() if isinstance(v, bytes) else str(v) for v in vocab]
            lookup = layers.StringLookup(
                vocabulary=vocab, num_oov_indices=1, name=self.name(f"lookup_{column.name}")
            )
        else:
            vocab = [int(v) for v in vocab]
            lookup = layers.IntegerLookup(
                vocabulary=vocab, num_oov_indices=1, name=self.name(f"lookup_{column.name}")
            )
        found = ops.cast(lookup(raw), "int32")  # 0: out of vocabulary, i + 1: vocab[i]
        oov = ops.equal(found, 0)
        mask = self._kept(raw)
        size = len(vocab) + (column.num_oov_buckets or 0)
        if column.num_oov_buckets:
            bucket = layers.Hashing(
                num_bins=column.num_oov_buckets, name=self.name(f"oov_{column.name}")
            )
            ids = ops.where(oov, ops.cast(bucket(raw), "int32") + len(vocab), found - 1)
        elif column.default_value is None or column.default_value < 0:
            ids = ops.where(oov, 0, found - 1)
            mask = mask * (1.0 - ops.cast(oov, "float32"))
        else:
            ids = ops.where(oov, int(column.default_value), found - 1)
        return Cat(ids, mask, size)

    def _crossed(self, column: Any) -> Cat:
        layers, ops = self.api()

        if column.hash_key not in (None, _DEFAULT_CROSS_HASH_KEY):
            raise unsupported(column, "it has a custom hash_key")
        sparse: list = []  # TF crosses its sparse inputs (ids) first
        dense: list = []
        mask = None
        for key in column.keys:
            if isinstance(key, str):
                value = self.raw(key, "string")  # crossed as is: '' is a value here
                kept = ops.ones_like(value, dtype="float32")
            else:
                cat = self.categorical(key)
                if kind(key) == "BucketizedColumn" and cat.ids.shape[-1] != 1:
                    raise unsupported(column, "it crosses a multi-dimensional bucketized column")
                value, kept = ops.cast(cat.ids, "int64"), cat.mask
            if value.shape[-1] != 1:
                raise unsupported(
                    column, "it crosses a multivalent feature (one value per example only)"
                )
            (dense if isinstance(key, str) else sparse).append(value)
            mask = kept if mask is None else mask * kept
        cross = layers.HashedCrossing(
            num_bins=column.hash_bucket_size, name=self.name(f"cross_{column.name}")
        )
        ids = ops.cast(ops.reshape(cross(tuple(sparse + dense)), (-1, 1)), "int32")
        return Cat(ids, mask, column.hash_bucket_size)

    # --- dense values ------------------------------------------------------------------

    def numeric(self, column: Any) -> Any:
        """A numeric column's value as float32 [batch, prod(shape)]."""
        _, ops = self.api()

        if column.normalizer_fn is not None:
            raise unsupported(column, "it has a normalizer_fn (arbitrary Python, no Keras layer)")
        shape = tuple(column.shape)
        raw = self.raw(column.key, "float32", shape)
        width = int(np.prod(shape)) if shape else 1
        return ops.reshape(ops.cast(raw, "float32"), (-1, width))

    def combine(
        self, cat: Cat, table: np.ndarray | None, combiner: str, name: str, layer: Any = None
    ):
        """`combiner`('sum'/'mean'/'sqrtn') over rows `table[ids]` scaled by weights."""
        layers, ops = self.api()

        if layer is None and table is not None:
            layer = layers.Embedding(table.shape[0], table.shape[1], name=self.name(name))
            self.assign.append((layer, [table]))
        rows = layer(cat.ids)
        scale = cat.scale()
        total = ops.sum(rows * ops.expand_dims(scale, -1), axis=1)
        if combiner == "sum":
            return total
        if combiner == "mean":
            return ops.divide_no_nan(total, ops.sum(scale, axis=1, keepdims=True))
        if combiner == "sqrtn":
            norm = ops.sqrt(ops.sum(ops.square(scale), axis=1, keepdims=True))
            return ops.divide_no_nan(total, norm)
        raise TfportInputError(
            message("Unknown combiner", "Use 'sum', 'mean' or 'sqrtn'", combiner=combiner)
        )

    def dense(self, scope: str, column: Any) -> Any:
        """A dense column (as `input_layer` / `linear_model` see it): [batch, width]."""
        _, ops = self.api()

        k = kind(column)
        if k == "NumericColumn":
            return self.numeric(column)
        if k == "BucketizedColumn":
            bucket = self._buckets(column)
            n = len(column.boundaries) + 1
            return ops.reshape(ops.one_hot(bucket, n), (-1, n * int(bucket.shape[-1])))
        if k == "IndicatorColumn":
            cat = self.categorical(column.categorical_column)
            hot = ops.one_hot(cat.ids, cat.size) * ops.expand_dims(cat.scale(), -1)
            return ops.sum(hot, axis=1)
        if k in ("EmbeddingColumn", "SharedEmbeddingColumn"):
            if getattr(column, "max_norm", None) is not None:
                raise unsupported(column, "it has max_norm")
            cat = self.categorical(column.categorical_column)
            if k == "SharedEmbeddingColumn":
                return self._shared_embedding(scope, column, cat)
            table = self.weight(scope, f"/{column.name}/embedding_weights")
            return self.combine(cat, table, column.combiner, f"{_clean(scope)}{column.name}")
        raise unsupported(column)

    def _shared_embedding(self, scope: str, column: Any, cat: Cat) -> Any:
        """One `Embedding` layer per shared table, each column with its own combiner.

        v1 tables live under the input layer (`<scope>.../<collection>/embedding_weights`),
        v2 ones (`shared_embeddings`) at the root, named by their creator.
        """
        layers, _ = self.api()

        shared = getattr(column, "shared_embedding_collection_name", None)
        if shared is not None:
            key, find = scope + shared, (scope, f"/{shared}/embedding_weights")
        else:
            shared = column.shared_embedding_column_creator._name  # noqa: SLF001
            key, find = shared, ("", f"/{shared}")
        if key not in self._shared:
            table = self.weight(*find)
            layer = layers.Embedding(table.shape[0], table.shape[1], name=self.name(key))
            self.assign.append((layer, [table]))
            self._shared[key] = layer
        return self.combine(cat, None, column.combiner, "", layer=self._shared[key])

    def input_layer(self, scope: str, columns: Iterable[NamedColumn]) -> Any:
        """`input_layer`: the dense columns sorted by name, concatenated."""
        _, ops = self.api()

        parts = [self.dense(scope, c) for c in sorted(columns, key=lambda c: c.name)]
        return parts[0] if len(parts) == 1 else ops.concatenate(parts, axis=-1)

    def linear_model(
        self, scope: str, columns: Iterable[NamedColumn], units: int, combiner: str
    ) -> Any:
        """`linear_model`: per column `x @ W` (dense) or combined `W[ids]` (categorical),
        summed, plus `bias_weights`."""
        layers, _ = self.api()

        total = None  # summed in name order, as linear_model does
        for column in sorted(columns, key=lambda c: c.name):
            name, suffix = f"linear_{column.name}", f"/{column.name}/weights"
            if _is_categorical(column):
                cat = self.categorical(column)
                part = self.combine(cat, self.weight(scope, suffix), combiner, name)
            else:
                value = self.dense(scope, column)
                dense = layers.Dense(units, use_bias=False, name=self.name(name))
                part = dense(value)
                self.assign.append((dense, [self.weight(scope, suffix)]))
            total = part if total is None else total + part
        return total + constant_row(self, "linear_bias", self.weight(scope, "/bias_weights"), total)


def constant_row(ctx: Columns, name: str, row: np.ndarray, like: object) -> Any:
    """`row` broadcast to `like`'s batch: a `Dense` over zeros whose bias is `row`."""
    layers, ops = ctx.api()
    row = np.asarray(row, np.float32).reshape(-1)
    layer = layers.Dense(row.shape[0], name=name)
    ctx.assign.append((layer, [np.zeros((1, row.shape[0]), np.float32), row]))
    zeros = ops.zeros_like(ops.cast(like, "float32"))
    if len(zeros.shape) > 1:
        zeros = ops.sum(zeros, axis=tuple(range(1, len(zeros.shape))))
    return layer(ops.expand_dims(zeros, -1))


def _is_categorical(column: object) -> bool:
    return kind(column) in (
        "BucketizedColumn",
        "HashedCategoricalColumn",
        "IdentityCategoricalColumn",
        "VocabularyListCategoricalColumn",
        "VocabularyFileCategoricalColumn",
        "CrossedColumn",
        "WeightedCategoricalColumn",
    )


def _clean(text: str) -> str:
    return text.replace("/", "_")


def _read_vocabulary(column: Any) -> list:
    if getattr(column, "file_format", None) not in (None, "text"):
        raise unsupported(column, "its vocabulary file is not text")
    try:
        with open(column.vocabulary_file, encoding="utf-8") as f:
            lines = [line.rstrip("\r\n") for line in f]
    except OSError as err:
        raise TfportInputError(
            message(
                "The vocabulary file of a feature column cannot be read",
                "Run where the estimator's vocabulary files exist",
                column=column.name,
                file=column.vocabulary_file,
            )
        ) from err
    size = column.vocabulary_size
    return lines[:size] if size else lines
