"""Legacy's feed functions: the rows a queue-feeding thread enqueues at each step.

Legacy's queue-based input (`inputs.queues.feeding_functions`) ran one thread per feed
function; each call of a feed function returns the `feed_dict` of the next
`batch_size` rows for the placeholders of an `enqueue_many` op: the row numbers (a
DataFrame's index) and the columns of a numpy array, an `OrderedDict` of arrays or a
pandas DataFrame, or the values of the dicts a generator function yields. Rows are read
in order, from row 0 or (`random_start`) a row drawn with `seed`, wrapping round;
`num_epochs` bounds the reading, the last batch stopping at the epoch's end, and a call
after the last epoch raises `tf.errors.OutOfRangeError` (which ends the feeding thread and
closes the queue). Like legacy, constructing a feed function seeds Python's `random` module
with `seed` (the random start is drawn from it). `_enqueue_data` (in `feeding_queue`)
builds the queue and its runner.

tfport's own input functions read tf.data instead (`numpy_io`, `pandas_io`); these are
for code that builds legacy's queues itself.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tfport._common.tfenv import import_tf

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from numpy.typing import ArrayLike


def _epochs_done(epochs: int) -> Exception:
    tf = import_tf()
    return tf.errors.OutOfRangeError(None, None, f"Already emitted {epochs} epochs.")


def _fill_array(arr: Any, seq: Any, fillvalue: ArrayLike = 0) -> None:
    """Copies the ragged `seq` into the padded array `arr` in place, `fillvalue` elsewhere.

    `arr` has one more level of nesting than each innermost sequence of `seq` needs; along
    its last axis each row takes the sequence's values and then `fillvalue` (a missing
    or unsized sequence fills the whole row).

    Example:
        >>> import numpy as np
        >>> arr = np.zeros([2, 3], dtype=int)
        >>> _fill_array(arr, [np.array([1]), np.array([2, 3])], -1)
        >>> arr.tolist()
        [[1, -1, -1], [2, 3, -1]]
    """
    if arr.ndim == 1:
        try:
            count = len(seq)
        except TypeError:
            count = 0
        arr[:count] = seq
        arr[count:] = fillvalue
        return
    for row, part in itertools.zip_longest(arr, seq, fillvalue=()):
        _fill_array(row, part, fillvalue)


def _pad_if_needed(batch_key_item: Sequence[np.ndarray], fillvalue: ArrayLike = 0) -> Any:
    """The samples of one key as one array, their last axis padded to the longest.

    Samples must agree on every axis but the last (`ValueError` otherwise). When their
    last axes already agree (scalars included) the list is returned unchanged; otherwise
    a new array `[len(samples), ..., longest]` of the first sample's dtype, each sample
    followed by `fillvalue`.

    Example:
        >>> import numpy as np
        >>> _pad_if_needed([np.array([1, 2]), np.array([3])], 9).tolist()
        [[1, 2], [3, 9]]
    """
    import numpy as np

    leading: list[Any] = [item.shape[:-1] if item.shape else -1 for item in batch_key_item]
    if any(shape != leading[0] for shape in leading):
        raise ValueError("Array shapes must match.")
    lengths = [item.shape[-1] if item.shape else 0 for item in batch_key_item]
    if all(length == lengths[0] for length in lengths):
        return batch_key_item
    padded = np.zeros(
        [len(batch_key_item), *leading[0], max(lengths)], dtype=batch_key_item[0].dtype
    )
    _fill_array(padded, batch_key_item, fillvalue)
    return padded


def _get_integer_indices_for_next_batch(
    batch_indices_start: int,
    batch_size: int,
    epoch_end: int,
    array_length: int,
    current_epoch: int,
    total_epochs: int | None,
) -> tuple[list[int], int]:
    """`(row numbers of the next batch, epochs completed after it)`.

    The batch takes `batch_size` rows from `batch_indices_start`, wrapping at
    `array_length`; passing `epoch_end` (the last row of an epoch) completes an epoch.
    With `total_epochs` set the batch stops at the end of the last epoch, and a call with
    `current_epoch >= total_epochs` raises `tf.errors.OutOfRangeError`.

    Example:
        >>> _get_integer_indices_for_next_batch(3, 4, 4, 5, 0, 1)
        ([3, 4], 1)
    """
    if total_epochs is not None and current_epoch >= total_epochs:
        raise _epochs_done(current_epoch)
    rows = [i % array_length for i in range(batch_indices_start, batch_indices_start + batch_size)]
    ends = [position for position, row in enumerate(rows) if row == epoch_end]
    epochs = current_epoch + len(ends)
    if total_epochs is None or epochs < total_epochs:
        return rows, epochs
    # the batch reaches past the last epoch: keep rows up to that epoch's last row
    last = ends[len(ends) - 1 - (epochs - total_epochs)]
    return rows[: last + 1], total_epochs


class _RowCursor:
    """The row-reading state shared by the array, OrderedDict and DataFrame feed fns."""

    def _start(
        self, rows: int, batch_size: int, random_start: bool, seed: int | None, epochs: int | None
    ) -> None:
        self._rows = rows
        self._batch_size = batch_size
        self._num_epochs = epochs
        self._epoch = 0
        random.seed(seed)  # as legacy: `seed` seeds Python's `random` module
        self._trav = random.randrange(rows) if random_start else 0
        self._epoch_end = (self._trav - 1) % rows

    def _next_rows(self) -> list[int]:
        rows, self._epoch = _get_integer_indices_for_next_batch(
            batch_indices_start=self._trav,
            batch_size=self._batch_size,
            epoch_end=self._epoch_end,
            array_length=self._rows,
            current_epoch=self._epoch,
            total_epochs=self._num_epochs,
        )
        self._trav = (rows[-1] + 1) % self._rows
        return rows


class _ArrayFeedFn(_RowCursor):
    """Feeds a numpy array: `{placeholders[0]: row numbers, placeholders[1]: rows}`.

    Example:
        >>> import numpy as np
        >>> feed = _ArrayFeedFn(["i", "x"], np.arange(3) * 10, 2, num_epochs=1)
        >>> [feed()["x"].tolist(), feed()["x"].tolist()]
        [[0, 10], [20]]
    """

    def __init__(
        self,
        placeholders: Sequence[object],
        array: np.ndarray,
        batch_size: int,
        random_start: bool = False,
        seed: int | None = None,
        num_epochs: int | None = None,
    ) -> None:
        if len(placeholders) != 2:
            raise ValueError(f"_array_feed_fn expects 2 placeholders; got {len(placeholders)}.")
        self._placeholders = placeholders
        self._array = array
        self._start(len(array), batch_size, random_start, seed, num_epochs)

    def __call__(self) -> dict:
        rows = self._next_rows()
        return {self._placeholders[0]: rows, self._placeholders[1]: self._array[rows]}


class _OrderedDictNumpyFeedFn(_RowCursor):
    """Feeds an OrderedDict of equal-length arrays: row numbers, then each column.

    Example:
        >>> import collections, numpy as np
        >>> data = collections.OrderedDict(a=np.arange(3), b=np.arange(3) * 2)
        >>> feed = _OrderedDictNumpyFeedFn(["i", "a", "b"], data, 2)
        >>> {k: [int(n) for n in v] for k, v in feed().items()}
        {'i': [0, 1], 'a': [0, 1], 'b': [0, 2]}
    """

    def __init__(
        self,
        placeholders: Sequence[object],
        ordered_dict_of_arrays: Mapping[str, np.ndarray],
        batch_size: int,
        random_start: bool = False,
        seed: int | None = None,
        num_epochs: int | None = None,
    ) -> None:
        if len(placeholders) != len(ordered_dict_of_arrays) + 1:
            # legacy's message counts the columns only
            raise ValueError(
                f"Expected {len(ordered_dict_of_arrays)} placeholders; got {len(placeholders)}."
            )
        self._index_placeholder = placeholders[0]
        self._col_placeholders = placeholders[1:]
        self._ordered_dict_of_arrays = ordered_dict_of_arrays
        lengths = {len(column) for column in ordered_dict_of_arrays.values()}
        if len(lengths) != 1:
            raise ValueError("Array lengths must match.")
        self._start(lengths.pop(), batch_size, random_start, seed, num_epochs)

    def __call__(self) -> dict:
        rows = self._next_rows()
        feed_dict: dict = {self._index_placeholder: rows}
        for placeholder, column in zip(
            self._col_placeholders, self._ordered_dict_of_arrays.values()
        ):
            feed_dict[placeholder] = column[rows]
        return feed_dict


class _PandasFeedFn(_RowCursor):
    """Feeds a pandas DataFrame: the rows' index values, then each column's values.

    Example:
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"a": [1, 2, 3]}, index=[7, 8, 9])
        >>> feed = _PandasFeedFn(["i", "a"], frame, 2)
        >>> {k: v.tolist() for k, v in feed().items()}
        {'a': [1, 2], 'i': [7, 8]}
    """

    def __init__(
        self,
        placeholders: Sequence[object],
        dataframe: pd.DataFrame,
        batch_size: int,
        random_start: bool = False,
        seed: int | None = None,
        num_epochs: int | None = None,
    ) -> None:
        if len(placeholders) != len(dataframe.columns) + 1:
            raise ValueError(
                f"Expected {len(dataframe.columns) + 1} placeholders; got {len(placeholders)}."
            )
        self._index_placeholder = placeholders[0]
        self._col_placeholders = placeholders[1:]
        self._dataframe = dataframe
        self._start(len(dataframe), batch_size, random_start, seed, num_epochs)

    def __call__(self) -> dict:
        batch = self._dataframe.iloc[self._next_rows()]
        feed_dict = {
            placeholder: batch[column].values
            for placeholder, column in zip(self._col_placeholders, batch.columns)
        }
        feed_dict[self._index_placeholder] = batch.index.values
        return feed_dict


class _GeneratorFeedFn:
    """Feeds the dicts a generator function yields, one placeholder per key (sorted).

    Each call gathers dicts until `batch_size` values are collected (legacy counts every
    key's value, so with k keys a batch holds `ceil(batch_size / k)` dicts), calling the
    generator function again when it is exhausted (one more epoch). A call after
    `num_epochs` epochs raises `tf.errors.OutOfRangeError`. With `pad_value`, each key's
    values are padded along their last axis to the longest (`_pad_if_needed`).

    Example:
        >>> import numpy as np
        >>> def rows():
        ...     yield from ({"x": np.array(i)} for i in range(3))
        >>> feed = _GeneratorFeedFn(["x"], rows, 2, num_epochs=1)
        >>> [feed()["x"].tolist(), feed()["x"].tolist()]
        [[0, 1], [2, 0]]
    """

    def __init__(
        self,
        placeholders: Sequence[object],
        generator: Callable[[], Iterator[Mapping[str, object]]],
        batch_size: int,
        random_start: bool = False,
        seed: int | None = None,
        num_epochs: int | None = None,
        pad_value: ArrayLike | None = None,
    ) -> None:
        # a generator has no row to start from at random (`_enqueue_data` shuffles its rows
        # in the queue): `random_start` changes nothing; `seed` seeds Python's `random`
        # module, as legacy did, which the generator may draw from
        del random_start
        random.seed(seed)
        first = next(generator())
        if len(placeholders) != len(first):
            raise ValueError(f"Expected {len(first)} placeholders; got {len(placeholders)}.")
        self._keys = sorted(first.keys())
        self._col_placeholders = placeholders
        self._generator_function = generator
        self._iterator = generator()
        self._batch_size = batch_size
        self._num_epochs = num_epochs
        self._epoch = 0
        self._pad_value = pad_value

    def _next_row(self) -> Any:
        try:
            return next(self._iterator)
        except StopIteration:
            self._epoch += 1
            self._iterator = self._generator_function()
            return next(self._iterator)

    def __call__(self) -> dict:
        import numpy as np

        if self._num_epochs and self._epoch >= self._num_epochs:
            raise _epochs_done(self._epoch)
        values: dict = {}
        count = 0
        while count < self._batch_size:
            row = self._next_row()
            for key, placeholder in zip(self._keys, self._col_placeholders):
                if key not in row.keys():
                    raise KeyError(
                        "key mismatch between dicts emitted by GenFun "
                        f"Expected {self._keys} keys; got {row.keys()}"
                    )
                values.setdefault(placeholder, []).append(row[key])
                count += 1
        if self._pad_value is None:
            return {key: np.asarray(items) for key, items in values.items()}
        return {
            key: np.asarray(_pad_if_needed(items, self._pad_value)) for key, items in values.items()
        }
