"""Before/after pairs for every rewrite of `tfport upgrade` (tf_upgrade_v2 included)."""

from __future__ import annotations

import pytest
from tests.upgrade.upgrade_helpers import PRELUDE, src

from tfport.upgrade import ERROR, INFO, WARNING, upgrade_source

EST = PRELUDE + "import tfport.estimator\n"


def expected(after: str) -> str:
    """The expected source: `<PRELUDE>` / `<EST>` lines stand for the added tfport lines."""
    return src(after).replace("<EST>\n", EST).replace("<PRELUDE>\n", PRELUDE)


PAIRS = {
    "estimator_custom_model_fn": (
        """
        import tensorflow as tf


        def model_fn(features, labels, mode):
            if mode == tf.estimator.ModeKeys.PREDICT:
                return tf.estimator.EstimatorSpec(mode, predictions=features)
            return tf.estimator.EstimatorSpec(mode, loss=labels)


        est = tf.estimator.Estimator(model_fn, config=tf.estimator.RunConfig(model_dir="m"))
        serve = tf.estimator.export.build_raw_serving_input_receiver_fn({})
        """,
        """
        <EST>
        import tensorflow as tf


        def model_fn(features, labels, mode):
            if mode == tfport.estimator.ModeKeys.PREDICT:
                return tfport.estimator.EstimatorSpec(mode, predictions=features)
            return tfport.estimator.EstimatorSpec(mode, loss=labels)


        est = tfport.estimator.Estimator(model_fn, config=tfport.estimator.RunConfig(model_dir="m"))
        serve = tfport.estimator.export.build_raw_serving_input_receiver_fn({})
        """,
    ),
    "compat_v1_estimator_canned_is_v1": (
        """
        import tensorflow as tf
        est = tf.compat.v1.estimator.DNNClassifier(hidden_units=[4], feature_columns=[])
        spec = tf.compat.v1.estimator.EstimatorSpec
        v2 = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=[])
        """,
        """
        <EST>
        import tfport.estimator.v1
        import tensorflow as tf
        est = tfport.estimator.v1.DNNClassifier(hidden_units=[4], feature_columns=[])
        spec = tfport.estimator.EstimatorSpec
        v2 = tfport.estimator.DNNClassifier(hidden_units=[4], feature_columns=[])
        """,
    ),
    "compat_v1_import_keeps_v1_meaning": (
        """
        import tensorflow.compat.v1 as tf
        est = tf.estimator.LinearClassifier(feature_columns=[])
        h = tf.layers.dense(None, 2)
        """,
        """
        <PRELUDE>
        import tfport.estimator.v1
        import tensorflow.compat.v1 as tf
        est = tfport.estimator.v1.LinearClassifier(feature_columns=[])
        h = tf.layers.dense(None, 2)
        """,
    ),
    "alias_module_assignment": (
        """
        import tensorflow as tf

        v1 = tf.compat.v1
        spec = v1.estimator.tpu.TPUEstimatorSpec
        opt = v1.tpu.CrossShardOptimizer(v1.train.GradientDescentOptimizer(0.1))
        hidden = v1.layers.dense(None, 16)
        """,
        """
        <PRELUDE>
        import tfport.estimator.tpu
        import tensorflow as tf

        v1 = tf.compat.v1
        spec = tfport.estimator.tpu.TPUEstimatorSpec
        opt = tfport.estimator.tpu.CrossShardOptimizer(v1.train.GradientDescentOptimizer(0.1))
        hidden = v1.layers.dense(None, 16)
        """,
    ),
    "from_imports": (
        """
        from tensorflow.estimator import Estimator, ModeKeys as MK
        from tensorflow.contrib.tpu import TPUEstimator, bfloat16_scope
        from tensorflow import estimator
        import tensorflow as tf

        est = TPUEstimator(model_fn=None)
        scope = bfloat16_scope()
        """,
        """
        <PRELUDE>
        from tfport.estimator import Estimator, ModeKeys as MK
        from tensorflow.contrib.tpu import bfloat16_scope
        from tfport.estimator.tpu import TPUEstimator
        from tfport import estimator
        import tensorflow as tf

        est = TPUEstimator(model_fn=None)
        scope = bfloat16_scope()
        """,
    ),
    "keras_model_to_estimator": (
        """
        import tensorflow as tf
        from tensorflow.keras.estimator import model_to_estimator

        est = tf.keras.estimator.model_to_estimator(keras_model=model, model_dir="m")
        est2 = model_to_estimator(keras_model=model)
        """,
        """
        <PRELUDE>
        import tfport.keras
        import tensorflow as tf
        from tfport.keras import model_to_estimator

        est = tfport.keras.model_to_estimator(keras_model=model, model_dir="m")
        est2 = model_to_estimator(keras_model=model)
        """,
    ),
    "seed_keras_model_to_tpu_estimator": (
        """
        import tensorflow as tf

        def model_fn(features, labels, mode, params):
            model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
            logits = model(features)
            loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
            optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
            optimizer = tf.contrib.tpu.CrossShardOptimizer(optimizer)
            train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
            return tf.contrib.tpu.TPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)


        run_config = tf.contrib.tpu.RunConfig(
            model_dir="/tmp/model",
            tpu_config=tf.contrib.tpu.TPUConfig(iterations_per_loop=100),
        )
        estimator = tf.contrib.tpu.TPUEstimator(
            model_fn=model_fn, config=run_config, use_tpu=False, train_batch_size=32
        )
        """,
        """
        <PRELUDE>
        import tfport.estimator.tpu
        import tensorflow as tf

        def model_fn(features, labels, mode, params):
            model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
            logits = model(features)
            loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
            optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate=0.01)
            optimizer = tfport.estimator.tpu.CrossShardOptimizer(optimizer)
            train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
            return tfport.estimator.tpu.TPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)


        run_config = tfport.estimator.tpu.RunConfig(
            model_dir="/tmp/model",
            tpu_config=tfport.estimator.tpu.TPUConfig(iterations_per_loop=100),
        )
        estimator = tfport.estimator.tpu.TPUEstimator(
            model_fn=model_fn, config=run_config, use_tpu=False, train_batch_size=32
        )
        """,
    ),
    "layers": (
        '''
        """Doc."""
        from __future__ import annotations

        import os

        # TensorFlow 1
        import tensorflow as tf

        h = tf.layers.dense(x, 4, activation=tf.nn.relu)
        layer = tf.layers.Dense(4)
        c = tf.compat.v1.layers.conv2d(x, 8, 3)
        ''',
        '''
        """Doc."""
        from __future__ import annotations

        import os

        # TensorFlow 1
        <PRELUDE>
        import tensorflow as tf

        h = tf.compat.v1.layers.dense(x, 4, activation=tf.nn.relu)
        layer = tf.compat.v1.layers.Dense(4)
        c = tf.compat.v1.layers.conv2d(x, 8, 3)
        ''',
    ),
    "v1_layers_imported_by_name": (
        """
        from tensorflow.compat.v1.layers import dense
        h = dense(None, 4)
        """,
        """
        <PRELUDE>
        from tensorflow.compat.v1.layers import dense
        h = dense(None, 4)
        """,
    ),
    "tensorshape_value": (
        """
        import tensorflow as tf


        def f(x, static_dim):
            n = x.shape[1].value
            m = x.get_shape()[0].value
            for dim in x.shape:
                print(dim.value)
            d = x.shape[-1]
            total = d.value * 2
            k = static_dim.value
            kept = x.shape.dims[0].value, x.shape[1:], config.value
            return tf.TensorShape([2, 3])[0].value, input_shape[2].value
        """,
        """
        import tensorflow as tf


        def f(x, static_dim):
            n = x.shape[1]
            m = x.get_shape()[0]
            for dim in x.shape:
                print(dim)
            d = x.shape[-1]
            total = d * 2
            k = tf.compat.v1.dimension_value(static_dim)
            kept = x.shape.dims[0].value, x.shape[1:], config.value
            return tf.TensorShape([2, 3])[0], input_shape[2]
        """,
    ),
    "colocate_with_removed": (
        """
        import tensorflow as tf


        def f(x):
            # keep this comment
            with tf.colocate_with(x):
                y = tf.identity(x)  # and this one
                z = y + 1
            with tf.device("/cpu:0"), tf.compat.v1.colocate_with(x):
                w = z * 2
            with tf.colocate_with(w): w = w + 1
            return w
        """,
        """
        import tensorflow as tf


        def f(x):
            # keep this comment
            y = tf.identity(x)  # and this one
            z = y + 1
            with tf.compat.v1.device("/cpu:0"):
                w = z * 2
            w = w + 1
            return w
        """,
    ),
    "configproto_to_tf_config": (
        """
        import tensorflow as tf

        config = tf.ConfigProto(log_device_placement=True, device_count={"GPU": 0})
        config.gpu_options.allow_growth = True
        config.allow_soft_placement = True
        sess = tf.Session(config=config)
        """,
        """
        import tensorflow as tf
        tf.compat.v1.disable_v2_behavior()

        tf.debugging.set_log_device_placement(True)
        tf.config.set_visible_devices([], "GPU")
        for _gpu in tf.config.list_physical_devices("GPU"):
            tf.config.experimental.set_memory_growth(_gpu, True)
        tf.config.set_soft_device_placement(True)
        sess = tf.compat.v1.Session()
        """,
    ),
    "gpuoptions_session_config_to_tf_config": (
        """
        import tensorflow as tf


        def make_config():
            gpu_options = tf.GPUOptions(allow_growth=True)
            session_config = tf.ConfigProto(gpu_options=gpu_options)
            return tf.estimator.RunConfig(model_dir="m", session_config=session_config)
        """,
        """
        <EST>
        import tensorflow as tf


        def make_config():
            for _gpu in tf.config.list_physical_devices("GPU"):
                tf.config.experimental.set_memory_growth(_gpu, True)
            return tfport.estimator.RunConfig(model_dir="m")
        """,
    ),
    "configproto_other_settings_kept": (
        """
        import tensorflow as tf

        config = tf.ConfigProto(intra_op_parallelism_threads=2)
        config.gpu_options.allow_growth = True
        sess = tf.Session(config=config)
        """,
        """
        import tensorflow as tf
        tf.compat.v1.disable_v2_behavior()

        config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=2)
        config.gpu_options.allow_growth = True
        sess = tf.compat.v1.Session(config=config)
        """,
    ),
    "contrib_unmapped_reported": (
        """
        import tensorflow as tf
        from tensorflow.contrib import slim
        from tensorflow.contrib import tpu

        x = tf.contrib.opt.LazyAdamOptimizer()
        net = slim.nets.vgg.vgg_16(x)
        w = slim.fully_connected(x, 3)
        opt = tpu.CrossShardOptimizer(None)
        """,
        """
        <PRELUDE>
        import tfport.compat.contrib
        import tfport.estimator.tpu
        import tensorflow as tf
        from tensorflow.contrib import slim

        x = tf.contrib.opt.LazyAdamOptimizer()
        net = slim.nets.vgg.vgg_16(x)
        w = tfport.compat.contrib.layers.fully_connected(x, 3)
        opt = tfport.estimator.tpu.CrossShardOptimizer(None)
        """,
    ),
}


@pytest.mark.parametrize("before,after", PAIRS.values(), ids=PAIRS.keys())
def test_before_after(before: str, after: str) -> None:
    result = upgrade_source(src(before), "case.py", rewrite_all=True)
    assert result.code == expected(after)


@pytest.mark.parametrize("before", [p[0] for p in PAIRS.values()], ids=PAIRS.keys())
def test_second_run_changes_nothing(before: str) -> None:
    once = upgrade_source(src(before), "case.py", rewrite_all=True).code
    assert upgrade_source(once, "case.py", rewrite_all=True).code == once


def _items(before: str, level: str) -> list[tuple[int, int, str]]:
    items = upgrade_source(src(before), "case.py", rewrite_all=True).items
    return [(i.line, i.col, i.message) for i in items if i.level == level]


def test_unmapped_contrib_items_have_lines() -> None:
    errors = _items(PAIRS["contrib_unmapped_reported"][0], ERROR)
    assert (5, 4) in [e[:2] for e in errors]
    assert any("tf.contrib.opt.LazyAdamOptimizer" in e[2] for e in errors)
    assert any(e[0] == 2 and "pip install tf-slim" in e[2] for e in errors)
    assert any(e[0] == 2 and "tf.contrib.slim" in e[2] for e in errors)
    assert not any("tensorflow/addons" in e[2] for e in errors)
    removed = _items(PAIRS["contrib_unmapped_reported"][0], INFO)
    assert any(e[0] == 3 and "unused import of 'tf.contrib.tpu'" in e[2] for e in removed)


def test_configproto_kept_is_a_warning_at_its_line() -> None:
    warnings = _items(PAIRS["configproto_other_settings_kept"][0], WARNING)
    assert [w[:2] for w in warnings] == [(3, 0)]
    assert "intra_op_parallelism_threads" in warnings[0][2]


def test_memory_fraction_has_no_tf_config_equivalent() -> None:
    before = """
    import tensorflow as tf
    config = tf.ConfigProto()
    config.gpu_options.per_process_gpu_memory_fraction = 0.4
    sess = tf.Session(config=config)
    """
    warnings = _items(before, WARNING)
    assert len(warnings) == 1 and "per_process_gpu_memory_fraction" in warnings[0][2]


def test_configproto_used_elsewhere_is_kept() -> None:
    before = """
    import tensorflow as tf
    config = tf.ConfigProto(log_device_placement=True)
    print(config)
    """
    assert upgrade_source(src(before), rewrite_all=True).code.count("ConfigProto(") == 1
    assert len(_items(before, WARNING)) == 1


def test_renames_are_reported_at_input_positions() -> None:
    infos = _items(PAIRS["seed_keras_model_to_tpu_estimator"][0], INFO)
    assert (
        8,
        16,
        "Renamed 'tf.contrib.tpu.CrossShardOptimizer' to "
        "'tfport.estimator.tpu.CrossShardOptimizer'",
    ) in infos
    assert any(i[0] == 7 and i[2].startswith("tf_upgrade_v2: ") for i in infos)


def test_formatting_and_comments_are_kept() -> None:
    before = src(
        """
        import tensorflow as tf
        est = tf.estimator.Estimator(  # the model
            model_fn,   # odd spacing stays
            params={"a": 1},
        )
        """
    )
    after = upgrade_source(before, rewrite_all=True).code
    assert (
        "tfport.estimator.Estimator(  # the model\n    model_fn,   # odd spacing stays\n" in after
    )


def test_targets_tfport_does_not_provide_are_warned() -> None:
    before = """
    import tensorflow as tf
    ok = tf.estimator.Estimator
    gone = tf.estimator.NoSuchThing
    """
    warnings = _items(before, WARNING)
    assert [w[:2] for w in warnings] == [(3, 7)]
    assert "'tfport.estimator.NoSuchThing' is not provided" in warnings[0][2]


def test_syntax_tf_upgrade_v2_cannot_parse_still_gets_tfport_rewrites() -> None:
    before = """
    import tensorflow as tf


    def f(mode):
        match mode:
            case "train":
                return tf.estimator.ModeKeys.TRAIN
    """
    result = upgrade_source(src(before), rewrite_all=True)
    assert "return tfport.estimator.ModeKeys.TRAIN" in result.code
    notes = [
        i for i in result.items if i.level == WARNING and "tf_upgrade_v2 could not" in i.message
    ]
    assert len(notes) == 1 and "\n" not in notes[0].message
