"""Names of the features and outputs the time-series models read and write."""

from __future__ import annotations


class State:
    """Keys of a model's state: the tuple itself, and the prefix of its flattened parts."""

    STATE_TUPLE = "start_tuple"
    STATE_PREFIX = "model_state"


class Times:
    """The key of the integer times feature (shape `[batch, window]`)."""

    TIMES = "times"


class Values:
    """The key of the observed values feature (shape `[batch, window, num_features]`)."""

    VALUES = "values"


class TrainEvalFeatures(Times, Values):
    """Features for training and evaluation: `times` and `values`.

    Example:
        >>> TrainEvalFeatures.TIMES, TrainEvalFeatures.VALUES
        ('times', 'values')
    """


class PredictionFeatures(Times, State):
    """Features for prediction: `times` to predict and the `start_tuple` state."""


class FilteringFeatures(Times, Values, State):
    """Features for filtering (evaluation from a given state)."""


class PredictionResults(Times):
    """Keys of a prediction's results."""


class FilteringResults(Times, State):
    """Keys of a filtering run's results."""


class SavedModelLabels:
    """Signature names of an exported time-series model."""

    PREDICT = "serving_default"
    FILTER = "filter"
    COLD_START_FILTER = "cold_start_filter"
