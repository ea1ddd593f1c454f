"""`tf.estimator.Head`: the interface every head (tfport's or a user's subclass) offers."""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.types import Features, Labels, Mode, OptimizerArg, Tensor


class Head(abc.ABC):
    """Interface for the head/top of a model: logits -> loss, predictions, metrics, spec.

    Subclasses define `name`, `logits_dimension`, `loss_reduction`, `loss`,
    `predictions`, `metrics`, `update_metrics` and `create_estimator_spec`; any such
    subclass can be passed to the v2 canned estimators (`DNNEstimator(head=...)`).

    Example:
        >>> import tfport.estimator as est
        >>> isinstance(est.MultiClassHead(3), est.Head)  # doctest: +SKIP
        True
    """

    _estimator_api_names = ("estimator.Head",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.Head",)

    v2 = True  # the canned estimators build a v2 (Keras-optimizer) model around it
    # A legacy TPU head subclass may define this instead of create_estimator_spec.
    _create_tpu_estimator_spec: Callable[..., Any] | None = None

    def _summary_key(self, key: str) -> str:
        """`key/<head name>` (or `key` for an unnamed head): legacy's metric and summary keys."""
        return f"{key}/{self.name}" if self.name else key

    @property
    @abc.abstractmethod
    def name(self) -> Any:
        """The head's name (suffix of its metric keys), or None."""

    @property
    @abc.abstractmethod
    def logits_dimension(self) -> int:
        """Width of the logits the model must produce."""

    @property
    @abc.abstractmethod
    def loss_reduction(self) -> Any:
        """How the weighted per-example losses are reduced to the training loss."""

    @abc.abstractmethod
    def loss(
        self,
        labels: Labels,
        logits: Tensor,
        features: Features | None = None,
        mode: Mode | None = None,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> Any:
        """The scalar training loss."""

    @abc.abstractmethod
    def predictions(self, logits: Tensor, keys: str | Sequence[str] | None = None) -> dict:
        """The predictions dict (only `keys` when given)."""

    @abc.abstractmethod
    def metrics(self, regularization_losses: Sequence[Tensor] | None = None) -> dict:
        """Fresh metric objects keyed like the eval results."""

    @abc.abstractmethod
    def update_metrics(
        self,
        eval_metrics: dict,
        features: Features,
        logits: Tensor,
        labels: Labels,
        mode: Mode | None = None,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> dict:
        """Updates `eval_metrics` (from `metrics()`) with one batch; returns them."""

    def create_estimator_spec(
        self,
        features: Features,
        mode: str,
        logits: Tensor,
        labels: Labels = None,
        optimizer: OptimizerArg | None = None,
        trainable_variables: Sequence[object] | None = None,
        train_op_fn: Callable[[Tensor], object] | None = None,
        update_ops: Sequence[object] | None = None,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> Any:
        """The EstimatorSpec of `mode`; a subclass defines it (or `_create_tpu_estimator_spec`).

        Example:
            >>> spec = head.create_estimator_spec(features, mode, logits, labels,
            ...                                   optimizer=opt)  # doctest: +SKIP
        """
        make_tpu = self._create_tpu_estimator_spec
        if make_tpu is None:
            raise TfportInputError(
                message(
                    f"{type(self).__name__} defines neither create_estimator_spec nor "
                    "_create_tpu_estimator_spec",
                    "Define create_estimator_spec in the Head subclass",
                    head=type(self).__name__,
                )
            )
        spec = make_tpu(
            features=features,
            mode=mode,
            logits=logits,
            labels=labels,
            optimizer=optimizer,
            trainable_variables=trainable_variables,
            train_op_fn=train_op_fn,
            update_ops=update_ops,
            regularization_losses=regularization_losses,
        )
        return spec.as_estimator_spec() if hasattr(spec, "as_estimator_spec") else spec
