"""Measures how far `tf_upgrade_v2`'s rewrites of some TF 1.x calls move the numbers.

Used by :mod:`._rules_build` to say, in the rule table, why such a rule is not applied.
Each pair runs the TF 1.x call (`tf.compat.v1`) and `tf_upgrade_v2`'s rewrite of it on
the same seeded random inputs, in one graph, on the installed TensorFlow.

Example:
    >>> callable(measure)
    True
"""

from __future__ import annotations

import numpy as np

from tfport._common.types import TFModule

_RESIZE = {
    "tf.image.resize_area": "AREA",
    "tf.image.resize_bicubic": "BICUBIC",
    "tf.image.resize_bilinear": "BILINEAR",
    "tf.image.resize_nearest_neighbor": "NEAREST_NEIGHBOR",
}
_CASTS = {
    "bfloat16": "bfloat16",
    "complex128": "complex128",
    "complex64": "complex64",
    "double": "float64",
    "float": "float32",
    "int32": "int32",
    "int64": "int64",
}


def _text(a: np.ndarray, b: np.ndarray, what: str) -> str:
    diff = np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))
    if diff.max() == 0:
        return (
            f"tf_upgrade_v2's {what} gave equal values on random inputs, but it is another "
            "function (arguments, op names): not proven for all inputs"
        )
    return (
        f"tf_upgrade_v2's {what} differs by up to {diff.max():.4g} "
        f"(mean {diff.mean():.4g}) on random inputs"
    )


def _base(op_name: str) -> str:
    return op_name.split("/")[-1].rstrip("_0123456789")


def measure(tf: TFModule) -> dict[str, str]:
    """Returns {TF 1.x name: measured difference of tf_upgrade_v2's rewrite}.

    Args:
        tf: the `tensorflow` module.

    Returns:
        One sentence per measured name.
    """
    v1 = tf.compat.v1
    out: dict[str, str] = {}
    rng = np.random.RandomState(0)
    pixels = rng.randint(0, 256, size=(2, 20, 20, 3)).astype(np.float32)
    logits = rng.normal(size=(8, 5)).astype(np.float32)
    labels = rng.dirichlet(np.ones(5), size=8).astype(np.float32)
    with tf.Graph().as_default():
        v1.set_random_seed(1)
        fetch = {}
        for name, method in _RESIZE.items():
            legacy = getattr(v1.image, name.rsplit(".", 1)[1])(pixels, [32, 32])
            upgraded = tf.image.resize(
                pixels, [32, 32], method=getattr(tf.image.ResizeMethod, method)
            )
            fetch[name] = (legacy, upgraded, f"tf.image.resize(method={method}) (20->32 pixels)")
        x = tf.constant(rng.normal(size=(64, 64)).astype(np.float32))
        fetch["tf.nn.dropout"] = (
            v1.nn.dropout(x, keep_prob=0.9, seed=3),
            tf.nn.dropout(x, rate=1 - 0.9, seed=3),
            "tf.nn.dropout(rate=1 - keep_prob) (same seed)",
        )
        fetch["tf.multinomial"] = (
            v1.multinomial(logits, 20, seed=4),
            tf.random.categorical(logits, 20, seed=4),
            "tf.random.categorical (same seed)",
        )
        lab = tf.constant(labels)
        xent1 = v1.nn.softmax_cross_entropy_with_logits(labels=lab, logits=logits)
        xent2 = tf.nn.softmax_cross_entropy_with_logits(labels=v1.stop_gradient(lab), logits=logits)
        fetch["tf.nn.softmax_cross_entropy_with_logits"] = (
            xent1,
            xent2,
            "softmax_cross_entropy_with_logits_v2(labels=stop_gradient(labels))",
        )
        ints = tf.constant(rng.randint(-9, 9, size=(4, 4)).astype(np.int16))
        casts = {
            c: (getattr(v1, f"to_{c}")(ints), tf.cast(ints, getattr(tf, d)))
            for c, d in _CASTS.items()
        }
        with v1.Session() as sess:
            values = sess.run({k: (a, b) for k, (a, b, _) in fetch.items()})
        for name, (_, _, what) in fetch.items():
            a, b = values[name]
            out[name] = _text(a, b, what)
        for cast, (a, b) in casts.items():
            out[f"tf.to_{cast}"] = (
                f"tf_upgrade_v2's tf.cast gives the same values but names the op "
                f"'{_base(b.op.name)}' instead of '{_base(a.op.name)}' "
                "(graph tensor names, frozen-graph inputs and outputs change)"
            )
    return out
