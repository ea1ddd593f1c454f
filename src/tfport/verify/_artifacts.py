"""The artifacts `verify` runs: an Estimator (factory + model_dir), a SavedModel signature,
a `.keras` model, a frozen GraphDef; each as `spec()` (inputs) and `run(batch)` (outputs).

Example:
    >>> art = open_artifact("model.keras")  # doctest: +SKIP
    >>> art.run({"x": x})  # doctest: +SKIP
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from tfport._common.errors import TfportInputError, message
from tfport.verify._inputs import Batch, to_examples

FORMS = (
    "SCRIPT_OR_MODULE:FACTORY@MODEL_DIR (an Estimator), a SavedModel folder, OUT.keras, "
    "a frozen .pb/.pbtxt, a checkpoint (prefix or model_dir)"
)


def kind_of(path: str) -> str:
    """'estimator', 'keras', 'saved_model', 'frozen_graph' or 'checkpoint'."""
    if "@" in path and ":" in path.split("@", 1)[0]:
        return "estimator"
    if path.endswith(".keras") and os.path.isfile(path):
        return "keras"
    if os.path.isdir(path) and os.path.isfile(os.path.join(path, "saved_model.pb")):
        return "saved_model"
    if os.path.isfile(path) and path.endswith((".pb", ".pbtxt")):
        return "frozen_graph"
    if os.path.isfile(path + ".index") or (
        os.path.isdir(path) and os.path.isfile(os.path.join(path, "checkpoint"))
    ):
        return "checkpoint"
    raise TfportInputError(message("Unknown artifact", f"Pass one of: {FORMS}", artifact=path))


def _np(value: Any) -> np.ndarray:
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def _spec_of(tensor_specs: dict) -> dict:
    return {
        name: (spec.dtype.name, tuple(spec.shape.as_list()[1:]))
        for name, spec in tensor_specs.items()
    }


def feed(spec: dict, batch: dict, what: str) -> dict:
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

    def spec(self) -> dict | None:
        return None  # feature columns decide; inputs come from a file or the other side

    def run(self, batch: dict) -> dict:
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        features = {k: v for k, v in batch.items() if not k.startswith("__")}
        rows = len(next(iter(features.values())))

        def input_fn():
            return tf.data.Dataset.from_tensor_slices(features).batch(rows)

        out = list(self.estimator.predict(input_fn))
        return {key: np.stack([np.asarray(r[key]) for r in out]) for key in out[0]}


class Keras:
    """A `.keras` file, loaded by Keras 3 with `safe_mode=True`."""

    kind = "keras"

    def __init__(self, path: str) -> None:
        from tfport._common.tfenv import import_tf

        import_tf()
        import keras

        self.text = path
        self.model = keras.models.load_model(path, safe_mode=True)

    def spec(self) -> dict:
        return {t.name: (str(t.dtype), tuple(t.shape[1:])) for t in self.model.inputs}

    def run(self, batch: dict) -> dict:
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        inputs = feed(self.spec(), batch, self.text)
        out = self.model({k: tf.constant(v) for k, v in inputs.items()}, training=False)
        if isinstance(out, dict):
            return {k: _np(v) for k, v in out.items()}
        outs = out if isinstance(out, (list, tuple)) else [out]
        names = list(getattr(self.model, "output_names", None) or [])
        if len(names) != len(outs):
            names = [f"output_{i}" for i in range(len(outs))]
        return {n: _np(v) for n, v in zip(names, outs)}


class SavedModel:
    """One signature of a SavedModel (a serialized tf.Example input gets tf.Examples)."""

    kind = "saved_model"

    def __init__(self, path: str, signature: str | None) -> None:
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        self.text = path
        loaded = tf.saved_model.load(path)
        key = signature or "serving_default"
        if key not in loaded.signatures:
            raise TfportInputError(
                message(
                    f"The SavedModel has no signature {key!r}",
                    "Pass --signature-a/--signature-b with one of its signatures",
                    signatures=sorted(loaded.signatures),
                )
            )
        self._loaded, self.fn = loaded, loaded.signatures[key]
        self.text = f"{path} [{key}]"

    def spec(self) -> dict:
        return _spec_of(self.fn.structured_input_signature[1])

    def _examples_input(self) -> str | None:
        spec = self.spec()
        if len(spec) == 1:
            name, (dtype, shape) = next(iter(spec.items()))
            if dtype == "string" and len(shape) == 0:
                return name
        return None

    def run(self, batch: dict) -> dict:
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        examples = self._examples_input()
        if examples and examples not in batch:
            records = getattr(batch, "serialized", None) or to_examples(
                {k: v for k, v in batch.items() if not k.startswith("__")}
            )
            out = self.fn(**{examples: tf.constant(records)})
        else:
            specs = self.fn.structured_input_signature[1]
            inputs = feed(self.spec(), batch, self.text)
            out = self.fn(**{k: tf.constant(v, dtype=specs[k].dtype) for k, v in inputs.items()})
        return {k: _np(v) for k, v in out.items()}


class FrozenGraph:
    """A frozen GraphDef through `tfport.graph.load_frozen` (safe ops only)."""

    kind = "frozen_graph"

    def __init__(self, path: str, inputs: list | None, outputs: list | None) -> None:
        from tfport import graph

        self.text = path
        self.fn = graph.load_frozen(path, inputs or None, outputs or None)

    def _specs(self) -> list:
        args, kwargs = self.fn.structured_input_signature
        named = [(spec.name, spec) for spec in args] + list(kwargs.items())
        return [(name.split(":")[0], spec) for name, spec in named]

    def spec(self) -> dict:
        return _spec_of(dict(self._specs()))

    def run(self, batch: dict) -> dict:
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        args, _ = self.fn.structured_input_signature
        specs = dict(self._specs())
        inputs = feed(self.spec(), batch, self.text)
        values = {k: tf.constant(v, dtype=specs[k].dtype) for k, v in inputs.items()}
        if args:
            out = self.fn(*[values[name] for name, _ in self._specs()[: len(args)]])
        else:
            out = self.fn(**values)
        return {k: _np(v) for k, v in out.items()}


def open_artifact(text: str, signature: str | None = None, io: tuple = (None, None)) -> Any:
    """The runnable artifact `text` names (checkpoints are diffed, not run)."""
    kind = kind_of(text)
    if kind == "estimator":
        return Estimator(text)
    if kind == "keras":
        return Keras(text)
    if kind == "saved_model":
        return SavedModel(text, signature)
    if kind == "frozen_graph":
        return FrozenGraph(text, io[0], io[1])
    raise TfportInputError(
        message(
            "A checkpoint can only be verified against another checkpoint",
            "Pass two checkpoints, or two runnable artifacts",
            artifact=text,
        )
    )


__all__ = ["Batch", "open_artifact", "kind_of", "feed", "FORMS"]
