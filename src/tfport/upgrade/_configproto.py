"""`ConfigProto` / `GPUOptions` device settings -> `tf.config` calls.

Converted when, in one block, ``NAME = tf.ConfigProto(...)`` (and its
``NAME.x = ...`` / ``NAME.gpu_options.x = ...`` follow-ups) only sets
`allow_growth`, `log_device_placement`, `allow_soft_placement` or the GPU entry
of `device_count`, and
NAME is only passed on as ``config=NAME`` / ``session_config=NAME``: the
assignment becomes `tf.config` calls and those arguments are dropped. Anything
else (other fields, `per_process_gpu_memory_fraction`, which has no `tf.config`
equivalent, other uses) keeps the ConfigProto, which still works with
`tf.compat.v1.Session` on TF 2.21, and gives a WARNING report item.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import libcst as cst
import libcst.matchers as m

from tfport.upgrade._base import Pass
from tfport.upgrade._names import Aliases, name_uses
from tfport.upgrade._report import INFO, WARNING

CONFIG = ("tf.ConfigProto", "tf.compat.v1.ConfigProto")
GPU_OPTIONS = ("tf.GPUOptions", "tf.compat.v1.GPUOptions")
SESSION_KEYWORDS = ("config", "session_config")
ADVICE = (
    "on TF 2 use tf.config.experimental.set_memory_growth, tf.config.set_visible_devices, "
    "tf.debugging.set_log_device_placement"
)
_CODE = cst.Module([])


class Unsupported(Exception):
    """The ConfigProto does more than the settings tfport converts."""


@dataclasses.dataclass
class _Plan:
    name: str
    settings: list[tuple[str, cst.BaseExpression]] = dataclasses.field(default_factory=list)
    remove: set[int] = dataclasses.field(default_factory=set)


def _assigned_call(stmt: cst.CSTNode) -> tuple[str, cst.Call] | None:
    pattern = m.SimpleStatementLine(
        body=[m.Assign(targets=[m.AssignTarget(target=m.Name())], value=m.Call())]
    )
    if not m.matches(stmt, pattern):
        return None
    assign = stmt.body[0]  # type: ignore[attr-defined]  # the matcher checked it
    return assign.targets[0].target.value, assign.value


class ConfigProtoPass(Pass):
    """Turns device-only session configs into `tf.config` calls, or reports them."""

    TRIGGERS = ("ConfigProto",)

    def __init__(self, aliases: Aliases) -> None:
        super().__init__(aliases)
        self._all: list[cst.Call] = []
        self._seen: set[cst.Call] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if self.aliases.canonical(node.func) in CONFIG:
            self._all.append(node)

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        return updated_node.with_changes(body=self._block(original_node.body, updated_node.body))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = self._block(original_node.body, updated_node.body)
        for call in self._all:
            if call not in self._seen:
                self.report(call, WARNING, f"ConfigProto kept (not assigned to a name); {ADVICE}")
        return updated_node.with_changes(body=body)

    def _block(
        self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]
    ) -> list[cst.BaseStatement]:
        plans: dict[int, tuple[_Plan, list[cst.BaseStatement]]] = {}
        for index, stmt in enumerate(original):
            found = _assigned_call(stmt)
            if found is None or self.aliases.canonical(found[1].func) not in CONFIG:
                continue
            self._seen.add(found[1])
            try:
                plan = self._plan(original, index, *found)
                plans[index] = (plan, self._emit(plan))
            except Unsupported as why:
                self.report(stmt, WARNING, f"ConfigProto kept ({why}); {ADVICE}")
                continue
            self.report(stmt, INFO, "ConfigProto device settings -> tf.config calls")
        return _apply(list(updated), plans) if plans else list(updated)

    def _plan(
        self, body: Sequence[cst.BaseStatement], index: int, name: str, call: cst.Call
    ) -> _Plan:
        plan = _Plan(name)
        for arg in call.args:
            self._setting(plan, body, index, arg)
        for later in range(index + 1, len(body)):
            setting = _follow_up(body[later], name)
            if setting is not None:
                plan.settings.append(setting)
                plan.remove.add(later)
        skip = plan.remove | {index}
        uses = sum(name_uses(s, name) for i, s in enumerate(body) if i not in skip)
        passed = m.Arg(keyword=m.OneOf(*map(m.Name, SESSION_KEYWORDS)), value=m.Name(name))
        allowed = sum(len(m.findall(s, passed)) for i, s in enumerate(body) if i not in skip)
        if uses != allowed:
            raise Unsupported(f"'{name}' is used for more than config=/session_config=")
        return plan

    def _setting(
        self, plan: _Plan, body: Sequence[cst.BaseStatement], index: int, arg: cst.Arg
    ) -> None:
        key = arg.keyword.value if arg.keyword else None
        if key in ("log_device_placement", "allow_soft_placement", "device_count"):
            plan.settings.append((key, arg.value))
        elif key == "gpu_options":
            plan.settings.extend(self._gpu_options(plan, body, index, arg.value))
        else:
            raise Unsupported(f"sets {key or 'a positional argument'}")

    def _gpu_options(
        self, plan: _Plan, body: Sequence[cst.BaseStatement], index: int, value: cst.BaseExpression
    ) -> list[tuple[str, cst.BaseExpression]]:
        if isinstance(value, cst.Name):
            for earlier in range(index - 1, -1, -1):
                found = _assigned_call(body[earlier])
                if found and found[0] == value.value:
                    uses = sum(name_uses(s, value.value) for s in body)
                    if uses != 2:
                        raise Unsupported(f"'{value.value}' is used elsewhere")
                    plan.remove.add(earlier)
                    value = found[1]
                    break
        if not isinstance(value, cst.Call) or self.aliases.canonical(value.func) not in GPU_OPTIONS:
            raise Unsupported("gpu_options is not a GPUOptions(...) call")
        return [
            (f"gpu_options.{a.keyword.value if a.keyword else '?'}", a.value) for a in value.args
        ]

    def _emit(self, plan: _Plan) -> list[cst.BaseStatement]:
        tf = self.aliases.local_for("tf")
        if tf is None:
            raise Unsupported("no `import tensorflow` to call tf.config with")
        return [cst.parse_statement(_line(tf, key, value)) for key, value in plan.settings]


def _apply(
    body: Sequence[cst.BaseStatement], plans: dict[int, tuple[_Plan, list[cst.BaseStatement]]]
) -> list[cst.BaseStatement]:
    removed = set().union(*(plan.remove for plan, _ in plans.values()))
    removers = [_DropConfigArgs(plan.name) for plan, _ in plans.values()]
    out = []
    for i, stmt in enumerate(body):
        if i in plans:
            new = plans[i][1]
            if new:
                new[0] = new[0].with_changes(
                    leading_lines=stmt.leading_lines  # type: ignore[attr-defined]  # all have
                )
            out.extend(new)
        elif i not in removed:
            for remover in removers:
                stmt = stmt.visit(remover)  # type: ignore[assignment]  # edits calls only
            out.append(stmt)
    return out


def _follow_up(stmt: cst.CSTNode, name: str) -> tuple[str, cst.BaseExpression] | None:
    if not m.matches(stmt, m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget()])])):
        return None
    assign = stmt.body[0]  # type: ignore[attr-defined]  # the matcher checked it
    target = assign.targets[0].target
    if m.matches(target, m.Subscript(value=m.Attribute(value=m.Name(name), attr=m.Name()))):
        key = _CODE.code_for_node(target)[len(name) + 1 :]
        return key.replace("'", '"'), assign.value
    if not m.matches(target, m.Attribute(value=m.Name(name) | m.Attribute(value=m.Name(name)))):
        return None
    return _CODE.code_for_node(target)[len(name) + 1 :], assign.value


def _line(tf: str, key: str, value: cst.BaseExpression) -> str:
    code = _CODE.code_for_node(value)
    if key == "log_device_placement":
        return f"{tf}.debugging.set_log_device_placement({code})\n"
    if key == "allow_soft_placement":
        return f"{tf}.config.set_soft_device_placement({code})\n"
    if key == "gpu_options.allow_growth":
        return (
            f'for _gpu in {tf}.config.list_physical_devices("GPU"):\n'
            f"    {tf}.config.experimental.set_memory_growth(_gpu, {code})\n"
        )
    if key == 'device_count["GPU"]':
        return _gpu_count(tf, code)
    if key == "device_count" and isinstance(value, cst.Dict):
        return _device_count(tf, value)
    if key == "gpu_options.per_process_gpu_memory_fraction":
        raise Unsupported(
            "per_process_gpu_memory_fraction has no tf.config equivalent: "
            "tf.config.set_logical_device_configuration takes memory_limit in MB"
        )
    raise Unsupported(f"sets {key}")


def _device_count(tf: str, value: cst.Dict) -> str:
    entries = {}
    for element in value.elements:
        if not isinstance(element, cst.DictElement) or not isinstance(
            element.key, cst.SimpleString
        ):
            raise Unsupported("device_count is not a literal dict")
        entries[element.key.evaluated_value] = _CODE.code_for_node(element.value)
    if set(entries) != {"GPU"}:
        raise Unsupported(f"device_count sets {sorted(set(entries) - {'GPU'})}")
    return _gpu_count(tf, entries["GPU"])


def _gpu_count(tf: str, code: str) -> str:
    if code == "0":
        return f'{tf}.config.set_visible_devices([], "GPU")\n'
    gpus = f'{tf}.config.list_physical_devices("GPU")[:{code}]'
    return f'{tf}.config.set_visible_devices({gpus}, "GPU")\n'


class _DropConfigArgs(cst.CSTTransformer):
    """Removes ``config=NAME`` / ``session_config=NAME`` arguments."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        pattern = m.Arg(keyword=m.OneOf(*map(m.Name, SESSION_KEYWORDS)), value=m.Name(self.name))
        args = [arg for arg in updated_node.args if not m.matches(arg, pattern)]
        if len(args) == len(updated_node.args):
            return updated_node
        if (
            args
            and len(args) < len(updated_node.args)
            and m.matches(updated_node.args[-1], pattern)
        ):
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(args=args)
