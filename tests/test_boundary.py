"""TensorFlow's and Keras's internals are touched in two modules only.

`tfport._common.tf_internals` and `tfport._common.keras_internals` are the only modules
that import `tensorflow.python.*`, `keras.src.*` or `tf_keras.src.*` (function-level
imports and `sys.modules` / `importlib` lookups included) or read or write a private
(`_name`) attribute that tfport itself never defines. No class is defined inside a
function anywhere in `src/`.
"""

from __future__ import annotations

import ast
import pathlib

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "tfport"
BOUNDARY = {"_common/tf_internals.py", "_common/keras_internals.py"}
INTERNAL_PREFIXES = ("tensorflow.python", "keras.src", "tf_keras.src")
# tfport installs the legacy `tensorflow.python.estimator` paths itself (its own modules).
OWN_PREFIXES = ("tensorflow.python.estimator",)
# Standard-library names that start with an underscore by design (namedtuple's API,
# argparse's sub-parser action type).
STDLIB_PRIVATE = {
    "_asdict",
    "_replace",
    "_fields",
    "_make",
    "_field_defaults",
    "_SubParsersAction",
    "_exit",  # os._exit
}
# Legacy attributes tfport sets on its own objects outside their class (the Estimator's
# `_train_distribution`..., what `estimator_export` puts on the functions it decorates).
OWN_ATTRIBUTES = {
    "_train_distribution",
    "_eval_distribution",
    "_estimator_api_names",
    "_estimator_api_names_v1",
    "_distribute_coordinator_mode",  # estimator_training's init_run_config, on a RunConfig
}
SELF_NAMES = {"self", "cls"}


def _trees() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(SRC)): ast.parse(path.read_text())
        for path in sorted(SRC.rglob("*.py"))
    }


TREES = _trees()


def _is_private(name: object) -> bool:
    """A private name; tfport's own markers on foreign objects (`_tfport_*`) are not."""
    return (
        isinstance(name, str) and name.startswith("_") and not name.startswith(("__", "_tfport_"))
    )


def _own_names(trees: dict[str, ast.Module]) -> set[str]:
    """Every name tfport defines: functions, classes, assignments, own attributes, ..."""
    out: set[str] = set(OWN_ATTRIBUTES)
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
            elif isinstance(node, ast.arg):
                out.add(node.arg)
            elif isinstance(node, ast.alias):
                out.add(node.asname or node.name.split(".")[-1])
            elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                if isinstance(node.value, ast.Name) and node.value.id in SELF_NAMES:
                    out.add(node.attr)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out.add(node.target.id)
            elif isinstance(node, ast.Call) and _setattr_on_self(node):
                out.add(node.args[1].value)  # type: ignore[attr-defined]
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                if _is_private(node.value.value):  # ATTR = "_tfport_..." naming an own attr
                    out.add(node.value.value)
    return out


def _setattr_on_self(node: ast.Call) -> bool:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return (
        name in ("setattr", "__setattr__")
        and len(node.args) > 1
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id in SELF_NAMES
        and isinstance(node.args[1], ast.Constant)
    )


def _internal_module(name: object) -> bool:
    return (
        isinstance(name, str)
        and name.startswith(INTERNAL_PREFIXES)
        and not name.startswith(OWN_PREFIXES)
        and (name in INTERNAL_PREFIXES or name.split(".", 2)[1] in ("python", "src"))
    )


def internal_uses(trees: dict[str, ast.Module]) -> dict[str, list[str]]:
    """`{module: ["line: what", ...]}` for every use of a foreign internal."""
    own = _own_names(trees)
    found: dict[str, list[str]] = {}
    for rel, tree in trees.items():
        uses = []
        for node in ast.walk(tree):
            what = _use(node, own)
            if what:
                uses.append(f"{node.lineno}: {what}")  # type: ignore[attr-defined]
        if uses:
            found[rel] = uses
    return found


def _use(node: ast.AST, own: set[str]) -> str | None:
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names if _internal_module(a.name)]
        return f"import {names[0]}" if names else None
    if isinstance(node, ast.ImportFrom) and node.level == 0 and _internal_module(node.module):
        return f"from {node.module} import ..."
    if isinstance(node, ast.Attribute) and _is_private(node.attr):
        if node.attr not in own and node.attr not in STDLIB_PRIVATE:
            return f".{node.attr}" + ("" if isinstance(node.ctx, ast.Load) else " =")

    if isinstance(node, ast.Call):
        func = node.func
        name = getattr(func, "id", getattr(func, "attr", ""))
        args = node.args
        if name in ("getattr", "hasattr", "setattr", "delattr") and len(args) > 1:
            attr = getattr(args[1], "value", None)
            if _is_private(attr) and attr not in own:
                return f"{name}(..., {attr!r})"
        if args and _internal_module(getattr(args[0], "value", None)):
            return f"{name}({args[0].value!r})"  # type: ignore[attr-defined]
    if isinstance(node, ast.Subscript) and _internal_module(getattr(node.slice, "value", None)):
        return f"[{node.slice.value!r}]"  # type: ignore[attr-defined]
    return None


def test_only_the_boundary_modules_touch_internals():
    outside = {m: uses for m, uses in internal_uses(TREES).items() if m not in BOUNDARY}
    assert outside == {}


def test_the_boundary_modules_are_where_the_internals_are():
    inside = internal_uses(TREES)
    assert set(inside) == BOUNDARY
    assert len(inside["_common/tf_internals.py"]) > 15


def test_planted_uses_are_found():
    planted = ast.parse(
        "from tensorflow.python.ops import array_ops\n"
        "def f(strategy, model, x):\n"
        "    import tf_keras.src.backend\n"
        "    strategy.extended._num_workers\n"
        "    x._own = 1\n"
        "    getattr(model, '_is_graph_network', False)\n"
        "    sys.modules.get('keras.src.losses.loss')\n"
        "    return x._own\n"
    )
    own_module = ast.parse("class A:\n    def __init__(self):\n        self._mine = 1\n")
    uses = internal_uses({"planted.py": planted, "own.py": own_module})
    assert sorted(u.split(": ", 1)[1] for u in uses["planted.py"]) == sorted(
        [
            "from tensorflow.python.ops import ...",
            "import tf_keras.src.backend",
            "._num_workers",
            "._own =",
            "._own",
            "getattr(..., '_is_graph_network')",
            "get('keras.src.losses.loss')",
        ]
    )
    assert "own.py" not in uses


def test_the_git_grep_check_lists_only_the_boundary():
    importers = {
        rel
        for rel, tree in TREES.items()
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom)) and _use(node, set())
    }
    assert importers <= BOUNDARY


def _classes_in_functions(tree: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ClassDef):
                    found.append(f"{inner.lineno}: class {inner.name}")
    return sorted(set(found))


def test_no_class_is_defined_inside_a_function():
    inside = {rel: found for rel, tree in TREES.items() if (found := _classes_in_functions(tree))}
    assert inside == {}


def test_a_planted_class_in_a_function_is_found():
    tree = ast.parse("def f():\n    class Hook:\n        pass\n    return Hook\n")
    assert _classes_in_functions(tree) == ["2: class Hook"]


TF_FREE_PROBE = """
import importlib, pkgutil, sys
import tfport, tfport.checkpoint, tfport.graph, tfport.upgrade, tfport.keras, tfport.cli
import tfport._common.tf_internals, tfport._common.keras_internals, tfport._install
# the legacy converter's error types subclass TF's own: imported only when it raises
TF_ERRORS = {"tfport.checkpoint._v1_converter_errors"}
for pkg in (tfport.checkpoint, tfport.graph, tfport.upgrade):
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        if info.name not in TF_ERRORS:
            importlib.import_module(info.name)
print(sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "keras", "tf_keras")))
"""


def test_the_tf_free_packages_and_the_boundary_do_not_import_tensorflow():
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", TF_FREE_PROBE], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"
