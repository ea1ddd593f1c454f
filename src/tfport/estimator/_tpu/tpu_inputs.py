"""What legacy `tpu.tpu_estimator`'s infeed builders carry an input_fn's result in.

`_Inputs` holds what an input_fn returned (features and labels, or a Dataset read through
an initializable iterator), `_InputsWithStoppingSignals` a prediction Dataset with a
stopping signal (and a padding mask) on every batch plus one final stopping batch,
`InputsStructureRecorder` (legacy `_InputPipeline.InputsStructureRecorder`) the nested
structure of features/labels/signals, flattened for the infeed queue and restored after
it, and `_CapturedObject` the infeed queue built inside `enqueue_ops_fn`.

Example:
    >>> recorder = InputsStructureRecorder()
    >>> flat = recorder.flatten_features_and_labels(features, labels)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Labels
from tfport.estimator._tpu.tpu_host import TensorPacker

tf = import_tf()
_SMALL_FEATURE_DIM_SIZE = 1
_MIN_SMALL_FEATURES_TO_GROUP = 5


def _extract_key_names(tensor_or_dict: object) -> list:
    """The sorted keys of a dict, [] for anything else."""
    return sorted(tensor_or_dict) if isinstance(tensor_or_dict, dict) else []


class _CapturedObject:
    """Holds one object captured inside a function body, for use outside it.

    Example:
        >>> box = _CapturedObject()
        >>> box.capture(3)
        >>> box.get()
        3
    """

    def __init__(self) -> None:
        self._object: Any = None
        self._captured = False

    def capture(self, o: object) -> None:
        """Captures `o` (once)."""
        if self._captured:
            raise RuntimeError("InternalError: Object can capture only once. Please file bug.")
        self._captured, self._object = True, o

    def get(self) -> Any:
        """The captured object (RuntimeError before `capture`)."""
        if not self._captured:
            raise RuntimeError(
                "InternalError: Object is not captured properly before `get`. Please file bug."
            )
        return self._object


class _Inputs:
    """An input_fn's result: `(features, labels)` or a Dataset (read by an iterator).

    Example:
        >>> inputs = _Inputs.from_input_fn(({"x": [[1.0]]}, None))
        >>> inputs.features_and_labels()
        ({'x': [[1.0]]}, None)
    """

    def __init__(
        self,
        features: Features | None = None,
        labels: Labels = None,
        dataset: object = None,
        signals: dict[str, object] | None = None,
    ) -> None:
        if dataset is not None and (
            features is not None or labels is not None or signals is not None
        ):
            raise RuntimeError(
                "Internal Error: Either (features and labels) or dataset should be provided, "
                "not both. Please file bug"
            )
        self._features, self._labels, self._signals = features, labels, signals
        self._dataset = dataset
        self._iterator: Any = None

    @staticmethod
    def from_input_fn(return_values: object) -> _Inputs:
        """The `_Inputs` of what an input_fn returned."""
        if isinstance(return_values, tf.data.Dataset):
            return _Inputs(dataset=return_values)
        return _Inputs(*_Inputs._parse_inputs(return_values))

    @staticmethod
    def _parse_inputs(return_values: object) -> tuple[Any, Any]:
        if isinstance(return_values, tuple):
            features, labels = return_values
            return features, labels
        return return_values, None

    @property
    def is_dataset(self) -> bool:
        """Whether the input_fn returned a Dataset."""
        return self._dataset is not None

    @property
    def dataset(self) -> Any:
        """The Dataset (None when the input_fn returned tensors)."""
        return self._dataset

    def dataset_initializer(self) -> Any:
        """Makes the Dataset's initializable iterator and returns its initializer op."""
        self._iterator = tf.compat.v1.data.make_initializable_iterator(self._dataset)
        return self._iterator.initializer

    def features_and_labels(self) -> tuple[Any, Any]:
        """(features, labels): the iterator's next element for a Dataset."""
        if not self.is_dataset:
            return self._features, self._labels
        if self._iterator is None:
            raise RuntimeError(
                "Internal error: Must run dataset_initializer before calling "
                "features_and_labels(). Please file a bug!"
            )
        return _Inputs._parse_inputs(self._iterator.get_next())

    def signals(self) -> Any:
        """The signals dict (None without signals)."""
        return self._signals


class _InputsWithStoppingSignals(_Inputs):
    """A prediction Dataset whose batches carry `signals` (stopping, padding_mask), then
    `2 * num_invocations_per_step - 1` copies of the first batch signalling the stop.

    Example:
        >>> inputs = _InputsWithStoppingSignals(dataset, batch_size=4, add_padding=True)
        ... # doctest: +SKIP
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int,
        add_padding: bool = False,
        num_invocations_per_step: int = 1,
    ) -> None:
        if dataset is None:
            raise ValueError("_InputsWithStoppingSignals needs a dataset. Received: None")
        signal = _InputsWithStoppingSignals.insert_stopping_signal
        user_batches = dataset.map(signal(False, batch_size, add_padding))
        final = dataset.take(1).map(signal(True, batch_size, add_padding))
        if num_invocations_per_step != 1:
            final = final.repeat(2 * num_invocations_per_step - 1).map(_mask_everything)
        super().__init__(dataset=user_batches.concatenate(final).prefetch(2))
        self._current_inputs: Any = None

    def features_and_labels(self) -> tuple[Any, Any]:
        """(features, labels) of the next batch; `signals()` then gives its signals."""
        if self._current_inputs is not None:
            raise RuntimeError(
                "Internal Error: The previous inputs have not been properly consumed. First "
                "call features_and_labels, then call signals."
            )
        self._current_inputs = self._iterator.get_next()
        return self._current_inputs["features"], self._current_inputs.get("labels")

    def signals(self) -> Any:
        """The signals of the batch `features_and_labels` returned last."""
        if self._current_inputs is None:
            raise RuntimeError(
                "Internal Error: The current inputs have not been properly generated. First "
                "call features_and_labels, then call signals."
            )
        signals, self._current_inputs = self._current_inputs["signals"], None
        return signals

    @staticmethod
    def insert_stopping_signal(stop: bool, batch_size: int, add_padding: bool = False) -> Any:
        """A Dataset map function: element -> {'features', 'labels'?, 'signals'}."""

        def map_fn(*args: object) -> dict:
            features, labels = _Inputs._parse_inputs(args[0] if len(args) == 1 else args)
            mask = None
            if add_padding:
                mask, features, labels = _PaddingSignals.pad_features_and_labels(
                    features, labels, batch_size
                )
            out = {"features": features}
            if labels is not None:
                out["labels"] = labels
            out["signals"] = _StopSignals(stop, batch_size, mask).as_dict()
            return out

        return map_fn


def _mask_everything(element: dict) -> dict:
    signals = dict(element["signals"])
    signals["padding_mask"] = tf.ones_like(signals["padding_mask"])
    return {**element, "signals": signals}


class _StopSignals:
    """The stopping signal of a batch: a `[batch_size, 1]` bool tensor (+ padding mask).

    Example:
        >>> _StopSignals.should_stop(True)
        True
    """

    NON_STOPPING_SIGNAL = False
    STOPPING_SIGNAL = True

    def __init__(self, stop: bool, batch_size: int, padding_mask: object = None) -> None:
        self._stop, self._batch_size, self._padding_mask = stop, batch_size, padding_mask

    def as_dict(self) -> dict:
        """{'stopping': ones or zeros `[batch_size, 1]` bool, 'padding_mask'?: the mask}."""
        fill = tf.ones if self._stop else tf.zeros
        signals = {"stopping": fill([self._batch_size, 1], dtype=tf.bool)}
        if self._padding_mask is not None:
            signals["padding_mask"] = self._padding_mask
        return signals

    @staticmethod
    def as_scalar_stopping_signal(signals: dict) -> Any:
        """The first row's stopping flag, as a scalar tensor."""
        return tf.identity(signals["stopping"][0][0])

    @staticmethod
    def should_stop(scalar_stopping_signal: object) -> Any:
        """Whether the signal says stop (a bool tensor for a tensor, else a bool)."""
        if isinstance(scalar_stopping_signal, tf.Tensor):
            return tf.math.logical_and(scalar_stopping_signal, _StopSignals.STOPPING_SIGNAL)
        return bool(scalar_stopping_signal)


class _PaddingSignals:
    """Pads a short final batch to the full batch size, and slices the padding off again.

    Example:
        >>> mask, features, labels = _PaddingSignals.pad_features_and_labels(
        ...     features, labels, 4)  # doctest: +SKIP
    """

    @staticmethod
    def pad_features_and_labels(features: Features, labels: Labels, batch_size: int) -> tuple:
        """(padding mask, padded features, padded labels): rows appended with zeros."""
        real = tf.shape(_PaddingSignals._find_any_tensor(features))[0]
        full = tf.constant(batch_size, tf.int32)
        check = tf.compat.v1.debugging.assert_greater_equal(
            full,
            real,
            data=(full, real),
            message="The real batch size should not be greater than batch_size.",
        )
        with tf.control_dependencies([check]):
            missing = full - real

        def pad(tensor: Any) -> Any:
            rank = len(tensor.shape)
            padded = tf.pad(tensor, tf.stack([[0, missing]] + [[0, 0]] * (rank - 1)))
            padded.set_shape((batch_size, *tensor.shape[1:]))
            return padded

        features = tf.nest.map_structure(pad, features)
        labels = None if labels is None else tf.nest.map_structure(pad, labels)
        return _PaddingSignals._padding_mask(real, missing, batch_size), features, labels

    @staticmethod
    def slice_tensor_or_dict(tensor_or_dict: object, signals: dict) -> Any:
        """`tensor_or_dict` without its padded rows (unchanged for full or stop batches)."""
        mask = signals["padding_mask"]
        real = tf.shape(mask)[0] - tf.reduce_sum(mask)
        keep = tf.logical_or(
            tf.equal(tf.reduce_sum(mask), 0),
            _StopSignals.should_stop(_StopSignals.as_scalar_stopping_signal(signals)),
        )

        def slice_one(tensor: Any) -> Any:
            return tf.cond(keep, lambda: tensor, lambda: tensor[0:real])

        return tf.nest.map_structure(slice_one, tensor_or_dict)

    @staticmethod
    def _find_any_tensor(batch_features: object) -> Any:
        tensors = [x for x in tf.nest.flatten(batch_features) if isinstance(x, tf.Tensor)]
        if not tensors:
            raise ValueError("Cannot find any Tensor in features dict.")
        return tensors[0]

    @staticmethod
    def _padding_mask(real_batch_size: object, missing_count: object, batch_size: int) -> Any:
        mask = tf.concat(
            [tf.zeros((real_batch_size,), tf.int32), tf.ones((missing_count,), tf.int32)], axis=0
        )
        mask.set_shape((batch_size,))
        return mask


class InputsStructureRecorder:
    """Records the structure of features/labels/signals and flattens them for the infeed.

    `input_partition_dims` (TPUConfig's, model parallelism) gives `flattened_input_dims`.

    Example:
        >>> recorder = InputsStructureRecorder()
        >>> recorder.validate_and_record_structure({"x": 1}, None)
        >>> recorder.has_labels()
        False
    """

    def __init__(self, input_partition_dims: Any = None) -> None:
        self._feature_structure: dict = {}
        self._flattened_input_dims: Any = None
        self._feature_dims = self._label_dims = None
        if input_partition_dims:
            if len(input_partition_dims) > 2 or input_partition_dims[0] is None:
                raise ValueError(
                    "input_partition_dims must have 1 or 2 elements, the first not None. "
                    f"Received: {input_partition_dims!r}"
                )
            self._feature_dims = input_partition_dims[0]
            if len(input_partition_dims) == 2:
                self._label_dims = input_partition_dims[1]
        self._initialized = False
        self.tensor_packer: Any = None

    @property
    def flattened_input_dims(self) -> Any:
        """The partition dims in the flattened inputs' order (None without them)."""
        if not self._initialized:
            raise AssertionError("InputsStructureRecorder is not initialized.")
        return self._flattened_input_dims

    def has_labels(self) -> bool:
        """Whether the last flattened inputs had labels."""
        return "labels" in self._feature_structure

    def validate_and_record_structure(self, features: Features, labels: Labels) -> None:
        """Checks the partition dims' keys against the first inputs' keys and records them."""
        if self._initialized:
            return
        self._initialized = True
        if self._feature_dims is None:
            return
        names, dims_names = _extract_key_names(features), _extract_key_names(self._feature_dims)
        if dims_names != names:
            raise ValueError(
                "TPUConfig.input_partition_dims[0] mismatched feature keys. "
                f"Expected {names}, got {dims_names}"
            )
        label_names = _extract_key_names(labels)
        if self._label_dims is not None and _extract_key_names(self._label_dims) != label_names:
            raise ValueError(
                "TPUConfig.input_partition_dims[1] mismatched label keys. "
                f"Expected {label_names}, got {_extract_key_names(self._label_dims)}"
            )
        self._flattened_input_dims = self._flatten_input_dims(features, labels)

    def _flatten_input_dims(self, features: Features, labels: Labels) -> list:
        dims = _flatten_up_to(features, self._feature_dims, 0, "features")
        if labels is not None and self._label_dims is not None:
            dims.extend(_flatten_up_to(labels, self._label_dims, 1, "labels"))
        elif labels is not None:
            dims.extend([None] * len(tf.nest.flatten(labels)))
        return dims

    def flatten_features_and_labels(
        self, features: Features, labels: Labels, signals: object = None
    ) -> list:
        """The tensors of features (small ones packed), labels and signals, in one list."""
        self.tensor_packer = TensorPacker(_SMALL_FEATURE_DIM_SIZE, _MIN_SMALL_FEATURES_TO_GROUP)
        self.tensor_packer.maybe_concatenate_features(features)
        self._feature_structure["features"] = features
        if labels is not None:
            self._feature_structure["labels"] = labels
        if signals is not None:
            self._feature_structure["signals"] = signals
        return tf.nest.flatten(self._feature_structure)

    def unflatten_features_and_labels(self, flattened_inputs: Iterable[object]) -> _Inputs:
        """The `_Inputs` (features, labels, signals) of a flattened list."""
        inputs = tf.nest.pack_sequence_as(self._feature_structure, list(flattened_inputs))
        features = inputs["features"]
        self.tensor_packer.maybe_split_features(features)
        return _Inputs(features, inputs.get("labels"), signals=inputs.get("signals"))


def _flatten_up_to(structure: object, dims: object, index: int, what: str) -> list:
    try:
        return _dims_up_to(structure, dims)
    except (TypeError, KeyError) as exc:
        raise ValueError(
            f"TPUConfig.input_partition_dims[{index}] mismatched the structure of {what}. "
            f"input_partition_dims[{index}]: {dims}, {what}: {structure}. {exc!r}"
        ) from None


def _dims_up_to(structure: object, dims: object) -> list:
    """`dims` flattened down to the leaves of `structure` (dicts in sorted key order, as
    `tf.nest.flatten` orders the inputs); a leaf's dims are kept whole (a list or None)."""
    if isinstance(structure, dict):
        if not isinstance(dims, dict) or sorted(dims) != sorted(structure):
            raise TypeError(f"keys {sorted(structure)} expected")
        return [d for key in sorted(structure) for d in _dims_up_to(structure[key], dims[key])]
    if isinstance(structure, (list, tuple)):
        if not isinstance(dims, (list, tuple)) or len(dims) != len(structure):
            raise TypeError(f"a sequence of {len(structure)} expected")
        return [d for s, sub in zip(structure, dims) for d in _dims_up_to(s, sub)]
    return [dims]
