"""`tf.estimator.experimental`: early stopping, in-memory evaluation, logit_fn helpers.

Example:
    >>> import tfport.estimator as est_lib
    >>> hook = est_lib.experimental.stop_if_no_decrease_hook(est, "loss", 1000)
    ... # doctest: +SKIP
"""

from tfport.estimator._canned.rnn_v2 import RNNClassifier, RNNEstimator  # issue 15
from tfport.estimator._canned.sdca import LinearSDCA  # issue 15
from tfport.estimator._engine.api.evaluator_hook import (
    InMemoryEvaluatorHook,
    make_stop_at_checkpoint_step_hook,
)
from tfport.estimator._engine.api.extenders import call_logit_fn
from tfport.estimator._engine.api.hooks import (
    make_early_stopping_hook,
    stop_if_higher_hook,
    stop_if_lower_hook,
    stop_if_no_decrease_hook,
    stop_if_no_increase_hook,
)
from tfport.estimator._engine.api.receivers import build_raw_supervised_input_receiver_fn

__all__ = [
    "InMemoryEvaluatorHook",
    "LinearSDCA",
    "RNNClassifier",
    "RNNEstimator",
    "build_raw_supervised_input_receiver_fn",
    "call_logit_fn",
    "make_early_stopping_hook",
    "make_stop_at_checkpoint_step_hook",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
]


def __dir__() -> list:
    return sorted(__all__)
