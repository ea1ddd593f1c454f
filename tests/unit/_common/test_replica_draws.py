"""The replicated random draw applies to the replica step's ops only (issue 36).

A random op of a replica's step whose first dimension is the replica's row count draws
the global batch's rows and keeps its own; variable initializers, explicit initial
values and ops outside the step's control-flow context draw as on one device and never
read the batch (they run before any batch exists: the session's init op).
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tfport.estimator._engine.building import replica_draws

v1 = tf.compat.v1


def _rows(x, offset_rows):
    count = tf.cast(tf.shape(x)[0], tf.int64)
    return tf.stack([offset_rows * count, count, 2 * count])  # replica 1 of 2 when offset 1


def _ancestors(tensor):
    seen, stack = set(), [tensor.op]
    while stack:
        op = stack.pop()
        if op not in seen:
            seen.add(op)
            stack.extend(t.op for t in op.inputs)
            stack.extend(op.control_inputs)
    return seen


def test_a_step_draw_is_the_replicas_rows_of_one_devices_draw():
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(3)
        x = v1.placeholder(tf.float32, [None, 3])
        with replica_draws.replica_random_draws(), replica_draws.replica_rows(_rows(x, 1)):
            mask = tf.random.uniform(tf.shape(x), seed=7)
        with v1.Session() as session:
            drawn = session.run(mask, {x: np.zeros((4, 3), "float32")})
    one_device = tf.Graph()
    with one_device.as_default():
        v1.set_random_seed(3)
        whole = tf.random.uniform([8, 3], seed=7)
        with v1.Session() as session:
            expected = session.run(whole)[4:]
    np.testing.assert_array_equal(drawn, expected)


def test_initializers_and_initial_values_do_not_read_the_batch():
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        with replica_draws.replica_random_draws(), replica_draws.replica_rows(_rows(x, 0)):
            initialized = v1.get_variable(
                "w", [4, 3], initializer=v1.truncated_normal_initializer()
            )
            explicit = tf.Variable(tf.random.normal([4, 3]), name="explicit")
            step_draw = tf.random.uniform(tf.shape(x))
        assert x.op in _ancestors(step_draw)  # the step's draw is a replicated one
        for variable in (initialized, explicit):
            assert x.op not in _ancestors(variable.initial_value), variable.name
        with v1.Session() as session:
            session.run(v1.global_variables_initializer())  # no batch fed: runs


def test_variables_created_in_a_v1_loop_body_initialize_outside_it():
    """ResNet-style TPU programs: conv kernels created in the steps-per-loop body (TF1
    control flow) keep their initializers out of the loop."""
    graph = tf.Graph()
    previous = tf.compat.v1.control_flow_v2_enabled()
    v1.disable_control_flow_v2()
    try:
        with graph.as_default():
            x = v1.placeholder(tf.float32, [None, 3])

            def body(i):
                with replica_draws.replica_random_draws(), replica_draws.replica_rows(_rows(x, 0)):
                    kernel = v1.get_variable(
                        "kernel", [3, 2], initializer=v1.variance_scaling_initializer()
                    )
                    noise = tf.random.uniform(tf.shape(x))
                with tf.control_dependencies([tf.reduce_sum(tf.matmul(x + noise, kernel))]):
                    return i + 1

            loop = v1.while_loop(lambda i: i < 2, body, [tf.constant(0)])
            with v1.Session() as session:
                session.run(v1.global_variables_initializer())
                assert session.run(loop, {x: np.ones((4, 3), "float32")}) == 2
    finally:
        if previous:
            v1.enable_control_flow_v2()
