"""`pandas_input_fn`: a DataFrame (and a Series or DataFrame of labels) as an input_fn."""

from __future__ import annotations

import collections
from collections.abc import Container
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport.estimator._inputs import numpy_io

if TYPE_CHECKING:
    import pandas as pd


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        pandas = None
    if pandas is None:
        raise TfportInputError(
            message(
                "pandas_input_fn needs pandas, which is not installed",
                "pip install 'tfport[pandas]'",
                pandas=None,
            )
        )
    return pandas


def pandas_input_fn(
    x: pd.DataFrame,
    y: pd.Series | pd.DataFrame | None = None,
    batch_size: int = 128,
    num_epochs: int | None = 1,
    shuffle: bool | None = None,
    queue_capacity: int = 1000,
    num_threads: int = 1,
    target_column: str = "target",
) -> Any:
    """An input_fn feeding a pandas DataFrame `x` (labels: a Series or DataFrame `y`).

    Features are `x`'s columns (in column order); labels one tensor (a Series `y`) or a
    dict keyed by `y`'s columns. Batching, epochs and the end of input are
    `numpy_input_fn`'s, and so is what the input_fn returns (the next batch's tensors in a
    graph, the Dataset eagerly); `x` and `y` must share their index.

    Example:
        >>> import pandas as pd
        >>> fn = pandas_input_fn(pd.DataFrame({"a": [1.0, 2.0]}), pd.Series([0, 1]),
        ...                      batch_size=2, shuffle=False)
        >>> sorted(fn().element_spec[0])  # doctest: +SKIP
        ['a']
    """
    pd = _pandas()
    numpy_io.check_common(shuffle, batch_size, num_epochs, queue_capacity, num_threads)
    if not isinstance(x, pd.DataFrame):
        raise TfportInputError(
            message("x must be a pandas DataFrame", "Pass a DataFrame", x=type(x).__name__)
        )
    if not isinstance(target_column, str):
        raise TfportInputError(
            message(
                "target_column must be a string", "Fix target_column", target_column=target_column
            )
        )
    columns = collections.OrderedDict((k, x[k].to_numpy()) for k in x.columns)
    feature_keys = list(columns)
    target: Any = None
    if y is not None:
        if not isinstance(y, (pd.Series, pd.DataFrame)):
            raise TfportInputError(
                message("y must be a pandas Series or DataFrame", "Pass one", y=type(y).__name__)
            )
        if target_column in x:
            raise TfportInputError(
                message(
                    f"Cannot use name {target_column} for target column: DataFrame already has "
                    "a column with that name",
                    "Pass another target_column",
                    columns=list(x.columns),
                )
            )
        if len(x.index) != len(y.index) or not (x.index == y.index).all():
            raise TfportInputError(
                message(
                    "Index for x and y are mismatched",
                    "Give x and y the same index",
                    x_rows=len(x.index),
                    y_rows=len(y.index),
                )
            )
        if isinstance(y, pd.DataFrame):
            target = {}
            for column in y.columns:
                key = numpy_io.unique_key(columns, f"{column}_target")
                columns[key] = y[column].to_numpy()
                target[column] = key
        else:
            columns[target_column] = y.to_numpy()
            target = target_column

    def dataset_fn() -> Any:
        ds = numpy_io.dataset(
            columns, batch_size, num_epochs, bool(shuffle), queue_capacity, num_threads
        )

        def split(batch: dict) -> Any:
            features = {k: batch[k] for k in feature_keys}
            if target is None:
                return features
            if isinstance(target, str):
                return features, batch[target]
            return features, {k: batch[v] for k, v in target.items()}

        return ds.map(split)

    return numpy_io.as_input_fn(dataset_fn)


def _get_unique_target_key(features: Container[str], target_column_name: str) -> str:
    """Legacy `pandas_io._get_unique_target_key`: `target_column_name`, or when `features`
    has that column, the name with `_<uuid4>` appended."""
    import uuid

    if target_column_name in features:
        return f"{target_column_name}_{uuid.uuid4()}"
    return target_column_name
