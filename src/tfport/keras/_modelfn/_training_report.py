"""A `--training` export's model compiled as `model.py` says, its optimizer state set from
the checkpoint (`restore_state`), and report.json's `training` section.

Example:
    >>> section = compile_restored(module, model, plan, traced, training, ckpt)  # doctest: +SKIP
    >>> section["optimizer"]["expression"]  # doctest: +SKIP
    'keras.optimizers.SGD(learning_rate=0.1)'
"""

from __future__ import annotations

import types
from typing import cast

from tfport._common.errors import TfportInputError, message
from tfport._common.types import KerasModel, KerasTrainingOptimizer, KerasVariable
from tfport.checkpoint import CheckpointReader
from tfport.keras._modelfn._optimizer_plan import restore_state
from tfport.keras._modelfn._trace import Traced
from tfport.keras._modelfn._training_source import Training
from tfport.keras._modelfn._walk import Plan


def weight_index(plan: Plan, traced: Traced) -> dict[str, list]:
    """{graph variable: [layer, index in layer.weights, checkpoint key]}."""
    found: dict[str, list] = {}
    for layer, names in plan.layers.items():
        for i, name in enumerate(names):
            found[name] = [layer, i, traced.checkpoint_keys.get(name, name)]
    return found


def compile_restored(
    module: types.ModuleType,
    model: KerasModel,
    plan: Plan,
    traced: Traced,
    training: Training,
    checkpoint: str,
) -> dict:
    """`module.compile_model(model)`, the optimizer built and its state read from the
    checkpoint; returns report.json's `training` section.

    Raises:
        TfportInputError: the optimizer's slots name variables the model does not hold,
            or the checkpoint lacks them.
    """
    module.compile_model(model)
    optimizer = cast(KerasTrainingOptimizer, model.optimizer)
    optimizer.build(model.trainable_variables)
    index = weight_index(plan, traced)
    unknown = sorted(set(training.optimizer.slots) - set(index))
    if unknown:
        raise TfportInputError(
            message(
                "The optimizer has slots for variables the Keras model does not hold",
                "Export a model_fn whose trained variables are all read in PREDICT mode",
                variables=unknown,
            )
        )
    variables = {
        name: cast(KerasVariable, model.get_layer(layer).weights[i])
        for name, (layer, i, _) in index.items()
    }
    with CheckpointReader(checkpoint) as reader:
        shapes = restore_state(optimizer, variables, training.optimizer, reader)
    matched = training.matched
    labels = matched.train.labels
    return {
        "loss": {
            "function": "model_fn_loss",
            "outputs": dict(sorted(training.loss_inputs.items())),
            "features": matched.features_read,
            "ops": training.rows,
        },
        "labels": [labels.dtype.name, labels.shape.as_list()[1:]],
        "features_tensor": traced.single,
        "optimizer": {
            "expression": training.optimizer.expression,
            "class": type(optimizer).__name__,
            "iterations": training.optimizer.iterations,
            "needs_tensorflow": training.optimizer.needs_tensorflow,
        },
        "slots": training.optimizer.slots,
        "state_shapes": shapes,
        "regularizers": matched.l2,
        "dropouts": {name: rate for name, (rate, _) in matched.dropouts.items()},
        "batch_norms": training.batch_norms,
        "weights": index,
        "ops": [*matched.report, *training.optimizer.report],
    }
