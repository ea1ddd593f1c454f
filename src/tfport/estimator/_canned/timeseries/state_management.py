"""State managers: how a time-series model's start state is chosen for each batch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfport.estimator._canned.timeseries import feature_keys

if TYPE_CHECKING:
    from tfport.estimator._canned.timeseries.model import TimeSeriesModel

_TRAIN = "train"


class PassthroughStateManager:
    """Every batch starts from the model's start state; no state is kept between batches.

    Example:
        >>> manager = PassthroughStateManager()
        >>> manager.initialize_graph(model=None)
    """

    def __init__(self) -> None:
        self._input_statistics = None
        self._graph_initialized = False

    def initialize_graph(self, model: TimeSeriesModel, input_statistics: Any = None) -> None:
        """Prepares for a new graph."""
        del model
        self._graph_initialized = True
        self._input_statistics = input_statistics

    def define_loss(self, model: TimeSeriesModel, features: dict, mode: str) -> Any:
        """The model's loss from its start state (a passed state is refused)."""
        if feature_keys.State.STATE_TUPLE in features:
            raise ValueError("Overriding start state is not supported for this model.")
        return model.define_loss(features, mode)


class _OverridableStateManager(PassthroughStateManager):
    """A manager whose start state a `start_tuple` feature may override (not in TRAIN)."""

    def _define_loss_with_saved_state(
        self, model: TimeSeriesModel, features: dict, mode: str
    ) -> Any:
        raise NotImplementedError

    def define_loss(self, model: TimeSeriesModel, features: dict, mode: str) -> Any:
        """The model's loss from the passed `start_tuple`, else from the managed state."""
        key = feature_keys.FilteringFeatures.STATE_TUPLE
        if key not in features:
            return self._define_loss_with_saved_state(model=model, features=features, mode=mode)
        if mode == _TRAIN:
            raise ValueError(
                "Overriding saved state for training is not supported (but a value for "
                f"feature {key} was specified)."
            )
        start_state = features.pop(key)
        return model.get_batch_loss(features=features, mode=mode, state=start_state)


class FilteringOnlyStateManager(_OverridableStateManager):
    """Starts from the model's start state unless a `start_tuple` feature is passed.

    Example:
        >>> FilteringOnlyStateManager().initialize_graph(model=None)
    """

    def _define_loss_with_saved_state(
        self, model: TimeSeriesModel, features: dict, mode: str
    ) -> Any:
        return model.define_loss(features, mode)
