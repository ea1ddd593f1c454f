"""The Keras 3 optimizer of a `.keras` export: only those that train exactly as the
Estimator's TF1 optimizer (the exports themselves: tests/way_out/test_verify.py)."""

from __future__ import annotations

import pytest


def test_train_step_refuses_what_keras_3_cannot_do_exactly():
    import tfport

    tfport.install()
    import tensorflow as tf

    from tfport.keras._export._optimizers import keras_optimizer

    with pytest.raises(ValueError, match=r"the optimizer RMSPropOptimizer has no exact Keras 3"):
        keras_optimizer(tf.compat.v1.train.RMSPropOptimizer(0.1), sparse=False)
    with pytest.raises(ValueError, match=r"Ftrl on embedding .* only the rows in the batch"):
        keras_optimizer(tf.compat.v1.train.FtrlOptimizer(0.1), sparse=True)
    ftrl = keras_optimizer(
        tf.compat.v1.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01), False
    )
    assert type(ftrl).__name__ == "Ftrl" and ftrl.l1_regularization_strength == 0.01
    adagrad = keras_optimizer(tf.compat.v1.train.AdagradOptimizer(0.05), sparse=True)
    assert adagrad.epsilon == 0.0 and adagrad.initial_accumulator_value == 0.1  # v1: g/sqrt(acc)
