"""`tfport ckpt convert`: optimizer slots TF1 <-> Keras, and the canned-estimator converter.

`convert(src, dst, estimator="dnn"|"linear"|"combined", graph=...)` does the job
of the legacy `tensorflow_estimator/.../checkpoint_converter.py` (v1 canned
estimator checkpoint -> v2 names) with these deliberate differences:

1. Hyperparameters (`training/<Opt>/learning_rate`, Ftrl's l1/l2/beta/power,
   RMSprop's rho/momentum, SGD's momentum) are read from the graph's optimizer
   ops. The legacy tool compared `"<Opt>/<node>"` with bare names, never
   matched, and silently wrote Keras defaults (e.g. learning_rate 0.001 where
   the DNN was trained with 0.05). Defaults are used only for names absent
   from the graph (`decay`), and the report says which came from where.
2. Adam's `beta_1`/`beta_2` are `beta_power ** (1 / (step + 1))` (TF1 starts
   the power at beta and multiplies once per step), checked bit for bit; the
   legacy tool used `1 / step`, an off-by-one (0.8975 for a beta_1 of 0.9).
3. For `combined`, the legacy tool kept the TF1 slot names next to the new
   ones (`dnn/.../Adagrad` and `training/Adagrad/.../accumulator`, same
   values); they are not written here: nothing reads them.
4. Partitioned variables are merged whole (the legacy tool kept `part_N` in
   slot names only when cut at `part_0`); their slots (`w/part_0/Adam`...) are
   converted like any others. Pieces of different dtypes, missing pieces and slots
   that do not match their variable piece for piece are refused, never merged.

`convert(src, dst, slots="v1-to-keras"|"keras-to-v1")` renames slots for
Adam, Adagrad, Ftrl, RMSProp (with or without momentum, centered or not),
Momentum (Keras SGD with momentum) and SGD (no slots), merging `part_N`
pieces and TF1 slices into whole variables; `partitions_like=REF` splits them
again as REF does. TF1 -> Keras -> TF1 is bit-exact.

`dst` is an output folder (`dst/model.ckpt.*` and a `checkpoint` file like the
legacy `converted/`), written atomically; inputs are only read.

Example:
    >>> convert("model_dir", "out", slots="v1-to-keras")  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np

from tfport._common import outputs
from tfport._common.errors import TfportInputError, message
from tfport.checkpoint import _plan, _slots
from tfport.checkpoint._errors import CheckpointError
from tfport.checkpoint._graph import GraphHyperparameters
from tfport.checkpoint._layout import Layout, partition_layout, write_split
from tfport.checkpoint._reader import CheckpointReader
from tfport.checkpoint._reports import ConvertReport
from tfport.checkpoint._writer import CheckpointWriter

ESTIMATORS = ("dnn", "linear", "combined")
# The variable-name prefixes each estimator type's checkpoint must have.
ESTIMATOR_PREFIXES = {"dnn": ("dnn/",), "linear": ("linear/",), "combined": ("dnn/", "linear/")}
SLOT_DIRECTIONS = ("v1-to-keras", "keras-to-v1")
OUTPUT_BASENAME = "model.ckpt"


def convert(
    src: str,
    dst: str,
    *,
    slots: str | None = None,
    estimator: str | None = None,
    graph: str | None = None,
    overwrite: bool = False,
    partitions_like: str | None = None,
) -> ConvertReport:
    """Converts checkpoint `src` into the folder `dst`; returns a JSON-able report.

    Args:
        src: checkpoint prefix, model_dir or `checkpoint` file (never modified).
        dst: output folder (refused if it exists, unless `overwrite`).
        slots: "v1-to-keras" or "keras-to-v1".
        estimator: "dnn", "linear" or "combined" (legacy converter parity; v1 -> v2).
        graph: the model_dir's `graph.pbtxt` (hyperparameters); required with `estimator`.
        overwrite: replace an existing `dst`.
        partitions_like: a TF1 checkpoint whose partitioned variables (slices or
            `part_N` pieces) the output reproduces (see `_layout`).

    Raises:
        TfportInputError: bad arguments; CheckpointError: bad or unsupported input.
    """
    _check_args(slots, estimator, graph)
    reader = CheckpointReader(src)
    with reader:
        inputs = [*reader.files, *([graph] if graph else [])]
        if partitions_like:
            inputs += CheckpointReader(partitions_like).files
        outputs.check_output(
            dst, inputs, overwrite=overwrite, is_kind=is_converted, kind="converted checkpoint"
        )
        if slots == "keras-to-v1":
            plan = _plan.plan_keras_to_v1(reader)
        else:
            hyper = _hyper_source(graph, defaults=estimator is not None)
            plan = _plan.plan_v1_to_keras(reader, hyper)
            if estimator:
                _estimator_extras(reader, plan, estimator)
        with outputs.build_aside(
            dst, inputs, overwrite=overwrite, is_kind=is_converted, kind="converted checkpoint"
        ) as tmp:
            layout = _layout_for(reader, plan, partitions_like)
            write_plan(reader, plan, os.path.join(tmp, OUTPUT_BASENAME), layout)
            with open(os.path.join(tmp, "checkpoint"), "w", encoding="utf-8") as f:
                f.write(
                    f'model_checkpoint_path: "{OUTPUT_BASENAME}"\n'
                    f'all_model_checkpoint_paths: "{OUTPUT_BASENAME}"\n'
                )
        return _report(reader, plan, dst)


def is_converted(path: str) -> bool:
    """Whether `path` is a folder `convert` wrote (only model.ckpt.*, `checkpoint`), or empty.

    Example:
        >>> is_converted("/nonexistent")
        False
    """
    if not os.path.isdir(path) or os.path.islink(path):
        return False
    names = os.listdir(path)
    ours = [n for n in names if n == "checkpoint" or n.startswith(OUTPUT_BASENAME + ".")]
    return not names or (len(ours) == len(names) and OUTPUT_BASENAME + ".index" in names)


def _check_args(slots: str | None, estimator: str | None, graph: str | None) -> None:
    if (slots is None) == (estimator is None):
        raise TfportInputError(
            message(
                "Pass exactly one of --slots and --estimator",
                None,
                slots=slots,
                estimator=estimator,
            )
        )
    if slots is not None and slots not in SLOT_DIRECTIONS:
        raise TfportInputError(
            message("Unknown --slots direction", f"Use one of {SLOT_DIRECTIONS}", slots=slots)
        )
    if estimator is not None:
        if estimator not in ESTIMATORS:
            raise TfportInputError(
                message("Unknown --estimator", f"Use one of {ESTIMATORS}", estimator=estimator)
            )
        if not graph:
            raise TfportInputError(
                message(
                    "--estimator needs --graph (the model_dir's graph.pbtxt) for the "
                    "optimizer hyperparameters",
                    "Pass --graph MODEL_DIR/graph.pbtxt",
                    estimator=estimator,
                )
            )
    if graph is not None and not os.path.isfile(graph):
        raise TfportInputError(
            message("Graph file not found", "Pass an existing graph.pbtxt", graph=graph)
        )


def _hyper_source(graph: str | None, defaults: bool) -> _plan.HyperSource:
    hp = GraphHyperparameters(graph) if graph else None

    def hyper(keras_opt: str, var: str) -> dict[str, tuple[float, str]]:
        wanted = _slots.KERAS_HYPER.get(keras_opt, {})
        found = hp.for_variable(var) if hp else {}
        out = {k: (v, "graph") for k, v in found.items() if k in wanted}
        if defaults:
            for key, value in wanted.items():
                out.setdefault(key, (value, "default"))
        return out

    return hyper


def _estimator_extras(reader: CheckpointReader, plan: _plan.Plan, estimator: str) -> None:
    names = reader.names()
    want = ESTIMATOR_PREFIXES[estimator]
    for prefix in want:
        if not any(n.startswith(prefix) for n in names):
            raise TfportInputError(
                message(
                    f"Checkpoint {reader.prefix} has no {prefix}* variables: not a canned "
                    f"{estimator} estimator",
                    "Pick the --estimator the checkpoint was trained with",
                    estimator=estimator,
                )
            )
    if estimator == "combined" and "global_step" in reader.entries:
        # The v2 combined estimator gives the linear optimizer its own `iter`.
        linear_opts = {
            s.out.split("/")[1]
            for s in plan.steps
            if s.out.startswith("training/") and "/linear/" in s.out
        }
        step = np.asarray(reader.read("global_step"), np.int64)
        for opt in sorted(linear_opts):
            plan.add(_plan.Step(f"training/{opt}/iter", value=step, note="global_step"))


def _layout_for(reader: CheckpointReader, plan: _plan.Plan, ref: str | None) -> dict[str, Layout]:
    if not ref:
        return {}
    outputs = {}
    for step in plan.steps:
        if step.value is not None:
            outputs[step.out] = tuple(np.shape(step.value))
        else:
            outputs[step.out] = _merged_shape([reader.entry(n).shape for n in step.sources])
    return partition_layout(outputs, ref)


def _whole(reader: CheckpointReader, step: _plan.Step) -> np.ndarray:
    if step.value is not None:
        return np.asarray(step.value)
    values = [reader.read(n) for n in step.sources]
    return np.concatenate(values) if len(values) > 1 else values[0]


def write_plan(
    reader: CheckpointReader,
    plan: _plan.Plan,
    prefix: str,
    layout: dict[str, Layout] | None = None,
) -> None:
    """Executes `plan`, streaming, into a new checkpoint at `prefix` (sorted by name).

    Names in `layout` are split into partitions (read whole, then written in pieces).
    """
    layout = layout or {}
    with CheckpointWriter(prefix, overwrite=True) as writer:
        for step in sorted(plan.steps, key=lambda s: s.out):
            if step.out in layout:
                write_split(writer, step.out, _whole(reader, step), layout[step.out])
                continue
            if step.value is not None:
                writer.add(step.out, step.value)
                continue
            entries = [reader.entry(n) for n in step.sources]
            first = entries[0]
            if len({e.dtype.name for e in entries}) > 1:  # plans refuse this; never merge bits
                raise CheckpointError(
                    message(
                        f"{step.out}: its pieces have different dtypes",
                        "Convert a checkpoint whose pieces share one dtype",
                        pieces=step.sources,
                    )
                )
            if first.dtype.name == "string" or any(e.slices for e in entries):
                writer.add(step.out, _whole(reader, step))
                continue
            shape = _merged_shape([e.shape for e in entries])
            writer.add_stream(step.out, first.dtype, shape, _chain(reader, step.sources))


def _merged_shape(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    if len(shapes) == 1:
        return shapes[0]
    return (sum(s[0] for s in shapes),) + tuple(shapes[0][1:])


def _chain(reader: CheckpointReader, names: list[str]) -> Iterator[bytes]:
    for name in names:
        yield from reader.iter_chunks(name)


def _report(reader: CheckpointReader, plan: _plan.Plan, dst: str) -> ConvertReport:
    return {
        "source": reader.prefix,
        "output": os.path.join(os.path.abspath(dst), OUTPUT_BASENAME),
        "tensors": [
            {"name": s.out, "kind": s.kind, "from": s.sources or s.note or None}
            for s in sorted(plan.steps, key=lambda s: s.out)
        ],
        "dropped": plan.dropped,
        "hyperparameters": plan.hyperparameters,
        "warnings": plan.warnings,
    }
