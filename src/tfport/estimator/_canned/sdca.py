"""`tf.estimator.experimental.LinearSDCA`: Stochastic Dual Coordinate Ascent for the
linear canned estimators (`LinearClassifier` / `LinearRegressor(optimizer=LinearSDCA(...))`).

The solver is TensorFlow's own kernel (`SdcaOptimizerV2`, `SdcaFprint`), still shipped by
TF 2.21; the graph around it (`_canned/sdca_ops.py`) keeps the legacy checkpoint names:
the model weights `linear/linear_model/<column>/weights`, their `..._unshrunk` copies and
the example-state table `ShardedMutableHashTable-<i>-of-<n>`.

SDCA steps are not reproducible, on the legacy stack either: the kernel shuffles each batch
with an unseeded random device. Its L2-regularised objective is strongly convex, so the
converged solution is what compares.

Example:
    >>> sdca = LinearSDCA(example_id_column="example_id", symmetric_l2_regularization=2.0)
    >>> sdca._loss_type_for(None) is None
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, ModelHead

__all__ = ["LinearSDCA", "LOSS_TYPES", "check_sdca_estimator"]

# The kernel's loss types; the canned estimators use the first two (binary classifier,
# one-dimensional regressor).
LOSS_TYPES = ("logistic_loss", "squared_loss", "hinge_loss", "smooth_hinge_loss", "poisson_loss")


class LinearSDCA:
    """Stochastic Dual Coordinate Ascent helper for linear estimators.

    Passed as the `optimizer` of `tf.estimator.LinearClassifier` (binary labels, logistic
    loss) or `tf.estimator.LinearRegressor` (one-dimensional labels, squared loss), with
    v2 feature columns and `sparse_combiner='sum'`. Every batch the `input_fn` returns must
    hold `example_id_column`: a string `Tensor` of shape `[batch_size]` naming each example
    (SDCA keeps one dual variable per example id).

    Args:
        example_id_column: the feature key holding the example ids.
        num_loss_partitions: number of workers training concurrently (sigma' of the
            distributed SDCA paper); 1 on one machine.
        num_table_shards: number of shards of the example-state table (None: 1).
        symmetric_l1_regularization: L1 strength, >= 0 (applied as a proximal step).
        symmetric_l2_regularization: L2 strength, > 0 (typically larger than 1).
        adaptive: whether the kernel samples examples adaptively.

    Example:
        >>> sdca = tf.estimator.experimental.LinearSDCA(  # doctest: +SKIP
        ...     example_id_column="example_id", symmetric_l2_regularization=2.0)
        >>> est = tf.estimator.LinearClassifier(cols, optimizer=sdca)  # doctest: +SKIP
    """

    _estimator_api_names = ("estimator.experimental.LinearSDCA",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.experimental.LinearSDCA",)

    def __init__(
        self,
        example_id_column: str,
        num_loss_partitions: int = 1,
        num_table_shards: int | None = None,
        symmetric_l1_regularization: float = 0.0,
        symmetric_l2_regularization: float = 1.0,
        adaptive: bool = False,
    ) -> None:
        self._example_id_column = example_id_column
        self._num_loss_partitions = num_loss_partitions
        self._num_table_shards = num_table_shards
        self._symmetric_l1_regularization = symmetric_l1_regularization
        self._symmetric_l2_regularization = symmetric_l2_regularization
        self._adaptive = adaptive

    def get_train_step(
        self,
        state_manager: dict,
        weight_column_name: str | None,
        loss_type: str,
        feature_columns: FeatureColumns,
        features: dict[str, object],
        targets: object,
        bias_var: object,
        global_step: object,
    ) -> tuple:
        """Returns `(sdca_model, train_op)`: one SDCA step on the batch `features`.

        `state_manager`: the column -> weights map of the linear model (`cols_to_vars` of
        `linear_model`); `bias_var`: the bias variable.
        `sdca_model.update_weights(train_op)` copies the solver's weights into the model's
        variables (and applies the L1 proximal step).

        Example:
            >>> model, op = sdca.get_train_step(None, None, "squared_loss", cols,
            ...                                 features, labels, bias, step)  # doctest: +SKIP
        """
        from tfport.estimator._canned import sdca_ops

        return sdca_ops.train_step(
            self, weight_column_name, loss_type, feature_columns, features, targets,
            state_manager, [bias_var], global_step,
        )  # fmt: skip

    def _prune_and_unique_sparse_ids(self, id_weight_pair: Any) -> Any:
        """A categorical column's ids (an `IdWeightPair`) as SDCA reads them: a
        `_SparseFeatureColumn` with negative ids dropped and an id repeated within an
        example merged (its weights summed).

        Example:
            >>> column = sdca._prune_and_unique_sparse_ids(pair)  # doctest: +SKIP
        """
        from tfport._common.tfenv import import_tf
        from tfport.estimator._canned import sdca_ops

        rows, ids, values = sdca_ops._unique_ids(import_tf(), id_weight_pair)
        return sdca_ops._SparseFeatureColumn(rows, ids, values)

    def _loss_type_for(self, head: object) -> Any:
        """The SDCA loss type of a canned head (None for anything else).

        Example:
            >>> LinearSDCA("id")._loss_type_for(None) is None
            True
        """
        kind = getattr(head, "kind", None)
        if kind == "classifier" and getattr(head, "n_classes", 0) == 2:
            return "logistic_loss"
        if kind == "regression" and getattr(head, "label_dimension", 0) == 1:
            return "squared_loss"
        return None


def _fail(what: str, fix: str, **detail: Any) -> TfportInputError:
    return TfportInputError(message(what, fix, **detail))


def check_sdca_estimator(
    optimizer: Any, head: ModelHead, feature_columns: FeatureColumns, sparse_combiner: str
) -> None:
    """What the legacy Linear estimators refused when given a `LinearSDCA` (ValueError
    there, one `TfportInputError` line here).

    Example:
        >>> check_sdca_estimator(LinearSDCA("id"), None, [], "mean")  # doctest: +SKIP
        Traceback (most recent call last):
        TfportInputError: sparse_combiner must be 'sum' when optimizer is a LinearSDCA ...
    """
    if sparse_combiner != "sum":
        raise _fail(
            "sparse_combiner must be 'sum' when optimizer is a LinearSDCA",
            "Pass sparse_combiner='sum'",
            sparse_combiner=sparse_combiner,
        )
    for column in feature_columns:
        if not hasattr(column, "parse_example_spec"):
            raise _fail(
                "V2 feature columns are required when optimizer is a LinearSDCA",
                "Build the columns with tf.feature_column",
                column=type(column).__name__,
            )
    if optimizer._loss_type_for(head) is None:
        n_classes = getattr(head, "n_classes", None)
        if getattr(head, "kind", None) == "classifier" and n_classes and n_classes > 2:
            raise _fail(
                "LinearSDCA cannot be used in a multi-class setting",
                "Use n_classes=2 or another optimizer",
                n_classes=n_classes,
            )
        if getattr(head, "kind", None) == "regression":
            raise _fail(
                "LinearSDCA can only be used with one-dimensional label",
                "Use label_dimension=1 or another optimizer",
                label_dimension=getattr(head, "label_dimension", None),
            )
        raise _fail(
            "LinearSDCA needs a binary classification or a regression head",
            "Use LinearClassifier (n_classes=2) or LinearRegressor",
            head=type(head).__name__,
        )
