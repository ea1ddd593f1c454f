"""Walks the legacy public API listing (legacy/api/legacy_api.json) against tfport.

Each listed path (`tf.estimator.DNNClassifier`, `tf.compat.v1.estimator.inputs.numpy_input_fn`,
...) is resolved on the installed `tensorflow` after `tfport.install()`; for classes and
functions the signature is compared (names, order, kinds, default reprs; parameters tfport
adds are allowed when optional and last), and for classes every listed member is looked up.

Run as a script it prints the counts; `python tests/api/api_walk.py --markdown FILE` writes
the supported-API matrix of the docs.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import pathlib
import re
import sys
from typing import Any

REPO = pathlib.Path(__file__).resolve().parents[2]
LISTING = REPO / "legacy" / "api" / "legacy_api.json"


@dataclasses.dataclass
class Finding:
    """What the walk found for one listed path."""

    path: str
    kind: str
    present: bool
    signature_diffs: list[str] = dataclasses.field(default_factory=list)
    missing_members: list[str] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.present and not self.signature_diffs and not self.missing_members


def load_listing() -> dict:
    return json.loads(LISTING.read_text())["symbols"]


def resolve(tf: Any, path: str) -> Any:
    obj: Any = tf
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _params(obj: Any) -> list[tuple[str, str, str | None]] | None:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [
        (
            p.name,
            p.kind.name,
            None if p.default is inspect.Parameter.empty else _default_repr(p.default),
        )
        for p in sig.parameters.values()
    ]


def _default_repr(value: Any) -> str:
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return f"<function {value.__name__}>"
    return _norm(repr(value))


def compare_signature(want: list, got: list | None) -> list[str]:
    """Differences between a listed signature and tfport's (added optional tail allowed)."""
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
        elif (default is None) != (g_default is None):
            diffs.append(f"{name}: default {g_default} instead of {default}")
        elif default is not None and _norm(default) != _norm(g_default):
            diffs.append(f"{name}: default {g_default} instead of {default}")
    for name, kind, default in got[len(want) :]:
        if default is None and kind not in ("VAR_POSITIONAL", "VAR_KEYWORD"):
            diffs.append(f"extra required parameter {name}")
    return diffs


def _norm(text: str) -> str:
    """A default's repr without memory addresses (`<object object at 0x...>`)."""
    if text.startswith("<function "):
        return text.split(" at ")[0].rstrip(">") + ">"
    return re.sub(r" at 0x[0-9a-f]+", "", text)


# Paths of the listing that issue 15 (LinearSDCA, RNN*, KMeans, logit-fn builders, the TPU
# embedding spec) provides; its engineer removes each from here when it lands.
PENDING_ISSUE_15: frozenset = frozenset()
# The one name tfport adds on purpose: `tf.estimator.inputs`, the TF 1.x path.
ADDED_ON_PURPOSE = frozenset({"tf.estimator.inputs"})


def extra_names(tf: Any) -> list[str]:
    """Public names of the listed modules that the listing lacks (leaks)."""
    listing = load_listing()
    extras = []
    for path, entry in sorted(listing.items()):
        if entry["kind"] != "module":
            continue
        try:
            module = resolve(tf, path)
        except (AttributeError, ImportError):
            continue
        for name in dir(module):
            full = f"{path}.{name}"
            if name.startswith("_") or full in listing or full in ADDED_ON_PURPOSE:
                continue
            extras.append(full)
    return extras


def walk(tf: Any) -> list[Finding]:
    findings = []
    for path, entry in sorted(load_listing().items()):
        kind = entry["kind"]
        try:
            obj = resolve(tf, path)
        except (AttributeError, ImportError):
            findings.append(Finding(path, kind, False))
            continue
        finding = Finding(path, kind, True)
        if kind in ("class", "function") and isinstance(entry.get("sig"), list):
            want = [tuple(p) for p in entry["sig"] if isinstance(p, list) and len(p) == 3]
            finding.signature_diffs = compare_signature(want, _params(obj))
        for member, spec in entry.get("members", {}).items():
            if not hasattr(obj, member):
                finding.missing_members.append(member)
            elif isinstance(spec, dict) and isinstance(spec.get("sig"), list):
                want = [tuple(p) for p in spec["sig"] if isinstance(p, list) and len(p) == 3]
                got = _params(inspect.getattr_static(obj, member))
                finding.signature_diffs += [f"{member}: {d}" for d in compare_signature(want, got)]
        findings.append(finding)
    return findings


def counts(findings: list[Finding]) -> dict:
    calls = [f for f in findings if f.kind in ("class", "function")]
    return {
        "paths": len(findings),
        "present": sum(f.present for f in findings),
        "classes_and_functions": len(calls),
        "classes_and_functions_present": sum(f.present for f in calls),
        "signature_differences": sum(len(f.signature_diffs) for f in findings),
        "missing_members": sum(len(f.missing_members) for f in findings),
        "fully_ok": sum(f.ok for f in findings),
    }


def markdown(findings: list[Finding]) -> str:
    c = counts(findings)
    lines = [
        "# Supported legacy API",
        "",
        "Generated by `tests/api/api_walk.py --markdown docs/api-matrix.md` from the listing of",
        "the legacy public API (TF 2.15.1 + tensorflow-estimator 2.15.0, `legacy/api/`): every",
        "path resolved on TensorFlow 2.21 after `tfport.install()`.",
        "",
        f"{c['present']} of {c['paths']} paths present; {c['fully_ok']} with the legacy",
        f"signature and every member; {c['signature_differences']} signature differences,",
        f"{c['missing_members']} missing members.",
        "",
        "| path | kind | status |",
        "|---|---|---|",
    ]
    for f in findings:
        if f.ok:
            status = "yes"
        elif not f.present:
            status = "missing"
        else:
            notes = f.signature_diffs[:2] + [f"no `{m}`" for m in f.missing_members[:3]]
            status = "partial: " + "; ".join(notes).replace("|", "/")
        lines.append(f"| `{f.path}` | {f.kind} | {status} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    import tfport

    tfport.install()
    import tensorflow as tf

    findings = walk(tf)
    if argv[:1] == ["--details"]:
        for f in findings:
            if not f.ok:
                print(
                    f.path, "missing" if not f.present else "", f.signature_diffs, f.missing_members
                )
        print("extra names:", extra_names(tf))
    if len(argv) == 2 and argv[0] == "--markdown":
        pathlib.Path(argv[1]).write_text(markdown(findings))
    print(json.dumps(counts(findings), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
