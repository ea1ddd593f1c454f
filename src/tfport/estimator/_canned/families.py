"""The family bases of the canned estimators: what a Classifier, a Regressor and an Estimator
(user-given head) of one family, v1 or v2, share. The public classes (`dnn_v2.DNNClassifier`,
...) build their head, then call their family's `_init_<family>`; the head's generation picks
the v1 or v2 model_fn path.

Example:
    >>> class MyDNN(DNNBase):  # doctest: +SKIP
    ...     def __init__(self, head, hidden_units, feature_columns):
    ...         self._init_dnn(head, None, None, None, hidden_units=hidden_units,
    ...                        feature_columns=feature_columns, optimizer="Adagrad",
    ...                        activation_fn=tf.nn.relu, dropout=None, batch_norm=False)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tfport.estimator._canned import dnn
from tfport.estimator._canned.base import CannedEstimator
from tfport.estimator._canned.combined import combined_model_fn
from tfport.estimator._canned.kmeans import refuse_replicas
from tfport.estimator._canned.model_fns import baseline_model_fn, dnn_model_fn, linear_model_fn
from tfport.estimator._canned.sdca import LinearSDCA, check_sdca_estimator
from tfport.estimator._canned.sdca_ops import sdca_model_fn

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, OptimizerArg
    from tfport.estimator._engine.api.run_config import RunConfig
    from tfport.estimator._heads.base import Head


def _columns(columns: FeatureColumns | None) -> tuple:
    return tuple(columns or ())


class BaselineBase(CannedEstimator):
    """Baseline estimators: logits are a learned bias, whatever the features.

    Example:
        >>> issubclass(BaselineBase, CannedEstimator)
        True
    """

    def _init_baseline(
        self,
        head: Head,
        model_dir: str | os.PathLike[str] | None,
        config: RunConfig | None,
        warm_start_from: str | os.PathLike[str] | object | None,
        *,
        optimizer: OptimizerArg,
    ) -> None:
        self._init_canned(
            baseline_model_fn, head, model_dir, config, warm_start_from, optimizer=optimizer
        )


class DNNBase(CannedEstimator):
    """DNN estimators: `dnn/hiddenlayer_N` dense layers, then `dnn/logits`.

    Example:
        >>> issubclass(DNNBase, CannedEstimator)
        True
    """

    def _init_dnn(
        self,
        head: Head,
        model_dir: str | os.PathLike[str] | None,
        config: RunConfig | None,
        warm_start_from: str | os.PathLike[str] | object | None,
        *,
        hidden_units: Sequence[int],
        feature_columns: FeatureColumns,
        optimizer: OptimizerArg,
        activation_fn: Callable[..., object] | str,
        dropout: float | None,
        batch_norm: bool,
        input_layer_partitioner: Callable[..., object] | None = None,
    ) -> None:
        self._init_canned(
            dnn_model_fn,
            head,
            model_dir,
            config,
            warm_start_from,
            hidden_units=dnn.check_hidden_units(hidden_units),
            feature_columns=_columns(feature_columns),
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            batch_norm=batch_norm,
            input_layer_partitioner=input_layer_partitioner,
        )


class LinearBase(CannedEstimator):
    """Linear estimators: `linear/linear_model/<column>/weights` and `bias_weights`.

    Example:
        >>> issubclass(LinearBase, CannedEstimator)
        True
    """

    def _init_linear(
        self,
        head: Head,
        model_dir: str | os.PathLike[str] | None,
        config: RunConfig | None,
        warm_start_from: str | os.PathLike[str] | object | None,
        *,
        feature_columns: FeatureColumns,
        optimizer: OptimizerArg,
        sparse_combiner: str,
        partitioner: Callable[..., object] | None = None,
    ) -> None:
        sdca = isinstance(optimizer, LinearSDCA)
        if sdca:
            check_sdca_estimator(optimizer, head, _columns(feature_columns), sparse_combiner)
        self._init_canned(
            sdca_model_fn if sdca else linear_model_fn,
            head,
            model_dir,
            config,
            warm_start_from,
            feature_columns=_columns(feature_columns),
            optimizer=optimizer,
            partitioner=partitioner,
            sparse_combiner=sparse_combiner,
        )
        if sdca:  # one example-state table and one set of weight deltas per step
            refuse_replicas(self, "LinearSDCA", "the SDCA kernel's step is not split by replica")


class CombinedBase(CannedEstimator):
    """Wide & deep estimators: linear logits plus DNN logits, one optimizer each.

    Example:
        >>> issubclass(CombinedBase, CannedEstimator)
        True
    """

    def _init_combined(
        self,
        head: Head,
        model_dir: str | os.PathLike[str] | None,
        config: RunConfig | None,
        warm_start_from: str | os.PathLike[str] | object | None,
        *,
        linear_feature_columns: FeatureColumns | None,
        linear_optimizer: OptimizerArg,
        dnn_feature_columns: FeatureColumns | None,
        dnn_optimizer: OptimizerArg,
        dnn_hidden_units: Sequence[int] | None,
        dnn_activation_fn: Callable[..., object] | str,
        dnn_dropout: float | None,
        batch_norm: bool,
        linear_sparse_combiner: str,
        input_layer_partitioner: Callable[..., object] | None = None,
    ) -> None:
        self._init_canned(
            combined_model_fn,
            head,
            model_dir,
            config,
            warm_start_from,
            linear_feature_columns=_columns(linear_feature_columns),
            linear_optimizer=linear_optimizer,
            dnn_feature_columns=_columns(dnn_feature_columns),
            dnn_optimizer=dnn_optimizer,
            dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn,
            dnn_dropout=dnn_dropout,
            input_layer_partitioner=input_layer_partitioner,
            batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
        )
