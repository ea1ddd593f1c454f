"""The optimizer of a model_fn's TRAIN graph as Keras 3 code (`--training` exports).

`plan_optimizer` reads what the EstimatorSpec's train op runs: TensorFlow's fused update
ops (`ResourceApplyMomentum`, `ResourceApplyAdam`, ...: `_optimizers_builtin`) become the
Keras 3 optimizer with the same update; a user-written optimizer (its own
`apply_gradients` assigning new values: LAMB, BERT's AdamWeightDecay) becomes a
`keras.optimizers.Optimizer` subclass repeating its update (`_custom_optimizer`). The
learning rate, a function of the global step, is a schedule (`_schedules`); the global
step's increment by the train op is Keras's `iterations`; `tf.clip_by_global_norm` of the
gradients is `global_clipnorm`. The tensors the updates read as gradients must be the
loss's gradients (`_optimizers_grads`). Anything else is refused in one line naming the op
and its model_fn line.

Example:
    >>> plan = plan_optimizer(graph, spec.train_op, spec.loss, trainable, step)  # doctest: +SKIP
    >>> plan.expression  # doctest: +SKIP
    'V1Momentum(learning_rate=keras.optimizers.schedules.ExponentialDecay(...), momentum=0.9)'
"""

from __future__ import annotations

from tfport.keras._modelfn._custom_optimizer import plan_custom
from tfport.keras._modelfn._ops import line_of
from tfport.keras._modelfn._optimizer_plan import OptimizerPlan
from tfport.keras._modelfn._optimizers_builtin import (
    KERAS,
    REFUSED,
    hyperparameters,
    plan_fused,
    slot_keys,
)
from tfport.keras._modelfn._optimizers_grads import variable_of
from tfport.keras._modelfn._optimizers_train import TrainGraph, refusal
from tfport.keras._modelfn._schedules import plan_schedule
from tfport.keras._modelfn._static import TfOp, TfTensor
from tfport.keras._modelfn._trace import TfGraph

_APPLY_PREFIXES = ("Apply", "ResourceApply", "SparseApply", "ResourceSparseApply")


def plan_optimizer(
    graph: TfGraph, train_op: object, loss: TfTensor, trainable: list, global_step: object
) -> OptimizerPlan:
    """The Keras 3 optimizer doing what `train_op` does to `trainable`, as model.py code.

    Args:
        graph: the model_fn's graph, traced in TRAIN mode.
        train_op: the EstimatorSpec's train op (an Operation or a Tensor).
        loss: the EstimatorSpec's loss tensor.
        trainable: the trainable variables (`tf.compat.v1.trainable_variables()`).
        global_step: the global step variable.

    Returns:
        The plan: `source`, `expression`, `slots` (by graph variable), `iterations`.

    Raises:
        TfportInputError: an update with no exact Keras 3 form, naming its op and line.

    Example:
        >>> plan_optimizer(graph, spec.train_op, spec.loss, tvars, step).slots  # doctest: +SKIP
        {'logits/kernel': {'_accumulations': 'logits/kernel/Momentum'}, ...}
    """
    train = TrainGraph(graph, train_op, loss, trainable, global_step)
    fused = [
        op
        for op in graph.get_operations()
        if op.name in train.ran and op.type.startswith(_APPLY_PREFIXES)
    ]
    if fused:
        return _plan_fused(train, fused)
    return plan_custom(train)


def _power_of_step(tensor: TfTensor, train: TrainGraph) -> bool:
    """Whether `tensor` is `pow(beta, cast(step + 1))` (tf_keras Adam, as Keras 3's)."""
    op = tensor.op
    if op.type != "Pow":
        return False
    exponent = op.inputs[1].op
    if exponent.type != "Cast" or exponent.inputs[0].op.type not in ("AddV2", "Add"):
        return False
    a, b = exponent.inputs[0].op.inputs
    one = [train.constant(t) for t in (a, b)]
    return (train.is_step(a) and one[1] is not None and float(one[1]) == 1.0) or (
        train.is_step(b) and one[0] is not None and float(one[0]) == 1.0
    )


def _plan_fused(train: TrainGraph, applied: list[TfOp]) -> OptimizerPlan:
    first = applied[0]
    for op in applied:
        if op.type not in KERAS:
            reason = REFUSED.get(op.type, "a fused update op with no Keras 3 optimizer here")
            raise refusal(op, reason)
        if op.type != first.type:
            raise refusal(op, f"a second optimizer ({op.type} beside {first.type})")
    fused = KERAS[first.type]
    by_variable = {variable_of(op.inputs[0]): op for op in applied}
    extra = sorted(set(by_variable) - set(train.params))
    if extra:
        raise refusal(by_variable[extra[0]], f"it updates {extra[0]!r}, not a trainable variable")
    hyper = hyperparameters(first, fused, train.constant)
    if fused.keras.endswith("Adam") and hyper.get("nesterov"):
        raise refusal(first, "Adam with use_nesterov (Keras 3's Adam has none)")
    lr = first.inputs[fused.lr]
    clips: set[float | None] = set()
    plan_slots: dict[str, dict[str, str]] = {}
    powers: dict[str, float] = {}
    counted: list[TfTensor] = []
    for name in train.params:
        op = by_variable.get(name)
        if op is None and train.grads.fresh[train.params.index(name)] is None:
            continue  # no gradient: neither optimizer updates it
        if op is None:
            raise refusal(train.top, f"the trainable variable {name!r} is not updated")
        if len(train.writes.get(name, [])) or len(applied) != len(by_variable):
            raise refusal(op, f"{name!r} is also written by another op")
        mine = hyperparameters(op, fused, train.constant)
        if None in mine.values():
            raise refusal(op, f"hyperparameters {mine} (None: not a constant)")
        if mine != hyper:
            raise refusal(op, f"hyperparameters {mine} unlike {hyper} (one optimizer, one set)")
        if op.inputs[fused.lr].name != lr.name:
            raise refusal(op, "a learning rate of its own (Keras has one per optimizer)")
        clips.add(train.gradient(op.inputs[fused.grad], name, op))
        plan_slots[name] = slot_keys(op, fused, hyper)
        if fused.keras.endswith("Adam"):
            for i, beta in ((3, "beta_1"), (4, "beta_2")):
                key = variable_of(op.inputs[i])
                if key:  # TF1: variables multiplied by beta once per step
                    powers[key] = float(hyper[beta] or 0.0)
                elif _power_of_step(op.inputs[i], train):  # tf_keras: beta ** (step + 1)
                    counted.append(op.inputs[i])
                else:
                    raise refusal(op, "Adam's beta power is neither TF1's nor tf_keras's")
    if len(clips) > 1:
        raise refusal(first, "gradients clipped differently for different variables")
    train.check_clip(next(iter(clips)), first)
    train.step_of([lr, *counted])
    schedule = plan_schedule(lr, train)
    increment = train.increment()
    if increment is None and (powers or counted or not schedule.constant):
        raise refusal(first, "the learning rate or Adam reads a global step the train op keeps")
    plan = plan_fused(first.type, schedule.expression, hyper, clips.pop())
    plan.source += schedule.source
    plan.slots = plan_slots
    plan.beta_powers = powers
    plan.iterations = train.step if increment is not None else None
    keras = plan.expression.split("(")[0]
    plan.report = [
        {"op": op.name, "type": op.type, "to": keras, "line": line_of(op)} for op in applied
    ]
    plan.report += schedule.report
    if increment is not None:
        plan.report.append(train.increment_row(increment, [lr]))
    return plan
