"""The input step, and the one owner of input_fn: call it, parse what it returned, and
hand out batches once per graph.

On one device a Dataset becomes an initializable iterator (initialized by a hook once
the session exists) and `(features, labels)` tensors are used as they are. Under a
strategy the Dataset's global batch is split across replicas (one minibatch each), and
on several workers each worker takes its own replicas' minibatches of every global batch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf, quiet_tf_warnings
from tfport._common.types import InputFn, Session, TFModule
from tfport.estimator._engine.api.spec import ModeKeys
from tfport.estimator._engine.building.calls import fn_args
from tfport.estimator._engine.building.context import ModeContext

_SessionRunHook: Any = import_tf().compat.v1.train.SessionRunHook


@dataclasses.dataclass
class Batches:
    """Where a step's `(features, labels)` come from.

    Attributes:
        next: returns the next `(features, labels)` (built in the current graph context).
        hooks: SessionRunHooks the input needs (iterator initializers).
    """

    next: Callable[[], tuple[Any, Any]]
    hooks: list


def open_batches(ctx: ModeContext, input_fn: InputFn) -> Batches:
    """Calls `input_fn` for `ctx.mode` and returns its batches.

    Example:
        >>> batches = open_batches(ctx, input_fn)  # doctest: +SKIP
        >>> features, labels = batches.next()  # doctest: +SKIP
    """
    if ctx.strategy is not None:
        return _distributed(ctx, input_fn)
    tf = import_tf()
    result = call_input_fn(input_fn, ctx.mode, ctx.input_params, ctx.config)
    if isinstance(result, tf.data.Dataset):
        iterator = tf.compat.v1.data.make_initializable_iterator(result)
        hooks = [dataset_initializer_hook(iterator)]

        def next_batch() -> tuple[Any, Any]:
            features, labels, _ = parse_input_fn_result(iterator.get_next())
            return features, labels

        return Batches(next_batch, hooks)
    features, labels, hooks = parse_input_fn_result(result)
    return Batches(lambda: (features, labels), hooks)  # the same tensors every step


def _distributed(ctx: ModeContext, input_fn: InputFn) -> Batches:
    tf = import_tf()
    strategy = ctx.strategy
    dataset = call_input_fn(input_fn, ctx.mode, ctx.input_params, ctx.config, device=None)
    if not isinstance(dataset, tf.data.Dataset) and not is_multi_worker(strategy):
        return _split_tensors(tf, dataset, strategy, ctx.mode)
    _check_dataset(tf, dataset, strategy, ctx.mode)
    with quiet_tf_warnings():  # TF's v1 input pipeline reads dataset.options() in graph mode
        iterator = strategy.make_input_fn_iterator(_replica_slices(tf, dataset, strategy))
    hooks = [dataset_initializer_hook(iterator)]

    def next_batch() -> tuple[Any, Any]:
        result = iterator.get_next()
        if isinstance(result, (list, tuple)) and len(result) == 2:
            return result[0], result[1]
        return result, None

    return Batches(next_batch, hooks)


def _split_tensors(tf: TFModule, result: object, strategy: Any, mode: str) -> Batches:
    """Features/labels that are not a Dataset (tensors, iterator outputs, numpy, lists):
    each step's global batch is cut into one consecutive minibatch per replica."""
    features, labels, hooks = parse_input_fn_result(result)
    features, labels = _to_tensors(features), _to_tensors(labels)
    replicas = strategy.num_replicas_in_sync
    batch = tf.nest.flatten(features)[0].shape[0] if tf.nest.flatten(features) else None
    if batch is not None and batch % replicas:
        raise TfportInputError(
            message(
                f"The batch of {batch} examples input_fn returned is not divisible by the "
                f"{replicas} replicas",
                f"Return a batch whose size is a multiple of {replicas} (it is split across "
                "replicas)",
                global_batch=batch,
                replicas=replicas,
            )
        )

    def next_batch() -> tuple[Any, Any]:
        def mine(context: Any) -> Any:
            i, n = context.replica_id_in_sync_group, context.num_replicas_in_sync
            return tf.nest.map_structure(lambda t: _slice(tf, t, i, n), (features, labels))

        return tf_internals.distribute_values_from_function(strategy, mine)

    return Batches(next_batch, hooks)


def _to_tensors(value: object) -> Any:
    """Tensors from tensors, numpy arrays or Python lists (a list is one value), or a dict."""
    tf = import_tf()
    if value is None or isinstance(value, (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)):
        return value
    if isinstance(value, dict):
        return {k: _to_tensors(v) for k, v in value.items()}
    if isinstance(value, tuple):  # a tuple of features (a time-series start_tuple)
        return tuple(_to_tensors(v) for v in value)
    return tf.convert_to_tensor(value)


def _slice(tf: TFModule, t: Any, i: object, n: int) -> Any:
    """Replica `i`'s consecutive rows of the batch `t`, split as evenly as it can be.

    The first `b % n` replicas take one row more (7 rows on 2 replicas: 4 + 3), so no row
    is lost and none is seen twice; a batch of `b < n` rows leaves the last replicas empty.
    """
    b = tf.shape(t, out_type=tf.int64)[0]
    i = tf.cast(i, tf.int64)
    start = i * (b // n) + tf.minimum(i, b % n)
    size = b // n + tf.cast(i < b % n, tf.int64)
    if isinstance(t, tf.SparseTensor):  # those rows, every column
        begin = tf.concat([[start], tf.zeros_like(t.dense_shape[1:])], 0)
        return tf.sparse.slice(t, begin, tf.concat([[size], t.dense_shape[1:]], 0))
    rows = t[start : start + size]
    static = t.shape[0] if isinstance(t, tf.Tensor) and t.shape.rank else None
    if static is not None and static % n == 0:  # drop_remainder batches keep a static shape
        rows = tf.ensure_shape(rows, [static // n] + t.shape.as_list()[1:])
    return rows


def is_multi_worker(strategy: object) -> bool:
    """True for a strategy spanning several worker processes (collectives over gRPC)."""
    return tf_internals.in_multi_worker_mode(strategy) and not is_parameter_server(strategy)


def is_parameter_server(strategy: object) -> bool:
    """True for a (v1, graph-mode) ParameterServerStrategy."""
    return "ParameterServer" in type(strategy).__name__


def _replica_slices(tf: TFModule, dataset: Any, strategy: Any) -> Any:
    """An input_fn for `make_input_fn_iterator`: this worker's replicas' slices, in order.

    Each global batch becomes one element per local replica (replica r's consecutive rows,
    `_slice`), which TF's multi-device iterator hands out round-robin: replica 0 gets the
    first rows, as on one device, and a short last batch splits evenly (24 rows on 2
    replicas: 12 + 12). On several workers, worker w takes the slices of its own replicas,
    so the workers together see exactly the batches one process would.
    """
    total = strategy.num_replicas_in_sync
    first, local = 0, total
    if is_multi_worker(strategy):
        workers, worker = tf_internals.worker_position(strategy)
        local = total // workers
        first = worker * local
        if tf.nest.flatten(dataset.element_spec)[0].shape[0] is None:
            raise TfportInputError(
                message(
                    "Multi-worker training needs a static global batch size",
                    "Batch the dataset with drop_remainder=True",
                    element_spec=str(dataset.element_spec),
                )
            )

    def slices(*batch: object) -> Any:
        element = batch if len(batch) > 1 else batch[0]

        def replica(i: object) -> Any:
            return tf.nest.map_structure(lambda t: _slice(tf, t, i, total), element)

        return tf.data.Dataset.range(first, first + local).map(replica)

    def input_fn(input_context: object) -> Any:
        del input_context
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
        return dataset.flat_map(slices).with_options(options)

    return input_fn


def _check_dataset(tf: TFModule, dataset: object, strategy: Any, mode: str) -> None:
    if not isinstance(dataset, tf.data.Dataset):
        raise TfportInputError(
            message(
                "Under a distribution strategy input_fn must return a tf.data.Dataset",
                "Return tf.data.Dataset.from_tensor_slices(...).batch(GLOBAL_BATCH)",
                received=type(dataset).__name__,
            )
        )
    replicas = strategy.num_replicas_in_sync
    spec = tf.nest.flatten(dataset.element_spec)[0]
    batch = spec.shape[0] if spec.shape.rank else None
    if mode == ModeKeys.TRAIN and batch is not None and batch % replicas:
        raise TfportInputError(
            message(
                f"The global batch size {batch} is not divisible by the {replicas} replicas",
                f"Use a batch size that is a multiple of {replicas} (it is split across replicas)",
                global_batch=batch,
                replicas=replicas,
            )
        )


def call_input_fn(
    input_fn: InputFn, mode: str, params: dict, config: object, device: str | None = "/cpu:0"
) -> Any:
    """Calls input_fn on the CPU with the arguments it takes (`params`, `config`, `mode`).

    Example:
        >>> call_input_fn(lambda: ({"x": [[1.0]]}, [0]), "train", {}, None)  # doctest: +SKIP
    """
    if not callable(input_fn):
        raise TfportInputError(
            message(
                "input_fn must be a callable returning a tf.data.Dataset or (features, labels)",
                "Pass the function itself, not its result",
                input_fn=input_fn,
            )
        )
    # numpy_input_fn / pandas_input_fn: the Dataset itself, not the tensors their
    # input_fn returns in a graph (legacy's queue outputs), so batches can be split.
    input_fn = getattr(input_fn, "_tfport_dataset_fn", input_fn)
    args = fn_args(input_fn)
    kwargs: dict[str, Any] = {}
    if "params" in args:
        kwargs["params"] = params
    if "config" in args:
        kwargs["config"] = config
    if "mode" in args:
        kwargs["mode"] = mode
    tf = import_tf()
    with tf.device(device):
        return input_fn(**kwargs)


def dataset_initializer_hook(iterator: object) -> Any:
    """A SessionRunHook that initializes `iterator` once the session exists.

    Example:
        >>> hook = dataset_initializer_hook(iterator)  # doctest: +SKIP
    """
    return _DatasetInitializerHook(iterator)


class _DatasetInitializerHook(_SessionRunHook):
    """Initializes a v1 dataset iterator once the session exists (legacy `util`'s too)."""

    def __init__(self, iterator: Any) -> None:
        self._iterator = iterator

    def begin(self) -> None:
        self._initializer = self._iterator.initializer  # built before the graph is finalized

    def after_create_session(self, session: Session, coord: object) -> None:
        del coord
        session.run(self._initializer)


class DistributedIteratorInitializerHook(_DatasetInitializerHook):
    """Initializes a distributed iterator (`strategy.make_dataset_iterator`)."""


def parse_iterator_result(result: object) -> tuple:
    """`(features, labels)` of an iterator element: a pair, or features alone.

    Example:
        >>> parse_iterator_result(({"x": 1}, 2))
        ({'x': 1}, 2)
    """
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError(
                "input_fn should return (features, labels) as a len 2 tuple. "
                f"Received: {len(result)} elements"
            )
        return result[0], result[1]
    return result, None


def parse_input_fn_result(result: object) -> tuple[Any, Any, list]:
    """`(features, labels, hooks)` of what an input_fn returned: a Dataset gets an
    initializable iterator and its hook (legacy `util.parse_input_fn_result`, with tfport's
    checks of the features).

    Example:
        >>> parse_input_fn_result(({"x": 1}, 2))
        ({'x': 1}, 2, [])
    """
    tf = import_tf()
    hooks: list = []
    if isinstance(result, tf.data.Dataset):
        iterator = tf.compat.v1.data.make_initializable_iterator(result)
        hooks.append(dataset_initializer_hook(iterator))
        result = iterator.get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise TfportInputError(
                message(
                    "input_fn must return (features, labels) or a Dataset of them",
                    "Return a 2-tuple, features alone, or a tf.data.Dataset",
                    tuple_length=len(result),
                )
            )
        features, labels = result
    else:
        features, labels = result, None
    if not _is_features(tf, features):
        raise TfportInputError(
            message(
                "input_fn must return a tf.data.Dataset, a (features, labels) pair or features "
                "(a tensor, numpy array or Python list, or a dict of them)",
                "Return tf.data.Dataset.from_tensor_slices(...).batch(...) or tensors",
                received=describe(result),
            )
        )
    return features, labels, hooks


def describe(value: object, limit: int = 160) -> str:
    """A short description of what an input_fn returned: its type and a cut repr.

    Example:
        >>> describe({"x": object})
        "dict {'x': <class 'object'>}"
    """
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{type(value).__name__} {text}"


def _is_nested(tf: TFModule, value: object) -> bool:
    """A tuple/list of features inside a features dict (a time-series `start_tuple`)."""
    return isinstance(value, (tuple, list)) and all(_is_features(tf, v) for v in value)


def _is_features(tf: TFModule, features: object, in_dict: bool = False) -> bool:
    """Tensors, numpy arrays, Python lists (converted by the model_fn's ops, as legacy passed
    them through), or a dict of them (whose values may also be Python scalars)."""
    if isinstance(features, dict):
        return all(_is_features(tf, v, True) or _is_nested(tf, v) for v in features.values())
    if isinstance(features, list) or (in_dict and isinstance(features, (int, float, str, bytes))):
        return True
    return isinstance(features, (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)) or (
        hasattr(features, "dtype") and hasattr(features, "shape")
    )
