"""Running an exported time-series model in a session: filter, then predict onwards.

`cold_start_filter` runs the `cold_start_filter` signature on a series and returns the
state after it; `filter_continuation` continues filtering from such a state;
`predict_continuation` predicts `steps` (or given `times`) after it.

Example::

    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        signatures = tf.compat.v1.saved_model.loader.load(session, ["serve"], export_dir)
        state = saved_model_utils.cold_start_filter(signatures, session,
                                                    {"times": times, "values": values})
        predictions = saved_model_utils.predict_continuation(state, signatures, session,
                                                             steps=5)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfport.estimator._canned.timeseries import feature_keys as _feature_keys
from tfport.estimator._canned.timeseries import head as _head
from tfport.estimator._canned.timeseries import model_utils as _model_utils

__all__ = ["cold_start_filter", "filter_continuation", "predict_continuation"]

_TIMES, _VALUES = _feature_keys.TrainEvalFeatures.TIMES, _feature_keys.TrainEvalFeatures.VALUES


def _canonicalize_numpy_data(data: dict, require_single_batch: bool) -> dict:
    """Numpy features with a batch and a time dimension (`times` `[batch, length]`)."""
    features = {key: np.array(value) for key, value in data.items()}
    if _TIMES not in features or _VALUES not in features:
        raise ValueError(f"{_TIMES} and {_VALUES} are required features.")
    times = features[_TIMES]
    for key, value in features.items():
        if value.shape[: times.ndim] != times.shape:
            raise ValueError(
                "All features must have their shapes prefixed by the shape of the times "
                f"feature. Got shape {value.shape} for feature '{key}', but shape "
                f"{times.shape} for '{_TIMES}'"
            )
    values = features[_VALUES]
    if times.ndim == 0:
        if values.ndim > 1:
            raise ValueError(
                f"Got an unexpected number of dimensions for the '{_VALUES}' feature. Was "
                f"expecting at most 1 dimension ([number of features]) since '{_TIMES}' does "
                f"not have a batch or time dimension, but got shape {values.shape}"
            )
        if values.ndim == 0:
            features[_VALUES] = values[..., None]
        features = {key: value[None, None, ...] for key, value in features.items()}
    if times.ndim == 1:
        if values.ndim > 2:
            raise ValueError(
                f"Got an unexpected number of dimensions for the '{_VALUES}' feature. Was "
                f"expecting at most 2 dimensions ([series length, number of features]) since "
                f"'{_TIMES}' does not have a batch dimension, but got shape {values.shape}"
            )
        if values.ndim == 1:
            features[_VALUES] = values[..., None]
        features = {key: value[None, ...] for key, value in features.items()}
    elif features[_TIMES].ndim != 2:
        raise ValueError(
            "Got an unexpected number of dimensions for times. Was expecting at most two "
            f"([batch size, series length]), but got shape {times.shape}."
        )
    if require_single_batch and features[_TIMES].shape[0] != 1:
        raise ValueError("Got batch input, was expecting unbatched input.")
    return features


def _colate_features_to_feeds_and_fetches(
    signature: Any, features: dict, graph: Any, continue_from: Any = None
) -> tuple[dict, dict]:
    """The signature's output tensors and a feed of `features` and the state."""
    if continue_from is None:
        state = {}
    elif _feature_keys.FilteringResults.STATE_TUPLE in continue_from:
        state = _head.state_to_dictionary(continue_from[_feature_keys.FilteringResults.STATE_TUPLE])
    else:
        state = continue_from
    inputs = {key: graph.as_graph_element(info.name) for key, info in signature.inputs.items()}
    fetches = {key: graph.as_graph_element(info.name) for key, info in signature.outputs.items()}
    feed = {inputs[key]: value for key, value in state.items()}
    feed.update({inputs[key]: value for key, value in features.items()})
    return fetches, feed


def predict_continuation(
    continue_from: dict,
    signatures: Any,
    session: Any,
    steps: int | None = None,
    times: Any = None,
    exogenous_features: dict | None = None,
) -> dict:
    """Predictions after the state `continue_from` (a filtering or evaluation output).

    Args:
        continue_from: a `cold_start_filter` / `filter_continuation` output, or an
            `evaluate()` result (its `times` and `start_tuple`).
        signatures: the loaded `MetaGraphDef` (`tf.compat.v1.saved_model.loader.load`).
        session: the session the SavedModel was loaded into.
        steps: predict this many steps after the last filtered time, or
        times: these `[batch, n]` times.
        exogenous_features: exogenous features of the predicted times.
    """
    predict_times = _model_utils.canonicalize_times_or_steps_from_output(
        times=times, steps=steps, previous_model_output=continue_from
    )
    features = {_feature_keys.PredictionFeatures.TIMES: predict_times}
    features.update(exogenous_features or {})
    signature = signatures.signature_def[_feature_keys.SavedModelLabels.PREDICT]
    fetches, feed = _colate_features_to_feeds_and_fetches(
        continue_from=continue_from, signature=signature, features=features, graph=session.graph
    )
    output = session.run(fetches, feed_dict=feed)
    output[_feature_keys.PredictionResults.TIMES] = predict_times
    return output


def _filter(signature_key: str, continue_from: Any, signatures: Any, session: Any, features: dict):
    signature = signatures.signature_def[signature_key]
    features = _canonicalize_numpy_data(data=features, require_single_batch=False)
    fetches, feed = _colate_features_to_feeds_and_fetches(
        signature=signature, features=features, graph=session.graph, continue_from=continue_from
    )
    output = session.run(fetches, feed_dict=feed)
    output[_feature_keys.FilteringResults.TIMES] = features[_TIMES]
    return output


def cold_start_filter(signatures: Any, session: Any, features: dict) -> dict:
    """The state after filtering `features` (`times`, `values`) from the start state."""
    return _filter(
        _feature_keys.SavedModelLabels.COLD_START_FILTER, None, signatures, session, features
    )


def filter_continuation(continue_from: dict, signatures: Any, session: Any, features: dict) -> dict:
    """The state after filtering `features` from the state `continue_from`."""
    return _filter(
        _feature_keys.SavedModelLabels.FILTER, continue_from, signatures, session, features
    )
