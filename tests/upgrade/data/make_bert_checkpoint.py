"""Writes ``bert_pretrained/``: a checkpoint made by the ORIGINAL ``bert_like`` code on TF 2.15.

Run once, by hand, with the legacy stack (TF 2.15.1 + tensorflow-estimator 2.15):

    /work/legacy-venv/bin/python tests/upgrade/data/make_bert_checkpoint.py

TF 2.15 has no ``tf.contrib`` and its top-level ``tf`` is the v2 API, so the
unmodified ``bert_like/run_pretraining.py`` (and the modules it imports) see, as
``tensorflow``, a stand-in: ``tf.compat.v1`` plus the few ``tf.contrib`` names
the sample uses, each as TF 1.15 defined it:

- ``contrib.layers.layer_norm``: TF 1.15's function (variable scope ``LayerNorm``,
  ``beta`` zeros / ``gamma`` ones over the last axis, moments from
  ``begin_norm_axis``, ``variance_epsilon=1e-12``);
- ``contrib.tpu``: ``tf.compat.v1.estimator.tpu`` and ``CrossShardOptimizer``
  (TF 1.15's ``tf.contrib.tpu`` re-exported the same classes);
- ``contrib.data.map_and_batch`` / ``parallel_interleave``: ``tf.data.experimental``
  (TF 1.15's ``tf.contrib.data`` aliases of the same functions).

Nothing else is changed. Two pretraining steps (``use_tpu`` false) are written to
``bert_pretrained/model.ckpt-2``; the tests fine-tune the *upgraded* classifier from
it under ``tfport run`` and check that every ``bert/*`` variable loads by name.
"""

import builtins
import os
import shutil
import sys
import types

import tensorflow as real_tf

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "bert_like")
OUT = os.path.join(HERE, "bert_pretrained")

v1 = real_tf.compat.v1
v1.disable_v2_behavior()


def layer_norm(inputs, center=True, scale=True, activation_fn=None, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               begin_norm_axis=1, begin_params_axis=-1, scope=None):
    """TF 1.15 tf.contrib.layers.layer_norm (model variables, epsilon 1e-12)."""
    with v1.variable_scope(scope, "LayerNorm", [inputs], reuse=reuse):
        inputs = v1.convert_to_tensor(inputs)
        shape = inputs.shape
        rank = shape.ndims
        if begin_norm_axis < 0:
            begin_norm_axis = rank + begin_norm_axis
        params_shape = shape[begin_params_axis:]
        keys = v1.GraphKeys
        collections = [keys.GLOBAL_VARIABLES, keys.MODEL_VARIABLES]
        beta = v1.get_variable("beta", params_shape, inputs.dtype.base_dtype,
                               initializer=v1.zeros_initializer(), trainable=trainable,
                               collections=collections) if center else None
        gamma = v1.get_variable("gamma", params_shape, inputs.dtype.base_dtype,
                                initializer=v1.ones_initializer(), trainable=trainable,
                                collections=collections) if scale else None
        mean, variance = v1.nn.moments(inputs, list(range(begin_norm_axis, rank)),
                                       keep_dims=True)
        outputs = v1.nn.batch_normalization(inputs, mean, variance, offset=beta,
                                            scale=gamma, variance_epsilon=1e-12)
        outputs.set_shape(shape)
        return activation_fn(outputs) if activation_fn is not None else outputs


class _TF1(types.ModuleType):
    """`tensorflow` as TF 1.15 code saw it: tf.compat.v1 plus the contrib names above."""

    def __getattr__(self, name):
        return getattr(v1, name)


shim = _TF1("tensorflow")
shim.contrib = types.SimpleNamespace(
    layers=types.SimpleNamespace(layer_norm=layer_norm),
    tpu=types.SimpleNamespace(
        TPUEstimator=v1.estimator.tpu.TPUEstimator,
        TPUEstimatorSpec=v1.estimator.tpu.TPUEstimatorSpec,
        RunConfig=v1.estimator.tpu.RunConfig,
        TPUConfig=v1.estimator.tpu.TPUConfig,
        CrossShardOptimizer=v1.tpu.CrossShardOptimizer,
    ),
    data=types.SimpleNamespace(
        map_and_batch=real_tf.data.experimental.map_and_batch,
        parallel_interleave=real_tf.data.experimental.parallel_interleave,
    ),
)
shim.estimator = v1.estimator
_import = builtins.__import__


def _sample_import(name, globals=None, locals=None, fromlist=(), level=0):
    here = os.path.dirname(os.path.abspath((globals or {}).get("__file__", "") or "."))
    if name == "tensorflow" and here == SAMPLE:
        return shim
    return _import(name, globals, locals, fromlist, level)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    work = OUT + ".work"
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    builtins.__import__ = _sample_import
    sys.path.insert(0, SAMPLE)
    sys.argv = [
        "run_pretraining.py",
        f"--bert_config_file={os.path.join(SAMPLE, 'bert_config.json')}",
        f"--input_file={os.path.join(work, 'pretrain.tfrecord')}",
        f"--output_dir={work}",
        "--num_train_steps=2",
        "--use_tpu=False",
    ]
    import run_pretraining

    try:
        v1.app.run(run_pretraining.main)
    except SystemExit:
        pass
    finally:
        builtins.__import__ = _import
    os.makedirs(OUT)
    for name in os.listdir(work):
        if name.startswith("model.ckpt-2.") and not name.endswith(".meta"):
            shutil.copy(os.path.join(work, name), OUT)
    with open(os.path.join(OUT, "checkpoint"), "w") as f:
        f.write('model_checkpoint_path: "model.ckpt-2"\n')
    shutil.rmtree(work)
    print("wrote", sorted(os.listdir(OUT)), real_tf.__version__)


if __name__ == "__main__":
    main()
