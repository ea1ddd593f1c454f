"""Legacy `linear_optimizer`'s SDCA solver API (`sdca_ops._SDCAModel`) over tfport's SDCA graph.

`_SDCAModel(examples, variables, options)` takes legacy's dictionaries (sparse columns as
`_SparseFeatureColumn`s, weights as lists of variables, options as a dict) and drives
`sdca_ops.SDCAModel`, which builds the `SdcaOptimizerV2` step, the unshrunk copies and the
example-state table. Predictions and losses (the evaluation side, which the canned
estimators never needed) are computed here, with legacy's definitions.

Example:
    >>> model = _SDCAModel(examples, variables, {"loss_type": "logistic_loss",
    ...     "symmetric_l1_regularization": 0.0, "symmetric_l2_regularization": 1.0})
    ... # doctest: +SKIP
    >>> train_op = model.update_weights(model.minimize())  # doctest: +SKIP
"""

from __future__ import annotations

import collections
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._canned import sdca_ops
from tfport.estimator._canned.sdca import LOSS_TYPES, LinearSDCA

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook

__all__ = ["_SDCAModel", "_SDCAUpdateWeightsHook"]
_KINDS = (("sparse", "sparse_features_weights"), ("dense", "dense_features_weights"))


class _SDCAModel:
    """Stochastic dual coordinate ascent for a linear model, on legacy's dictionaries.

    Args:
        examples: `sparse_features` (list of `_SparseFeatureColumn`), `dense_features`
            (list of `[batch, d]` float tensors), `example_labels`, `example_weights`
            (`[batch]`) and `example_ids` (`[batch]` strings).
        variables: `sparse_features_weights` and `dense_features_weights`: lists of
            variables, one per column (unpartitioned).
        options: `loss_type` (one of `LOSS_TYPES`), `symmetric_l1_regularization` (>= 0),
            `symmetric_l2_regularization` (> 0), optional `num_loss_partitions` (1),
            `num_table_shards` (1) and `adaptive` (True).

    Example:
        >>> model = _SDCAModel(examples, variables, options)  # doctest: +SKIP
        >>> loss = model.regularized_loss(examples)  # doctest: +SKIP
    """

    def __init__(self, examples: Any, variables: Any, options: Any) -> None:
        if not examples or not variables or not options:
            raise ValueError("examples, variables and options must all be specified.")
        if options["loss_type"] not in LOSS_TYPES:
            raise ValueError("Unsupported loss_type: ", options["loss_type"])
        self._assert_specified(
            [
                "example_labels",
                "example_weights",
                "example_ids",
                "sparse_features",
                "dense_features",
            ],
            examples,
        )
        self._assert_list(["sparse_features", "dense_features"], examples)
        self._assert_specified([k for _, k in _KINDS], variables)
        self._assert_list([k for _, k in _KINDS], variables)
        self._assert_specified(
            ["loss_type", "symmetric_l2_regularization", "symmetric_l1_regularization"], options
        )
        if options["symmetric_l2_regularization"] <= 0.0:
            raise ValueError("symmetric_l2_regularization should be positive.")
        if options["symmetric_l1_regularization"] < 0.0:
            raise ValueError("symmetric_l1_regularization should be non-negative.")
        if options["symmetric_l2_regularization"] <= 1.0:
            tf.compat.v1.logging.warn(
                "symmetric_l2_regularization for SDCA should typically be larger than for "
                "online optimization methods: of the order of the training examples' "
                "average L2 norm."
            )
        self._examples, self._variables, self._options = examples, variables, options
        weights = {kind: [self._single(v) for v in variables[key]] for kind, key in _KINDS}
        batch = {
            "sparse": [
                (c.example_indices, c.feature_indices, c.feature_values)
                for c in examples["sparse_features"]
            ],
            "dense": self._convert_n_to_tensor(examples["dense_features"]),
            "labels": examples["example_labels"],
            "example_weights": examples["example_weights"],
            "example_ids": examples["example_ids"],
        }
        solver = LinearSDCA(
            example_id_column="example_ids",
            num_loss_partitions=self._num_loss_partitions(),
            num_table_shards=self._num_table_shards(),
            symmetric_l1_regularization=self._symmetric_l1_regularization(),
            symmetric_l2_regularization=self._symmetric_l2_regularization(),
            adaptive=self._adaptive(),
        )
        self._model = sdca_ops.SDCAModel(solver, options["loss_type"], batch, weights)
        self._hashtable = self._model.table
        self._create_slots()

    @staticmethod
    def _single(var: Any) -> Any:
        if isinstance(var, (list, tuple)) or type(var).__name__ == "PartitionedVariable":
            raise TfportInputError(
                message(
                    "_SDCAModel takes one variable per column, not partitions",
                    "Create the weights without a partitioner",
                    variable=getattr(var, "name", var),
                )
            )
        return var

    def _symmetric_l1_regularization(self) -> float:
        return self._options["symmetric_l1_regularization"]

    def _symmetric_l2_regularization(self) -> float:
        return self._options["symmetric_l2_regularization"]

    def _num_loss_partitions(self) -> int:
        return self._options.get("num_loss_partitions", 1)

    def _adaptive(self) -> bool:
        return self._options.get("adaptive", True)

    def _num_table_shards(self) -> int:
        shards = self._options.get("num_table_shards")
        return 1 if shards is None else shards

    def _create_slots(self) -> None:
        """`_slots`: `unshrunk_<kind>_features_weights` -> the solver's unshrunk copies."""
        self._slots = collections.defaultdict(list)
        for kind, key in _KINDS:
            self._slots["unshrunk_" + key] = list(self._model.unshrunk[kind])

    def _assert_specified(self, items: Any, check_in: Any) -> None:
        for item in items:
            if check_in[item] is None:
                raise ValueError(f"{item} must be specified.")

    def _assert_list(self, items: Any, check_in: Any) -> None:
        for item in items:
            if not isinstance(check_in[item], list):
                raise ValueError(f"{item} must be a list.")

    def _var_to_list(self, var: Any) -> Any:
        if isinstance(var, (list, tuple)) or type(var).__name__ == "PartitionedVariable":
            return var
        return [var]

    def _l1_loss(self) -> Any:
        """`l1 * sum(|w|)` over all weights (float64)."""
        with tf.compat.v1.name_scope("sdca/l1_loss"):
            return self._symmetric_l1_regularization() * self._model._norm(tf.math.abs)

    def _l2_loss(self) -> Any:
        """`l2 * sum(w^2) / 2` over all weights (float64)."""
        with tf.compat.v1.name_scope("sdca/l2_loss"):
            return self._symmetric_l2_regularization() * self._model._norm(tf.math.square) / 2.0

    def _convert_n_to_tensor(self, input_list: Any, as_ref: bool = False) -> list:
        """Tensors of `input_list`; a list of partitions is concatenated on axis 0."""
        out = []
        for item in input_list:
            if isinstance(item, (list, tuple)) or type(item).__name__ == "PartitionedVariable":
                item = tf.concat(list(item), axis=0)
            out.append(item if as_ref else tf.convert_to_tensor(item))
        return out

    def _get_first_dimension_size_statically(self, w: Any, num_partitions: int) -> Any:
        size = w[0].shape[0]
        for p in range(1, num_partitions):
            size += w[p].shape[0]
        return size

    def _get_partitioned_update_ops(
        self,
        v_num: int,
        num_partitions_by_var: Any,
        p_assignments_by_var: Any,
        gather_ids_by_var: Any,
        weights: Any,
        full_update: Any,
        p_assignments: Any,
        num_partitions: int,
    ) -> list:
        """`scatter_add`s of a partitioned column's update, one per partition (the maps
        give, per column number, its partition count, id assignments and local ids)."""
        del p_assignments, num_partitions  # legacy read these from the maps too
        count = num_partitions_by_var[v_num]
        gather_ids = gather_ids_by_var[v_num]
        updates = tf.dynamic_partition(full_update, p_assignments_by_var[v_num], count)
        return [
            tf.compat.v1.scatter_add(weights[p], gather_ids[p], updates[p]) for p in range(count)
        ]

    def _linear_predictions(self, examples: Any) -> Any:
        """`w . x` of each example (`[batch]`)."""
        with tf.compat.v1.name_scope("sdca/prediction"):
            batch_size = tf.shape(examples["example_ids"])[0]
            predictions = tf.zeros([batch_size])
            weights = self._convert_n_to_tensor(self._variables["sparse_features_weights"])
            for column, w in zip(examples["sparse_features"], weights):
                values = column.feature_values
                if values is None:
                    raise TfportInputError(
                        message(
                            "_SDCAModel's predictions and losses need every sparse column's "
                            "feature_values (legacy failed on None too; minimize counts them "
                            "as 1)",
                            "Pass feature_values (e.g. ones) in the examples evaluated",
                            feature_values=None,
                        )
                    )
                dots = tf.math.segment_sum(
                    tf.gather(w, column.feature_indices) * values, column.example_indices
                )
                predictions += tf.pad(dots, [[0, batch_size - tf.shape(dots)[0]]])
            dense = self._convert_n_to_tensor(examples["dense_features"])
            dense_w = self._convert_n_to_tensor(self._variables["dense_features_weights"])
            for x, w in zip(dense, dense_w):
                predictions += tf.squeeze(tf.linalg.matmul(x, tf.expand_dims(w, -1)))
        return predictions

    def predictions(self, examples: Any) -> Any:
        """Probabilities (logistic loss), `exp(w . x)` (Poisson loss), else `w . x`.

        Example:
            >>> p = model.predictions(examples)  # doctest: +SKIP
        """
        self._assert_specified(["example_weights", "sparse_features", "dense_features"], examples)
        self._assert_list(["sparse_features", "dense_features"], examples)
        result = self._linear_predictions(examples)
        if self._options["loss_type"] == "logistic_loss":
            with tf.compat.v1.name_scope("sdca/logistic_prediction"):
                result = tf.math.sigmoid(result)
        elif self._options["loss_type"] == "poisson_loss":
            with tf.compat.v1.name_scope("sdca/poisson_prediction"):
                result = tf.math.exp(result)
        return result

    def minimize(self, global_step: Any = None, name: str | None = None) -> Any:
        """The solver step (then `global_step` + 1 when given).

        Example:
            >>> step = model.minimize()  # doctest: +SKIP
        """
        return self._model.minimize(global_step, name=name)

    def update_weights(self, train_op: Any) -> Any:
        """After `train_op`: the model weights from the unshrunk ones, L1-shrunk.

        Example:
            >>> op = model.update_weights(model.minimize())  # doctest: +SKIP
        """
        return self._model.update_weights(train_op)

    def approximate_duality_gap(self) -> Any:
        """The duality gap over every example seen (NaN before any).

        Example:
            >>> gap = model.approximate_duality_gap()  # doctest: +SKIP
        """
        return self._model.approximate_duality_gap()

    def _checked(self, examples: Any) -> tuple:
        self._assert_specified(
            ["example_labels", "example_weights", "sparse_features", "dense_features"], examples
        )
        self._assert_list(["sparse_features", "dense_features"], examples)
        as64 = [tf.cast(examples[k], tf.float64) for k in ("example_labels", "example_weights")]
        return as64[0], as64[1]

    def unregularized_loss(self, examples: Any) -> Any:
        """The weighted mean loss of `examples` (float64), without regularization.

        Example:
            >>> loss = model.unregularized_loss(examples)  # doctest: +SKIP
        """
        labels, weights = self._checked(examples)
        kind = self._options["loss_type"]
        with tf.compat.v1.name_scope("sdca/unregularized_loss"):
            logits = tf.cast(self._linear_predictions(examples), tf.float64)
            if kind == "logistic_loss":
                per = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
            elif kind == "poisson_loss":
                per = tf.nn.log_poisson_loss(targets=labels, log_input=logits)
            elif kind in ("hinge_loss", "smooth_hinge_loss"):
                per = tf.nn.relu(1.0 - (2.0 * labels - 1.0) * logits)  # labels 0/1 -> -1/1
            else:  # squared loss: sum(err^2) / (2 sum(weights))
                per = tf.math.square(labels - logits) / 2.0
            return tf.math.reduce_sum(per * weights) / tf.math.reduce_sum(weights)

    def regularized_loss(self, examples: Any) -> Any:
        """`unregularized_loss` plus (L1 + L2 loss) / total example weight (float64).

        Example:
            >>> loss = model.regularized_loss(examples)  # doctest: +SKIP
        """
        _, weights = self._checked(examples)
        with tf.compat.v1.name_scope("sdca/regularized_loss"):
            penalty = (self._l1_loss() + self._l2_loss()) / tf.math.reduce_sum(weights)
            return penalty + self.unregularized_loss(examples)


class _SDCAUpdateWeightsHook(_SessionRunHook):
    """Runs `sdca_model.update_weights(train_op)` with every training step.

    Example:
        >>> hook = _SDCAUpdateWeightsHook(model, train_op)  # doctest: +SKIP
    """

    def __init__(self, sdca_model: Any, train_op: Any) -> None:
        self._sdca_model = sdca_model
        self._train_op = train_op

    def begin(self) -> None:
        """Builds the update op in the default graph."""
        self._update_op = self._sdca_model.update_weights(self._train_op)

    def before_run(self, run_context: object) -> Any:
        """Asks the session to run the update op too."""
        return tf.compat.v1.train.SessionRunArgs(self._update_op)
