"""`numpy_input_fn` / `pandas_input_fn`: the legacy queue-fed input functions on tf.data.

Legacy fed a FIFO (or random-shuffle) queue from the arrays, `batch_size` rows at a time,
epoch after epoch, and dequeued `batch_size` rows per step (`dequeue_up_to` when
`num_epochs` is set, so the last batch may be short, then the input ends). The same
stream is `from_tensor_slices(...).repeat(num_epochs).batch(batch_size)`: batches span
epoch boundaries, and without shuffling they are the legacy batches in the legacy order.

Called in a graph, the input_fn returns what legacy's returned: the `(features, labels)`
tensors of the next batch (from a one-shot iterator, which needs no queue runners and
no initializer). The Estimator engine reads the Dataset itself (`DATASET_FN_ATTR`), so
it can split batches across replicas and restart the input for every evaluation.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Container, Mapping
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike

# The attribute of a numpy/pandas input_fn holding the function that returns its Dataset
# (read by the engine's `call_input_fn`).
DATASET_FN_ATTR = "_tfport_dataset_fn"


def check_common(
    shuffle: object,
    batch_size: object,
    num_epochs: int | None,
    queue_capacity: object,
    num_threads: object,
) -> None:
    """Raises on arguments both input functions take (one line each)."""
    if not isinstance(shuffle, bool):
        raise TfportInputError(
            message(
                "shuffle must be provided and explicitly set as boolean",
                "Pass shuffle=True for training and shuffle=False for evaluation/prediction",
                shuffle=shuffle,
            )
        )
    for name, value, optional in (
        ("batch_size", batch_size, False),
        ("num_epochs", num_epochs, True),
        ("queue_capacity", queue_capacity, True),
        ("num_threads", num_threads, False),
    ):
        if value is None and optional:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise TfportInputError(
                message(f"{name} must be a positive int", f"Fix {name}", **{name: value})
            )


def unique_key(keys: Container[str], base: str = "__target_key__") -> str:
    """A key not among `keys` (to carry the labels beside the features)."""
    key = base
    while key in keys:
        key += "_n"
    return key


def _hint(value: object) -> str:
    if type(value).__module__.startswith("pandas"):
        return "Use tf.compat.v1.estimator.inputs.pandas_input_fn for pandas objects"
    return "Pass numpy arrays"


def as_arrays(x: object, y: object) -> tuple[dict, Any, Any]:
    """`(columns, feature_keys, target_keys)`; columns sorted by key like legacy."""
    import numpy as np

    if isinstance(x, dict):
        if not x:
            raise TfportInputError(
                message("x cannot be an empty dict", "Pass at least one feature", x=x)
            )
        columns = collections.OrderedDict(sorted((k, np.asarray(v)) for k, v in x.items()))
    elif isinstance(x, np.ndarray):
        columns = collections.OrderedDict([(unique_key({}, "__direct_key__"), x)])
    else:
        raise TfportInputError(
            message("x must be a dict or a numpy array", _hint(x), x=type(x).__name__)
        )
    feature_keys = list(columns)
    if y is None:
        target_keys: Any = None
    elif isinstance(y, dict):
        if not y:
            raise TfportInputError(message("y cannot be an empty dict", "Use y=None instead", y=y))
        duplicate = sorted(set(feature_keys) & set(y))
        if duplicate:
            raise TfportInputError(
                message(
                    f"{len(duplicate)} duplicate keys are found in both x and y",
                    "Rename the labels' keys",
                    duplicate_keys=duplicate,
                )
            )
        target_keys = sorted(y)
        for key in target_keys:
            columns[key] = np.asarray(y[key])
    elif isinstance(y, np.ndarray):
        target_keys = unique_key(columns)
        columns[target_keys] = y
    else:
        raise TfportInputError(
            message("y must be None, a dict or a numpy array", _hint(y), y=type(y).__name__)
        )
    lengths = {k: (v.shape[0] if v.ndim else None) for k, v in columns.items()}
    if len(set(lengths.values())) != 1 or None in lengths.values():
        raise TfportInputError(
            message(
                "Length of tensors in x and y is mismatched",
                "All elements in x and y must have the same length",
                lengths={str(k): v for k, v in lengths.items()},
            )
        )
    return columns, feature_keys, target_keys


def dataset(
    columns: dict,
    batch_size: int,
    num_epochs: int | None,
    shuffle: bool,
    queue_capacity: int | None,
    num_threads: int,
) -> Any:
    """The batched stream of `columns` (a dict of equal-length arrays)."""
    tf = import_tf()
    ds = tf.data.Dataset.from_tensor_slices(dict(columns))
    if shuffle:
        ds = ds.shuffle(queue_capacity or 1000, reshuffle_each_iteration=True)
    ds = ds.repeat(num_epochs).batch(batch_size, drop_remainder=num_epochs is None)
    return ds.prefetch(num_threads)


def as_input_fn(dataset_fn: Callable[[], object]) -> Any:
    """The legacy-style input_fn over `dataset_fn` (a function returning the Dataset).

    In a graph it returns the next batch's tensors (`(features, labels)` or `features`),
    eagerly the Dataset; the engine finds `dataset_fn` under `DATASET_FN_ATTR`.
    """

    def input_fn() -> Any:
        tf = import_tf()
        ds = dataset_fn()
        if tf.executing_eagerly():
            return ds
        return tf.compat.v1.data.make_one_shot_iterator(ds).get_next()

    setattr(input_fn, DATASET_FN_ATTR, dataset_fn)
    return input_fn


def numpy_input_fn(
    x: Mapping[str, ArrayLike] | np.ndarray,
    y: Mapping[str, ArrayLike] | np.ndarray | None = None,
    batch_size: int = 128,
    num_epochs: int | None = 1,
    shuffle: bool | None = None,
    queue_capacity: int = 1000,
    num_threads: int = 1,
) -> Any:
    """An input_fn feeding a dict of numpy arrays (or one array) and labels.

    Called in a graph (as an Estimator or a legacy model_fn calls it), its input_fn
    returns the next batch's `(features, labels)` tensors (features alone when `y` is
    None), like legacy's queue; called eagerly it returns the `tf.data.Dataset` of them.
    `features` is a dict keyed like `x` (one tensor when `x` is an array), labels are one
    tensor or a dict keyed like `y`. `num_epochs=None` repeats forever
    (full batches only); otherwise the input ends after `num_epochs` passes and the last
    batch may be short. `queue_capacity` is the shuffle buffer, `num_threads` the prefetch
    depth.

    Example:
        >>> import numpy as np
        >>> fn = numpy_input_fn({"x": np.arange(4.0)}, np.arange(4), batch_size=2,
        ...                     shuffle=False)
        >>> fn().element_spec[0]["x"].shape.as_list()  # doctest: +SKIP
        [None]
    """
    check_common(shuffle, batch_size, num_epochs, queue_capacity, num_threads)
    columns, feature_keys, target_keys = as_arrays(x, y)

    def dataset_fn() -> Any:
        ds = dataset(columns, batch_size, num_epochs, bool(shuffle), queue_capacity, num_threads)

        def split(batch: dict) -> Any:
            if isinstance(x, dict):
                features: Any = {k: batch[k] for k in feature_keys}
            else:
                features = batch[feature_keys[0]]
            if target_keys is None:
                return features
            if isinstance(target_keys, str):
                return features, batch[target_keys]
            return features, {k: batch[k] for k in target_keys}

        return ds.map(split)

    return as_input_fn(dataset_fn)


def _get_unique_target_key(features: Container[str]) -> str:
    """Legacy `numpy_io._get_unique_target_key`: `__target_key__` (plus `_n`s) not in
    `features`."""
    return unique_key(features)


def _validate_and_convert_features(x: object) -> collections.OrderedDict:
    """Legacy `numpy_io._validate_and_convert_features`: a non-empty dict (sorted by key) or
    array (under `__direct_np_input__`) as an OrderedDict."""
    import numpy as np

    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        return collections.OrderedDict(sorted(x.items(), key=lambda item: item[0]))
    if isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array")
        return collections.OrderedDict({"__direct_np_input__": x})
    raise TypeError(f"x must be a dict or array; got {type(x).__name__}")
