"""Legacy `export/function.py`'s graph half: `_EstimatorWrappedGraph` and the receiver helpers.

One model_fn mode (`wrap_model_fn`) or one serving input receiver
(`wrap_input_receiver_fn`) as a concrete graph function (`tf.compat.v1.wrap_function`),
over variables shared by name through a variable holder (the one `ModelFunction` uses), with
the global step created first, as legacy's own tests use it.

Example:
    >>> graph = _EstimatorWrappedGraph()  # doctest: +SKIP
    >>> fn = graph.wrap_model_fn(model_fn, "train", args=[features, labels, "train"])
    ... # doctest: +SKIP
    >>> fn(features, labels)["predictions"]  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Mode
from tfport.estimator._engine.running.export_function import (
    _filter_estimator_spec_outputs,
    _VariableHolder,
)

_tf = import_tf()
_RECEIVER_FN_NAME = "_input_receiver"


class _NestedArguments:
    """A concrete function of flat tensors called with the nested arguments it was made from.

    Any other attribute is the concrete function's (`graph`, `prune`, `variables`, ...).
    """

    def __init__(self, concrete: Callable[..., object]) -> None:
        self._concrete = concrete

    def __call__(self, *args: object, **kwargs: object) -> Any:
        leaves = _tf.nest.flatten([list(args), kwargs])
        return self._concrete(*[_tf.convert_to_tensor(x) for x in leaves if _is_data(x)])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._concrete, name)


def _is_data(x: object) -> bool:
    """A tensor or array-like argument (not None, not a string such as a mode)."""
    return x is not None and not isinstance(x, (str, bytes))


def _identity(x: object) -> Any:
    return None if x is None else _tf.identity(x)


class _EstimatorWrappedGraph:
    """Graph functions of a model_fn's modes and input receivers over shared variables."""

    def __init__(self, variable_holder: object = None) -> None:
        if variable_holder is not None and not isinstance(variable_holder, _VariableHolder):
            raise TfportInputError(
                message(
                    "_EstimatorWrappedGraph shares variables through tfport's variable holder; "
                    "TensorFlow's wrap_function.VariableHolder would give each graph its own "
                    "copies",
                    "Pass None, or the `_variable_holder` of an export.function.ModelFunction",
                    variable_holder=variable_holder,
                )
            )
        self._variable_holder = variable_holder or _VariableHolder()
        self._concrete_model_fn: Any = None
        self._estimator_spec: Any = None
        self._global_step_read_fn = self._wrap(self._global_step, [])

    def _wrap(self, fn: Callable[..., object], signature: list) -> Any:
        holder = self._variable_holder

        def scoped(*args: object) -> Any:
            with holder.scope():
                return fn(*args)

        return _tf.compat.v1.wrap_function(scoped, signature)

    def _global_step(self) -> Any:
        return _tf.compat.v1.train.get_global_step().read_value()

    @property
    def variables(self) -> Any:
        """The shared variables by name."""
        return self._variable_holder.variables

    @property
    def global_step(self) -> Any:
        """The global step's current value."""
        return self._global_step_read_fn()

    @property
    def model_fn(self) -> Any:
        """The concrete function `wrap_model_fn` made (None before)."""
        return self._concrete_model_fn

    @property
    def estimator_spec(self) -> Any:
        """The EstimatorSpec the wrapped model_fn returned (its graph's tensors and ops)."""
        if self._concrete_model_fn is None:
            raise ValueError("Please wrap a model function first.")
        return self._estimator_spec

    def wrap_model_fn(
        self,
        model_fn: Callable[..., object],
        mode: Mode,
        args: Sequence[object] | None = None,
        kwargs: Mapping[str, object] | None = None,
        signature: Sequence[object] | None = None,
    ) -> Any:
        """`model_fn(*args, **kwargs)` as a function of the tensors among `args`/`kwargs`.

        Returns `{"predictions": ..., "train_op": None}` (TRAIN, the train op run) or
        `{"predictions": ...}`; the non-tensor arguments (a mode string) are fixed.
        """
        if self._concrete_model_fn is not None:
            raise ValueError("`wrap_model_fn` should be only called once per graph.")
        args, kwargs = list(args or []), dict(kwargs or {})
        leaves = [_tf.convert_to_tensor(x) for x in _tf.nest.flatten([args, kwargs]) if _is_data(x)]
        if signature is None:
            signature = [_tf.TensorSpec.from_tensor(t) for t in leaves]

        def fn(*tensors: object) -> Any:
            it = iter(tensors)
            call_args, call_kwargs = _tf.nest.map_structure(
                lambda x: next(it) if _is_data(x) else x, [args, kwargs]
            )
            ret = model_fn(*call_args, **call_kwargs)
            if not (hasattr(ret, "train_op") and hasattr(ret, "predictions")):
                return ret
            self._estimator_spec = ret
            out = _filter_estimator_spec_outputs(ret)
            if "train_op" not in out or ret.train_op is None:
                return out
            with _tf.control_dependencies([ret.train_op]):  # run with the outputs
                return _tf.nest.map_structure(_identity, out)

        self._concrete_model_fn = _NestedArguments(self._wrap(fn, list(signature)))
        return self._concrete_model_fn

    def wrap_input_receiver_fn(self, input_receiver_fn: Any) -> list:
        """`[(function, name)]`: the receiver's features (and labels) from its receiver tensors.

        The default receiver has name None; each `receiver_tensors_alternatives` entry one
        more function. Arguments are the receiver tensors in sorted-key order.
        """
        held: list = []

        def fn() -> Any:
            receiver = input_receiver_fn()
            held.append(receiver)
            labels = getattr(receiver, "labels", None)
            return receiver.features if labels is None else (receiver.features, labels)

        wrapped = self._wrap(fn, [])
        receiver = held[0]
        outputs = wrapped.structured_outputs
        functions = [
            (_prune_receiver_tensors(wrapped, receiver.receiver_tensors, outputs, None), None)
        ]
        alternatives = getattr(receiver, "receiver_tensors_alternatives", None) or {}
        for name, tensors in alternatives.items():
            pruned = _prune_receiver_tensors(
                wrapped, tensors, outputs, _input_receiver_fn_name(name)
            )
            functions.append((pruned, name))
        return functions


def _canonicalize_receiver_tensors(receiver_tensors: object) -> dict:
    """Receiver tensors as a dict (a single tensor under `input`); tensors only."""
    for tensor in _tf.nest.flatten(receiver_tensors):
        if not isinstance(tensor, _tf.Tensor):
            raise ValueError(
                "All receiver tensors must be tensors (composite tensors are not yet supported)."
            )
    if isinstance(receiver_tensors, dict):
        return receiver_tensors
    return {"input": receiver_tensors}


def _input_receiver_fn_name(name: str | None) -> str:
    """`_input_receiver` or `_input_receiver_<name>`."""
    return _RECEIVER_FN_NAME if name is None else f"{_RECEIVER_FN_NAME}_{name}"


def _prune_receiver_tensors(
    wrapped_function: Any, receiver_tensors: object, outputs: object, name: str | None
) -> Any:
    """`wrapped_function` pruned to take the receiver tensors (sorted keys) to `outputs`."""
    inputs = _canonicalize_receiver_tensors(receiver_tensors)
    feeds = [inputs[k] for k in sorted(inputs)]
    return wrapped_function.prune(feeds, outputs, name=name or _RECEIVER_FN_NAME)
