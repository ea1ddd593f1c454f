"""The export checks itself: the Keras model against the traced model_fn, on generated rows.

TensorFlow: the PREDICT graph the export was read from runs in a session with the
checkpoint restored; the Keras model (TensorFlow backend, this process) on the same rows
must give every float prediction within `ATOL + RTOL * |expected|`. JAX (asked for): the
written folder runs in a child process with `KERAS_BACKEND=jax` in which `tensorflow`,
`tf_keras` and `tfport` cannot be imported, as where they are not installed. What was
checked goes to model.py's docstring and report.json's `checked`.

Example:
    >>> checked = check_backends(model, traced, "ckpt-40", "out", ("tensorflow",))  # doctest: +SKIP
    >>> checked["tensorflow"]["max_abs_diff"] < 1e-5  # doctest: +SKIP
    True
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence

import numpy as np

from tfport._common.errors import TfportInputError, message
from tfport._common.types import KerasModel
from tfport.keras._modelfn._parts import part_of
from tfport.keras._modelfn._trace import TENSOR_KEY, Traced

BACKENDS = ("tensorflow", "jax")
ATOL = RTOL = 1e-5
ROWS = 16
_CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_plain_keras.py")
Rows = dict[str, np.ndarray]
Checked = dict[str, dict[str, object]]  # backend -> {"max_abs_diff", "rows"} or {"skipped"}


def generated_rows(traced: Traced, rows: int = ROWS, seed: int = 0) -> Rows:
    """Rows for every feature: normal floats, ints 0/1, strings `a`/`b`/`c`; a dimension
    the graph leaves open is 3.

    Example:
        >>> generated_rows(traced)["x"].shape  # doctest: +SKIP
        (16, 4)
    """
    rng = np.random.RandomState(seed)
    out = {}
    for key, tensor in traced.features.items():
        shape = (rows, *(3 if d is None else d for d in tensor.shape.as_list()[1:]))
        dtype = tensor.dtype
        if dtype.is_floating:
            out[key] = rng.normal(size=shape).astype(dtype.as_numpy_dtype)
        elif dtype.is_integer or dtype.is_bool:
            out[key] = rng.randint(0, 2, size=shape).astype(dtype.as_numpy_dtype)
        else:  # strings
            out[key] = np.array(["a", "b", "c"], dtype=object)[rng.randint(0, 3, size=shape)]
    return out


def _reference(traced: Traced, checkpoint: str, rows: Rows) -> Rows:
    """The model_fn's own predictions: the traced graph, the checkpoint restored."""
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    reader = tf.train.load_checkpoint(checkpoint)
    restored: dict[str, object] = {}
    parts: dict[str, list[tuple[int, object]]] = {}
    with traced.graph.as_default():
        for v in tf.compat.v1.global_variables():
            key = traced.checkpoint_keys.get(v.op.name, v.op.name)
            part = part_of(key)
            if reader.has_tensor(key):
                restored[key] = v
            elif part is not None and reader.has_tensor(part[0]):
                parts.setdefault(part[0], []).append((part[1], v))  # slices of the whole
        restored.update({k: [v for _, v in sorted(p)] for k, p in parts.items()})
        saver = tf.compat.v1.train.Saver(restored, sharded=False)
        init = [tf.compat.v1.global_variables_initializer(), tf.compat.v1.tables_initializer()]
    config = tf.compat.v1.ConfigProto()
    rewrite = config.graph_options.rewrite_options
    # Grappler's remapper fuses a layer norm over several axes into a batch norm with a
    # 3-D scale that oneDNN CPUs reject ("scale must be 1D"): TensorFlow's bug, not the
    # model_fn's; the reference runs unfused
    rewrite.remapping = rewrite.OFF
    with tf.compat.v1.Session(graph=traced.graph, config=config) as sess:
        sess.run(init)
        saver.restore(sess, checkpoint)
        feed = {traced.features[k]: v for k, v in rows.items()}
        out = sess.run(dict(traced.predictions), feed)
    return {k: np.asarray(v) for k, v in out.items()}


def _keras_outputs(model: KerasModel, traced: Traced, rows: Rows) -> Rows:
    given: object = rows[TENSOR_KEY] if traced.single else rows
    out = model(given, training=False)
    if not isinstance(out, dict):
        out = {"predictions": out}
    return {k: np.asarray(v) for k, v in out.items()}


def _compare(expected: Rows, got: Rows, backend: str) -> dict[str, object]:
    worst = 0.0
    for key, want in expected.items():
        have = got.get(key)
        if have is None or have.shape != want.shape:
            raise _differs(backend, key, f"shape {None if have is None else have.shape}")
        if want.dtype.kind != "f":
            continue  # ids from an argmax may flip on a near tie: floats decide
        diff = np.abs(have.astype(np.float64) - want)
        if not np.all(diff <= ATOL + RTOL * np.abs(want)):
            raise _differs(backend, key, f"a max difference of {float(diff.max()):.3g}")
        worst = max(worst, float(diff.max()) if diff.size else 0.0)
    return {"max_abs_diff": worst, "rows": ROWS}


def _differs(backend: str, key: str, what: str) -> TfportInputError:
    return TfportInputError(
        message(
            f"The Keras model does not reproduce the model_fn on {backend}: prediction "
            f"{key!r} has {what} on generated rows; nothing was written",
            "Report it to tfport with the model_fn; meanwhile port the weights with "
            "`tfport ckpt port` and write the Keras model by hand",
            prediction=key,
            backend=backend,
        )
    )


def known_backends(backends: Sequence[str]) -> tuple[str, ...]:
    """`backends` when each is one the export checks on, else one error line.

    Example:
        >>> known_backends(["tensorflow", "jax"])
        ('tensorflow', 'jax')
    """
    unknown = [b for b in backends if b not in BACKENDS]
    if unknown or not backends:
        raise TfportInputError(
            message(
                "Unknown backend to check the export on",
                f"Use {' or '.join(BACKENDS)}, or both: tensorflow,jax",
                check_on=list(backends),
            )
        )
    return tuple(backends)


def check_backends(
    model: KerasModel,
    traced: Traced,
    checkpoint: str,
    folder: str,
    backends: Sequence[str],
    needs_tensorflow: bool = False,
) -> Checked:
    """Runs the checks `backends` names (`tensorflow` always); raises on a difference.

    Args:
        model: the built Keras model with the checkpoint's values (TensorFlow backend).
        traced: the traced PREDICT graph.
        checkpoint: the checkpoint prefix the weights came from.
        folder: the written folder (model.py, model.keras) the JAX child loads.
        backends: a subset of `BACKENDS`.
        needs_tensorflow: model.py needs the TensorFlow backend (string preprocessing
            layers): JAX is not run.

    Returns:
        backend -> `{"max_abs_diff", "rows"}`, or `{"skipped": why}` for JAX when model.py
        needs TensorFlow.

    Example:
        >>> check_backends(model, traced, ckpt, "out", ("tensorflow", "jax"))  # doctest: +SKIP
        {'tensorflow': {'max_abs_diff': 1.2e-07, 'rows': 16}, 'jax': {...}}
    """
    rows = generated_rows(traced)
    expected = _reference(traced, checkpoint, rows)
    checked: Checked = {
        "tensorflow": _compare(expected, _keras_outputs(model, traced, rows), "tensorflow")
    }
    if "jax" in backends and needs_tensorflow:
        checked["jax"] = {"skipped": "model.py needs the TensorFlow backend"}
    elif "jax" in backends:
        checked["jax"] = _on_jax(folder, traced, rows, expected)
    return checked


def _on_jax(folder: str, traced: Traced, rows: Rows, expected: Rows) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="tfport-check-") as tmp:
        arrays = {k: _plain(v) for k, v in rows.items()}
        np.savez(os.path.join(tmp, "rows.npz"), **arrays)  # type: ignore[arg-type]
        env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"}
        env["KERAS_BACKEND"] = "jax"
        proc = subprocess.run(
            [sys.executable, _CHILD, folder, os.path.join(tmp, "rows.npz"), tmp]
            + (["--lone"] if traced.single else []),
            env=env,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["?"])[-1]
            raise TfportInputError(
                message(
                    f"The exported model does not run on JAX: {last}",
                    "Install jax (pip install 'jax[cpu]'), or check on tensorflow only",
                    folder=folder,
                )
            )
        got = dict(np.load(os.path.join(tmp, "outputs.npz")))
        with open(os.path.join(tmp, "modules.json")) as f:
            leaked = json.load(f)
    if leaked:
        raise _differs("jax", ", ".join(leaked), "imported TensorFlow")
    return _compare(expected, got, "jax")


def _plain(value: np.ndarray) -> np.ndarray:
    return value.astype(str) if value.dtype == object else value


def docstring_line(checked: Mapping[str, Mapping[str, object]]) -> str:
    """The model.py docstring's line naming the backends checked.

    Example:
        >>> docstring_line({"tensorflow": {"max_abs_diff": 1.2e-7, "rows": 16}})
        'Checked at export on 16 generated rows: tensorflow (max difference 1.2e-07).'
    """
    done = [
        f"{name} (max difference {float(str(c['max_abs_diff'])):.2g})"
        for name, c in checked.items()
        if "max_abs_diff" in c
    ]
    rows = next(iter(checked.values())).get("rows", ROWS)
    return f"Checked at export on {rows} generated rows: {', '.join(done)}."
