"""`model.py`: the text of the Keras 3 module an export writes.

Example:
    >>> text = model_source(plan, traced, "train.py:make_estimator")  # doctest: +SKIP
    >>> "def build_model()" in text  # doctest: +SKIP
    True
"""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
import textwrap

from tfport.keras._modelfn._emit import Plan
from tfport.keras._modelfn._trace import Traced
from tfport.keras._modelfn._training_source import Training, training_text, uses_numpy

_VARIABLE_CLASS = '''

@keras.saving.register_keras_serializable(package="tfport_export")
class Variable(layers.Layer):
    """A model_fn variable read outside a built-in layer: its value, as a weight.

    Called on any model input (to join the functional graph); returns the value.
    """

    def __init__(self, shape, **kwargs):
        super().__init__(**kwargs)
        self.value_shape = tuple(shape)
        self.value = self.add_weight(shape=self.value_shape, initializer="zeros", name="value")

    def call(self, anchor):
        return ops.convert_to_tensor(self.value)

    def compute_output_spec(self, anchor):
        return keras.KerasTensor(self.value_shape, dtype=self.dtype)

    def get_config(self):
        return {**super().get_config(), "shape": list(self.value_shape)}
'''


def _origin(traced: Traced) -> str:
    fn = traced.model_fn
    name = getattr(fn, "__qualname__", type(fn).__name__)
    try:
        path = inspect.getsourcefile(fn) or "?"
        line = inspect.getsourcelines(fn)[1]
    except (OSError, TypeError):
        return f"`{name}`"
    return f"`{name}` ({os.path.basename(path)}:{line})"


_TRAINING_DOC = [
    "",
    "Exported for training (`--training`): `build_model()` returns a `TrainableModel`",
    "whose `fit(features, labels)` minimizes the model_fn's loss (`model_fn_loss`, also",
    "reading the extra outputs {extra}), with the model_fn's L2 terms as the layers'",
    "regularizers, its dropouts as `Dropout` layers and its batch norms' momenta;",
    "`compile_model(model)` compiles it with the model_fn's optimizer. `model.keras` is",
    "saved compiled, with the optimizer's state from the checkpoint:",
    '`keras.saving.load_model("model.keras").fit(...)` continues the training.',
]


def model_source(
    plan: Plan,
    traced: Traced,
    factory: str,
    training: Training | None = None,
    *,
    checked: str = "",
    preprocess: bool = False,
) -> str:
    """The module text: imports, the `Variable` layer when used, and `build_model()`
    (with `training`: also what `fit` needs, see `_training_source`); `checked` (the
    backends the export was checked on) goes to its docstring, and, with `preprocess`, that
    `preprocess.py` parses its inputs."""
    extra = training.outputs if training is not None else {}
    everything = {**plan.outputs, **extra}
    outputs = (
        next(iter(plan.outputs.values()))
        if traced.single_output and not extra
        else "{" + ", ".join(f"{k!r}: {v}" for k, v in everything.items()) + "}"
    )
    inputs = (
        next(iter(plan.inputs.values()))[0]
        if traced.single
        else "{" + ", ".join(f"{k!r}: {v}" for k, (v, _) in plan.inputs.items()) + "}"
    )
    head = [
        f'"""Keras 3 model of the model_fn {_origin(traced)}, exported by `tfport keras export '
        f"{factory}`.",
        "",
        "`build_model()` returns the functional model; `model.weights.h5` holds the",
        "checkpoint's values. Edit freely: this file is yours.",
    ]
    if training is not None:
        named = ", ".join(f"`{k}`" for k in extra) or "(none)"
        head += [line.replace("{extra}", named) for line in _TRAINING_DOC]
    if preprocess:
        head += [
            "",
            "Its inputs are what the model_fn parsed from serialized tf.Examples:",
            "`preprocess.py` (TensorFlow) parses them; `model(preprocess(features))`.",
        ]
    if checked:
        head += ["", *textwrap.wrap(checked, 88)]
    if plan.needs_tensorflow:
        head += [
            "",
            "Needs the TensorFlow backend (KERAS_BACKEND=tensorflow): its preprocessing",
            "layers (string lookups, hashing) run TensorFlow ops.",
        ]
    head += [
        '"""',
        "",
        "import keras",
    ]
    if plan.uses_numpy or (training is not None and uses_numpy(training)):
        head.append("import numpy as np")  # isort: after `import keras`, before `from`
    head.append("from keras import layers, ops")
    body = [
        "",
        "",
        "def build_model():",
        '    """The functional `keras.Model` computing the model_fn\'s PREDICT outputs."""',
    ]
    if plan.needs_tensorflow:
        body += [
            '    if keras.backend.backend() != "tensorflow":',
            '        raise RuntimeError("This model needs KERAS_BACKEND=tensorflow")',
        ]
    body += [f"    {var} = {src}" for var, src in plan.inputs.values()]
    body += [f"    {line}" for line in plan.lines]
    model_class = "keras.Model" if training is None else "TrainableModel"
    body.append(f"    return {model_class}(inputs={inputs}, outputs={outputs})")
    text = "\n".join(head) + (_VARIABLE_CLASS if plan.uses_variable else "")
    text += "".join(plan.classes)
    if training is not None:
        text += training_text(training, _origin(traced))
    text += "\n".join(body)
    return formatted(text + "\n")


def formatted(text: str) -> str:
    """`ruff format` of the text when ruff is installed (the text is valid either way).

    Example:
        >>> formatted("x  =  1\\n")  # doctest: +SKIP
        'x = 1\\n'
    """
    ruff = shutil.which("ruff") or os.path.join(os.path.dirname(sys.executable), "ruff")
    if not os.path.exists(ruff):
        return text
    proc = subprocess.run(
        [ruff, "format", "--isolated", "-"], input=text, capture_output=True, text=True
    )
    return proc.stdout if proc.returncode == 0 else text
