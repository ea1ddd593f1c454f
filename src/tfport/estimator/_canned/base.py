"""The Estimator base of the canned estimators: label errors become `TfportInputError`."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._engine.estimator import Estimator
from tfport.estimator._heads import label_checks
from tfport.estimator._heads.base import Head as PublicHead
from tfport.estimator._heads.heads import CannedHead

if TYPE_CHECKING:
    from tfport._common.types import (
        Features,
        Hook,
        InputFn,
        KeyedColumn,
        Labels,
        ModelFn,
    )
    from tfport.estimator._engine.api.run_config import RunConfig


class CannedEstimator(Estimator):
    """An `Estimator` over a canned model_fn; run-time label check failures are re-raised as
    `TfportInputError` naming the received label values.

    Example:
        >>> CannedEstimator(functools.partial(model_fn, head=head))  # doctest: +SKIP
    """

    def train(
        self,
        input_fn: InputFn,
        hooks: Iterable[Hook] | None = None,
        steps: int | None = None,
        max_steps: int | None = None,
        saving_listeners: Iterable[object] | None = None,
    ) -> Any:
        """Like `Estimator.train`."""
        return self._translated(super().train, input_fn, hooks, steps, max_steps, saving_listeners)

    def evaluate(
        self,
        input_fn: InputFn,
        steps: int | None = None,
        hooks: Iterable[Hook] | None = None,
        checkpoint_path: str | None = None,
        name: str | None = None,
    ) -> dict:
        """Like `Estimator.evaluate`."""
        return self._translated(super().evaluate, input_fn, steps, hooks, checkpoint_path, name)

    def _init_canned(
        self,
        model_fn: ModelFn,
        head: PublicHead,
        model_dir: str | os.PathLike[str] | None,
        config: RunConfig | None,
        warm_start_from: str | os.PathLike[str] | object | None,
        **model_fn_kwargs: object,
    ) -> None:
        """`Estimator.__init__` over `model_fn` with `head` and `model_fn_kwargs` bound in."""
        super().__init__(
            **make(model_fn, model_dir, config, warm_start_from, head=head, **model_fn_kwargs)
        )

    @staticmethod
    def _translated(fn: Callable[..., object], *args: object, **kwargs: object) -> Any:
        tf = import_tf()
        try:
            return fn(*args, **kwargs)
        except tf.errors.InvalidArgumentError as err:
            translated = label_checks.translate_run_error(err)
            if translated is err:
                raise
            raise translated from err


def make(
    model_fn: ModelFn,
    model_dir: str | os.PathLike[str] | None,
    config: RunConfig | None,
    warm_start_from: str | os.PathLike[str] | object | None,
    **kwargs: object,
) -> dict:
    """Keyword arguments for `CannedEstimator.__init__` binding `kwargs` into `model_fn`."""

    def canned_model_fn(
        features: Features, labels: Labels, mode: str, config: RunConfig | None
    ) -> Any:
        return model_fn(features, labels, mode, config, **kwargs)

    canned_model_fn.__doc__ = model_fn.__doc__
    return dict(
        model_fn=canned_model_fn,
        model_dir=model_dir,
        config=config,
        warm_start_from=warm_start_from,
    )


_TO_V1_REDUCTION = {
    "sum": "weighted_sum",
    "sum_over_batch_size": "weighted_sum_over_batch_size",
    "auto": "weighted_sum_over_batch_size",
}


def check_head(head: object, v2: bool) -> PublicHead:
    """`head` for an estimator of generation `v2`; a v1 estimator takes the public (v2) heads
    as v1 heads (v1 optimizers, same loss reduction), since v1 had no public head factory.

    Example:
        >>> check_head(MultiClassHead(3), v2=False).v2  # doctest: +SKIP
        False
    """
    if not isinstance(head, PublicHead):
        raise TfportInputError(
            message(
                "head must be a tf.estimator.Head",
                "Use tf.estimator.MultiClassHead / BinaryClassHead / RegressionHead / ... or a "
                "tf.estimator.Head subclass",
                head=head,
            )
        )
    if head.v2 == v2:
        return head
    if not v2 and isinstance(head, CannedHead):
        return CannedHead(
            head.kind,
            head.n_classes,
            head.weight_column,
            head.vocabulary,
            _TO_V1_REDUCTION[head.loss_reduction],
            v2=False,
            label_dimension=head.label_dimension,
            loss_fn=head.loss_fn,
            name=head.name,
            thresholds=head.thresholds,
            inverse_link_fn=head.inverse_link_fn,
            compute_full_loss=head.compute_full_loss,
        )
    raise TfportInputError(
        message(
            "A v2 estimator needs a v2 head",
            "Build it with tfport.estimator.MultiClassHead / BinaryClassHead / RegressionHead",
            head_v2=head.v2,
        )
    )


def classifier_head(
    n_classes: int,
    weight_column: str | KeyedColumn | None,
    label_vocabulary: Sequence[str] | None,
    loss_reduction: str,
    v2: bool,
) -> CannedHead:
    """The binary (n_classes=2) or multi-class head."""
    return CannedHead(
        "classifier",
        n_classes=n_classes,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
        v2=v2,
    )


def regression_head(
    label_dimension: int, weight_column: str | KeyedColumn | None, loss_reduction: str, v2: bool
) -> CannedHead:
    """The mean-squared-error regression head."""
    if not isinstance(label_dimension, int) or label_dimension < 1:
        raise TfportInputError(
            message(
                "label_dimension must be a positive int",
                "Fix label_dimension",
                label_dimension=label_dimension,
            )
        )
    return CannedHead(
        "regression",
        label_dimension=label_dimension,
        weight_column=weight_column,
        loss_reduction=loss_reduction,
        v2=v2,
    )
