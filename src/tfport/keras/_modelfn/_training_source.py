"""What `model.py` holds for `fit` (`--training`): the model as a `TrainableModel` whose
`compute_loss` is the model_fn's loss, regularizers and batch-norm momenta on its layers,
the optimizer, and `compile_model(model)`.

Example:
    >>> training = prepare_training(traced, plan, matched, optimizer)  # doctest: +SKIP
    >>> training.outputs  # doctest: +SKIP
    {'logits': 'logits_out'}
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from tfport.keras._modelfn._optimizer_plan import OptimizerPlan
from tfport.keras._modelfn._trace import Traced
from tfport.keras._modelfn._training import Matched
from tfport.keras._modelfn._training_loss import loss_lines
from tfport.keras._modelfn._walk import Plan, refusal

_BATCH_NORM = "layers.BatchNormalization("
_ROLES = ("kernel", "bias", "gamma", "beta", "embeddings", "depthwise_kernel", "pointwise_kernel")

BATCH_NORM_CLASS = '''

@keras.saving.register_keras_serializable(package="tfport_export")
class FusedBatchNormalization(layers.BatchNormalization):
    """BatchNormalization that trains as TensorFlow's fused batch norm did: the batch is
    normalized by its variance, the moving variance takes it times n / (n - 1) (n values
    per channel), both statistics as `moving -= (moving - batch) * (1 - momentum)`.
    """

    def call(self, inputs, training=None, mask=None):
        if not (training and self.trainable) or mask is not None:
            return super().call(inputs, training=training, mask=mask)
        x = ops.cast(inputs, "float32")
        mean, variance = self._moments(x, None)
        n = ops.cast(ops.size(x), "float32") / x.shape[self.axis]
        unbiased = variance * n / ops.maximum(n - 1.0, 1.0)
        decay = 1.0 - self.momentum
        for moving, batch in ((self.moving_mean, mean), (self.moving_variance, unbiased)):
            moving.assign(moving - (moving - batch) * decay)
        gamma = ops.cast(self.gamma, x.dtype) if self.scale else None
        beta = ops.cast(self.beta, x.dtype) if self.center else None
        outputs = ops.batch_normalization(
            x, mean, variance, axis=self.axis, offset=beta, scale=gamma, epsilon=self.epsilon
        )
        return ops.cast(outputs, self.compute_dtype)
'''

_MODEL_CLASS = '''

@keras.saving.register_keras_serializable(package="tfport_export")
class TrainableModel(keras.Model):
    """The functional model; `fit(features, labels)` minimizes `model_fn_loss` plus the
    layers' regularizers (the model_fn's L2 terms). The model_fn's loss weighs no samples:
    give weights by editing `model_fn_loss`, not to `fit`.
    """

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        if sample_weight is not None:
            raise ValueError(
                "The model_fn's loss takes no sample weights; weigh examples in "
                "model_fn_loss (model.py) instead. Received: sample_weight"
            )
        loss = model_fn_loss(x, y, y_pred)
        for extra in self.losses:
            loss = ops.add(loss, extra)
        return loss
'''


@dataclasses.dataclass
class Training:
    """The parts of model.py and report.json that `--training` adds."""

    matched: Matched
    optimizer: OptimizerPlan
    outputs: dict[str, str]  # model outputs added for the loss: key -> build_model variable
    loss_inputs: dict[str, str]  # cut tensor -> model output key
    loss: list[str]  # body of model_fn_loss
    rows: list[dict]  # report rows of the loss ops
    uses_numpy: bool
    batch_norms: dict[str, dict]  # layer -> {"momentum", "tf_fused_variance"}


def _output_keys(traced: Traced, plan: Plan, matched: Matched) -> tuple[dict, dict]:
    by_tensor = {t.name: k for k, t in traced.predictions.items()}
    taken = set(traced.predictions)
    outputs: dict[str, str] = {}
    keys: dict[str, str] = {}
    for name in matched.cut:
        if name not in plan.tensors:
            op = matched.train.graph.get_tensor_by_name(name).op
            raise refusal(op, "the loss reads it inside a Keras layer (no model output form)")
        if name in by_tensor:
            keys[name] = by_tensor[name]
            continue
        var = plan.tensors[name]
        key = var.removesuffix("_out")
        key = key if key not in taken else var
        taken.add(key)
        outputs[key] = var
        keys[name] = key
    return outputs, keys


def _edit_layer(plan: Plan, layer: str, edit: Callable[[str], str]) -> None:
    """Applies `edit(line) -> line` to the line that creates `layer`."""
    marker = f"name={layer!r})("
    for i, line in enumerate(plan.lines):
        if marker in line:
            plan.lines[i] = edit(line)
            return
    raise KeyError(layer)


def _apply(plan: Plan, matched: Matched) -> dict[str, dict]:
    """Writes the L2 regularizers and the batch norms' momenta into the layer lines."""
    graph = matched.train.graph
    for variable, l2 in sorted(matched.l2.items()):
        entry = plan.variables.get(variable, {})
        role = entry.get("weight")
        if "layer" not in entry or role not in _ROLES or entry.get("also"):
            op = graph.get_operation_by_name(variable)
            raise refusal(op, "an L2 term on a variable no built-in Keras layer holds alone")
        argument = f"{role}_regularizer=keras.regularizers.L2({l2!r}), name="

        def add(line: str, argument: str = argument, layer: str = entry["layer"]) -> str:
            return line.replace(f"name={layer!r})(", f"{argument}{layer!r})(", 1)

        _edit_layer(plan, entry["layer"], add)
    layers: dict[str, dict] = {}
    for norm in matched.norms:
        entry = plan.variables.get(norm.moving_mean, {})
        if "layer" not in entry or entry.get("weight") != "moving_mean":
            raise refusal(
                norm.ops[0], "batch normalization in training mode that is no Keras layer"
            )
        kind = "FusedBatchNormalization(" if norm.fused else _BATCH_NORM

        def swap(line: str, kind: str = kind, momentum: float = norm.momentum) -> str:
            return line.replace(_BATCH_NORM, f"{kind}momentum={momentum!r}, ", 1)

        _edit_layer(plan, entry["layer"], swap)
        layers[entry["layer"]] = {"momentum": norm.momentum, "tf_fused_variance": norm.fused}
    return layers


def prepare_training(
    traced: Traced, plan: Plan, matched: Matched, optimizer: OptimizerPlan
) -> Training:
    """Edits `plan`'s layer lines for training; returns what model.py adds.

    Raises:
        TfportInputError: a loss input or L2 term with no Keras form (op and line named).
    """
    outputs, keys = _output_keys(traced, plan, matched)
    batch_norms = _apply(plan, matched)
    inputs = {name: f"outputs[{key!r}]" for name, key in keys.items()}
    lines, rows, uses_numpy = loss_lines(matched, inputs, traced.single)
    return Training(matched, optimizer, outputs, keys, lines, rows, uses_numpy, batch_norms)


def training_text(training: Training, origin: str) -> str:
    """The top-level code model.py adds: classes, `model_fn_loss`, the optimizer."""
    fused = any(v["tf_fused_variance"] for v in training.batch_norms.values())
    text = BATCH_NORM_CLASS if fused else ""
    for block in training.optimizer.source:
        text += "\n\n" + block.strip("\n") + "\n"
    text += _MODEL_CLASS
    reads = ", ".join(f"`{k}`" for k in sorted(set(training.loss_inputs.values())))
    body = [
        "",
        "",
        "def model_fn_loss(features, labels, outputs):",
        '    """The loss of the model_fn in TRAIN mode, from the labels and the model\'s',
        f"    outputs {reads}; its L2 terms are the layers' regularizers.",
        "",
        f"    model_fn: {origin}.",
        '    """',
        *(f"    {line}" for line in training.loss),
        "",
        "",
        "def build_optimizer():",
        '    """The model_fn\'s optimizer (its state comes with model.keras)."""',
        f"    return {training.optimizer.expression}",
        "",
        "",
        "def compile_model(model):",
        '    """Compiles `build_model()` for `fit` with the model_fn\'s optimizer."""',
        "    model.compile(optimizer=build_optimizer())",
        "    return model",
        "",
    ]
    return text + "\n".join(body)


def uses_numpy(training: Training) -> bool:
    source = "\n".join([*training.optimizer.source, training.optimizer.expression])
    return training.uses_numpy or bool(re.search(r"\bnp\.", source))
