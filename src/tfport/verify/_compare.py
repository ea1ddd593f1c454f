"""`verify`: run two artifacts on the same inputs and compare every output they share.

Example:
    >>> report = verify("est.py:make@model_dir", "model.keras", inputs="rows.npz")  # doctest: +SKIP
    >>> report["equal"]  # doctest: +SKIP
    True
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from tfport._common import sandbox
from tfport._common.child import DEFAULT_TIMEOUT, Confinement, run_in_child
from tfport._common.errors import TfportInputError, message
from tfport.verify._artifacts import check_folder, kind_of, open_artifact
from tfport.verify._inputs import generate, read_inputs
from tfport.verify._reports import VerifyReport

if TYPE_CHECKING:
    from tfport.graph import Limits

_CLASS_SCORES = ("probabilities", "logits", "scores", "logistic")


def _key(name: str) -> str:
    name = re.sub(r":0$", "", name)
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def pair_outputs(a: Mapping[str, object], b: Mapping[str, object]) -> list[tuple[str, str]]:
    """Output pairs by (sanitized) name; two lone outputs pair whatever their names."""
    bkeys = {_key(k): k for k in b}
    pairs = [(k, bkeys[_key(k)]) for k in sorted(a) if _key(k) in bkeys]
    if not pairs and len(a) == 1 and len(b) == 1:
        pairs = [(next(iter(a)), next(iter(b)))]
    if not pairs:
        raise TfportInputError(
            message(
                "The signatures do not match: the two artifacts have no output in common",
                "Compare artifacts of the same model (outputs with the same names)",
                outputs_a=sorted(a),
                outputs_b=sorted(b),
            )
        )
    return pairs


def _text(array: np.ndarray) -> np.ndarray:
    decode = np.vectorize(lambda v: v.decode() if isinstance(v, bytes) else str(v), otypes=[object])
    return decode(array) if array.size else array.astype(object)


def compare_output(a: ArrayLike, b: ArrayLike, atol: float, rtol: float) -> dict[str, Any]:
    """max abs / rel difference, argmax agreement (class scores) and pass/fail."""
    a, b = np.asarray(a), np.asarray(b)
    row: dict[str, Any] = {"shape_a": list(a.shape), "shape_b": list(b.shape)}
    if a.shape != b.shape:
        if a.size != b.size:
            return {**row, "pass": False, "reason": "shapes differ"}
        b = b.reshape(a.shape)
    numeric = a.dtype.kind in "fciub" and b.dtype.kind in "fciub"
    if not numeric:
        same = bool((_text(a) == _text(b)).all())
        return {**row, "max_abs_diff": 0.0 if same else None, "pass": same}
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    diff = np.abs(fa - fb)
    rel = diff / np.maximum(np.abs(fb), np.finfo(np.float64).tiny)
    row["max_abs_diff"] = float(diff.max()) if diff.size else 0.0
    row["max_rel_diff"] = float(rel.max()) if rel.size else 0.0
    row["pass"] = bool(np.allclose(fa, fb, rtol=rtol, atol=atol, equal_nan=True))
    return row


def _argmax(name: str, a: np.ndarray, b: np.ndarray) -> float | None:
    if not any(s in name for s in _CLASS_SCORES) or a.ndim != 2 or a.shape[-1] < 2:
        return None
    if a.shape != b.shape:
        return None
    return float(np.mean(np.argmax(a, -1) == np.argmax(b, -1)))


def _checkpoints(a: str, b: str, atol: float) -> VerifyReport:
    from tfport.checkpoint import diff_checkpoints

    result = diff_checkpoints(a, b, atol=atol)
    tensors = [t for t in result.get("tensors", []) if t.get("max_abs_diff") is not None]
    worst = max(tensors, key=lambda t: t["max_abs_diff"], default=None)
    equal = bool(result.get("equal"))
    return {
        "kind": "checkpoints",
        "a": {"kind": "checkpoint", "path": result.get("a", a)},
        "b": {"kind": "checkpoint", "path": result.get("b", b)},
        "atol": atol,
        "equal": equal,
        "worst": worst,
        "diff": result,
    }


def _check_tolerance(name: str, value: float) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
        raise TfportInputError(
            message(f"--{name} must be a finite number >= 0", "Pass e.g. 1e-5", **{name: value})
        )


def verify(
    a: str,
    b: str,
    *,
    inputs: str | None = None,
    atol: float = 1e-5,
    rtol: float = 1e-5,
    signature_a: str | None = None,
    signature_b: str | None = None,
    graph_inputs: list[str] | None = None,
    graph_outputs: list[str] | None = None,
    rows: int = 8,
    seed: int = 0,
    train_step: bool = False,
    label_key: str = "label",
    trust: bool = False,
    allow_ops: Sequence[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    max_const_bytes: int = 1 << 30,
    max_memory: int | None = None,
) -> VerifyReport:
    """Runs artifacts `a` and `b` on the same inputs and compares every shared output.

    Artifacts: `SCRIPT_OR_MODULE:FACTORY@MODEL_DIR` (an Estimator), a SavedModel folder
    (`signature_a`/`signature_b`), a `.keras` file, a folder `tfport keras export` wrote
    (its `model.py` imported only when this machine's export sealed it, or with `trust`),
    a frozen `.pb`/`.pbtxt` (`graph_inputs`/`graph_outputs`), or two checkpoints
    (compared as `ckpt diff`).

    Args:
        a: first artifact.
        b: second artifact.
        inputs: an `.npz` or a TFRecord of tf.Examples (default: `rows` random rows made
            from the first signature that declares its inputs).
        atol: absolute tolerance.
        rtol: relative tolerance (`|a - b| <= atol + rtol * |b|`).
        signature_a: signature of a SavedModel `a` (default `serving_default`).
        signature_b: signature of a SavedModel `b`.
        graph_inputs: input tensor names of a frozen graph.
        graph_outputs: output tensor names of a frozen graph.
        rows: rows of generated inputs.
        seed: seed of generated inputs.
        train_step: instead, one training step of an Estimator and its `.keras` export from
            the same weights (estimator's optimizer and head loss as Keras 3 ones): compare
            the losses and every updated weight.
        label_key: the labels' key in `inputs` for `train_step` (generated if absent).
        trust: run SavedModels and frozen graphs whatever ops they hold (TensorFlow's own
            loader, main_op and saver included), load `.keras` files outside Keras's
            safe mode and import the `model.py` of any export folder. Without it, graphs
            are scanned first like `tfport graph inspect` does and refused, in one line, if
            anything would touch files, the network or Python.
        allow_ops: more op types to accept in the scan.
        timeout: seconds the artifacts may run (in a child process) before they are
            stopped: a loop that never ends is one error line.
        max_const_bytes: refuse a graph whose constants would take more memory.
        max_memory: bytes the artifacts' run may add to the child process once TensorFlow
            is imported (default: half of the physical memory); over it, the run stops
            with one input-error line. Unless `trust`, or an Estimator is one side (the
            user's own code), the child also runs in a Landlock sandbox: it reads the
            installation, the artifacts and `inputs`, writes only its temporary folder and
            opens no TCP connection.

    Returns:
        A JSON-ready report; `equal` is True when every shared output passes.

    Raises:
        TfportInputError: unknown artifacts, unreadable inputs, mismatched signatures,
            unsafe ops, oversized constants, a run over `timeout`, a damaged artifact.

    Example:
        >>> verify("frozen.pb", "saved_model_dir")["equal"]  # doctest: +SKIP
        True
    """
    _check_tolerance("atol", atol)
    _check_tolerance("rtol", rtol)
    kinds = kind_of(a), kind_of(b)
    if "checkpoint" in kinds:
        if kinds != ("checkpoint", "checkpoint"):
            raise TfportInputError(
                message(
                    "A checkpoint can only be verified against another checkpoint",
                    "Pass two checkpoints, or two runnable artifacts",
                    kinds=list(kinds),
                )
            )
        return _checkpoints(a, b, atol)
    limits = scan_artifacts([a, b], trust, allow_ops, max_const_bytes)
    sealed = {p: check_folder(p, trust) for p in (a, b) if kind_of(p) == "keras_folder"}
    _check_inputs(inputs)
    job = {
        "a": a,
        "b": b,
        "inputs": inputs,
        "atol": atol,
        "rtol": rtol,
        "signature_a": signature_a,
        "signature_b": signature_b,
        "io": (graph_inputs, graph_outputs),
        "rows": rows,
        "seed": seed,
        "train_step": train_step,
        "label_key": label_key,
        "trust": trust,
        "allow_ops": tuple(allow_ops),
        "limits": limits,
        "sealed": {p: sha for p, sha in sealed.items() if sha},
    }
    confine = Confinement(
        read=tuple(p for p in (a, b, inputs) if p),
        sandbox=not trust and "estimator" not in kinds,
        max_memory=sandbox.physical_memory() // 2 if max_memory is None else max_memory,
    )
    return run_in_child("tfport.verify._compare", "run_artifacts", job, timeout, "verify", confine)


def scan_artifacts(
    paths: Sequence[str], trust: bool, allow_ops: Sequence[str], max_const_bytes: int
) -> Any:
    """Scans the SavedModels and frozen graphs among `paths` (`tfport.graph.check_runnable`);
    returns the graph limits to run them under.

    Example:
        >>> scan_artifacts(["model.pb"], False, (), 1 << 30)  # doctest: +SKIP
    """
    from tfport import graph

    limits = graph.Limits(max_const_bytes=max_const_bytes)
    for path in paths:
        if kind_of(path) in ("saved_model", "frozen_graph"):
            graph.check_runnable(path, trust=trust, allow_ops=allow_ops, limits=limits)
    return limits


def _check_inputs(inputs: str | None) -> None:
    if inputs and not os.path.isfile(inputs):
        raise TfportInputError(
            message("The inputs file does not exist", "Pass an .npz or a TFRecord", path=inputs)
        )


def error_line(err: BaseException) -> str:
    """The telling line of an error: TensorFlow's run errors start with `Graph execution
    error:` and say what failed further down.

    Example:
        >>> error_line(ValueError("Graph execution error:\\n\\nx.txt; Permission denied"))
        'x.txt; Permission denied'
    """
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    useful = [
        line
        for line in lines
        if not line.endswith(":") and not line.startswith(("Detected at node", "File ", "[["))
    ]
    return (useful or lines or [type(err).__name__])[0][:300]


def run_artifacts(**job: Any) -> VerifyReport:
    """The child's work of :func:`verify`: open both artifacts, run them, compare.

    Errors TensorFlow or Keras raise on a damaged artifact become one input-error line.
    """
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    try:
        return _run_artifacts(**job)
    except TfportInputError:
        raise
    except (tf.errors.OpError, ValueError, TypeError, KeyError, IndexError) as err:
        raise TfportInputError(
            message(
                f"The artifacts could not be run: {type(err).__name__}: {error_line(err)}",
                "Check that both artifacts are intact and take the inputs given",
                a=job["a"],
                b=job["b"],
            )
        ) from None


def _run_artifacts(
    a: str,
    b: str,
    inputs: str | None,
    atol: float,
    rtol: float,
    signature_a: str | None,
    signature_b: str | None,
    io: tuple[list[str] | None, list[str] | None],
    rows: int,
    seed: int,
    train_step: bool,
    label_key: str,
    trust: bool,
    limits: Limits | None,
    allow_ops: tuple[str, ...] = (),
    sealed: dict[str, dict[str, str]] | None = None,
) -> VerifyReport:
    art_a = open_artifact(a, signature_a, io, trust, limits, allow_ops, sealed)
    art_b = open_artifact(b, signature_b, io, trust, limits, allow_ops, sealed)
    for est, other in ((art_a, art_b), (art_b, art_a)):
        if est.kind == "estimator" and other.kind == "keras_folder":
            est.lone = other.lone  # the model_fn took one tensor: so does its export
    if train_step:
        from tfport.verify._train_step import train_step as one_step

        batch = read_inputs(inputs) if inputs else None
        report = one_step(
            art_a,
            art_b,
            batch,
            atol=atol,
            rtol=rtol,
            compare=compare_output,
            label_key=label_key,
            rows=rows,
            seed=seed,
        )
        return {**report, "inputs": inputs or "generated"}
    if inputs:
        batch = read_inputs(inputs)
    else:
        spec = art_a.spec() or art_b.spec()
        if spec is None:
            raise TfportInputError(
                message(
                    "Neither artifact declares its inputs (Estimators read feature columns)",
                    "Pass --inputs FILE (.npz or TFRecord of tf.Examples)",
                    a=a,
                    b=b,
                )
            )
        batch = generate(spec, rows, seed)
    out_a, out_b = art_a.run(batch), art_b.run(batch)
    outputs = []
    for key_a, key_b in pair_outputs(out_a, out_b):
        row = {"a": key_a, "b": key_b}
        row.update(compare_output(out_a[key_a], out_b[key_b], atol, rtol))
        agreement = _argmax(key_a, np.asarray(out_a[key_a]), np.asarray(out_b[key_b]))
        if agreement is not None:
            row["argmax_agreement"] = agreement  # type: ignore[assignment]
        outputs.append(row)
    n = len(next(v for k, v in batch.items() if not k.startswith("__")))
    return {
        "kind": "outputs",
        "a": {"kind": art_a.kind, "path": art_a.text},
        "b": {"kind": art_b.kind, "path": art_b.text},
        "rows": int(n),
        "inputs": inputs or "generated",
        "atol": atol,
        "rtol": rtol,
        "outputs": outputs,
        "only_in_a": sorted(set(out_a) - {r["a"] for r in outputs}),
        "only_in_b": sorted(set(out_b) - {r["b"] for r in outputs}),
        "equal": all(r["pass"] for r in outputs),
    }


def render(report: VerifyReport) -> str:
    """The human-readable report."""
    lines = [f"A: {report['a']['kind']} {report['a']['path']}"]
    lines.append(f"B: {report['b']['kind']} {report['b']['path']}")
    if report["kind"] == "checkpoints":
        diff, worst = report["diff"], report["worst"]
        for label in ("only_in_a", "only_in_b", "mismatches"):
            if diff.get(label):
                lines.append(f"{label}: {len(diff[label])}")
        if worst is not None:
            lines.append(f"worst tensor: {worst['name']} max |A-B| = {worst['max_abs_diff']:.3g}")
    else:
        lines.append(
            f"{report['rows']} rows ({report['inputs']}), atol {report['atol']}, "
            f"rtol {report['rtol']}"
        )
        if report["kind"] == "train_step":
            lines.append(
                f"one training step from the same weights: {report['optimizer']}, {report['loss']}"
            )
        for row in report["outputs"]:
            if "name" in row:
                name = row["name"]
            else:
                name = row["a"] if row["a"] == row["b"] else f"{row['a']} ~ {row['b']}"
            parts = [f"{'ok  ' if row['pass'] else 'DIFF'} {name}"]
            if row.get("max_abs_diff") is not None:
                parts.append(f"max abs {row['max_abs_diff']:.3g}")
            if row.get("max_rel_diff") is not None:
                parts.append(f"max rel {row['max_rel_diff']:.3g}")
            if "max_update" in row:
                parts.append(f"step {row['max_update']:.3g}")
            if "argmax_agreement" in row:
                parts.append(f"argmax agree {row['argmax_agreement']:.1%}")
            if row.get("reason"):
                parts.append(row["reason"])
            lines.append("  ".join(parts))
    lines.append("equal" if report["equal"] else "DIFFERENT")
    return "\n".join(lines)
