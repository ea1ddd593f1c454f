"""Legacy `export/function.py`: a model_fn as one `tf.function` per mode, trackable and savable.

`ModelFunction` holds, per mode (`train`, `eval`, `infer`), an `EstimatorSpecFunction`: the
model_fn called with `(features[, labels])` and its `mode`/`params`/`config`, traced as a
`tf.function` returning `{"predictions": ..., "train_op": None}` in TRAIN (the train op runs)
and `{"predictions": ...}` otherwise. Variables the model_fn creates (`tf.Variable`,
`tf.compat.v1.get_variable`, the global step, optimizer slots) are created once, eagerly, and
shared by name across modes and traces; they are tracked, so `tf.saved_model.save` writes
them with the traced functions and `tf.saved_model.load` gives back an object whose
`_functions[mode](...)` run and whose `_variables_by_name.<name>` are the variables.

Legacy's class did the same through TensorFlow's `wrap_function` internals; on TF 2.15 its
per-mode hook was no longer called and every model_fn returning an EstimatorSpec failed with
`TypeError` (see `legacy/scripts/private_export_function.py`). tfport uses public API only.

Example:
    >>> mfn = ModelFunction.from_function(model_fn)  # doctest: +SKIP
    >>> mfn.train(features, labels)["predictions"]  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Labels, Mode, ModelFn, Params
from tfport.estimator._engine.building import calls
from tfport.estimator._engine.estimator_helpers import _verify_model_fn_args

_tf = import_tf()
_AutoTrackable: Any = tf_internals.auto_trackable_class()
_PolymorphicFunction: Any = _tf.types.experimental.PolymorphicFunction
_MODES = ("train", "eval", "infer")
_VARIABLE_ARGS = (
    "trainable",
    "dtype",
    "constraint",
    "synchronization",
    "aggregation",
    "shape",
    "validate_shape",
)


class _VariablesByName(_AutoTrackable):
    """Name -> variable, each tracked as a child named by the variable (`obj.global_step`)."""

    def __init__(self) -> None:
        self.__dict__["_names"] = []

    def _add(self, name: str, variable: object) -> None:
        self._names.append(name)
        setattr(self, name, variable)

    def __getitem__(self, name: str) -> Any:
        if name not in self._names:
            raise KeyError(name)
        return getattr(self, name)

    def get(self, name: str, default: object = None) -> Any:
        """The variable named `name`, else `default`."""
        return self[name] if name in self._names else default

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names))

    def __len__(self) -> int:
        return len(self._names)

    def keys(self) -> list[str]:
        """The variable names, in creation order."""
        return list(self._names)

    def values(self) -> list[Any]:
        """The variables, in creation order."""
        return [self[n] for n in self._names]

    def items(self) -> list[tuple[str, Any]]:
        """(name, variable) pairs, in creation order."""
        return [(n, self[n]) for n in self._names]

    def __repr__(self) -> str:
        return f"Mapping({dict(self.items())!r})"


class _VariableHolder:
    """A variable creator sharing variables by name, creating each once, eagerly."""

    def __init__(self) -> None:
        self.variables = _VariablesByName()
        self.error: TfportInputError | None = None  # autograph re-wraps it: re-raised as is

    @contextlib.contextmanager
    def scope(self) -> Iterator[None]:
        """What a traced model_fn runs in: its own get_variable store (legacy: a graph per
        function), this holder as variable creator (the variables of a name made by an
        earlier trace come back), and a global step (as model_fns expect)."""
        with tf_internals.fresh_v1_variable_store(), _tf.variable_creator_scope(self.creator):
            _tf.compat.v1.train.get_or_create_global_step()
            yield

    def creator(self, next_creator: Callable[..., object], **kwargs: Any) -> Any:
        """Returns the variable of this name, creating it outside the function first."""
        v1 = _tf.compat.v1
        collections = kwargs.pop("collections", None) or [v1.GraphKeys.GLOBAL_VARIABLES]
        with v1.name_scope(kwargs.get("name"), "Variable") as scope:
            name = scope.rstrip("/")
        # class methods called explicitly: a variable named `get` shadows the attribute
        variable = _VariablesByName.get(self.variables, name)
        if variable is None:
            variable = self._create(next_creator, name, kwargs)
            _VariablesByName._add(self.variables, name, variable)
        if variable.trainable and v1.GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections = [*collections, v1.GraphKeys.TRAINABLE_VARIABLES]
        _add_once(collections, variable)
        return variable

    def _create(self, next_creator: Callable[..., object], name: str, kwargs: dict) -> Any:
        initial = kwargs.get("initial_value")
        if _tf.is_tensor(initial) and not callable(initial):
            value = _tf.get_static_value(initial)
            if value is None:
                self.error = TfportInputError(
                    message(
                        f"variable {name!r} of a ModelFunction's model_fn has an initial value "
                        "computed inside the function",
                        "Pass a callable (tf.Variable(lambda: ...)) or use "
                        "tf.compat.v1.get_variable with an initializer",
                        initial_value=initial,
                    )
                )
                raise self.error
            initial = value
        args = {k: kwargs[k] for k in _VARIABLE_ARGS if kwargs.get(k) is not None}
        with _tf.init_scope():  # an eager variable, not lifted by the tf.function
            return next_creator(
                initial_value=initial, name=name, experimental_enable_variable_lifting=False, **args
            )


def _add_once(collections: list, variable: object) -> None:
    """Adds `variable` to the graph's `collections` it is not in yet.

    A function graph shares the variable collections with the graph around it: adding on
    every trace would list a variable twice, and an optimizer would update it twice.
    """
    v1 = _tf.compat.v1
    for key in collections:
        if not any(held is variable for held in v1.get_collection(key)):
            v1.add_to_collection(key, variable)


def _wrap_and_verify_model_fn(
    model_fn: ModelFn,
    mode: Mode | None = None,
    config: object = None,
    params: Params | None = None,
    input_signature: Sequence[object] | None = None,
) -> tuple[Any, bool]:
    """(a function of `(features[, labels])` calling model_fn, whether it takes labels)."""
    _verify_model_fn_args(model_fn, params)
    args = calls.fn_args(model_fn)
    kwargs = {
        k: v for k, v in (("mode", mode), ("params", params), ("config", config)) if k in args
    }
    takes_labels = "labels" in args
    if takes_labels and (input_signature is None or len(input_signature) == 2):

        def with_labels(features: Features, labels: Labels = None) -> Any:
            return model_fn(features=features, labels=labels, **kwargs)

        return with_labels, True

    def features_only(features: Features) -> Any:
        if takes_labels:
            return model_fn(features=features, labels=None, **kwargs)
        return model_fn(features=features, **kwargs)

    return features_only, takes_labels


def _filter_estimator_spec_outputs(spec: Any) -> dict:
    """The outputs a mode's function returns: predictions (and train_op, None, in TRAIN)."""
    if spec.mode == "train":
        return {"predictions": spec.predictions, "train_op": None}
    return {"predictions": spec.predictions}


def _spec_outputs(ret: object) -> Any:
    from tfport.estimator._engine.api.spec import EstimatorSpec

    # the train op is stateful: the function's automatic control dependencies run it
    return _filter_estimator_spec_outputs(ret) if isinstance(ret, EstimatorSpec) else ret


class _EstimatorSpecFunction(_PolymorphicFunction):
    """`python_function` as a `tf.function` named `name` that creates its variables in
    `variable_holder` (shared by name) and returns an EstimatorSpec's outputs (legacy
    `export.function._EstimatorSpecFunction`, what `EstimatorSpecFunction._defun` makes).

    Example:
        >>> fn = _EstimatorSpecFunction(lambda x: {"y": x * 2.0}, "infer")  # doctest: +SKIP
        >>> fn(tf.constant([1.0]))["y"]  # doctest: +SKIP
    """

    def __init__(
        self,
        python_function: Callable[..., object],
        name: str,
        variable_holder: _VariableHolder | None = None,
        **kwargs: object,
    ) -> None:
        self._python_function = python_function
        self._name = name
        self._variable_holder = variable_holder or _VariableHolder()
        holder = self._variable_holder

        def traced(*args: object, **kw: object) -> Any:
            with holder.scope():
                return _spec_outputs(python_function(*args, **kw))

        traced.__name__ = f"model_fn_{name}"
        self._function = _tf.function(traced, **kwargs)

    def __call__(self, *args: object, **kwargs: object) -> Any:
        try:
            return self._function(*args, **kwargs)
        except Exception:
            error, self._variable_holder.error = self._variable_holder.error, None
            if error is None:
                raise
            raise error from None

    def _create_graph_function(
        self,
        args: Sequence[object] | None,
        kwargs: Mapping[str, object] | None,
        **other_kwargs: object,
    ) -> Any:
        """The concrete function (the graph) of `python_function` for `args`/`kwargs`."""
        if other_kwargs:
            raise TfportInputError(
                message(
                    "_create_graph_function takes the call's args and kwargs only",
                    "Pass (args, kwargs)",
                    other_kwargs=sorted(other_kwargs),
                )
            )
        return self.get_concrete_function(*(args or ()), **(kwargs or {}))

    def get_concrete_function(self, *args: object, **kwargs: object) -> Any:
        """The traced graph for these inputs (traced now if new)."""
        return self._function.get_concrete_function(*args, **kwargs)

    @property
    def function_type(self) -> Any:
        """The function's `FunctionType` (its parameters)."""
        return self._function.function_type

    @property
    def input_signature(self) -> Any:
        """The `input_signature` given (None: one trace per input structure)."""
        return self._function.input_signature


class EstimatorSpecFunction(_AutoTrackable, _PolymorphicFunction):
    """One mode of a model_fn as a `tf.function` (legacy `export.function.EstimatorSpecFunction`).

    Calling it runs the model_fn's graph for `mode` on `(features[, labels])`; variables are
    taken from (or created in) `variable_holder`, shared with the other modes. Like
    legacy's (a TensorFlow function) it is a `tf.types.experimental.PolymorphicFunction`.

    Example:
        >>> fn = EstimatorSpecFunction(model_fn, "infer")  # doctest: +SKIP
        >>> fn(features)["predictions"]  # doctest: +SKIP
    """

    def __init__(
        self,
        fn: ModelFn,
        mode: Mode,
        config: object = None,
        params: Params | None = None,
        variable_holder: _VariableHolder | None = None,
        **kwargs: Any,
    ) -> None:
        python_function, self.expects_labels = _wrap_and_verify_model_fn(
            fn, mode, config, params, kwargs.get("input_signature")
        )
        self._name = mode
        self._variable_holder = variable_holder or _VariableHolder()
        self._python_function = python_function
        self._function_kwargs = kwargs
        self._defined = self._defun(python_function)
        # a child named `__call__`: tf.saved_model.load makes the restored object callable
        self.__call__ = self._defined._function  # type: ignore[method-assign]

    def _defun(self, fn: Callable[..., object]) -> _EstimatorSpecFunction:
        """`fn` as this mode's function (`_EstimatorSpecFunction`, this object's variables)."""
        return _EstimatorSpecFunction(
            fn, name=self._name, variable_holder=self._variable_holder, **self._function_kwargs
        )

    def __call__(self, *args: object, **kwargs: object) -> Any:  # the instance's tf.function
        return self._defined(*args, **kwargs)

    def get_concrete_function(self, *args: object, **kwargs: object) -> Any:
        """The traced graph of this mode for these inputs."""
        return self._defined.get_concrete_function(*args, **kwargs)

    @property
    def function_type(self) -> Any:
        """The mode function's `FunctionType`."""
        return self._defined.function_type

    @property
    def input_signature(self) -> Any:
        """The `input_signature` given (None: one trace per input structure)."""
        return self._defined.input_signature


class ModelFunction(_AutoTrackable):
    """A model_fn's modes as `tf.function`s over shared variables (legacy `ModelFunction`).

    Example:
        >>> mfn = ModelFunction.from_function(model_fn, params={"lr": 0.1})  # doctest: +SKIP
        >>> out = mfn.train(features, labels)  # doctest: +SKIP
        >>> tf.saved_model.save(mfn, "saved")  # doctest: +SKIP
    """

    def __init__(self, config: object = None, params: Params | None = None) -> None:
        self._config = config
        self._params = params
        self._functions: dict = {}
        self._variable_holder = _VariableHolder()
        self._variables_by_name = self._variable_holder.variables

    @staticmethod
    def from_function(
        model_fn: ModelFn,
        all_modes: Iterable[Mode] | None = None,
        config: object = None,
        params: Params | None = None,
    ) -> ModelFunction:
        """A ModelFunction with `model_fn` added for each of `all_modes` (default: all three)."""
        obj = ModelFunction(config=config, params=params)
        for mode in _MODES if all_modes is None else list(all_modes):
            obj.add_mode(model_fn, mode)
        return obj

    @property
    def variables(self) -> Any:
        """The variables by name (a mapping; each is also an attribute of it)."""
        return self._variables_by_name

    def add_mode(
        self, fn: ModelFn, mode: Mode, input_signature: Sequence[object] | None = None
    ) -> None:
        """Adds `fn` as the function of `mode` (ValueError if the mode has one)."""
        if mode in self._functions:
            raise ValueError(f"ModelFunction object has multiple functions with name {mode}.")
        self._functions[mode] = EstimatorSpecFunction(
            fn,
            mode,
            config=self._config,
            params=self._params,
            variable_holder=self._variable_holder,
            input_signature=input_signature,
        )

    def train(self, features: Features, labels: Labels) -> Any:
        """Runs the TRAIN function (its train op included)."""
        return self.call("train", features, labels)

    def evaluate(self, features: Features, labels: Labels) -> Any:
        """Runs the EVAL function."""
        return self.call("eval", features, labels)

    def predict(self, features: Features) -> Any:
        """Runs the PREDICT function."""
        return self.call("infer", features)

    def call(self, mode: Mode, features: Features, labels: Labels = None) -> Any:
        """Runs the function of `mode` (ValueError if none was added)."""
        if mode not in self._functions:
            raise ValueError(
                f"Mode {mode} is not defined the ModelFunction. To add modes, use the "
                f"`add_mode()` function. Available modes: {list(self._functions)}"
            )
        fn = self._functions[mode]
        if fn.expects_labels and labels is not None:
            return fn(features, labels)
        return fn(features)  # labels default to None: one argument, as a loaded object takes
