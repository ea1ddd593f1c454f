"""The recurrent layers a model_fn runs, recorded while it is traced: each call of
`tf.compat.v1.nn.dynamic_rnn` / `static_rnn` (its cell, inputs, outputs, final state) and
of a tf_keras RNN layer (`tf.keras.layers.LSTM`, `GRU`, `SimpleRNN`, `RNN`).

`_recurrent` maps them to Keras RNN layers: the graph they build (a `While` loop over
TensorLists, a function call for tf_keras's backend selection, unrolled steps) is not read.

Example:
    >>> with recurrent_calls_recorded() as calls:  # doctest: +SKIP
    ...     model_fn(features, None, "infer")
    >>> calls[0].api  # doctest: +SKIP
    'dynamic_rnn'
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from collections.abc import Callable, Iterator

from tfport._common import keras_internals
from tfport._common.types import KerasLayer

_RNN_FUNCTIONS = ("dynamic_rnn", "static_rnn")


@dataclasses.dataclass
class RecurrentCall:
    """One recurrent layer run by the model_fn, with the tensors it was given and gave."""

    api: str  # "dynamic_rnn", "static_rnn" or "keras" (a tf_keras RNN layer)
    cell: KerasLayer  # the TF1 cell (`tf.compat.v1.nn.rnn_cell`), or the tf_keras layer
    inputs: object  # a tensor; a list of tensors for static_rnn
    outputs: object  # a tensor, a list of them (static_rnn; a tf_keras layer's return_state)
    state: object  # the final state as returned (None for a tf_keras layer)
    sequence_length: object = None
    initial_state: object = None
    time_major: bool = False
    mask: object = None  # a tf_keras layer's mask argument or its input's Keras mask
    constants: object = None  # a tf_keras layer's constants argument


def _recording_rnn(
    api: str, original: Callable[..., object], calls: list[RecurrentCall]
) -> Callable[..., object]:
    signature = inspect.signature(original)

    def recording(*args: object, **kwargs: object) -> object:
        result = original(*args, **kwargs)
        given = signature.bind(*args, **kwargs).arguments
        outputs, state = result if isinstance(result, tuple) else (result, None)
        calls.append(
            RecurrentCall(
                api,
                given["cell"],
                given["inputs"],
                outputs,
                state,
                given.get("sequence_length"),
                given.get("initial_state"),
                bool(given.get("time_major", False)),
            )
        )
        return result

    return recording


def _recording_layer(
    original: Callable[..., object], calls: list[RecurrentCall]
) -> Callable[..., object]:
    def recording(
        self: KerasLayer,
        inputs: object,
        initial_state: object = None,
        constants: object = None,
        **kwargs: object,
    ) -> object:
        out = original(self, inputs, initial_state, constants, **kwargs)
        mask = kwargs.get("mask", keras_internals.keras_mask(inputs))
        calls.append(
            RecurrentCall(
                "keras", self, inputs, out, None, None, initial_state, False, mask, constants
            )
        )
        return out

    return recording


@contextlib.contextmanager
def recurrent_calls_recorded() -> Iterator[list[RecurrentCall]]:
    """Within it, `tf.compat.v1.nn.dynamic_rnn` / `static_rnn` and tf_keras RNN layer calls
    are recorded in the list it yields (the functions and the class are restored on exit).

    Example:
        >>> with recurrent_calls_recorded() as calls:  # doctest: +SKIP
        ...     pass
        >>> calls  # doctest: +SKIP
        []
    """
    from tfport._common.tfenv import import_tf

    calls: list[RecurrentCall] = []
    nn = import_tf().compat.v1.nn
    originals = {name: getattr(nn, name) for name in _RNN_FUNCTIONS if hasattr(nn, name)}
    for name, function in originals.items():
        setattr(nn, name, _recording_rnn(name, function, calls))
    layer_class: type | None = None
    try:
        import tf_keras

        layer_class = tf_keras.layers.RNN
    except ImportError:  # pragma: no cover - tf_keras is a dependency
        pass
    own = layer_class is not None and "__call__" in vars(layer_class)
    if layer_class is not None:
        call = layer_class.__call__
        layer_class.__call__ = _recording_layer(call, calls)  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        for name, function in originals.items():
            setattr(nn, name, function)
        if layer_class is not None:
            if own:
                layer_class.__call__ = call  # type: ignore[method-assign]
            else:
                del layer_class.__call__
