"""Walks the legacy module tree (tests/api/estimator_modules.json) against tfport.

The data file lists every module of tensorflow-estimator 2.15.0 with the names it defines,
their signatures and the members of its classes (walked on the legacy stack). After
`tfport.install()` each module is imported under both prefixes
(`tensorflow_estimator.python.estimator.*`, `tensorflow.python.estimator.*`); every public
name is resolved and its signature compared (names, order, kinds, literal defaults;
parameters tfport adds are allowed when optional and last), and every public member of its
classes is looked up (methods' signatures compared the same way). Private names are counted.

Run as a script it prints the counts and, with `--details`, what differs.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import json
import pathlib
import re
import sys
from typing import Any

DATA = pathlib.Path(__file__).resolve().parent / "estimator_modules.json"
ROOT = "tensorflow_estimator.python.estimator"
PREFIXES = (ROOT, "tensorflow.python.estimator")


@dataclasses.dataclass
class Report:
    """Counts and differences of one walk."""

    modules: int = 0
    modules_ok: int = 0
    public: int = 0
    public_ok: int = 0
    members: int = 0
    members_ok: int = 0
    private: int = 0
    private_present: int = 0
    private_ok: int = 0
    private_members: int = 0
    private_members_ok: int = 0
    problems: list = dataclasses.field(default_factory=list)
    private_problems: list = dataclasses.field(default_factory=list)

    def counts(self) -> dict:
        lists = ("problems", "private_problems")
        return {k: v for k, v in dataclasses.asdict(self).items() if k not in lists}


def load() -> dict:
    return json.loads(DATA.read_text())["modules"]


def parse_signature(text: str) -> list[tuple[str, str, Any]] | None:
    """`[(name, kind, default)]` of a signature string; default `...` when absent.

    Defaults that are not literals (`<function f at 0x..>`) become the string `"<object>"`.
    """
    text = re.sub(r"<[^<>]*>", "'<object>'", text.split(" -> ")[0])
    try:
        fn = ast.parse(f"def f{text}: pass").body[0]
    except SyntaxError:
        return None
    a = fn.args
    out: list[tuple[str, str, Any]] = []
    positional = a.posonlyargs + a.args
    defaults = [...] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults)):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        out.append((arg.arg, kind, _literal(default)))
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", ...))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, "KEYWORD_ONLY", _literal(default)))
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", ...))
    return out


def _literal(node: Any) -> Any:
    if node is ... or node is None:
        return ...
    try:
        return ast.literal_eval(node)
    except ValueError:
        return "<object>"


def actual_signature(obj: Any) -> list[tuple[str, str, Any]] | None:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    out = []
    for p in sig.parameters.values():
        default = ... if p.default is inspect.Parameter.empty else p.default
        if default is not ... and not isinstance(default, (int, float, str, bool, type(None))):
            if not isinstance(default, (tuple, list, dict, frozenset, set)):
                default = "<object>"
        out.append((p.name, p.kind.name, default))
    return out


def compare(want: list | None, got: list | None) -> list[str]:
    """Differences between a legacy signature and tfport's (added optional tail allowed)."""
    if want is None or [k for _, k, _ in want] == ["VAR_POSITIONAL", "VAR_KEYWORD"]:
        return []  # legacy accepts anything (an abstract class's `(*args, **kwargs)`)
    if got is None:
        return ["no signature"]
    diffs = []
    for i, (name, kind, default) in enumerate(want):
        if i >= len(got):
            diffs.append(f"missing parameter {name}")
            continue
        g_name, g_kind, g_default = got[i]
        if g_name != name:
            diffs.append(f"parameter {i}: {g_name} instead of {name}")
        elif g_kind != kind and not (kind == "POSITIONAL_OR_KEYWORD" and g_kind == "KEYWORD_ONLY"):
            diffs.append(f"{name}: kind {g_kind} instead of {kind}")
        elif (default is ...) != (g_default is ...):
            diffs.append(f"{name}: default {g_default!r} instead of {default!r}")
        elif default != "<object>" and g_default != "<object>" and default != g_default:
            diffs.append(f"{name}: default {g_default!r} instead of {default!r}")
    for name, kind, default in got[len(want) :]:
        if default is ... and kind not in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            diffs.append(f"extra required parameter {name}")
    return diffs


def _raw_member(cls: Any, name: str) -> Any:
    for klass in inspect.getmro(cls):
        if name in vars(klass):
            raw = vars(klass)[name]
            return raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
    return getattr(cls, name)


def _signature_diffs(obj: Any, spec: dict) -> list[str]:
    if spec.get("kind") == "property" or "signature" not in spec or not callable(obj):
        return []
    return compare(parse_signature(spec["signature"]), actual_signature(obj))


def _check_private_members(
    report: Report, where: str, cls: Any, members: dict, every: bool = False
) -> None:
    """Legacy's private members of a class (`every`: all members of a private class):
    present, with legacy's signature."""
    for member, spec in members.items():
        if not (every or member.startswith("_")) or member.startswith("__"):
            continue
        report.private_members += 1
        if not hasattr(cls, member):
            report.private_problems.append(f"{where}.{member}: missing member")
            continue
        diffs = _signature_diffs(_raw_member(cls, member), spec)
        if diffs:
            report.private_problems.append(f"{where}.{member}: {diffs}")
        else:
            report.private_members_ok += 1


def _constant(text: str) -> Any:
    """A constant's recorded repr as a value (`set()` included), or `...` when not literal."""
    if text == "set()":
        return set()
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return ...


def _check_private(report: Report, where: str, obj: Any, entry: dict) -> None:
    """A private name present: legacy's signature (a literal constant: legacy's value), and
    its class's private members."""
    diffs = []
    if entry["kind"] in ("class", "function") and "signature" in entry:
        diffs = _signature_diffs(obj, entry) if callable(obj) else ["not callable"]
    elif entry["kind"] == "constant" and "value" in entry:
        want = _constant(entry["value"])
        if want is not ... and (want != obj or type(want) is not type(obj)):
            diffs = [f"value {obj!r} instead of {want!r}"]
    if diffs:
        report.private_problems.append(f"{where}: {diffs}")
    else:
        report.private_ok += 1
    if entry["kind"] == "class" and inspect.isclass(obj):
        _check_private_members(report, where, obj, entry.get("members", {}), every=True)


def _check_class(report: Report, where: str, cls: Any, members: dict) -> None:
    _check_private_members(report, where, cls, members)
    for member, spec in members.items():
        if member.startswith("_"):
            continue
        report.members += 1
        if not hasattr(cls, member):
            report.problems.append(f"{where}.{member}: missing member")
            continue
        diffs = []
        if spec.get("kind") != "property" and "signature" in spec:
            raw = _raw_member(cls, member)
            if callable(raw):
                diffs = compare(parse_signature(spec["signature"]), actual_signature(raw))
        if diffs:
            report.problems.append(f"{where}.{member}: {diffs}")
        else:
            report.members_ok += 1


def _check_name(report: Report, where: str, obj: Any, entry: dict) -> None:
    diffs = []
    if entry["kind"] in ("class", "function") and "signature" in entry:
        if not callable(obj):
            diffs = [f"not callable ({type(obj).__name__})"]
        else:
            diffs = compare(parse_signature(entry["signature"]), actual_signature(obj))
    if diffs:
        report.problems.append(f"{where}: {diffs}")
    else:
        report.public_ok += 1
    if entry["kind"] == "class" and "members" in entry:
        if inspect.isclass(obj):
            _check_class(report, where, obj, entry["members"])
        else:
            report.problems.append(f"{where}: not a class")


def walk(modules: dict | None = None) -> Report:
    """Imports every listed module at both prefixes and checks its names."""
    report = Report()
    for path, names in sorted((modules or load()).items()):
        for prefix in PREFIXES:
            full = prefix + path[len(ROOT) :]
            report.modules += 1
            try:
                module = importlib.import_module(full)
            except ImportError as e:
                report.problems.append(f"{full}: import failed: {str(e)[:200]}")
                continue
            report.modules_ok += 1
            for name, entry in names.items():
                if name.startswith("_"):
                    report.private += 1
                    if hasattr(module, name):
                        report.private_present += 1
                        _check_private(report, f"{full}.{name}", getattr(module, name), entry)
                    else:
                        report.private_problems.append(f"{full}.{name}: missing")
                    continue
                report.public += 1
                try:
                    obj = getattr(module, name)
                except AttributeError:
                    report.problems.append(f"{full}.{name}: missing")
                    continue
                _check_name(report, f"{full}.{name}", obj, entry)
    return report


def main(argv: list[str]) -> int:
    import tfport

    tfport.install()
    report = walk()
    if "--details" in argv:
        for line in report.problems:
            if "tensorflow.python.estimator" not in line.split(":")[0] or "--all" in argv:
                print(line)
    if "--json" in argv:
        out = {
            "counts": report.counts(),
            "problems": report.problems,
            "private_problems": report.private_problems,
        }
        pathlib.Path(argv[argv.index("--json") + 1]).write_text(json.dumps(out))
    print(json.dumps(report.counts()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
