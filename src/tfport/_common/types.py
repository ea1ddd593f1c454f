"""The named types of tfport's signatures: what a `features`, a `hook` or a `graph` is.

TensorFlow and Keras ship no stubs that mypy can read (their objects are opaque to it), so
tfport names the values it passes around here, once, as protocols (the members tfport's own
code uses), unions and callables. Importing this module imports neither TensorFlow nor
Keras. A parameter that is only handed on, never looked into, is typed `object`. The types
live in this one module, in sections by concern; the TensorFlow protobuf messages tfport
reads are `tfport._common.messages`'.

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


# --- feature columns and queue threads ---


class KeyedColumn(Protocol):
    """A feature column naming the feature it reads: `numeric_column("w").key == "w"`."""

    @property
    def key(self) -> str:
        """The feature's key in the features dict."""
        ...


class Coordinator(Protocol):
    """A `tf.train.Coordinator`: the threads of a queue runner stop on its request."""

    def register_thread(self, thread: object) -> None:
        """Makes `join` wait for `thread` too."""
        ...

    def should_stop(self) -> bool:
        """Whether a stop was requested."""
        ...

    def request_stop(self, ex: BaseException | None = None) -> None:
        """Asks every thread to stop (reporting `ex` when given)."""
        ...

    def wait_for_stop(self, timeout: float | None = None) -> bool:
        """Blocks until a stop is requested (or `timeout` seconds pass)."""
        ...


# --- session runs ---


class RunContext(Protocol):
    """A `tf.compat.v1.train.SessionRunContext`: what a hook's `before_run`/`after_run` get."""

    @property
    def session(self) -> Session:
        """The session the run goes through."""
        ...

    def request_stop(self) -> None:
        """Asks the monitored session to stop after this run."""
        ...


# --- canned model_fns ---


class ModelHead(Protocol):
    """A head as the canned model_fns drive it: a `tf.estimator.Head` or a legacy v1 `_Head`."""

    @property
    def v2(self) -> bool:
        """Whether the model around it is built the v2 way (Keras optimizers)."""
        ...

    @property
    def logits_dimension(self) -> int:
        """Width of the logits the model must produce."""
        ...

    @property
    def create_estimator_spec(self) -> Callable[..., object]:
        """`create_estimator_spec(features, mode, logits, labels, optimizer=..., ...)`."""
        ...


# --- TPU programs and v1 optimizers ---


class DeviceAssignment(Protocol):
    """A `tf.tpu.experimental.DeviceAssignment`: the TPU cores and hosts of each replica."""

    def lookup_replicas(self, task_id: int, logical_core: int) -> list[int]:
        """The replicas with logical core `logical_core` on host `task_id`."""
        ...

    def tpu_ordinal(self, replica: int = 0, logical_core: int = 0) -> int:
        """The TPU ordinal (on its host) of a replica's logical core."""
        ...

    def host_device(self, replica: int = 0, logical_core: int = 0, job: str | None = None) -> str:
        """The CPU device of the host of a replica's logical core."""
        ...

    def tpu_device(self, replica: int = 0, logical_core: int = 0, job: str | None = None) -> str:
        """The TPU device of a replica's logical core."""
        ...


class TPUDeployment(Protocol):
    """The TPU system a TPU program runs on, as its builders read it: legacy's internal TPU
    context (`_InternalTPUContext`) or tfport's `tpu_context.EmulatedDeployment`."""

    @property
    def mode(self) -> str | None:
        """The ModeKeys value of the program (None outside one)."""
        ...

    @property
    def config(self) -> object:
        """The TPU RunConfig."""
        ...

    @property
    def num_replicas(self) -> int:
        """Replicas of the whole system."""
        ...

    @property
    def num_hosts(self) -> int:
        """Hosts of the system."""
        ...

    @property
    def num_cores(self) -> int:
        """TPU cores of the system."""
        ...

    @property
    def num_of_replicas_per_host(self) -> int:
        """Replicas each host feeds."""
        ...

    @property
    def num_of_cores_per_host(self) -> int:
        """TPU cores of each host."""
        ...

    @property
    def model_parallelism_enabled(self) -> object:
        """Truthy when a replica spans several cores."""
        ...

    @property
    def device_assignment(self) -> DeviceAssignment | None:
        """The model-parallel device assignment (None without model parallelism)."""
        ...

    @property
    def input_partition_dims(self) -> object:
        """TPUConfig's `input_partition_dims`."""
        ...

    @property
    def allow_per_host_v2_parallel_get_next(self) -> bool:
        """TPUConfig's `experimental_allow_per_host_v2_parallel_get_next`."""
        ...

    @property
    def batch_size_for_input_fn(self) -> int | None:
        """The batch one input_fn call makes."""
        ...

    @property
    def batch_size_for_model_fn(self) -> int | None:
        """The batch one model_fn replica sees."""
        ...

    @property
    def embedding_config(self) -> object:
        """The TPU embedding config (None without embedding tables)."""
        ...

    def is_input_sharded_per_core(self) -> bool:
        """Whether the input_fn is called once per core."""
        ...

    def is_input_broadcast_with_iterators(self) -> bool:
        """Whether one input_fn call feeds every replica alike (BROADCAST)."""
        ...

    def is_input_per_host_with_iterators(self) -> bool:
        """Whether the input pipeline is PER_HOST_V2."""
        ...

    def is_replica_across_hosts(self) -> bool:
        """Whether one replica needs cores of several hosts."""
        ...

    def device_for_replica(self, replica_id: int) -> tuple[str, int]:
        """(host CPU device, TPU ordinal) of replica `replica_id`."""
        ...

    def tpu_host_placement_function(
        self, host_id: int | None = None, replica_id: int | None = None
    ) -> str:
        """The CPU device of host `host_id`, or of the host of replica `replica_id`."""
        ...

    def tpu_ordinal_function(self, host_id: int) -> Callable[[int], int]:
        """A function `shard index in host -> TPU ordinal` of host `host_id`'s shards."""
        ...


class InfeedInputs(Protocol):
    """What a TPU program's `dequeue_fn()` gives: one batch's features, labels, signals."""

    def features_and_labels(self) -> tuple[Features, Labels]:
        """(features, labels) of the batch."""
        ...

    def signals(self) -> dict[str, object] | None:
        """The batch's stopping signals (None without)."""
        ...


#: A TPU program's `dequeue_fn`: the next batch of its infeed.
DequeueFn = Callable[[], InfeedInputs]


class RunValues(Protocol):
    """A `tf.compat.v1.train.SessionRunValues`: what `before_run` asked for, fetched."""

    @property
    def results(self) -> object:
        """The fetched values, in the structure `SessionRunArgs.fetches` had."""
        ...


class V1Optimizer(Protocol):
    """A `tf.compat.v1.train.Optimizer`: the members an optimizer wrapper forwards to."""

    def compute_gradients(
        self, loss: object, var_list: object = None, **kwargs: object
    ) -> list[tuple[object, object]]:
        """(gradient, variable) pairs of `loss`."""
        ...

    def apply_gradients(
        self, grads_and_vars: object, global_step: object = None, name: str | None = None
    ) -> object:
        """The op applying the gradients."""
        ...

    def get_slot(self, *args: object, **kwargs: object) -> object:
        """`get_slot(var, name)`: the slot variable `name` of `var`."""
        ...

    def get_slot_names(self, *args: object, **kwargs: object) -> list[str]:
        """The names of the optimizer's slots."""
        ...

    def variables(self) -> list[object]:
        """The optimizer's own variables."""
        ...


# --- variables, Keras objects, canned heads, strategies ---


class Variable(Tensor, Protocol):
    """A `tf.Variable` or a Keras variable: a named tensor that can be assigned."""

    @property
    def name(self) -> str:
        """The variable's name (`dense/kernel:0` for a graph variable)."""
        ...

    def assign(self, value: object) -> object:
        """Sets the value (in a graph: returns the assign op)."""
        ...


class KerasVariable(Variable, Protocol):
    """A Keras 3 variable: a `Variable` with its path inside the model."""

    @property
    def path(self) -> str:
        """`<layer path>/<name>`, e.g. `sequential/hidden/kernel`."""
        ...


class KerasLayer(Protocol):
    """A Keras layer (tf_keras or Keras 3): its name and its weights."""

    @property
    def name(self) -> str:
        """The layer's name."""
        ...

    @property
    def weights(self) -> Sequence[Variable]:
        """Its variables, trainable first."""
        ...

    def get_config(self) -> dict[str, object]:
        """Its constructor arguments."""
        ...

    def set_weights(self, weights: Sequence[object]) -> None:
        """Sets its weights from values (numpy arrays), in `weights` order."""
        ...


class KerasTensor(Protocol):
    """A Keras 3 symbolic tensor (a functional model's input)."""

    name: str
    dtype: object
    shape: tuple[int | None, ...]


class KerasModel(KerasLayer, Protocol):
    """A Keras model (tf_keras or Keras 3): the members tfport reads off one.

    `input_names` / `output_names` are tf_keras's (functional models), `stateless_call`
    Keras 3's; the others both have.
    """

    @property
    def layers(self) -> Sequence[KerasLayer]:
        """Its top-level layers."""
        ...

    @property
    def built(self) -> bool:
        """Whether its weights exist."""
        ...

    @property
    def optimizer(self) -> object:
        """The optimizer it was compiled with (None before `compile`)."""
        ...

    @property
    def variables(self) -> Sequence[Variable]:
        """Every variable, trainable first."""
        ...

    @property
    def trainable_variables(self) -> Sequence[Variable]:
        """The variables the optimizer updates."""
        ...

    @property
    def non_trainable_variables(self) -> Sequence[Variable]:
        """The others (e.g. batch-norm statistics)."""
        ...

    @property
    def input_names(self) -> Sequence[str]:
        """The names of its inputs (tf_keras functional models)."""
        ...

    @property
    def output_names(self) -> Sequence[str]:
        """The names of its outputs (tf_keras functional models)."""
        ...

    @property
    def inputs(self) -> Sequence[KerasTensor]:
        """Its symbolic inputs (functional models)."""
        ...

    @property
    def input(self) -> object:
        """Its inputs in the structure it was built with (a tensor, a dict, a list)."""
        ...

    def __call__(self, inputs: object, training: bool = False) -> object:
        """Runs it on `inputs` (a tensor, or a dict by input name)."""
        ...

    @classmethod
    def from_config(cls, config: Mapping[str, object]) -> KerasModel:
        """A new model of this class from `get_config()`'s output."""
        ...

    def get_config(self) -> dict[str, object]:
        """Its constructor arguments."""
        ...

    def get_layer(self, name: str) -> KerasLayer:
        """The layer called `name`."""
        ...

    def get_weights(self) -> list[object]:
        """The values of its weights (numpy arrays)."""
        ...

    def save(self, filepath: str) -> None:
        """Saves it (a `.keras` file for Keras 3)."""
        ...

    def stateless_call(
        self,
        trainable_variables: Sequence[object],
        non_trainable_variables: Sequence[object],
        *args: object,
        **kwargs: object,
    ) -> tuple[object, Sequence[object], Sequence[object]]:
        """Keras 3: runs the model on given variable values; returns (outputs, new
        non-trainable values[, losses])."""
        ...


class KerasOptimizer(Protocol):
    """A Keras optimizer (tf_keras, legacy or Keras 3)."""

    @property
    def iterations(self) -> object:
        """The step counter variable."""
        ...

    def get_config(self) -> dict[str, object]:
        """Its hyperparameters."""
        ...


class CannedHeadConfig(Protocol):
    """What a canned estimator's head says about its task (the `CannedHead` attributes)."""

    @property
    def kind(self) -> str:
        """'classifier', 'multi_label', 'regression', 'poisson' or 'logistic'."""
        ...

    @property
    def v2(self) -> bool:
        """Whether it is the v2 head (Keras reductions)."""
        ...

    @property
    def n_classes(self) -> int:
        """The number of classes (classifiers)."""
        ...

    @property
    def label_dimension(self) -> int:
        """The width of the labels (regression)."""
        ...

    @property
    def logits_dimension(self) -> int:
        """The width of the logits the model must produce."""
        ...

    @property
    def weight_column(self) -> object:
        """The example weight feature key or column, or None."""
        ...

    @property
    def vocabulary(self) -> Sequence[object] | None:
        """The label vocabulary, or None (integer labels)."""
        ...

    @property
    def loss_reduction(self) -> object:
        """How the weighted per-example losses are reduced."""
        ...

    @property
    def loss_fn(self) -> object:
        """A custom `loss_fn(labels, logits[, features])`, or None."""
        ...


class PortableModel(Protocol):
    """A built model whose weights `tfport ckpt port` fills: Keras 3, tf_keras or `tf.Module`."""

    @property
    def variables(self) -> Sequence[Variable]:
        """Its variables (a Keras model's `weights` are read first when it has them)."""
        ...

    def save_weights(self, filepath: str) -> None:
        """Keras models: writes a `.weights.h5` file (`--to keras-weights`)."""
        ...


class UpgradeSpec(Protocol):
    """`tf_upgrade_v2.TFAPIChangeSpec`: the rewrite tables tfport's rule table edits."""

    symbol_renames: dict[str, str]
    function_warnings: Mapping[str, object]


class Strategy(Protocol):
    """A `tf.distribute.Strategy`: what tfport reads off one."""

    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas a step runs on."""
        ...


class NamedColumn(Protocol):
    """A feature column (v1 or v2, any kind): each has a `name`."""

    @property
    def name(self) -> str:
        """The column's name (its feature key, or one derived from its inputs)."""
        ...


# --- random ops and their seeds ---
#: `random_seed.get_seed`: an op seed (None: none given) -> `(graph seed, op seed)`.
SeedFunction = Callable[[int | None], tuple[int | None, int | None]]
#: A random op builder of `gen_random_ops`: `(shape, dtype, seed=, seed2=, name=)` -> tensor.
RandomOp = Callable[..., object]


# --- function graphs (control flow branches and bodies) ---


class FunctionGraph(Graph, Protocol):
    """A function's graph (a `FuncGraph`: a `tf.cond` branch, a `tf.while_loop` body): a
    graph with the tensors it takes and returns."""

    @property
    def inputs(self) -> list[GraphTensor]:
        """Its arguments (placeholders), in order."""
        ...

    @property
    def outputs(self) -> list[GraphTensor]:
        """What it returns, in order."""
        ...


# --- w39-train ---


class KerasTrainingOptimizer(Protocol):
    """A compiled Keras 3 model's optimizer, as a `--training` export builds and fills it."""

    iterations: KerasVariable

    def build(self, variables: Sequence[object]) -> None:
        """Creates its slot variables for `variables`."""
        ...

    def _get_variable_index(self, variable: KerasVariable) -> int:
        """The index of `variable` in its slot lists."""
        ...


class LossRecorderHook(Hook, Protocol):
    """A training hook that records the loss of the last step in `value`."""

    value: float
