"""Builds the rule table (`_rules.json`) from `tf_upgrade_v2`'s spec and the installed TF.

Run after a TensorFlow upgrade (a test checks that the committed table is what this
module builds on the installed TensorFlow)::

    python -m tfport.upgrade._rules_build          # writes _rules.json and docs/upgrade-rules.md

Decision for every TF 1.x name `tf.X` that `tf_upgrade_v2` handles (rename, keyword
renames, argument reorders, call transformers, warnings):

- `tf.X` on TF 2.21 is the very object `tf.compat.v1.X`: nothing is rewritten ("same");
- `tf_upgrade_v2` only renames it, to an object that *is* `tf.compat.v1.X`: that rename
  is kept ("exact: the same object");
- otherwise, when `tf.compat.v1.X` exists, the call site becomes `tf.compat.v1.X` with
  its arguments untouched ("exact: the TF 1.x symbol"); `tf_upgrade_v2`'s rule is not
  applied, and why (measured on random inputs for the families that change numbers);
- with no `tf.compat.v1.X` on TF 2.21, `tf_upgrade_v2`'s rule is kept and is not exact:
  each use is a WARNING;
- `tf.contrib` rules are dropped: tfport's own table (:mod:`._contrib_table`) decides.

Besides, every TF 1.x function `tf.X` that TF 2.x still has under the same name as
another function (v2 semantics, e.g. `tf.image.resize`) gets `tf.X -> tf.compat.v1.X`
("drift"): code that needs an upgrade at all is TF 1.x code, and meant the TF 1.x one.

Example:
    >>> callable(build_rules)
    True
"""

from __future__ import annotations

import inspect
import json
import os
import sys
from typing import Any, cast

from tfport._common.types import TFModule, UpgradeSpec
from tfport.upgrade._contrib_table import lookup, manual_fix
from tfport.upgrade._rules import RULES_PATH, render_markdown

_TABLES = (
    ("symbol_renames", "renamed to {}"),
    ("function_transformers", "call rewritten"),
    ("function_keyword_renames", "keywords renamed {}"),
    ("function_reorders", "positional arguments made keywords"),
    ("function_arg_warnings", "argument warning"),
    ("function_warnings", "warning only"),
)
_SKIP_TREES = ("keras", "estimator", "compat", "contrib", "lite", "_api", "experimental")
_GENERIC = (
    "its TF 2 target is another function (other defaults, arguments or op names); "
    "not proven equal, so the TF 1.x symbol is used"
)


def _get(tf: TFModule, path: str) -> Any:
    obj = tf
    for part in path.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - lazy loaders fail in many ways
            return None
    return obj


def _describe(spec: UpgradeSpec, name: str) -> str:
    parts = []
    for table, text in _TABLES:
        value = getattr(spec, table).get(name)
        if value is None:
            continue
        if table == "symbol_renames":
            parts.append(text.format(value))
        elif table == "function_keyword_renames":
            parts.append(text.format(", ".join(f"{k}->{v}" for k, v in sorted(value.items()))))
        else:
            parts.append(text)
    return "; ".join(parts)


def _pure_rename(spec: UpgradeSpec, name: str) -> bool:
    return name in spec.symbol_renames and not any(
        name in getattr(spec, table) for table, _ in _TABLES[1:5]
    )


def _rule(tf: TFModule, spec: UpgradeSpec, name: str, measured: dict[str, str]) -> dict[str, Any]:
    upstream = _describe(spec, name)
    entry = {"name": name, "upstream": upstream}
    if name.startswith(("tf.contrib", "tf.compat")) or not name.startswith("tf."):
        keep = name.endswith(("make_one_shot_iterator", "make_initializable_iterator"))
        if keep:
            why = "tf.compat.v1.data.make_*_iterator(ds) calls the same Dataset method"
            return {**entry, "action": "keep", "target": "", "exact": True, "why": why}
        if name in spec.function_warnings and not _rewrites(spec, name):
            why = _contrib_warning(name)
            return {**entry, "action": "keep", "target": "", "exact": True, "why": why}
        why = "tf.contrib is tfport's contrib table's (same numbers and variable names)"
        return {**entry, "action": "drop", "target": "", "exact": True, "why": why}
    rest = name[len("tf.") :]
    v1, v2 = _get(tf, "tf.compat.v1." + rest), _get(tf, name)
    if v1 is None and not _rewrites(spec, name):
        why = "a warning only: nothing is rewritten"
        return {**entry, "action": "keep", "target": "", "exact": True, "why": why}
    if v1 is None:
        why = (
            "TF 2.21 has no tf.compat.v1 form to run the original with: tf_upgrade_v2's rule "
            "is kept and its difference cannot be measured here; check this call's numbers"
        )
        return {**entry, "action": "keep", "target": "", "exact": False, "why": why}
    if v2 is v1:
        why = "the same object on TF 2.21: no rewrite needed"
        return {**entry, "action": "drop", "target": "", "exact": True, "why": why}
    target = spec.symbol_renames.get(name)
    if _pure_rename(spec, name) and _get(tf, cast(str, target)) is v1:  # a rename: a str
        why = f"{target} is the same object as tf.compat.v1.{rest}"
        if target == f"tf.compat.v1.{rest}":
            why = "the TF 1.x symbol itself (tf_upgrade_v2's rename)"
        return {**entry, "action": "rename", "target": target, "exact": True, "why": why}
    why = "the TF 1.x symbol itself; tf_upgrade_v2's rule not applied: "
    why += measured.get(name, _GENERIC)
    return {
        **entry,
        "action": "rename",
        "target": f"tf.compat.v1.{rest}",
        "exact": True,
        "why": why,
    }


def _contrib_warning(name: str) -> str:
    """What the report says of a `tf.contrib` name `tf_upgrade_v2` only warns about: an
    ERROR with its manual fix where tfport's contrib table has no mapping for it (the
    `tf.contrib.opt` optimizers, also as `contrib_opt.X` after `from tensorflow.contrib
    import opt as contrib_opt`)."""
    canonical = "tf.contrib." + name[len("contrib_") :] if name.startswith("contrib_") else name
    if canonical.startswith("tf.contrib.") and lookup(canonical) is None:
        return "an ERROR in the report (manual work): " + manual_fix(canonical)
    return "a warning only: nothing is rewritten"


def _rewrites(spec: UpgradeSpec, name: str) -> bool:
    return any(name in getattr(spec, table) for table, _ in _TABLES[:5])


def _drift(tf: TFModule, known: set[str]) -> list[dict[str, Any]]:
    """TF 1.x functions whose name TF 2.x reuses for another function."""
    rules = []
    seen: set[int] = set()
    stack = [("tf", tf.compat.v1)]
    while stack:
        path, module = stack.pop()
        if id(module) in seen:
            continue
        seen.add(id(module))
        for attr in sorted(dir(module)):
            if attr.startswith("_") or attr in _SKIP_TREES:
                continue
            try:
                obj = getattr(module, attr)
            except Exception:  # noqa: BLE001
                continue
            name = f"{path}.{attr}"
            if inspect.ismodule(obj):
                if obj.__name__.startswith("tensorflow._api.v2.compat.v1"):
                    stack.append((name, obj))
                continue
            if name in known or inspect.isclass(obj) or not callable(obj):
                continue
            v2 = _get(tf, name)
            if v2 is None or inspect.isclass(v2) or inspect.ismodule(v2):
                continue
            if inspect.unwrap(v2) is inspect.unwrap(obj):  # one function, other export wrapper
                continue
            rules.append(
                {
                    "name": name,
                    "upstream": "",
                    "action": "rename",
                    "target": "tf.compat.v1." + name[3:],
                    "exact": True,
                    "why": (
                        f"TF 2.x's {name} is another function (v2 semantics); "
                        "TF 1.x code meant the TF 1.x symbol"
                    ),
                }
            )
    return rules


def build_rules(measured: bool = True) -> list[dict[str, Any]]:
    """Returns the rule table for the installed TensorFlow (imports it).

    Args:
        measured: measure tf_upgrade_v2's rewrites for the `why` texts (False: generic texts).
    """
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    _ = tf.compat.v1.layers  # loads tf_keras: tf.compat.v1.layers / nn.rnn_cell need it
    from tensorflow.tools.compatibility import tf_upgrade_v2

    from tfport.upgrade._rules_measure import measure

    spec = tf_upgrade_v2.TFAPIChangeSpec()
    names: set[str] = set()
    for table, _ in _TABLES:
        names.update(getattr(spec, table))
    texts = measure(tf) if measured else {}
    rules = [_rule(tf, spec, name, texts) for name in sorted(names)]
    rules += _drift(tf, names)
    return sorted(rules, key=lambda r: r["name"])


def main(argv: list[str] | None = None) -> int:
    """Writes `_rules.json` (and `docs/upgrade-rules.md` when given a docs folder)."""
    argv = sys.argv[1:] if argv is None else argv
    rules = build_rules()
    with open(RULES_PATH, "w") as f:
        json.dump(rules, f, indent=0, sort_keys=True)
        f.write("\n")
    if argv:
        with open(os.path.join(argv[0], "upgrade-rules.md"), "w") as f:
            f.write(render_markdown(rules))
    print(f"{len(rules)} rules -> {RULES_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
