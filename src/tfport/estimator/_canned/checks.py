"""Input checks for canned estimators: clear errors naming the column and the value.

Static problems (a missing feature key, a wrong dtype) are raised while the graph is
built; the labels' checks are the heads' (`_heads.label_checks`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, Features, TFModule


def check_features(features: Features, columns: FeatureColumns, estimator: str) -> None:
    """Raises `TfportInputError` when `features` lacks a column's key or has a wrong dtype.

    Only what the legacy feature columns refused is refused (measured on TF 2.15):

    - a raw string key of `crossed_column` takes any dtype (numbers are crossed as text);
    - a `numeric_column` (also inside `bucketized_column`) takes any numeric dtype
      (cast to the column's dtype), not strings;
    - a string categorical column (vocabulary list/file, hash bucket) takes strings
      only; an integer one (identity, integer vocabulary) takes integers only.

    Example:
        >>> check_features({"x": x}, [numeric_column("x")], "DNNClassifier")  # doctest: +SKIP
    """
    if not isinstance(features, dict):
        raise TfportInputError(
            message(
                f"{estimator} needs features as a dict of feature name -> Tensor",
                "Return ({'name': tensor, ...}, labels) from input_fn",
                features=type(features),
            )
        )
    tf = import_tf()
    for column in columns:
        _refuse_sequence_column(column, estimator)
        spec = (  # v1-only columns (e.g. `_SharedEmbeddingColumn`) have the v1 spec
            tf.feature_column.make_parse_example_spec([column])
            if hasattr(column, "parse_example_spec")
            else tf.compat.v1.feature_column.make_parse_example_spec([column])
        )
        crossed, numeric = _lenient_keys(column)
        for key, parse in spec.items():
            if key in crossed and key not in numeric:
                _check_present(features, key, column, estimator)
            else:
                want = "numeric" if key in numeric else parse.dtype
                _check_one(tf, features, key, want, column, estimator)


def _refuse_sequence_column(column: Any, estimator: str) -> None:
    """Sequence columns only feed the RNN estimators (legacy: an obscure shape error)."""
    todo = [column]
    while todo:
        col = todo.pop()
        if type(col).__name__.lstrip("_").startswith("Sequence"):
            raise TfportInputError(
                message(
                    f"{estimator}: feature column {column.name!r} is a sequence column, which "
                    "only the RNN estimators read",
                    "Use tf.estimator.experimental.RNNClassifier / RNNEstimator, or a "
                    "non-sequence column",
                    column=column.name,
                )
            )
        todo.extend(
            getattr(col, a) for a in ("source_column", "categorical_column") if hasattr(col, a)
        )


def _lenient_keys(column: Any) -> tuple[set, set]:
    """Keys a column takes in any dtype (crossed raw keys) and in any numeric dtype."""
    crossed: set = set()
    numeric: set = set()
    todo = [column]
    while todo:
        col = todo.pop()
        if type(col).__name__.lstrip("_").startswith("NumericColumn"):
            numeric.add(col.key)
        for key in getattr(col, "keys", ()) if not isinstance(col, dict) else ():
            if isinstance(key, str):
                crossed.add(key)
            else:
                todo.append(key)
        for attr in ("source_column", "categorical_column"):
            if getattr(col, attr, None) is not None:
                todo.append(getattr(col, attr))
        todo.extend(getattr(col, "categorical_columns", None) or ())
    return crossed, numeric


def _check_present(features: dict, key: str, column: Any, estimator: str) -> None:
    if key not in features:
        raise TfportInputError(
            message(
                f"{estimator}: feature column {column.name!r} needs the feature {key!r}, which "
                "input_fn did not return",
                "Return that key from input_fn or fix the column's key",
                column=column.name,
                received_keys=sorted(map(str, features)),
            )
        )


def _check_one(
    tf: TFModule, features: dict, key: str, want: Any, column: Any, estimator: str
) -> None:
    _check_present(features, key, column, estimator)
    got = getattr(features[key], "dtype", None)
    if got is None:
        return
    got = tf.as_dtype(got)
    if want == "numeric":
        ok = got != tf.string and got != tf.bool
        want_name = "a numeric dtype"
    else:
        ok = (got == tf.string) == (want == tf.string)
        if want.is_integer and not got.is_integer:
            ok = False
        want_name = want.name
    if not ok:
        raise TfportInputError(
            message(
                f"{estimator}: feature {key!r} of column {column.name!r} has dtype {got.name}, "
                f"the column needs {want_name}",
                "Cast the feature in input_fn or use a column of the matching type",
                column=column.name,
                dtype=got.name,
            )
        )
