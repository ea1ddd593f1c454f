"""The artifacts `verify` runs: an Estimator (factory + model_dir), a SavedModel signature,
a `.keras` model, a frozen GraphDef; each as `spec()` (inputs) and `run(batch)` (outputs).

Example:
    >>> art = open_artifact("model.keras")  # doctest: +SKIP
    >>> art.run({"x": x})  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from tfport._common.errors import TfportInputError, message
from tfport._common.types import KerasModel
from tfport.verify._inputs import Batch, InputSpec, to_examples

if TYPE_CHECKING:
    from tfport.graph import Limits

FORMS = (
    "SCRIPT_OR_MODULE:FACTORY@MODEL_DIR (an Estimator), a SavedModel folder, OUT.keras, "
    "an OUT/ folder of `tfport keras export`, a frozen .pb/.pbtxt, a checkpoint (prefix or "
    "model_dir)"
)


def kind_of(path: str) -> str:
    """'estimator', 'keras', 'keras_folder', 'saved_model', 'frozen_graph' or 'checkpoint'."""
    if "@" in path and ":" in path.split("@", 1)[0]:
        return "estimator"
    if path.endswith(".keras") and os.path.isfile(path):
        return "keras"
    if os.path.isdir(path) and os.path.isfile(os.path.join(path, "saved_model.pb")):
        return "saved_model"
    if all(os.path.isfile(os.path.join(path, f)) for f in ("model.py", "model.keras")):
        return "keras_folder"
    if os.path.isfile(path) and path.endswith((".pb", ".pbtxt")):
        return "frozen_graph"
    if os.path.isfile(path + ".index") or (
        os.path.isdir(path) and os.path.isfile(os.path.join(path, "checkpoint"))
    ):
        return "checkpoint"
    raise TfportInputError(message("Unknown artifact", f"Pass one of: {FORMS}", artifact=path))


def _np(value: object) -> np.ndarray:
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def _spec_of(tensor_specs: dict[str, Any]) -> InputSpec:
    """name -> (dtype name, shape without batch); None for a shape of unknown rank."""
    return {
        name: (
            spec.dtype.name,
            None if spec.shape.rank is None else tuple(spec.shape.as_list()[1:]),
        )
        for name, spec in tensor_specs.items()
    }


def _load_failed(what: str, path: str, err: BaseException) -> TfportInputError:
    text = (str(err).strip() or type(err).__name__).splitlines()[0][:300]
    return TfportInputError(
        message(f"{what} {path}: {type(err).__name__}: {text}", "Pass an intact one", path=path)
    )


def feed(spec: InputSpec, batch: Mapping[str, np.ndarray], what: str) -> dict[str, np.ndarray]:
    """The arrays of `batch` that `spec` names (a lone input takes the lone feature)."""
    names = [k for k in batch if not k.startswith("__")]
    missing = sorted(set(spec) - set(names))
    if not missing:
        return {k: batch[k] for k in spec}
    if len(spec) == 1 and len(names) == 1:
        return {next(iter(spec)): batch[names[0]]}
    raise TfportInputError(
        message(
            f"The signatures do not match: {what} needs inputs the data does not have",
            "Pass --inputs with those features, or artifacts with the same inputs",
            missing=missing,
            available=sorted(names),
        )
    )


class Estimator:
    """An Estimator from `SCRIPT_OR_MODULE:FACTORY@MODEL_DIR`, predicting from its latest
    checkpoint."""

    kind = "estimator"

    def __init__(self, text: str) -> None:
        from tfport.verify._factory import load_estimator

        factory, model_dir = text.rsplit("@", 1)
        self.text = text
        self.estimator = load_estimator(factory, model_dir)
        self.lone = False  # its model_fn takes one tensor (set from its export's model)

    def spec(self) -> InputSpec | None:
        return None  # feature columns decide; inputs come from a file or the other side

    def run(self, batch: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        features = {k: v for k, v in batch.items() if not k.startswith("__")}
        rows = len(next(iter(features.values())))
        given = next(iter(features.values())) if self.lone and len(features) == 1 else features

        def input_fn() -> object:
            return tf.data.Dataset.from_tensor_slices(given).batch(rows)

        out = list(self.estimator.predict(input_fn))
        return {key: np.stack([np.asarray(r[key]) for r in out]) for key in out[0]}


class Keras:
    """A `.keras` file, loaded by Keras 3 with `safe_mode=True` (False only with `trust`)."""

    kind = "keras"

    def __init__(self, path: str, trust: bool = False) -> None:
        self.text = path
        self.model = _load_keras(path, safe=not trust)

    def spec(self) -> InputSpec | None:
        return self.model_spec()

    def model_spec(self) -> InputSpec:
        """The Keras model's inputs: name -> (dtype, shape without batch)."""
        return {t.name: (str(t.dtype), tuple(t.shape[1:])) for t in self.model.inputs}

    @property
    def lone(self) -> bool:
        """The model takes one plain array, not a dict (a model_fn given one tensor)."""
        return not isinstance(self.model.input, (dict, list, tuple))

    def run(self, batch: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        inputs = {k: tf.constant(v) for k, v in feed(self.model_spec(), batch, self.text).items()}
        out = self.model(next(iter(inputs.values())) if self.lone else inputs, training=False)
        return _outputs(self.model, out)


def _outputs(model: KerasModel, out: object) -> dict[str, np.ndarray]:
    """A Keras model's outputs by name (a dict as it is; else by `output_names`)."""
    if isinstance(out, dict):
        return {k: _np(v) for k, v in out.items()}
    outs = out if isinstance(out, (list, tuple)) else [out]
    names = list(getattr(model, "output_names", None) or [])
    if len(names) != len(outs):
        names = [f"output_{i}" for i in range(len(outs))]
    return {n: _np(v) for n, v in zip(names, outs)}


class SavedModel:
    """One signature of a SavedModel (a serialized tf.Example input gets tf.Examples).

    A TF2 SavedModel is loaded by `tf.saved_model.load` once the safety scan passed; a TF1
    one is rebuilt in memory by `tfport.graph` (its variables read from the bundle, its
    main_op and saver never run) unless `trust` lets TensorFlow's loader run them.
    """

    kind = "saved_model"

    def __init__(
        self,
        path: str,
        signature: str | None,
        trust: bool = False,
        limits: Limits | None = None,
        allow_ops: tuple[str, ...] = (),
    ) -> None:
        from tfport import graph
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        self.text = path
        self._keep: Any = None
        try:
            if trust or graph.is_tf2_saved_model(path):
                loaded = tf.saved_model.load(path)
                functions, self._keep = dict(loaded.signatures), loaded
            else:
                functions, self._keep = graph.load_saved_model_v1(path, allow_ops, limits)
        except TfportInputError:
            raise
        except Exception as err:  # noqa: BLE001 - a damaged SavedModel fails in many ways
            raise _load_failed("TensorFlow cannot load the SavedModel", path, err) from None
        key = signature or "serving_default"
        if key not in functions:
            raise TfportInputError(
                message(
                    f"The SavedModel has no signature {key!r}",
                    "Pass --signature-a/--signature-b with one of its signatures",
                    signatures=sorted(functions),
                )
            )
        self.fn = functions[key]
        self.text = f"{path} [{key}]"

    def _specs(self) -> list[tuple[str, Any]]:
        args, kwargs = self.fn.structured_input_signature
        named = [(spec.name, spec) for spec in args] + sorted(kwargs.items())
        return [(name.split(":")[0], spec) for name, spec in named]

    def spec(self) -> InputSpec:
        return _spec_of(dict(self._specs()))

    def _examples_input(self) -> str | None:
        spec = self.spec()
        if len(spec) == 1:
            name, (dtype, shape) = next(iter(spec.items()))
            if dtype == "string" and shape is not None and len(shape) == 0:
                return name
        return None

    def _call(self, values: dict[str, object]) -> Any:
        args, _ = self.fn.structured_input_signature
        if args:
            return self.fn(*[values[name] for name, _ in self._specs()[: len(args)]])
        return self.fn(**values)

    def run(self, batch: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        examples = self._examples_input()
        specs = dict(self._specs())
        if examples and examples not in batch:
            records = getattr(batch, "serialized", None) or to_examples(
                {k: v for k, v in batch.items() if not k.startswith("__")}
            )
            out = self._call({examples: tf.constant(records)})
        else:
            inputs = feed(self.spec(), batch, self.text)
            out = self._call({k: tf.constant(v, dtype=specs[k].dtype) for k, v in inputs.items()})
        return {k: _np(v) for k, v in out.items()}


class FrozenGraph(SavedModel):
    """A frozen GraphDef through `tfport.graph.load_frozen` (safe ops only)."""

    kind = "frozen_graph"

    def __init__(
        self,
        path: str,
        inputs: list[str] | None,
        outputs: list[str] | None,
        trust: bool = False,
        limits: Limits | None = None,
        allow_ops: tuple[str, ...] = (),
    ) -> None:
        from tfport import graph

        self.text = path
        self.fn = graph.load_frozen(path, inputs or None, outputs or None, allow_ops, trust, limits)


def _load_keras(path: str, safe: bool) -> KerasModel:
    from tfport._common.tfenv import import_tf

    import_tf()
    import keras

    try:
        return keras.models.load_model(path, safe_mode=safe)
    except Exception as err:  # noqa: BLE001 - Keras raises many kinds; each is one line
        what = "Keras (safe mode) refuses or cannot load" if safe else "Keras cannot load"
        raise _load_failed(what, path, err) from None


def _digests(files: Mapping[str, bytes]) -> dict[str, str]:
    import hashlib

    return {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}


def check_folder(path: str, trust: bool) -> dict[str, str] | None:
    """The sha256 of each code file of an export folder (`model.py`, `preprocess.py`)
    when `tfport keras export` on this machine sealed them (None with `trust`); refuses
    any other folder in one line.

    Example:
        >>> check_folder("out", trust=False)  # doctest: +SKIP
        {'model.py': '3b1f...'}
    """
    from tfport.keras import sealed_code

    if trust:
        return None
    files = sealed_code(path)
    if files is None:
        raise TfportInputError(
            message(
                f"{os.path.join(path, 'model.py')} is code that `tfport keras export` did not "
                "write on this machine (or it was edited since); verify would import it",
                "Read it, then pass --trust to import it",
                folder=path,
            )
        )
    return _digests(files)


def _export_report(folder: str) -> dict[str, Any]:
    """An export folder's report.json ({} when a folder trusted by hand has none)."""
    import json

    path = os.path.join(folder, "report.json")
    if not os.path.exists(path):
        return {}
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as err:
        raise _load_failed("Cannot read", path, err) from None
    if not isinstance(report, dict):
        raise _load_failed("Cannot read", path, ValueError("not a JSON object"))
    return report


class ExportFolder(Keras):
    """A folder `tfport keras export` wrote: its `model.py` imported (its layers register),
    then `model.keras` loaded with `safe_mode=True`; its `preprocess.py`, if any, parses the
    raw features first. Unless `trust`, the bytes imported are the ones `check_folder`
    vouched for (`sha256`: file -> digest)."""

    kind = "keras_folder"

    def __init__(
        self, path: str, trust: bool = False, sha256: Mapping[str, str] | None = None
    ) -> None:
        from tfport.keras import export_code, import_model_py

        self.text = path
        code = export_code(path)
        if not trust and _digests(code) != dict(sha256 or {}):
            raise TfportInputError(
                message(
                    f"The code of {path} changed while verify ran",
                    "Run verify again, or pass --trust",
                    folder=path,
                )
            )
        try:
            self.module = import_model_py(path, code.get("model.py", b""))
            self.preprocess = None
            if "preprocess.py" in code:
                module = import_model_py(path, code["preprocess.py"], "preprocess.py")
                self.preprocess = module.preprocess
        except Exception as err:  # noqa: BLE001 - the user's code: one line, whatever it raises
            raise _load_failed("Cannot import the code of", path, err) from None
        self.report = _export_report(path)
        self.model = _load_keras(os.path.join(path, "model.keras"), safe=True)

    def spec(self) -> InputSpec | None:
        return None if self.preprocess else super().spec()  # raw: serialized tf.Examples

    @property
    def lone(self) -> bool:
        if self.preprocess:  # the raw features preprocess.py takes
            return bool(self.report.get("preprocess", {}).get("lone"))
        return super().lone

    def run(self, batch: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        if self.preprocess is None:
            return super().run(batch)
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        raw = {k: tf.constant(v) for k, v in batch.items() if not k.startswith("__")}
        parsed = self.preprocess(next(iter(raw.values())) if self.lone else raw)
        inputs = {k: v for k, v in parsed.items() if k in {t.name for t in self.model.inputs}}
        return _outputs(self.model, self.model(inputs, training=False))


def open_artifact(
    text: str,
    signature: str | None = None,
    io: tuple[list[str] | None, list[str] | None] = (None, None),
    trust: bool = False,
    limits: Limits | None = None,
    allow_ops: tuple[str, ...] = (),
    sealed: Mapping[str, Mapping[str, str]] | None = None,
) -> Any:
    """The runnable artifact `text` names (checkpoints are diffed, not run).

    SavedModels and frozen graphs must have passed `tfport.graph.check_runnable` (the
    caller, :func:`tfport.verify.verify`, scans them before any TensorFlow runs, with
    the same `allow_ops`); export folders `check_folder` (`sealed`: folder -> {file: sha256}).
    """
    kind = kind_of(text)
    if kind == "estimator":
        return Estimator(text)
    if kind == "keras":
        return Keras(text, trust)
    if kind == "keras_folder":
        return ExportFolder(text, trust, (sealed or {}).get(text))
    if kind == "saved_model":
        return SavedModel(text, signature, trust, limits, allow_ops)
    if kind == "frozen_graph":
        return FrozenGraph(text, io[0], io[1], trust, limits, allow_ops)
    raise TfportInputError(
        message(
            "A checkpoint can only be verified against another checkpoint",
            "Pass two checkpoints, or two runnable artifacts",
            artifact=text,
        )
    )


__all__ = ["Batch", "open_artifact", "kind_of", "feed", "check_folder", "FORMS"]
