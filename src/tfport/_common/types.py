"""The named types of tfport's signatures: what a `features`, a `hook` or a `graph` is.

TensorFlow and Keras ship no stubs that mypy can read (their objects are opaque to it), so
tfport names the values it passes around here, once, as protocols (the members tfport's own
code uses), unions and callables. Importing this module imports neither TensorFlow nor
Keras. A parameter that is only handed on, never looked into, is typed `object`.

Example:
    >>> import numpy as np
    >>> from tfport._common.types import Tensor
    >>> def width(x: Tensor) -> object:
    ...     return x.shape[-1]
    >>> width(np.zeros((2, 3)))
    3
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import Protocol, TypeAlias

#: The `tensorflow` module (or `tf.compat.v1`), passed in by code that imports it lazily.
TFModule = ModuleType

#: A JSON-like value: what run configs, reports and params hold.
Json: TypeAlias = "None | bool | int | float | str | Sequence[Json] | Mapping[str, Json]"


class Tensor(Protocol):
    """A dense value with a dtype and a shape: a `tf.Tensor`, a variable or a numpy array."""

    @property
    def dtype(self) -> object:
        """The element type."""
        ...

    @property
    def shape(self) -> Shape:
        """The (possibly partly unknown) shape."""
        ...


class Shape(Protocol):
    """A `tf.TensorShape` or a tuple: its rank and its dimensions."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int) -> int | None: ...

    def __iter__(self) -> Iterator[int | None]: ...


class GraphTensor(Tensor, Protocol):
    """A symbolic tensor of a `tf.Graph`: it has a name, the op that makes it, its graph."""

    @property
    def name(self) -> str:
        """`op_name:index`."""
        ...

    @property
    def op(self) -> Operation:
        """The operation that outputs it."""
        ...

    @property
    def graph(self) -> Graph:
        """The graph it belongs to."""
        ...

    @property
    def device(self) -> str:
        """Where it is placed ('' when not yet)."""
        ...


class Operation(Protocol):
    """A `tf.Operation`: a node of a graph."""

    @property
    def name(self) -> str:
        """The op's name."""
        ...

    @property
    def type(self) -> str:
        """The op's kernel type, e.g. 'MatMul'."""
        ...

    @property
    def graph(self) -> Graph:
        """The graph it belongs to."""
        ...


class Graph(Protocol):
    """A `tf.Graph`."""

    def as_default(self) -> object:
        """A context manager making this graph the default."""
        ...

    def get_collection(self, name: str, scope: str | None = None) -> list[object]:
        """The values of a graph collection."""
        ...

    def get_operations(self) -> list[Operation]:
        """Every op of the graph."""
        ...


class Session(Protocol):
    """A `tf.compat.v1.Session` (or a `MonitoredSession`): something that runs fetches."""

    def run(
        self,
        fetches: object,
        feed_dict: object = None,
        options: object = None,
        run_metadata: object = None,
    ) -> object:
        """Runs `fetches` and returns their values in the same structure."""
        ...


class Hook(Protocol):
    """A `tf.estimator.SessionRunHook`: the calls a monitored session makes on it."""

    def begin(self) -> None:
        """Called once before the graph is finalized."""
        ...

    def after_create_session(self, session: Session, coord: object) -> None:
        """Called when the session is created."""
        ...

    def before_run(self, run_context: object) -> object:
        """Called before each `session.run`; may return `SessionRunArgs`."""
        ...

    def after_run(self, run_context: object, run_values: object) -> None:
        """Called after each `session.run`."""
        ...

    def end(self, session: Session) -> None:
        """Called at the end of the session."""
        ...


#: What an input_fn yields, or a model_fn receives, as features.
Features = Tensor | Mapping[str, object]
#: What an input_fn yields, or a model_fn receives, as labels (None in PREDICT mode).
Labels = Tensor | Mapping[str, object] | None
#: A model_fn's `params`: a dict of hyperparameters (TPUEstimator adds `batch_size`).
Params = Mapping[str, object]
#: A `tf.estimator.ModeKeys` value: "train", "eval" or "infer".
Mode = str
#: A user's `model_fn(features, labels, mode, params, config)`; it returns an EstimatorSpec.
ModelFn = Callable[..., object]
#: A user's `input_fn([params], [config], [input_context])`; it returns a Dataset or
#: `(features, labels)`.
InputFn = Callable[..., object]
#: A TF1 optimizer, a Keras optimizer, its name, or a callable returning one.
OptimizerArg = str | Callable[[], object] | object
#: A feature column (v1 or v2) as the canned estimators take them.
FeatureColumn = object
#: Feature columns as the canned estimators take them.
FeatureColumns = Sequence[object]

# --- h38-bnd ---
#: `random_seed.get_seed`: an op seed (None: none given) -> `(graph seed, op seed)`.
SeedFunction = Callable[[int | None], tuple[int | None, int | None]]
#: A random op builder of `gen_random_ops`: `(shape, dtype, seed=, seed2=, name=)` -> tensor.
RandomOp = Callable[..., object]
