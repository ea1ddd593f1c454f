"""`--verify`: the original graph in a `tf.compat.v1.Session` vs the converted SavedModel.

Both run in a child process under a wall-clock limit (:func:`verify`), after the
artifact passed the safety scan. The original graph's variables are assigned from the
checkpoint bundle read by tfport's reader: the SavedModel's own restore/save ops (which
could write or delete files anywhere) never run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, TypedDict

import numpy as np

from tfport._common import protos, sandbox
from tfport._common.child import DEFAULT_TIMEOUT, Confinement, run_in_child
from tfport._common.errors import TfportInputError, TfportOperationError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Session, TFModule
from tfport.graph import _parse, _plan, _runnable, _sizes
from tfport.graph._reports import SignatureReport, VerifyResult
from tfport.graph._textstream import Limits

Feeds = dict[str, dict[str, np.ndarray]]  # signature key -> input key -> value
Outputs = dict[str, dict[str, np.ndarray]]  # signature key -> output key -> value


class Replan(TypedDict):
    """The arguments of :func:`make_plan`: what the `--verify` child plans again from."""

    path: str
    inputs: list[str] | None
    outputs: list[str] | None
    allow_ops: list[str]
    trust: bool
    tags: list[str] | None
    limits: Limits | None


_UNKNOWN_DIM = 2


def _too_big(what: str, nbytes: int, limit: int, **received: object) -> TfportInputError:
    return TfportInputError(
        message(
            f"--verify would materialise {what} of {nbytes} bytes, over the limit of {limit}",
            "Raise the limit with --max-const-bytes if the graph is real, or convert "
            "without --verify",
            **received,
        )
    )


def check_constants(plan: _plan.Plan, limit: int) -> None:
    """Refuses to verify a graph holding a Const (anywhere) or an input over `limit` bytes.

    Example:
        >>> check_constants(plan, 1 << 30)  # doctest: +SKIP
    """
    for graph_def in (plan.original, plan.graph_def):
        _runnable.check_constants(graph_def, limit, plan.source)
    for sig in plan.signatures.values():
        for t in sig.inputs:
            dims = [_UNKNOWN_DIM if d is None else d for d in (t.shape or [])]
            nbytes = _runnable.nbytes(dims, t.dtype)
            if nbytes > limit:
                raise _too_big(f"input {t.key!r}", nbytes, limit, input=t.name)


def make_inputs(plan: _plan.Plan, samples: Mapping[str, str], seed: int = 0) -> Feeds:
    """Returns the verification inputs: the given .npy files, else random of the right dtype/shape.

    `samples` maps an input key or tensor name ('input', 'input:0') to a .npy file.
    """
    rng = np.random.default_rng(seed)
    known = {t.key for s in plan.signatures.values() for t in s.inputs}
    known |= {t.name for s in plan.signatures.values() for t in s.inputs}
    for name in samples:
        if name not in known and name + ":0" not in known:
            raise TfportInputError(
                message(
                    f"--sample-input {name!r} names no signature input",
                    f"Use one of {sorted(known)}",
                    name=name,
                )
            )
    loaded = {name: _load_npy(path) for name, path in samples.items()}
    feeds: Feeds = {}
    for key, sig in plan.signatures.items():
        feeds[key] = {}
        for t in sig.inputs:
            value = next((loaded[n] for n in (t.key, t.name, t.name[:-2]) if n in loaded), None)
            feeds[key][t.key] = _random(rng, t) if value is None else _cast(value, t)
    return feeds


def _load_npy(path: str) -> np.ndarray:
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as err:
        raise TfportInputError(
            message(f"Cannot read sample input {path}: {err}", "Pass a .npy file", path=path)
        ) from None


def _cast(value: np.ndarray, t: _plan.Tensor) -> np.ndarray:
    name = protos.dtype_name(t.dtype)
    try:
        return value.astype(np.dtype(name)) if value.dtype.kind in "biuf" else value
    except TypeError:
        return value


def _random(rng: np.random.Generator, t: _plan.Tensor) -> np.ndarray:
    name = protos.dtype_name(t.dtype)
    shape = [_UNKNOWN_DIM if d is None else d for d in (t.shape if t.shape is not None else [])]
    if name.startswith(("float", "bfloat", "half")):
        return rng.standard_normal(shape).astype(name if name != "bfloat16" else "float32")
    if name.startswith(("int", "uint")):
        return rng.integers(0, 5, size=shape).astype(name)
    if name == "bool":
        return rng.random(shape) < 0.5
    raise TfportInputError(
        message(
            f"Cannot make a random value for input {t.key!r} of dtype {name}",
            f"Pass --sample-input {t.key}=FILE.npy",
            input=t.name,
        )
    )


def save_and_verify(
    plan: _plan.Plan,
    out_dir: str,
    feeds: Feeds,
    atol: float,
    replan: Replan,
    timeout: float = DEFAULT_TIMEOUT,
    max_memory: int | None = None,
) -> tuple[dict[str, SignatureReport], VerifyResult]:
    """Converts into `out_dir` and runs both models on `feeds`, all in a child process
    (the only process that imports TensorFlow); returns (signatures, verify report).

    Args:
        plan: the conversion plan (for messages).
        out_dir: where the converted SavedModel is written (a temporary folder).
        feeds: the inputs per signature.
        atol: the largest absolute difference accepted.
        replan: the arguments of :func:`make_plan` (the child plans again, TF-free).
        timeout: seconds before the child is stopped.
        max_memory: bytes the run may add to the child (default: half of the physical
            memory); the child is sandboxed unless the plan is trusted.

    Raises:
        TfportInputError: the conversion and verification ran over `timeout`.
        TfportOperationError: a difference is over `atol`, or a model failed to run.
    """
    signatures, reference, converted = run_in_child(
        "tfport.graph._convert",
        "save_and_outputs",
        {"replan": replan, "out_dir": out_dir, "feeds": feeds},
        timeout,
        f"Converting and verifying {plan.source}",
        Confinement(
            read=(plan.source,),
            write=(out_dir,),
            sandbox=not plan.trust,
            max_memory=sandbox.physical_memory() // 2 if max_memory is None else max_memory,
        ),
    )
    return signatures, _compare(reference, converted, atol)


def _compare(reference: Outputs, converted: Outputs, atol: float) -> VerifyResult:
    diffs = {
        key: {out: _max_diff(reference[key][out], converted[key][out]) for out in reference[key]}
        for key in reference
    }
    worst = max((d for sig in diffs.values() for d in sig.values()), default=0.0)
    if worst > atol:
        raise TfportOperationError(
            message(
                f"Verification failed: the converted model differs by up to {worst:.3g}",
                "Inspect the graph for ops that behave differently in TF2, or raise --atol",
                diffs=diffs,
                atol=atol,
            )
        )
    return {"atol": atol, "max_abs_diff": diffs, "passed": True}


def make_plan(
    path: str,
    inputs: list[str] | None,
    outputs: list[str] | None,
    allow_ops: list[str],
    trust: bool,
    tags: list[str] | None,
    limits: Limits | None,
) -> _plan.Plan:
    """The conversion plan of `path` (frozen graph or TF1 SavedModel), TF-free."""
    art = _parse.read(path, limits=limits)
    if art.kind == "graph_def":
        return _plan.plan_frozen(art, inputs, outputs, allow_ops, trust)
    if inputs or outputs:
        raise TfportInputError(
            message(
                "--inputs/--outputs apply to frozen graphs; a SavedModel keeps its signatures",
                "Drop them",
                path=path,
            )
        )
    return _plan.plan_saved_model(art, tags, allow_ops, trust)


def outputs(plan: _plan.Plan, saved_dir: str, feeds: Feeds) -> tuple[Outputs, Outputs]:
    """The original graph's and the converted SavedModel's outputs (TensorFlow errors as
    one line)."""
    tf = import_tf()
    try:
        return session_outputs(plan, feeds), saved_model_outputs(saved_dir, feeds)
    except (tf.errors.OpError, ValueError, TypeError, KeyError) as err:
        if isinstance(err, TfportInputError):
            raise
        text = (str(err).strip() or type(err).__name__).splitlines()[0][:300]
        raise TfportOperationError(
            message(
                f"Verification could not run the models: {text}",
                "Check that --sample-input values have the inputs' dtypes and shapes",
                source=plan.source,
            )
        ) from None


def _max_diff(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))
    return 0.0 if np.array_equal(a, b) else float("inf")


def session_outputs(plan: _plan.Plan, feeds: Feeds) -> dict[str, dict[str, np.ndarray]]:
    """The original graph, run in a tf.compat.v1.Session (variables read from the bundle)."""
    tf = import_tf()
    graph = tf.Graph()
    config = tf.compat.v1.ConfigProto(allow_soft_placement=True)
    with graph.as_default(), tf.compat.v1.Session(graph=graph, config=config) as sess:
        if plan.kind == "saved_model" and plan.trust:
            tf.compat.v1.saved_model.loader.load(sess, plan.tags, plan.source)
        else:
            original = tf.compat.v1.GraphDef.FromString(plan.original.SerializeToString())
            tf.compat.v1.import_graph_def(original, name="")
            _sizes.check_static_sizes(graph.get_operations(), plan.source)
            _assign_from_bundle(tf, graph, sess, plan)
        return {
            key: dict(
                zip(
                    [t.key for t in sig.outputs],
                    sess.run(
                        [t.name for t in sig.outputs],
                        {t.name: feeds[key][t.key] for t in sig.inputs},
                    ),
                    strict=True,
                )
            )
            for key, sig in plan.signatures.items()
        }


def saved_model_outputs(saved_dir: str, feeds: Feeds) -> dict[str, dict[str, np.ndarray]]:
    """The converted SavedModel, loaded with tf.saved_model.load, on the same inputs."""
    tf = import_tf()
    loaded = tf.saved_model.load(os.fspath(saved_dir))
    result = {}
    for key, values in feeds.items():
        fn = loaded.signatures[key]
        out = fn(**{k: tf.constant(v) for k, v in values.items()})
        result[key] = {k: v.numpy() for k, v in out.items()}
    return result


def _assign_from_bundle(tf: TFModule, graph: Any, sess: Session, plan: _plan.Plan) -> None:
    """Assigns the plan's variables the bundle's values (no op of the artifact's saver runs)."""
    values = _runnable.variable_values(plan)
    assigns, feeds = [], {}
    for name, op in plan.variables.items():
        node = graph.get_operation_by_name(name)
        dtype = tf.as_dtype(node.get_attr("dtype"))
        holder = tf.compat.v1.placeholder(dtype, name=None)
        feeds[holder] = np.asarray(values[name]).astype(dtype.as_numpy_dtype, copy=False)
        target = node.outputs[0]
        if op == "VarHandleOp":
            assigns.append(tf.raw_ops.AssignVariableOp(resource=target, value=holder))
        else:
            assigns.append(tf.compat.v1.assign(target, holder, validate_shape=False))
    if assigns:
        sess.run(assigns, feeds)
