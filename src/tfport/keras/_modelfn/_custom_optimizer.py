"""A user-written optimizer (its own `apply_gradients` assigning each variable and its
slots) as a `keras.optimizers.Optimizer` subclass in model.py that repeats its update.

For every trainable variable the new values the train op assigns (the variable's and its
slots': the other variables its update reads and the train op also writes) are written
with `keras.ops` from the leaves `gradient` (the loss's gradient, `tf.clip_by_global_norm`
of them being `global_clipnorm`), `variable`, the slots, `learning_rate` (the one tensor
read that depends on the global step alone: a schedule) and constants. Variables whose
updates are the same code form one group; with several groups (LAMB skipping weight
decay for norm and bias variables) the optimizer keeps each variable's group, decided
here from the graph, as a per-variable optimizer variable that `restore_state` sets.
Reads of a variable's state must run before the train op writes it (Keras computes every
new value from the old ones).

Example:
    >>> plan_custom(train).expression  # doctest: +SKIP
    'LAMBOptimizer(learning_rate=LearningRate(), global_clipnorm=1.0)'
"""

from __future__ import annotations

import keyword
import linecache
import re

import numpy as np

from tfport.keras._modelfn._ops import line_of, source_line
from tfport.keras._modelfn._optimizer_plan import OptimizerPlan
from tfport.keras._modelfn._optimizers_code import Writer
from tfport.keras._modelfn._optimizers_grads import variable_of
from tfport.keras._modelfn._optimizers_train import TrainGraph, ancestors, refusal
from tfport.keras._modelfn._schedules import plan_schedule
from tfport.keras._modelfn._static import TfOp, TfTensor, static

_TAKEN = {"self", "ops", "keras", "np", "index", "gradient", "variable", "learning_rate"}
_TAKEN |= {"group", "selected", "Variable", "LearningRate", "V1Momentum"}


class _Update:
    """One variable's update: its code, its slots, its gradient's clip norm."""

    def __init__(self, train: TrainGraph, name: str, lr: dict[str, TfTensor]) -> None:
        self.train, self.name, self.lr = train, name, lr
        self.slots: dict[str, str] = {}  # slot variable -> local name
        self.clip: set[float | None] = set()
        self.reads: dict[str, list[TfOp]] = {}  # variable -> its reads used
        self.step_only: dict[str, bool] = {}
        self.writer = Writer(self._leaf, refusal, train.grads.batch, train.forward)
        self.new: dict[str, str] = {}  # variable or slot -> expression of its new value
        self.leaves: set[str] = set()  # the gradient ops read

    def _leaf(self, tensor: TfTensor) -> str | None:
        op = tensor.op
        if op.name in self.train.grads.batch and op.type not in ("Const", "Shape"):
            found = self.train.grads.match(tensor)
            if found is not None:
                if found[0] != self.name:
                    raise refusal(op, f"{self.name!r}'s update reads the gradient of {found[0]!r}")
                self.clip.add(found[1])
                self.leaves.add(op.name)
                return "gradient"
            return None
        if op.type == "ReadVariableOp" or op.type == "VariableV2":
            variable = variable_of(tensor)
            if variable == self.name:
                self.reads.setdefault(variable, []).append(op)
                return "variable"
            if variable in self.train.writes and variable not in self.train.params:
                if variable not in self.train.counters:
                    self.reads.setdefault(variable, []).append(op)
                    return self._slot(variable)
        value = self.train.constant(tensor) if op.type == "ReadVariableOp" else None
        if value is not None and np.ndim(value) == 0:  # a tf_keras hyperparameter
            return repr(value.item())
        if self._depends_on_step(tensor):
            if self.lr and tensor.name not in self.lr:
                raise refusal(op, "a second tensor of the global step (one learning rate only)")
            self.lr[tensor.name] = tensor
            return "learning_rate"
        return None

    def _slot(self, variable: str) -> str:
        if variable not in self.slots:
            tail = variable[len(self.name) + 1 :] if variable.startswith(self.name + "/") else ""
            local = re.sub(r"\W+", "_", tail).strip("_").lower()
            if not local or local[0].isdigit() or local in _TAKEN or keyword.iskeyword(local):
                local = f"slot_{len(self.slots)}"
            self.slots[variable] = local
        return self.slots[variable]

    def _depends_on_step(self, tensor: TfTensor) -> bool:
        """Whether `tensor` is a function of the global step and constants only."""
        key = tensor.name
        if key not in self.step_only:
            op = tensor.op
            if self.train.is_step(tensor):
                self.step_only[key] = True
            elif op.name in self.train.grads.batch or static(tensor) is not None:
                self.step_only[key] = False
            elif op.type in ("ReadVariableOp", "VarHandleOp", "VariableV2", "Placeholder"):
                self.step_only[key] = False
            else:
                inputs = list(op.inputs)
                flags = [static(t) is not None or self._depends_on_step(t) for t in inputs]
                self.step_only[key] = (
                    bool(inputs) and all(flags) and any(self._depends_on_step(t) for t in inputs)
                )
        return self.step_only[key]

    def write(self) -> None:
        """Writes the variable's new value, then its slots' (until no new slot is read)."""
        self.new[self.name] = self._new_value(self.name)
        done: set[str] = set()
        while set(self.slots) - done:
            slot = sorted(set(self.slots) - done)[0]
            done.add(slot)
            self.new[slot] = self._new_value(slot)
        for variable, reads in self.reads.items():
            writes = self.train.writes.get(variable, [])
            # not into the forward pass nor past the gradient: the reads are the update's
            before = ancestors(writes, self.train.forward | self.leaves)
            late = [op for op in reads if op.name not in before]
            if late:
                raise refusal(
                    late[0],
                    f"a read of {variable!r} that the model_fn does not order before its "
                    "update (Keras computes every new value from the old ones)",
                )

    def _new_value(self, variable: str) -> str:
        ops = self.train.writes.get(variable, [])
        if len(ops) != 1:
            raise refusal(self.train.top, f"{variable!r} is written {len(ops)} times by the step")
        op = ops[0]
        value = self.writer.write(op.inputs[1])
        if variable == self.name:
            self.reads.setdefault(variable, [])
        own = "variable" if variable == self.name else self._slot(variable)
        if op.type.startswith("AssignSub"):
            return _line(self.writer, f"ops.subtract({own}, {value})", op)
        if op.type.startswith("AssignAdd"):
            return _line(self.writer, f"ops.add({own}, {value})", op)
        return value

    def code(self) -> str:
        """The update's code with slot names by role: equal for variables of one group."""
        roles = [f"{self.slots[s]}={self.new[s]}" for s in sorted(self.slots)]
        return "\n".join(self.writer.lines + roles + [f"variable={self.new[self.name]}"])


def _line(writer: Writer, text: str, op: TfOp) -> str:
    name = f"t{len(writer.rows)}"
    writer.lines.append(f"{name} = {text}")
    writer.rows.append({"op": op.name, "type": op.type, "to": text.split("(")[0], "line": ""})
    return name


def _class_name(op: TfOp) -> str:
    """The class around the model_fn line that built `op` (`LAMBOptimizer`), if any."""
    path, line, _ = source_line(op)
    for number in range(line, 0, -1):
        text = linecache.getline(path, number)
        found = re.match(r"class (\w+)", text)
        if found:
            name = found.group(1)
            return name if name not in _TAKEN else "ModelFnOptimizer"
        if text.strip() and not text[0].isspace() and number != line:
            break
    return "ModelFnOptimizer"


def plan_custom(train: TrainGraph) -> OptimizerPlan:
    """The plan of an optimizer made of assignments (see the module docstring).

    Raises:
        TfportInputError: an update with no exact Keras form, naming its op and line.

    Example:
        >>> plan_custom(TrainGraph(graph, train_op, loss, tvars, step)).values  # doctest: +SKIP
        {'bert/embeddings/word_embeddings': {'_group': 0}, ...}
    """
    lr: dict[str, TfTensor] = {}
    updates: dict[str, _Update] = {}
    for name in train.params:
        if name not in train.writes:
            if train.grads.fresh[train.params.index(name)] is None:
                continue  # no gradient: Keras skips it too
            raise refusal(train.top, f"the trainable variable {name!r} is not updated")
        update = _Update(train, name, lr)
        update.write()
        updates[name] = update
    if not updates:
        raise refusal(train.top, "the train op updates no trainable variable")
    clips = set().union(*(u.clip for u in updates.values()))
    first = next(iter(updates.values()))
    first_op = train.writes[first.name][0]
    if len(clips) != 1:
        reason = "gradients clipped differently for different variables"
        raise refusal(first_op, reason if clips else "an update that does not read its gradient")
    groups: dict[str, list[str]] = {}
    for name, update in updates.items():
        groups.setdefault(update.code(), []).append(name)
    roles = sorted(first.slots.values())
    for update in updates.values():
        if sorted(update.slots.values()) != roles:
            raise refusal(train.writes[update.name][0], "slots unlike the other variables'")
    train.step_of(list(lr.values()))
    schedule = plan_schedule(next(iter(lr.values())), train) if lr else None
    increment = train.increment()
    if schedule is not None and increment is None and not schedule.constant:
        raise refusal(first_op, "the learning rate reads a global step the train op keeps")
    cls = _class_name(first_op)
    source = _source(cls, roles, [updates[names[0]] for names in groups.values()], groups)
    clip = clips.pop()
    train.check_clip(clip, first_op)
    args = [f"learning_rate={schedule.expression if schedule else 0.0}"]
    if clip is not None:
        args.append(f"global_clipnorm={clip!r}")
    plan = OptimizerPlan(
        source=(schedule.source if schedule else []) + source,
        expression=f"{cls}({', '.join(args)})",
    )
    for name, update in updates.items():
        plan.slots[name] = {f"_{update.slots[s]}": s for s in update.slots}
    if len(groups) > 1:
        for index, names in enumerate(groups.values()):
            for name in names:
                plan.values[name] = {"_group": index}
    plan.iterations = train.step if increment is not None else None
    plan.report = [
        {
            "op": train.writes[n][0].name,
            "type": train.writes[n][0].type,
            "to": cls,
            "line": line_of(train.writes[n][0]),
        }
        for n in updates
    ]
    plan.report += schedule.report if schedule else []
    if increment is not None:
        plan.report.append(train.increment_row(increment, list(lr.values())))
    return plan


def _source(cls: str, roles: list[str], firsts: list[_Update], groups: dict) -> list[str]:
    """The optimizer class: `build` making the slots, `update_step` the update(s)."""
    many = len(firsts) > 1
    build = [
        f"        self._{r} = [self.add_variable_from_reference(v, {r!r}) for v in variables]"
        for r in roles
    ]
    if many:
        build.append(
            '        self._group = [self.add_variable((), initializer="zeros", '
            'dtype="int32", name="group") for v in variables]'
        )
    step = [
        "        index = self._get_variable_index(variable)",
        "        gradient = ops.cast(gradient, variable.dtype)",
        "        learning_rate = ops.cast(learning_rate, variable.dtype)",
    ]
    step += [f"        {r} = self._{r}[index]" for r in roles]
    finals: list[dict[str, str]] = []
    for number, (update, names) in enumerate(zip(firsts, groups.values(), strict=True)):
        prefix = f"g{number}_" if many else ""

        def rename(text: str, p: str = prefix) -> str:
            return re.sub(r"\bt(\d+)\b", rf"{p}t\1", text)

        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        step.append(f"        # {'group ' + str(number) + ': ' if many else ''}{shown}")
        step += [f"        {rename(line)}" for line in update.writer.lines]
        final = {update.slots[s]: rename(update.new[s]) for s in update.slots}
        final["variable"] = rename(update.new[update.name])
        finals.append(final)
    if many:
        step.append("        group = self._group[index]")
    for target in [*roles, "variable"]:
        value = finals[0][target]
        for number in range(1, len(finals)):
            value = f"ops.where(ops.equal(group, {number}), {finals[number][target]}, {value})"
        step.append(f"        self.assign({target}, {value})")
    return [
        "",
        "",
        '@keras.saving.register_keras_serializable(package="tfport_export")',
        f"class {cls}(keras.optimizers.Optimizer):",
        f'    """The model_fn\'s `{cls}` update, written with keras.ops: every variable\'s new',
        "    value and its slots' from its gradient, its value, its slots and the learning",
        '    rate, as the train op computed them."""',
        "",
        "    def __init__(self, learning_rate=0.0, **kwargs):",
        f'        kwargs.setdefault("name", {_snake(cls)!r})',
        "        super().__init__(learning_rate=learning_rate, **kwargs)",
        "",
        "    def build(self, variables):",
        "        if self.built:",
        "            return",
        "        super().build(variables)",
        *build,
        "",
        "    def update_step(self, gradient, variable, learning_rate):",
        *step,
    ]


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()
