"""`convert`: frozen GraphDefs and TF1 SavedModels to TF2 SavedModels (TensorFlow side).

A frozen graph is imported inside `tf.compat.v1.wrap_function` and pruned to a
concrete function per signature. A TF1 SavedModel is rebuilt the same way from
its MetaGraph: variable nodes become placeholders mapped onto TF2 variables whose
values are read from ``variables/`` — so its ``main_op``/init ops never run. Only
with ``trust`` does TensorFlow's own loader (which runs them) take over.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tfport._common import outputs as _outputs
from tfport._common.child import DEFAULT_TIMEOUT
from tfport._common.errors import TfportInputError, TfportOperationError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import TFModule
from tfport.graph import _parse, _plan, _runnable, _sizes, _verify
from tfport.graph._reports import ConvertReport, SignatureReport
from tfport.graph._textstream import Limits

_CAPTURE_SCOPE = "tfport_variables"
_KIND = "SavedModel"
_SAVED_MODEL_ENTRIES = frozenset(
    {"saved_model.pb", "variables", "assets", "assets.extra", "fingerprint.pb"}
)


def convert(
    path: str,
    out_dir: str,
    *,
    inputs: Sequence[str] | None = None,
    outputs: Sequence[str] | None = None,
    allow_ops: Iterable[str] = (),
    trust: bool = False,
    tags: Sequence[str] | None = None,
    overwrite: bool = False,
    verify: bool = False,
    atol: float = 1e-6,
    sample_inputs: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_memory: int | None = None,
) -> ConvertReport:
    """Converts a frozen GraphDef or a TF1 SavedModel to a TF2 SavedModel in `out_dir`.

    Args:
        path: a `.pb`/`.pbtxt` GraphDef or a TF1 SavedModel folder.
        out_dir: the SavedModel to write (atomically; refused if it exists unless `overwrite`).
        inputs: frozen graphs only: input tensor names (default: the placeholders needed).
        outputs: frozen graphs only: output tensor names (default: the sink nodes).
        allow_ops: op types to accept besides the safe list.
        trust: accept every op and let TensorFlow run a SavedModel's main_op/init ops.
        tags: the MetaGraph's tags (default: the only one, or ["serve"]).
        overwrite: replace an existing `out_dir`.
        verify: compare the original (tf.compat.v1.Session) and the converted model, both
            run in a child process under `timeout` (variables read from the bundle; the
            artifact's own saver and init ops never run unless `trust`).
        atol: the largest absolute difference `verify` accepts.
        sample_inputs: {input key or tensor name: .npy path} for `verify`.
        limits: node count, call depth, size and `verify` constant-size limits.
        timeout: seconds `verify` may run before it is stopped.
        max_memory: bytes `verify`'s run may add to its child process once TensorFlow is
            imported (default: half of the physical memory). Unless `trust`, that child
            also runs in a Landlock sandbox: it reads the installation and `path`, writes
            only the new SavedModel and its temporary folder, opens no TCP connection.

    Returns:
        A JSON-ready report: signatures (input/output keys) and, with `verify`, the max
        absolute difference per output.

    Raises:
        TfportInputError: bad input, unsafe ops, unknown tensor names, existing output,
            `verify` over `timeout`.
        TfportOperationError: TensorFlow failed, or `verify` found a difference over `atol`.

    Example:
        >>> convert("frozen.pb", "/tmp/sm", verify=True)  # doctest: +SKIP
    """
    if not (math.isfinite(atol) and atol >= 0):
        raise TfportInputError(
            message("--atol must be a finite number >= 0", "Pass e.g. 1e-6", atol=atol)
        )
    _outputs.check_output(out_dir, [path], overwrite=overwrite, is_kind=is_saved_model, kind=_KIND)
    replan: _verify.Replan = {
        "path": path,
        "inputs": list(inputs or []) or None,
        "outputs": list(outputs or []) or None,
        "allow_ops": list(allow_ops),
        "trust": trust,
        "tags": list(tags or []) or None,
        "limits": limits,
    }
    plan = _verify.make_plan(**replan)
    limit = (limits or Limits()).max_const_bytes
    feeds = None
    if verify:
        _verify.check_constants(plan, limit)
        feeds = _verify.make_inputs(plan, sample_inputs or {})
    report: ConvertReport = {"source": path, "output": out_dir, "kind": plan.kind}
    with _outputs.build_aside(
        out_dir, [path], overwrite=overwrite, is_kind=is_saved_model, kind=_KIND
    ) as tmp:
        if feeds is None:
            report["signatures"] = save(plan, tmp)
        else:
            report["signatures"], report["verify"] = _verify.save_and_verify(
                plan, tmp, feeds, atol, replan, timeout, max_memory
            )
    return report


def save_and_outputs(
    replan: _verify.Replan, out_dir: str, feeds: _verify.Feeds
) -> tuple[dict[str, SignatureReport], _verify.Outputs, _verify.Outputs]:
    """`convert --verify`'s child: plan again, save into `out_dir`, run both models.

    Returns:
        (signatures, original graph's outputs, converted SavedModel's outputs).
    """
    plan = _verify.make_plan(**replan)
    signatures = save(plan, out_dir)
    reference, converted = _verify.outputs(plan, out_dir, feeds)
    return signatures, reference, converted


def is_saved_model(path: str) -> bool:
    """Whether `path` is a SavedModel folder holding nothing else, or an empty folder.

    Example:
        >>> is_saved_model("/nonexistent")
        False
    """
    if not os.path.isdir(path) or os.path.islink(path):
        return False
    names = set(os.listdir(path))
    return not names or ("saved_model.pb" in names and names <= _SAVED_MODEL_ENTRIES)


def load_frozen(
    path: str,
    inputs: Sequence[str] | None = None,
    outputs: Sequence[str] | None = None,
    allow_ops: Iterable[str] = (),
    trust: bool = False,
    limits: Limits | None = None,
) -> Any:
    """Returns a frozen GraphDef as a TF2 concrete function (keyword inputs, dict outputs).

    Keys are the tensor names without ':0', other characters than [A-Za-z0-9_] as '_'.
    The graph passes the safety scan and `limits.max_const_bytes` first.

    Example:
        >>> fn = load_frozen("frozen.pb")  # doctest: +SKIP
        >>> fn(input=x)["probabilities"]  # doctest: +SKIP
    """
    art = _parse.read(path, limits=limits)
    if art.kind != "graph_def":
        raise TfportInputError(
            message(f"{path} is not a GraphDef file", "Pass a .pb or .pbtxt file", path=path)
        )
    plan = _plan.plan_frozen(art, inputs, outputs, allow_ops, trust)
    _verify.check_constants(plan, art.limits.max_const_bytes)
    tf = import_tf()
    wrapped = _wrap(tf, plan, {})
    return _serving_function(tf, wrapped, plan.signatures["serving_default"])


def load_saved_model_v1(
    path: str, allow_ops: Iterable[str] = (), limits: Limits | None = None
) -> tuple[dict[str, Any], list[Any]]:
    """A TF1 SavedModel's signatures as TF2 concrete functions, built in memory.

    Its variables are read from `variables/` by tfport's reader; its main_op, init ops and
    saver ops never run (tables filled only by init ops are refused).

    Returns:
        ({signature key: concrete function}, the variables they capture: keep them alive).

    Examples:
        >>> fns, keep = load_saved_model_v1("v1_export")  # doctest: +SKIP
        >>> fns["serving_default"](x=x)["y"]  # doctest: +SKIP
    """
    plan = _verify.make_plan(path, None, None, list(allow_ops), False, None, limits)
    _verify.check_constants(plan, (limits or Limits()).max_const_bytes)
    tf = import_tf()
    variables = _variables(tf, plan)
    wrapped = _wrap(tf, plan, variables)
    functions = {k: _serving_function(tf, wrapped, s) for k, s in plan.signatures.items()}
    return functions, list(variables.values())


def save(plan: _plan.Plan, out_dir: str) -> dict[str, SignatureReport]:
    """Builds the TF2 functions of `plan` and saves them as a SavedModel in `out_dir`."""
    tf = import_tf()
    if plan.kind == "saved_model" and plan.trust:
        return _save_trusted(tf, plan, out_dir)
    module = tf.Module()
    variables = _variables(tf, plan)
    module.tfport_variables = list(variables.values())
    wrapped = _wrap(tf, plan, variables)
    functions = {k: _serving_function(tf, wrapped, s) for k, s in plan.signatures.items()}
    try:
        tf.saved_model.save(module, out_dir, signatures=functions)
    except (ValueError, TypeError, tf.errors.OpError) as err:
        raise TfportOperationError(
            message(f"Saving the TF2 SavedModel failed: {_line(err)}", source=plan.source)
        ) from err
    return _describe(plan)


def _describe(plan: _plan.Plan) -> dict[str, SignatureReport]:
    return {
        key: {
            "inputs": {t.key: t.name for t in s.inputs},
            "outputs": {t.key: t.name for t in s.outputs},
        }
        for key, s in plan.signatures.items()
    }


def _variables(tf: TFModule, plan: _plan.Plan) -> dict[str, Any]:
    values = _runnable.variable_values(plan)
    defs = {n: plan.variable_defs.get(n, {"key": n}) for n in plan.variables}
    return {
        name: tf.Variable(values[name], name=name, trainable=d.get("trainable", True))
        for name, d in defs.items()
    }


def _wrap(tf: TFModule, plan: _plan.Plan, variables: dict[str, Any]) -> Any:
    graph_def = tf.compat.v1.GraphDef.FromString(plan.graph_def.SerializeToString())

    def imports() -> None:
        input_map = {}
        with tf.name_scope(_CAPTURE_SCOPE):
            for name, op in plan.variables.items():
                var = variables[name]
                input_map[name + ":0"] = (
                    tf.identity(var.handle) if op == "VarHandleOp" else var.read_value()
                )
        tf.compat.v1.import_graph_def(graph_def, name="", input_map=input_map)

    try:
        wrapped = tf.compat.v1.wrap_function(imports, [])
    except (ValueError, TypeError, tf.errors.OpError) as err:
        raise TfportOperationError(
            message(f"TensorFlow could not import the graph: {_line(err)}", source=plan.source)
        ) from err
    _sizes.check_static_sizes(wrapped.graph.get_operations(), plan.source)
    return wrapped


def _serving_function(tf: TFModule, wrapped: Any, sig: _plan.Signature) -> Any:
    graph = wrapped.graph
    try:
        feeds = [graph.get_tensor_by_name(t.name) for t in sig.inputs]
        fetches = {t.key: graph.get_tensor_by_name(t.name) for t in sig.outputs}
    except (KeyError, ValueError) as err:
        raise TfportInputError(
            message(f"A signature tensor is not in the graph: {_line(err)}", "Check the names")
        ) from None
    try:
        pruned = wrapped.prune(feeds=feeds, fetches=fetches)
    except (ValueError, TypeError) as err:
        raise TfportInputError(
            message(
                f"Cannot cut the graph at these inputs/outputs: {_line(err)}",
                "Make sure every output depends only on the given inputs",
            )
        ) from err
    specs = [
        tf.TensorSpec(f.shape, f.dtype, name=t.key) for f, t in zip(feeds, sig.inputs, strict=True)
    ]

    def serve(*args: object) -> Any:
        return pruned(*args)

    return tf.function(serve, input_signature=specs, autograph=False).get_concrete_function()


def _save_trusted(tf: TFModule, plan: _plan.Plan, out_dir: str) -> dict[str, SignatureReport]:
    """--trust: TensorFlow's loader (runs main_op/init ops), then a TF2 save."""
    try:
        loaded = tf.saved_model.load(plan.source, tags=plan.tags)
        signatures = {k: loaded.signatures[k] for k in plan.signatures}
        tf.saved_model.save(loaded, out_dir, signatures=signatures)
    except (ValueError, TypeError, KeyError, tf.errors.OpError) as err:
        raise TfportOperationError(
            message(f"Loading or saving with TensorFlow failed: {_line(err)}", source=plan.source)
        ) from err
    return _describe(plan)


def _line(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0][:300]
