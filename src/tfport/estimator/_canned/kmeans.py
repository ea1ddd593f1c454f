"""`tf.compat.v1.estimator.experimental.KMeans` over TensorFlow's clustering ops.

TensorFlow 2.21 still ships the k-means graph (`clustering_ops.KMeans`); this module wraps
it in an Estimator as the legacy one did: variables `clusters`, `initialized` (and, for
mini-batch, `clusters_updated`, `update_in_steps`), the training loss is the sum of
squared distances, `score` its mean over evaluation batches, predictions `all_distances`
and `cluster_index`. Cluster centres are chosen by a hook right after the session is made.

Example:
    >>> from tfport.estimator._canned.kmeans import KMeansClustering
    >>> KMeansClustering.CLUSTER_INDEX
    'cluster_index'
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._engine.api.spec import EstimatorSpec
from tfport.estimator._engine.estimator import Estimator

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, Features, InputFn, Session, Tensor
    from tfport.estimator._engine.api.run_config import RunConfig

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook

__all__ = ["KMeansClustering", "refuse_replicas"]

_INIT_TRIES = 1000


def refuse_replicas(
    estimator: Estimator, name: str, why: str = "the legacy stack never distributed it"
) -> None:
    """Raises when `estimator`'s config trains on several replicas.

    Example:
        >>> refuse_replicas(est, "KMeans")  # doctest: +SKIP
    """
    config = estimator.config
    for strategy in (config.train_distribute, config.eval_distribute):
        replicas = 1 if strategy is None else int(strategy.num_replicas_in_sync)
        if replicas > 1:
            raise TfportInputError(
                message(
                    f"{name} runs on one device only ({why})",
                    "Run it without --strategy / train_distribute (or with 'default')",
                    replicas=replicas,
                )
            )


def _init_hook(init_op: object, initialized: object, num_clusters: object, is_chief: bool) -> Any:
    """A hook running the init op until every centre is chosen; a clear error when the
    input runs out first (num_clusters larger than the data)."""
    return _InitializeClustersHook(init_op, initialized, is_chief, num_clusters=num_clusters)


def _too_many(num_clusters: object, err: Exception | None) -> TfportInputError:
    detail = str(getattr(err, "message", err)).splitlines()[0] if err else "no progress"
    return TfportInputError(
        message(
            "KMeans could not choose num_clusters initial centres: num_clusters is larger "
            "than the number of input points",
            "Use fewer clusters or feed more points (kmeans++ needs num_clusters points in "
            "its first batch)",
            num_clusters=num_clusters,
            detail=detail,
        )
    )


class _InitializeClustersHook(_SessionRunHook):
    """Runs the clusters' `init_op` (the chief) until `is_initialized_var` is true; legacy's
    constructor, and `num_clusters` names the count in the too-few-points error."""

    def __init__(
        self,
        init_op: object,
        is_initialized_var: object,
        is_chief: bool,
        num_clusters: object = None,
    ) -> None:
        self._init_op, self._initialized = init_op, is_initialized_var
        self._num_clusters, self._is_chief = num_clusters, is_chief

    def after_create_session(self, session: Session, coord: object) -> None:
        del coord
        for _ in range(_INIT_TRIES):
            if session.run(self._initialized):
                return
            if not self._is_chief:
                time.sleep(1)
                continue
            try:
                session.run(self._init_op)
            except (tf.errors.OutOfRangeError, tf.errors.InvalidArgumentError) as err:
                raise _too_many(self._num_clusters, err) from err
        raise _too_many(self._num_clusters, None)


def _tolerance_hook(loss: object, tolerance: float) -> Any:
    """A hook stopping training when the loss changes by less than `tolerance` (relative)."""
    return _LossRelativeChangeHook(loss, tolerance)


class _LossRelativeChangeHook(_SessionRunHook):
    """Stops training when the loss changes by less than `tolerance` (relative)."""

    def __init__(self, loss_tensor: object, tolerance: float) -> None:
        self._loss, self._tolerance = loss_tensor, tolerance
        self.previous: float | None = None

    def before_run(self, run_context: object) -> Any:
        return tf.compat.v1.train.SessionRunArgs(self._loss)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        value = run_values.results
        previous = self.previous
        if previous and abs(value - previous) / (1 + abs(previous)) < self._tolerance:
            run_context.request_stop()
        self.previous = value


def _points(features: Features, feature_columns: FeatureColumns) -> Any:
    tf = import_tf()
    if not isinstance(features, dict):
        return features
    if feature_columns:
        return tf.compat.v1.feature_column.input_layer(features, list(feature_columns))
    keys = sorted(features)
    return tf.concat([features[k] for k in keys], axis=1)


def _kmeans_model_fn(
    features: Features, mode: str, config: RunConfig, *, opts: dict
) -> EstimatorSpec:
    tf = import_tf()
    KMeans = tf_internals.kmeans_class()  # TF's k-means graph (no public path)
    PredictOutput = tf_internals.predict_output_class()

    v1 = tf.compat.v1
    points = _points(features, opts["feature_columns"])
    graph = KMeans(
        inputs=points,
        num_clusters=opts["num_clusters"],
        initial_clusters=opts["initial_clusters"],
        distance_metric=opts["distance_metric"],
        use_mini_batch=opts["use_mini_batch"],
        mini_batch_steps_per_iteration=opts["mini_batch_steps_per_iteration"],
        random_seed=0 if opts["seed"] is None else opts["seed"],  # the ops default
        kmeans_plus_plus_num_retries=opts["kmeans_plus_plus_num_retries"],
    ).training_graph()
    all_distances, indices, losses, initialized, init_op, training_op = graph
    loss = tf.math.reduce_sum(losses)
    v1.summary.scalar("loss/raw", loss)
    step = v1.assign_add(v1.train.get_global_step(), 1)
    with tf.control_dependencies([training_op, step]):
        train_op = tf.identity(loss)
    hooks = [_init_hook(init_op, initialized, opts["num_clusters"], config.is_chief)]
    if opts["relative_tolerance"] is not None:
        hooks.append(_tolerance_hook(loss, opts["relative_tolerance"]))
    predictions = {
        KMeansClustering.ALL_DISTANCES: all_distances[0],
        KMeansClustering.CLUSTER_INDEX: indices[0],
    }
    exports = {
        KMeansClustering.ALL_DISTANCES: PredictOutput(all_distances[0]),
        KMeansClustering.CLUSTER_INDEX: PredictOutput(indices[0]),
        "serving_default": PredictOutput(indices[0]),
    }
    return EstimatorSpec(
        mode=mode,
        predictions=predictions,
        loss=loss,
        train_op=train_op,
        eval_metric_ops={KMeansClustering.SCORE: v1.metrics.mean(loss)},
        training_hooks=hooks,
        export_outputs=exports,
    )


class _ModelFn:
    """The k-means `model_fn` of `KMeansClustering`, as an object holding its settings.

    Example:
        >>> fn = _ModelFn(3, "random", "squared_euclidean", 1, True, 1, 2, None, None)
        >>> fn.model_fn.__name__
        'model_fn'
    """

    def __init__(
        self,
        num_clusters: int | Tensor,
        initial_clusters: str | Tensor | Callable[..., object],
        distance_metric: str,
        seed: int | None,
        use_mini_batch: bool,
        mini_batch_steps_per_iteration: int,
        kmeans_plus_plus_num_retries: int,
        relative_tolerance: float | None,
        feature_columns: FeatureColumns | None,
    ) -> None:
        self._opts = dict(
            num_clusters=num_clusters,
            initial_clusters=initial_clusters,
            distance_metric=distance_metric,
            seed=seed,
            use_mini_batch=use_mini_batch,
            mini_batch_steps_per_iteration=mini_batch_steps_per_iteration,
            kmeans_plus_plus_num_retries=kmeans_plus_plus_num_retries,
            relative_tolerance=relative_tolerance,
            feature_columns=feature_columns,
        )

    def model_fn(self, features: Features, mode: str, config: RunConfig) -> EstimatorSpec:
        """The k-means `EstimatorSpec` of `features` (a `Tensor`, or a dict read through
        the feature columns); `config`: the `RunConfig` (its `is_chief` initializes)."""
        return _kmeans_model_fn(features, mode, config, opts=self._opts)


class KMeansClustering(Estimator):
    """An Estimator for k-means clustering (`tf.compat.v1.estimator.experimental.KMeans`).

    Args:
        num_clusters: the number of clusters (ignored if `initial_clusters` is an array).
        model_dir: directory for checkpoints and summaries.
        initial_clusters: `RANDOM_INIT`, `KMEANS_PLUS_PLUS_INIT`, an array of centres or a
            callable `f(inputs, k)`.
        distance_metric: `SQUARED_EUCLIDEAN_DISTANCE` or `COSINE_DISTANCE`.
        seed: seed of the initialization's random draws.
        use_mini_batch: mini-batch k-means (True) or full-batch Lloyd steps (False).
        mini_batch_steps_per_iteration: steps accumulated before the centres are updated.
        kmeans_plus_plus_num_retries: extra samples per kmeans++ draw.
        relative_tolerance: stop when the loss changes by less than this (relative).
        config: a `RunConfig` (one device only).
        feature_columns: columns read through `input_layer` (all features if None).

    Example:
        >>> km = tf.compat.v1.estimator.experimental.KMeans(num_clusters=3)  # doctest: +SKIP
        >>> km.train(input_fn, steps=10).cluster_centers()  # doctest: +SKIP
    """

    SQUARED_EUCLIDEAN_DISTANCE = "squared_euclidean"
    COSINE_DISTANCE = "cosine"
    RANDOM_INIT = "random"
    KMEANS_PLUS_PLUS_INIT = "kmeans_plus_plus"
    SCORE = "score"
    CLUSTER_INDEX = "cluster_index"
    ALL_DISTANCES = "all_distances"
    CLUSTER_CENTERS_VAR_NAME = "clusters"

    def __init__(
        self,
        num_clusters: int | Tensor,
        model_dir: str | None = None,
        initial_clusters: str | Tensor | Callable[..., object] = RANDOM_INIT,
        distance_metric: str = SQUARED_EUCLIDEAN_DISTANCE,
        seed: int | None = None,
        use_mini_batch: bool = True,
        mini_batch_steps_per_iteration: int = 1,
        kmeans_plus_plus_num_retries: int = 2,
        relative_tolerance: float | None = None,
        config: RunConfig | None = None,
        feature_columns: FeatureColumns | None = None,
    ) -> None:
        inits = (self.RANDOM_INIT, self.KMEANS_PLUS_PLUS_INIT)
        if isinstance(initial_clusters, str) and initial_clusters not in inits:
            raise TfportInputError(
                message(
                    "Unsupported initialization algorithm",
                    f"Use one of {list(inits)}, an array of centres or a callable",
                    initial_clusters=initial_clusters,
                )
            )
        metrics = (self.SQUARED_EUCLIDEAN_DISTANCE, self.COSINE_DISTANCE)
        if distance_metric not in metrics:
            raise TfportInputError(
                message(
                    "Unsupported distance metric",
                    f"Use one of {list(metrics)}",
                    distance_metric=distance_metric,
                )
            )
        self._distance_metric = distance_metric
        model_fn = _ModelFn(
            num_clusters,
            initial_clusters,
            distance_metric,
            seed,
            use_mini_batch,
            mini_batch_steps_per_iteration,
            kmeans_plus_plus_num_retries,
            relative_tolerance,
            feature_columns,
        ).model_fn
        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)
        refuse_replicas(self, "KMeans")

    def _predict_one_key(self, input_fn: InputFn, predict_key: str) -> Iterator:
        """Yields `predict_key`'s prediction of each input point."""
        for result in self.predict(input_fn=input_fn, predict_keys=[predict_key]):
            yield result[predict_key]

    def predict_cluster_index(self, input_fn: InputFn) -> Iterator:
        """Yields the index of the closest centre of each input point.

        Example:
            >>> list(km.predict_cluster_index(input_fn))  # doctest: +SKIP
            [0, 2, 1]
        """
        yield from self._predict_one_key(input_fn, self.CLUSTER_INDEX)

    def score(self, input_fn: InputFn) -> float:
        """The sum of squared distances to the nearest centres (mean over batches).

        Example:
            >>> km.score(input_fn)  # doctest: +SKIP
        """
        return self.evaluate(input_fn=input_fn, steps=1)[self.SCORE]

    def transform(self, input_fn: InputFn) -> Iterator:
        """Yields each point's distances to every centre (Euclidean, not squared, for
        `SQUARED_EUCLIDEAN_DISTANCE`).

        Example:
            >>> next(km.transform(input_fn))  # doctest: +SKIP
        """
        import numpy as np

        for distances in self._predict_one_key(input_fn, self.ALL_DISTANCES):
            if self._distance_metric == self.SQUARED_EUCLIDEAN_DISTANCE:
                yield np.sqrt(distances)
            else:
                yield distances

    def cluster_centers(self) -> Any:
        """The cluster centres of the latest checkpoint.

        Example:
            >>> km.cluster_centers().shape  # doctest: +SKIP
            (3, 2)
        """
        return self.get_variable_value(self.CLUSTER_CENTERS_VAR_NAME)
