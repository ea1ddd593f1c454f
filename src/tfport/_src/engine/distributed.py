"""Building TRAIN / EVAL graphs under a graph-mode distribution strategy.

model_fn runs once per replica (`call_for_each_replica`); the input_fn's global
batch is split across replicas, so N replicas with batch B/N make the update of
one replica with batch B (v1 optimizers scale a mean loss by 1/N and sum the
gradients; Keras losses divide by the global batch). Metrics created with
`tf.compat.v1.metrics` aggregate over replicas.
"""

from __future__ import annotations

from typing import Any

from tfport._src.engine import calls
from tfport._src.engine.evaluation import metric_pairs
from tfport._src.engine.graphs import Built
from tfport._src.engine.spec import EstimatorSpec, ModeKeys
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf

LOSS_KEY = "loss"


def build(est: Any, input_fn: Any, mode: str, strategy: Any) -> Built:
    """Builds `mode`'s graph with model_fn replicated over `strategy`.

    Example:
        >>> built = build(est, input_fn, ModeKeys.TRAIN, strategy)  # doctest: +SKIP
    """
    if "TPU" in type(strategy).__name__:
        raise TfportInputError(
            message(
                "Executing on a TPU is not supported by this version of tfport (it was never "
                "run on TPU hardware)",
                "Use --strategy auto / mirrored: TPUEstimator model_fns, CrossShardOptimizer "
                "included, run unchanged on GPUs and CPUs",
                strategy=type(strategy).__name__,
            )
        )
    tf = import_tf()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default(), strategy.scope():
        if est.config.tf_random_seed is not None:
            v1.set_random_seed(est.config.tf_random_seed)
        global_step = v1.train.create_global_step(graph)
        dataset = calls.call_input_fn(
            input_fn, mode, est.params_for_input(mode), est.config, device=None
        )
        _check_dataset(tf, dataset, strategy, mode)
        if is_multi_worker(strategy):
            iterator = strategy.make_input_fn_iterator(_worker_slice(tf, dataset, strategy))
        else:
            iterator = strategy.make_dataset_iterator(dataset)  # splits the global batch
        hooks = [calls.dataset_initializer_hook(iterator)]
        features, labels = _split(iterator.get_next())
        from tensorflow.python.training import training_util

        v1.add_to_collection(
            training_util.GLOBAL_STEP_READ_KEY, strategy.extended.read_var(global_step)
        )
        specs: list = []

        def replica_fn(features: Any, labels: Any) -> dict:
            spec = est.call_model_fn(features, labels, mode)
            specs.append(spec)
            if mode == ModeKeys.TRAIN:
                return {"loss": spec.loss, "train_op": spec.train_op}
            return {"loss": spec.loss, "metrics": metric_pairs(tf, spec.eval_metric_ops)}

        with strategy._scale_loss_for_estimator_enabled():  # v1 optimizers: mean loss / N
            grouped = strategy.extended.call_for_each_replica(replica_fn, args=(features, labels))
        _drop_replica_components(v1)
        first = specs[0]
        loss = strategy.reduce(_loss_reduction(tf, graph), grouped["loss"], axis=None)
        if mode == ModeKeys.TRAIN:
            spec = EstimatorSpec(
                mode,
                loss=loss,
                train_op=strategy.group(grouped["train_op"]),
                training_hooks=first.training_hooks,
                training_chief_hooks=first.training_chief_hooks,
                scaffold=first.scaffold,
            )
            return Built(graph, spec, hooks, global_step, features, labels, distributed=True)
        metric_ops = {
            key: (strategy.experimental_local_results(value)[0], strategy.group(update))
            for key, (value, update) in grouped["metrics"].items()
        }
        spec = EstimatorSpec(
            mode, loss=loss, evaluation_hooks=first.evaluation_hooks, scaffold=first.scaffold
        )
    with graph.as_default():  # outside the scope: a plain mean of the all-replica loss
        metric_ops[LOSS_KEY] = v1.metrics.mean(loss)
    built = Built(graph, spec, hooks, global_step, features, labels, distributed=True)
    built.metric_ops = metric_ops
    return built


def is_multi_worker(strategy: Any) -> bool:
    """True for a strategy spanning several worker processes (collectives over gRPC)."""
    check = getattr(strategy.extended, "_in_multi_worker_mode", None)
    return bool(check and check()) and not is_parameter_server(strategy)


def is_parameter_server(strategy: Any) -> bool:
    """True for a (v1, graph-mode) ParameterServerStrategy."""
    return "ParameterServer" in type(strategy).__name__


def session_target(strategy: Any, config: Any) -> tuple[str, Any, bool]:
    """The session master, ConfigProto, and whether every worker initializes variables.

    Multi-worker collectives run on the in-process server the strategy started (each
    worker initializes; initial values are broadcast). Parameter-server training runs on
    this task's own server, the chief initializes the variables that live on the ps tasks.
    """
    session_config = config.session_config
    if strategy is None:
        return "", session_config, False
    if is_multi_worker(strategy):
        return config.master, strategy.update_config_proto(session_config), True
    if is_parameter_server(strategy) and config.cluster_spec:
        from tfport._src.engine.strategies import task_server

        target = task_server(config.cluster_spec, config.task_type, config.task_id).target
        return target, strategy.update_config_proto(session_config), False
    return "", session_config, False


def _worker_slice(tf: Any, dataset: Any, strategy: Any) -> Any:
    """This worker's share of each global batch: its replicas' consecutive minibatches.

    The global batch is cut into one minibatch per replica (in replica order); worker w
    takes the minibatches of its local replicas, so the workers together see exactly the
    batches one process would (no sharding by element).
    """
    extended = strategy.extended
    workers = int(extended._num_workers)
    worker = int(extended._id_in_cluster)
    total = strategy.num_replicas_in_sync
    local = total // workers
    batch = tf.nest.flatten(dataset.element_spec)[0].shape[0]
    if batch is None:
        raise TfportInputError(
            message(
                "Multi-worker training needs a static global batch size",
                "Batch the dataset with drop_remainder=True",
                element_spec=str(dataset.element_spec),
            )
        )

    def input_fn(input_context: Any) -> Any:
        del input_context
        ds = dataset.rebatch(batch // total).batch(total, drop_remainder=True)

        def take(*parts: Any) -> Any:
            mine = tf.nest.map_structure(lambda t: t[worker * local : (worker + 1) * local], parts)
            return mine if len(parts) > 1 else mine[0]

        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
        return ds.map(take).unbatch().with_options(options)

    return input_fn


def _drop_replica_components(v1: Any) -> None:
    """Keeps only the distributed variable where its per-replica parts were also collected.

    tf_keras optimizers under a graph-mode strategy add both a slot's MirroredVariable and
    its components (`.../m`, `.../m/replica_1`) to GLOBAL_VARIABLES; the Saver must see the
    MirroredVariable alone, so checkpoints keep the single-device names.
    """
    from tensorflow.python.distribute import values as ds_values

    collection = v1.get_collection_ref(v1.GraphKeys.GLOBAL_VARIABLES)
    parts = {
        id(c) for v in collection if isinstance(v, ds_values.DistributedValues) for c in v.values
    }
    collection[:] = [v for v in collection if id(v) not in parts]


def _loss_reduction(tf: Any, graph: Any) -> Any:
    """SUM when the user's loss is a sum (v1 losses with Reduction.SUM), else MEAN."""
    reduction = getattr(graph, "_last_loss_reduction", None)
    if reduction in ("weighted_sum", "sum"):
        return tf.distribute.ReduceOp.SUM
    return tf.distribute.ReduceOp.MEAN


def _split(result: Any) -> tuple[Any, Any]:
    if isinstance(result, (list, tuple)) and len(result) == 2:
        return result[0], result[1]
    return result, None


def _check_dataset(tf: Any, dataset: Any, strategy: Any, mode: str) -> None:
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
