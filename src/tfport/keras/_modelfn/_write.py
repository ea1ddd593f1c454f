"""Writes an export folder atomically: model.py, model.weights.h5, model.keras, report.json.

The folder is built in a temporary sibling and renamed into place; `model.py` is imported
from there (so what is written is what was checked), its model gets the checkpoint's
values, and both Keras files are saved from it.

Example:
    >>> write_folder(plan, traced, "ckpt-40", "out", "t.py:f", False)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
import types
import uuid
from collections.abc import Sequence

import numpy as np

from tfport._common.atomic import refuse_existing
from tfport._common.errors import TfportInputError, message
from tfport._common.types import KerasModel
from tfport.checkpoint import CheckpointReader
from tfport.keras._modelfn._check import check_backends, docstring_line
from tfport.keras._modelfn._emit import Plan
from tfport.keras._modelfn._parsing import Parsed, preprocess_source
from tfport.keras._modelfn._seal import seal_of
from tfport.keras._modelfn._source import formatted, model_source
from tfport.keras._modelfn._trace import Traced
from tfport.keras._modelfn._training_report import compile_restored
from tfport.keras._modelfn._training_source import Training

FILES = ("model.py", "model.weights.h5", "model.keras", "report.json")  # + preprocess.py


def import_model_py(
    folder: str, source: bytes | None = None, file: str = "model.py"
) -> types.ModuleType:
    """Imports `folder/model.py` (or `file`) under a private module name (its layers
    register); runs `source` when given (the bytes a caller checked), not what the file
    holds by then.

    Example:
        >>> import_model_py("out").build_model()  # doctest: +SKIP
    """
    name = f"tfport_export_{uuid.uuid4().hex}"
    path = os.path.join(folder, file)
    if source is None:
        with open(path, "rb") as f:
            source = f.read()
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module
    try:
        exec(compile(source, path, "exec"), module.__dict__)  # noqa: S102 - the export's code
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _set_weights(model: KerasModel, plan: Plan, traced: Traced, checkpoint: str) -> dict[str, list]:
    shapes = {}
    with CheckpointReader(checkpoint) as reader:
        for layer_name, names in plan.layers.items():
            names = [traced.checkpoint_keys.get(n, n) for n in names]
            missing = [n for n in names if n not in reader]
            if missing:
                raise TfportInputError(
                    message(
                        "The checkpoint lacks variables the model_fn reads",
                        "Pass the checkpoint this Estimator wrote (--checkpoint)",
                        checkpoint=reader.prefix,
                        missing=missing,
                    )
                )
            values = [np.asarray(reader.read(n)) for n in names]
            model.get_layer(layer_name).set_weights(plan.convert.get(layer_name, list)(values))
            shapes.update(
                {n: list(v.shape) for n, v in zip(plan.layers[layer_name], values, strict=True)}
            )
    return shapes


def _report(plan: Plan, traced: Traced, checkpoint: str, shapes: dict) -> dict:
    variables = {}
    for name, entry in sorted(plan.variables.items()):
        variables[name] = {**entry, "shape": shapes[name]} if name in shapes else entry
    return {
        "checkpoint": checkpoint,
        "inputs": {k: [t.dtype.name, t.shape.as_list()[1:]] for k, t in traced.features.items()},
        "outputs": sorted(traced.predictions),
        "variables": variables,
        "ops": plan.ops,
    }


def write_folder(
    plan: Plan,
    traced: Traced,
    checkpoint: str,
    out: str,
    factory: str,
    overwrite: bool,
    backends: Sequence[str] = ("tensorflow",),
    parsed: Parsed | None = None,
    training: Training | None = None,
) -> dict:
    """Builds OUT in a temporary sibling, checks it on `backends`, then renames it into
    place; returns the report (with `training`: the model compiled, its optimizer state
    from the checkpoint)."""
    refuse_existing(out, overwrite)
    out = os.path.abspath(out)
    parent = os.path.dirname(out)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".tfport-{os.path.basename(out)}-", dir=parent)
    try:
        first = model_source(plan, traced, factory, training).encode()
        with open(os.path.join(tmp, "model.py"), "wb") as f:
            f.write(first)
        module = import_model_py(tmp, first)
        model = module.build_model()
        shapes = _set_weights(model, plan, traced, checkpoint)
        model.save_weights(os.path.join(tmp, "model.weights.h5"))
        section = None
        if training is not None:
            section = compile_restored(module, model, plan, traced, training, checkpoint)
        model.save(os.path.join(tmp, "model.keras"))
        checked = check_backends(model, traced, checkpoint, tmp, backends, plan.needs_tensorflow)
        preprocess = parsed is not None
        source = model_source(
            plan, traced, factory, training, checked=docstring_line(checked), preprocess=preprocess
        )
        code = {"model.py": source.encode()}  # the same code, its docstring saying what was checked
        if parsed is not None:
            code["preprocess.py"] = formatted(preprocess_source(parsed, factory)).encode()
        for name, data in code.items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
        report = _report(plan, traced, checkpoint, shapes)
        if parsed is not None:
            report["preprocess"] = {"lone": parsed.lone, "parsed": parsed.specs}
        if section is not None:
            report["training"] = section
        report.update(checked=checked, seal=seal_of(code))
        with open(os.path.join(tmp, "report.json"), "w") as f:
            json.dump(report, f, indent=1, sort_keys=True)
            f.write("\n")
        _replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return report


def _replace(tmp: str, out: str) -> None:
    """Renames tmp to out; an existing out (--overwrite) is moved aside first."""
    old = None
    if os.path.lexists(out):
        old = tempfile.mkdtemp(prefix=f".tfport-old-{os.path.basename(out)}-", dir=tmp + "/..")
        os.replace(out, os.path.join(old, "out"))
    os.replace(tmp, out)
    if old is not None:
        with contextlib.suppress(OSError):
            shutil.rmtree(old)
