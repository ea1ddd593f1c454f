"""Loads name-based or object-based checkpoints into Keras 3, tf_keras or `tf.Module` models.

Keras 3 cannot read a TF1 checkpoint (`tf.train.Checkpoint(model).restore(...)`
restores nothing and raises nothing); here values are read with the TF-free
reader and assigned eagerly to the variables matched by `_mapping`.

Example:
    >>> restore(model, "model_dir")  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import shutil
from collections.abc import Callable
from typing import Any

from tfport._common import outputs
from tfport._common.errors import TfportInputError, message, os_error
from tfport._common.types import PortableModel
from tfport.checkpoint._errors import MappingError
from tfport.checkpoint._inspect import classify
from tfport.checkpoint._mapping import Match, match
from tfport.checkpoint._paths import data_path
from tfport.checkpoint._reader import CheckpointReader
from tfport.checkpoint._reports import PortReport


def _variables(model: PortableModel) -> list[tuple[str, Any]]:
    """(path, variable) in creation order for Keras 3, tf_keras or tf.Module models."""
    weights = getattr(model, "weights", None)
    if weights is None:
        weights = list(model.variables)
    if not weights:
        raise MappingError(
            message(
                "The model has no variables yet",
                "Build it first (call it on an input or pass input_shape)",
                model=type(model).__name__,
            )
        )
    out, seen = [], set()
    for var in weights:
        path = getattr(var, "path", None) or var.name
        path = path.removesuffix(":0")
        while path in seen:
            path += "_"
        seen.add(path)
        out.append((path, var))
    return out


def _match(
    model: PortableModel, reader: CheckpointReader, overrides: dict[str, str] | None
) -> tuple[Match, dict[str, Any]]:
    variables = _variables(model)
    infos = classify(reader.names())
    ckpt = {n: reader.entry(n).shape for n, i in infos.items() if i.group == "model_weights"}
    found = match([(p, tuple(v.shape)) for p, v in variables], ckpt, overrides)
    return found, dict(variables)


def assignment_map(
    model: PortableModel, ckpt: str, overrides: dict[str, str] | None = None
) -> PortReport:
    """Matches checkpoint names to `model`'s variables.

    Args:
        model: a Keras 3 model, a tf_keras model or a `tf.Module` (built).
        ckpt: checkpoint prefix, model_dir or `checkpoint` file.
        overrides: {checkpoint name: model variable path} applied first.

    Returns:
        {"map": {ckpt name: model path}, "mapping": [{checkpoint, model, how}],
        "unmatched_model": [...], "unused": [...], "ambiguous": [...]}.
    """
    with CheckpointReader(ckpt) as reader:
        found, _ = _match(model, reader, overrides)
    return _report(found)


def _report(found: Match) -> PortReport:
    return {
        "map": found.as_map(),
        "mapping": found.pairs,
        "unmatched_model": found.unmatched_model,
        "unused": found.unused_checkpoint,
        "ambiguous": found.ambiguous,
    }


def restore(
    model: PortableModel, ckpt: str, assignment_map: dict[str, str] | None = None
) -> PortReport:
    """Assigns the checkpoint's weights to `model`'s variables, eagerly.

    Raises:
        MappingError: a model variable has no checkpoint value, or shapes differ.
    """
    with CheckpointReader(ckpt) as reader:
        found, variables = _match(model, reader, assignment_map)
        bad = [p for p in found.pairs if "MISMATCH" in p["how"]]
        if found.unmatched_model or bad:
            raise MappingError(
                message(
                    f"Cannot map checkpoint {reader.prefix} onto the model",
                    "Pass an assignment map (--map JSON) for these variables",
                    unmatched=found.unmatched_model,
                    shape_mismatch=[p["model"] for p in bad],
                    unused=found.unused_checkpoint,
                )
            )
        for pair in found.pairs:
            value = reader.read(pair["checkpoint"])
            variables[pair["model"]].assign(value)
    return _report(found)


def load_factory(spec: str) -> Callable[[], PortableModel]:
    """Imports `MODULE:FACTORY` (a dotted module or a `.py` path) and returns FACTORY."""
    module_name, _, attr = spec.rpartition(":")
    if not module_name or not attr:
        raise TfportInputError(message("--model must be MODULE:FACTORY", None, model=spec))
    try:
        if module_name.endswith(".py"):
            loaded: Any = importlib.util.spec_from_file_location("tfport_user_model", module_name)
            module = importlib.util.module_from_spec(loaded)
            loaded.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
        return getattr(module, attr)
    except (ImportError, AttributeError, FileNotFoundError) as err:
        raise TfportInputError(
            message(f"Cannot load the model factory ({err})", "Check MODULE:FACTORY", model=spec)
        ) from None


def port(
    src: str,
    model: str,
    to: str,
    out: str,
    map_file: str | None = None,
    overwrite: bool = False,
    dry_run: bool = False,
) -> PortReport:
    """Builds the model from `model` (MODULE:FACTORY), restores `src`, saves to `out`.

    `to` is "keras-weights" (a `.weights.h5`) or "tf-checkpoint" (an object-based
    TF2 checkpoint prefix). Output is written atomically. With `dry_run`, only
    the mapping is computed and returned (`complete` says whether it covers
    every model variable); its `map` can be edited and passed back as `map_file`.
    """
    if to not in ("keras-weights", "tf-checkpoint"):
        raise TfportInputError(message("Unknown --to", None, to=to))
    if to == "keras-weights" and not out.endswith(".weights.h5"):
        raise TfportInputError(message("Keras weights files end with .weights.h5", None, out=out))
    overrides = _load_map(map_file)
    reader = CheckpointReader(src)  # validate before any TensorFlow import
    reader.close()
    if not dry_run:
        targets = [out] if to == "keras-weights" else [out + ".index", data_path(out, 0, 1)]
        for target in targets:
            outputs.check_output(
                target, reader.files, overwrite=overwrite, is_kind=os.path.isfile, kind="file"
            )
    built = load_factory(model)()
    if dry_run:
        report = assignment_map(built, src, overrides)
        report["complete"] = not report["unmatched_model"]
        report["output"] = None
        return report
    report = restore(built, src, overrides)
    _save(built, to, out)
    report["output"] = out
    return report


def _load_map(path: str | None) -> dict[str, str] | None:
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as err:
        raise TfportInputError(message(f"Cannot read --map ({err})", None, map=path)) from None
    if not isinstance(data, dict):
        raise TfportInputError(message("--map must be a JSON object", None, map=path))
    return data


def _save(model: PortableModel, to: str, out: str) -> None:
    folder = os.path.dirname(os.path.abspath(out))
    try:
        os.makedirs(folder, exist_ok=True)
        outputs.clean_stale(folder)
        tmp = os.path.join(folder, outputs.temp_name("port"))
        os.mkdir(tmp)
    except OSError as err:
        raise os_error(err, f"Cannot write {out}") from None
    try:
        if to == "keras-weights":
            path = os.path.join(tmp, "model.weights.h5")
            model.save_weights(path)
            os.replace(path, out)
            return
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        written = tf.train.Checkpoint(model=model).write(os.path.join(tmp, "ckpt"))
        base = os.path.basename(written)
        names = sorted(os.listdir(tmp), key=lambda n: n.endswith(".index"))  # index last
        for name in names:
            os.replace(os.path.join(tmp, name), out + name[len(base) :])
    except OSError as err:
        raise os_error(err, f"Cannot write {out}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
