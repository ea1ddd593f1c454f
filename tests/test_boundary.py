"""TensorFlow's and Keras's internals are touched in the boundary only.

The modules of the package `tfport._common.tf_internals` (one per TensorFlow concern) and
`tfport._common.keras_internals` are the only ones that import `tensorflow.python.*`,
`keras.src.*` or `tf_keras.src.*` (function-level imports and `sys.modules` / `importlib`
lookups and the package's own `tf_symbol` accessors included) or read or write a private
(`_name`) attribute that tfport itself never defines. Each boundary module has at most 400
lines, no boundary function returns a module (a caller gets the one symbol it uses), and
every symbol the boundary reads by name is listed in its `SYMBOLS` (so the canary,
`tests/unit/_common/test_tf_canary.py`, touches it). No class is defined inside a function
anywhere in `src/`.
"""

from __future__ import annotations

import ast
import pathlib
from collections.abc import Callable

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "tfport"
TF_BOUNDARY = {
    str(path.relative_to(SRC)) for path in sorted((SRC / "_common" / "tf_internals").glob("*.py"))
}
KERAS_BOUNDARY = "_common/keras_internals.py"
BOUNDARY = TF_BOUNDARY | {KERAS_BOUNDARY}
MAX_LINES = 400
# The boundary's accessors of one symbol by name: `tf_symbol("ops.lookup_ops", "...")`
# (module relative to `tensorflow.python`) and keras_internals' `_symbol("tf_keras.src...")`.
TF_ACCESSORS = {"tf_symbol", "set_tf_symbol", "tf_symbol_replaced"}
KERAS_ACCESSORS = {"_symbol", "_set_symbol"}
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


def _leading_text(node: ast.AST) -> object:
    """A string constant, or the constant start of an f-string (`f"tensorflow.python.{m}"`)."""
    if isinstance(node, ast.JoinedStr) and node.values:
        node = node.values[0]
    return node.value if isinstance(node, ast.Constant) else None


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
        if args and _internal_module(_leading_text(args[0])):
            return f"{name}({_leading_text(args[0])!r})"
        if name in TF_ACCESSORS and args:
            return f"{name}({_leading_text(args[0])!r}, ...)"
    if isinstance(node, ast.Subscript) and _internal_module(getattr(node.slice, "value", None)):
        return f"[{node.slice.value!r}]"  # type: ignore[attr-defined]
    return None


def test_only_the_boundary_modules_touch_internals():
    outside = {m: uses for m, uses in internal_uses(TREES).items() if m not in BOUNDARY}
    assert outside == {}


def test_the_boundary_modules_are_where_the_internals_are():
    inside = internal_uses(TREES)
    assert BOUNDARY - set(inside) == {"_common/tf_internals/__init__.py"}  # re-exports only
    assert sum(len(inside[rel]) for rel in TF_BOUNDARY if rel in inside) > 100


def test_planted_uses_are_found():
    planted = ast.parse(
        "from tensorflow.python.ops import array_ops\n"
        "def f(strategy, model, x):\n"
        "    import tf_keras.src.backend\n"
        "    strategy.extended._num_workers\n"
        "    x._own = 1\n"
        "    getattr(model, '_is_graph_network', False)\n"
        "    sys.modules.get('keras.src.losses.loss')\n"
        "    importlib.import_module(f'tensorflow.python.{x}')\n"
        "    tf_symbol('ops.lookup_ops', 'index_table_from_file')\n"
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
            "import_module('tensorflow.python.')",
            "tf_symbol('ops.lookup_ops', ...)",
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


def _too_long(sources: dict[str, str], limit: int = MAX_LINES) -> dict[str, int]:
    """`{module: lines}` for each module over `limit` lines."""
    return {rel: n for rel, text in sources.items() if (n := len(text.splitlines())) > limit}


def test_no_boundary_module_is_over_400_lines():
    assert _too_long({rel: (SRC / rel).read_text() for rel in sorted(BOUNDARY)}) == {}


def test_a_planted_long_module_is_found():
    assert _too_long({"big.py": "x = 1\n" * 401, "fits.py": "x = 1\n" * 400}) == {"big.py": 401}


# --- no boundary function returns a module ----------------------------------------------

IMPORTERS = {"import_module", "__import__"}
SYS_MODULES_LOOKUPS = {"get", "setdefault", "pop"}


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of `function`'s body, not those of the functions nested in it."""
    found: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return found


def _imported_names(nodes: list[ast.AST]) -> set[str]:
    return {
        (alias.asname or alias.name).split(".")[0]
        for node in nodes
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }


def _is_sys_modules(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "modules"


Resolve = Callable[[ast.AST], "tuple[str, str] | None"]


def _is_module(expr: ast.AST | None, bound: set[str], returners: set, resolve: Resolve) -> bool:
    """Whether `expr` is (or holds) a module: an imported name, `import_module(...)`,
    `sys.modules[...]` / `sys.modules.get(...)`, or a call of a module-returning function."""
    if isinstance(expr, ast.Name):
        return expr.id in bound
    if isinstance(expr, ast.Call):
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if isinstance(func, ast.Attribute) and _is_sys_modules(func.value):
            return name in SYS_MODULES_LOOKUPS
        return name in IMPORTERS or resolve(func) in returners
    if isinstance(expr, ast.Subscript):
        return _is_sys_modules(expr.value)
    parts: list = []
    if isinstance(expr, (ast.Tuple, ast.List)):
        parts = expr.elts
    elif isinstance(expr, ast.IfExp):
        parts = [expr.body, expr.orelse]
    elif isinstance(expr, ast.BoolOp):
        parts = expr.values
    return any(_is_module(part, bound, returners, resolve) for part in parts)


def _returns_module(function: ast.AST, outer: set[str], returners: set, resolve: Resolve) -> bool:
    nodes = _own_nodes(function)
    bound = outer | _imported_names(nodes)
    for _ in range(2):  # a name bound to a module, then to another name
        for node in nodes:
            if isinstance(node, ast.Assign) and _is_module(node.value, bound, returners, resolve):
                bound |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return any(
        isinstance(node, ast.Return) and _is_module(node.value, bound, returners, resolve)
        for node in nodes
    )


def _module_name(rel: str) -> str:
    parts = ["tfport", *pathlib.PurePosixPath(rel).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolver(rel: str, tree: ast.Module, modules: dict[str, str]) -> Resolve:
    """`func` node -> `(module, function name)` it calls: a function of the same module, one
    imported from a tfport module, or `<imported tfport module>.<function>`; else None."""
    functions = {n.name: (rel, n.name) for n in tree.body if isinstance(n, ast.FunctionDef)}
    packages: dict[str, str] = {}  # local name -> the tfport module it is
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            for alias in node.names:
                local, full = alias.asname or alias.name, f"{node.module}.{alias.name}"
                if full in modules:
                    packages[local] = modules[full]
                elif node.module in modules:
                    functions.setdefault(local, (modules[node.module], alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules and alias.asname:
                    packages[alias.asname] = modules[alias.name]

    def resolve(func: ast.AST) -> tuple[str, str] | None:
        if isinstance(func, ast.Name):
            return functions.get(func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            package = packages.get(func.value.id)
            return (package, func.attr) if package else None
        return None

    return resolve


def module_returners(trees: dict[str, ast.Module]) -> dict[str, list[str]]:
    """`{module: ["line: function", ...]}` for every function returning a module, directly
    or through a function of `trees` that does."""
    modules = {_module_name(rel): rel for rel in trees}
    functions = [
        (rel, node, _imported_names(_own_nodes(tree)), _resolver(rel, tree, modules))
        for rel, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    returners: set[tuple[str, str]] = set()
    while True:
        found = [
            (rel, f)
            for rel, f, outer, resolve in functions
            if _returns_module(f, outer, returners, resolve)
        ]
        keys = {(rel, f.name) for rel, f in found}
        if keys <= returners:
            break
        returners |= keys
    out: dict[str, list[str]] = {}
    for rel, function in found:
        out.setdefault(rel, []).append(f"{function.lineno}: {function.name}")
    return {rel: sorted(found) for rel, found in out.items()}


def test_no_boundary_function_returns_a_module():
    returners = module_returners(TREES)
    assert {rel: found for rel, found in returners.items() if rel in BOUNDARY} == {}
    assert "_common/tfenv.py" in returners  # import_tf: what the check sees outside


def test_planted_module_returns_are_found():
    planted = ast.parse(
        "import importlib, sys\n"
        "from tensorflow.python.ops import lookup_ops\n"
        "def by_name(name):\n"
        "    return importlib.import_module(name)\n"
        "def imported():\n"
        "    from tensorflow.python import tpu\n"
        "    return tpu\n"
        "def module_level():\n"
        "    return lookup_ops\n"
        "def through_helper():\n"
        "    return by_name('x').__name__, by_name('y')\n"
        "def loaded():\n"
        "    owner = sys.modules.get('tensorflow.python')\n"
        "    return owner if owner is not None else None\n"
        "def one_symbol(name):\n"
        "    return getattr(importlib.import_module(name), 'x')\n"
        "def nested():\n"
        "    def inner():\n"
        "        return sys\n"
        "    return inner\n"
    )
    helper_user = ast.parse(
        "from tfport import planted\n"
        "from tfport.planted import by_name as named\n"
        "def elsewhere():\n"
        "    return named('z')\n"
        "def qualified():\n"
        "    return planted.loaded()\n"
        "def unrelated(by_name):\n"
        "    return by_name('w')\n"
    )
    assert module_returners({"planted.py": planted, "user.py": helper_user}) == {
        "planted.py": [
            "10: through_helper",
            "12: loaded",
            "18: inner",
            "3: by_name",
            "5: imported",
            "8: module_level",
        ],
        "user.py": ["3: elsewhere", "5: qualified"],
    }


# --- every symbol read by name is in SYMBOLS (and so has its canary) ---------------------


def _table(tree: ast.Module, name: str = "SYMBOLS") -> set[tuple[str, str]]:
    """The literal `SYMBOLS` table of a module (the package's union is not literal)."""
    for node in tree.body:
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id == name
            and isinstance(node.value, ast.Tuple)
        ):
            return set(ast.literal_eval(node.value))
    return set()


def symbols_read(tree: ast.Module, accessors: set[str]) -> set[tuple[str, str]]:
    """`(module, name)` of every accessor call naming both as string constants."""
    return {
        (node.args[0].value, node.args[1].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", "")) in accessors
        and len(node.args) > 1
        and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args[:2])
    }


def test_every_tf_symbol_read_is_listed_and_every_listed_one_read():
    listed = set().union(*(_table(TREES[rel]) for rel in TF_BOUNDARY))
    read = set().union(*(symbols_read(TREES[rel], TF_ACCESSORS) for rel in TF_BOUNDARY))
    assert read - listed == set()
    assert listed - read == set()


def test_every_keras_symbol_read_is_listed():
    tree = TREES[KERAS_BOUNDARY]
    assert symbols_read(tree, KERAS_ACCESSORS) - _table(tree) == set()


def test_a_planted_unlisted_symbol_is_found():
    tree = ast.parse(
        "SYMBOLS: tuple = (('ops.lookup_ops', 'index_table_from_file'),)\n"
        "def f(module):\n"
        "    tf_symbol('ops.lookup_ops', 'index_table_from_file')\n"
        "    tf_symbol('ops.clustering_ops', 'KMeans')\n"
        "    tf_symbol(module, 'unknown')\n"
    )
    assert symbols_read(tree, TF_ACCESSORS) - _table(tree) == {("ops.clustering_ops", "KMeans")}


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
