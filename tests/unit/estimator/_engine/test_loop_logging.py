"""With steps per loop, `loss = ..., step = N` is logged every `log_step_count_steps` steps.

The logging hook counts training steps, not session runs: 120 steps with
`iterations_per_loop=20` and `log_step_count_steps=30` log as many lines as one step per
run (steps 0, 30, 60, 90), where counting runs logged once in 30 runs (600 steps).
"""

from __future__ import annotations

import logging

import numpy as np

from tfport._common import tfenv


def _loss_lines(tmp_path, iterations, caplog) -> list[str]:
    tf = tfenv.import_tf()
    import tfport.estimator as tfe

    v1 = tf.compat.v1

    def model_fn(features, labels, mode):
        logits = v1.layers.dense(features["x"], 2, name="logits")
        loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        opt = v1.train.GradientDescentOptimizer(0.1)
        train_op = opt.minimize(loss, global_step=v1.train.get_global_step())
        return tfe.EstimatorSpec(mode, loss=loss, train_op=train_op)

    rng = np.random.RandomState(0)
    x = rng.normal(size=(64, 4)).astype("float32")
    y = rng.randint(0, 2, size=(64,)).astype("int64")

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8)

    config = tfe.RunConfig(
        model_dir=str(tmp_path / f"loop{iterations}"),
        iterations_per_loop=iterations,
        log_step_count_steps=30,
        save_checkpoints_steps=1000,
    )
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        tfe.Estimator(model_fn, config=config).train(input_fn, max_steps=120)
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("loss = ")]


def test_steps_per_loop_log_the_loss_every_log_step_count_steps(tmp_path, caplog):
    tf = tfenv.import_tf()
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    try:
        one = _loss_lines(tmp_path, 1, caplog)
        looped = _loss_lines(tmp_path, 20, caplog)
    finally:
        tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)
    assert len(one) == 4, one
    assert len(looped) == len(one), looped
