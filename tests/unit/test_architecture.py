"""The package's shape: no import cycles (function-level imports included), private
packages used only inside their own package, no private module importing a face above it;
the tests' shape: tests/unit mirrors the package, test modules have unique names."""

from __future__ import annotations

import ast
import collections
import pathlib

SRC = pathlib.Path(__file__).resolve().parents[2] / "src"
PACKAGE = "tfport"
TESTS = pathlib.Path(__file__).resolve().parents[1]
UNIT = TESTS / "unit"


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES.get(name, pathlib.Path()).name == "__init__.py"


def _edges(name: str, path: pathlib.Path, type_checking: bool = True) -> set[str]:
    """Every tfport module `name` imports, anywhere in the file (functions included); the
    imports under `if TYPE_CHECKING:` only with `type_checking` (they never run)."""
    out: set[str] = set()
    base = name if _is_package(name) else name.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if (
            not type_checking
            and isinstance(node, ast.If)
            and "TYPE_CHECKING" in ast.unparse(node.test)
        ):
            node.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                anchor = base.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                module = ".".join(anchor + ([module] if module else []))
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                out.add(sub if sub in MODULES else module)
    return {m for m in out if m in MODULES and m != name}


GRAPH = {name: _edges(name, path) for name, path in MODULES.items()}


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_walk_sees_the_package():
    assert len(MODULES) > 80
    assert (
        "tfport.estimator._engine.building.builder"
        in GRAPH["tfport.estimator._engine.running.training"]
    )


def test_no_import_cycles():
    cycles = [c for c in _strongly_connected(GRAPH) if len(c) > 1]
    assert cycles == []


def test_a_planted_cycle_is_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert [c for c in _strongly_connected(graph) if len(c) > 1] == [["a", "b", "c"]]


def _private_owner(name: str) -> str | None:
    """The package owning the innermost private part of `name` (None if all public)."""
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        if parts[i].startswith("_") and not parts[i].startswith("__"):
            return ".".join(parts[:i])
    return None


def test_private_modules_are_used_only_inside_their_own_package():
    wrong = []
    for source, targets in GRAPH.items():
        for target in targets:
            owner = _private_owner(target)
            if owner is not None and not (source == owner or source.startswith(owner + ".")):
                wrong.append(f"{source} -> {target}")
    assert wrong == []


def test_no_private_module_imports_a_public_face_above_it():
    wrong = []
    for source, targets in GRAPH.items():
        if _private_owner(source) is None:
            continue
        for target in targets:
            above = source.startswith(target + ".")
            if above and _private_owner(target) is None and _is_package(target):
                wrong.append(f"{source} -> {target}")
    assert wrong == []


def test_the_readme_lists_every_strategy_spec():
    from tfport import distribute

    readme = (SRC.parent / "README.md").read_text()
    assert all(f"`{kind.form}`" in readme for kind in distribute.KINDS)


def _strays(unit: pathlib.Path, package: pathlib.Path) -> list[str]:
    """The folders of `unit` that are no package folder of `package` (by relative path)."""
    return sorted(
        str(folder.relative_to(unit))
        for folder in unit.rglob("*")
        if folder.is_dir()
        and not folder.name.startswith((".", "__pycache__"))
        and not (package / folder.relative_to(unit) / "__init__.py").is_file()
    )


def test_the_unit_tests_mirror_the_package():
    """tests/unit/X/Y/test_*.py test src/tfport/X/Y: a package's unit tests are found from
    its path (every test outside tests/unit is marked slow: tests/conftest.py)."""
    assert len(list(UNIT.rglob("test_*.py"))) > 20
    assert _strays(UNIT, SRC / PACKAGE) == []


def test_a_planted_stray_unit_folder_is_found(tmp_path):
    (tmp_path / "src" / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "sub" / "__init__.py").write_text("")
    (tmp_path / "src" / "pkg" / "data").mkdir()  # a folder without __init__.py
    for folder in ("sub", "sub/gone", "data", "__pycache__"):
        (tmp_path / "unit" / folder).mkdir(parents=True)
    assert _strays(tmp_path / "unit", tmp_path / "src" / "pkg") == ["data", "sub/gone"]


def test_test_module_names_are_unique():
    """pytest imports the test modules by their file name (no __init__.py in tests/)."""
    names = collections.Counter(path.name for path in TESTS.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []


def test_the_unit_tier_starts_no_process():
    """The unit tier stays fast: a test that runs a command belongs to the slow tier."""
    found = [
        f"{path.relative_to(UNIT)}: {word}"
        for path in sorted(UNIT.rglob("*.py"))
        if path != pathlib.Path(__file__).resolve()  # this file names the words
        for word in ("subprocess", "sys.executable", "multiprocessing")
        if word in path.read_text()
    ]
    assert found == []


# --- issue 38: one home per concern ----------------------------------------------------------
ESTIMATOR = SRC / PACKAGE / "estimator"


# Layers, lowest first: a module may import its own layer and the ones below, never above.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("tfport._common", "tfport._version"),
    ("tfport.checkpoint", "tfport.graph", "tfport.distribute"),
    ("tfport.estimator._engine",),
    ("tfport.estimator._inputs", "tfport.estimator._heads"),
    ("tfport.estimator._canned", "tfport.estimator._tpu"),
    ("tfport.estimator",),  # the public faces and the legacy name faces (_legacy)
    ("tfport.keras",),
    ("tfport._legacy_tree", "tfport._legacy_paths", "tfport._install"),
    ("tfport.verify", "tfport.upgrade", "tfport.compat"),
    ("tfport.cli", "tfport.__main__", "tfport"),
)


def _layer(module: str) -> int:
    """The index of the longest LAYERS prefix owning `module`."""
    best, found = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, found = len(prefix), i
    return found


def back_up_arrows(graph: dict[str, set[str]]) -> list[str]:
    """Every import that runs from a lower layer to a higher one."""
    return sorted(
        f"{s} -> {t}" for s, ts in graph.items() for t in ts if _layer(t) > _layer(s) >= 0
    )


RUNTIME = {name: _edges(name, path, type_checking=False) for name, path in MODULES.items()}


def test_every_module_has_a_layer():
    assert [m for m in MODULES if _layer(m) < 0] == []


def test_no_import_runs_back_up_the_layers():
    assert back_up_arrows(RUNTIME) == []


def test_a_planted_back_up_arrow_is_found():
    graph = {"tfport.estimator._heads.x": {"tfport.estimator._canned.y", "tfport._common.z"}}
    assert back_up_arrows(graph) == ["tfport.estimator._heads.x -> tfport.estimator._canned.y"]


def _face_problems(path: pathlib.Path) -> list[str]:
    """What makes a module more than a name face: a function over 15 lines, a class over 40."""
    found = []
    for node in ast.parse(path.read_text()).body:
        size = (node.end_lineno or node.lineno) - node.lineno + 1
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and size > 15:
            found.append(f"{path.name}:{node.lineno} def {node.name} ({size} lines)")
        if isinstance(node, ast.ClassDef) and size > 40:
            found.append(f"{path.name}:{node.lineno} class {node.name} ({size} lines)")
    return found


def test_estimator_legacy_holds_name_faces_only():
    legacy = sorted((ESTIMATOR / "_legacy").glob("*.py"))
    assert sum(len(p.read_text().splitlines()) for p in legacy) < 800
    assert [p.name for p in legacy if p.name.startswith("tpu_")] == []
    assert [problem for p in legacy for problem in _face_problems(p)] == []


def test_a_planted_implementation_is_not_a_face(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(20))
    (tmp_path / "m.py").write_text(f"def f():\n{body}\n")
    assert _face_problems(tmp_path / "m.py") == ["m.py:1 def f (21 lines)"]


def test_the_engine_has_rooms():
    engine = ESTIMATOR / "_engine"
    rooms = sorted(p.parent.name for p in engine.glob("*/__init__.py"))
    assert rooms == ["api", "building", "running"]
    assert all(
        ast.get_docstring(ast.parse((engine / r / "__init__.py").read_text())) for r in rooms
    )
    assert len(list(engine.glob("*.py"))) <= 14


def _parameters(tree: ast.AST) -> list[ast.arg]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            every = [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]
            found += [p for p in every if p.arg not in ("self", "cls")]
    return found


def _any_aliases() -> set[str]:
    """Names tfport binds to `Any` (an alias to Any still counts as Any)."""
    names = {"Any"}
    for path in MODULES.values():
        for node in ast.parse(path.read_text()).body:
            value = getattr(node, "value", None)
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and value is not None:
                if ast.unparse(value) in ("Any", "typing.Any"):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def _names_in(annotation: ast.expr) -> set[str]:
    """The names an annotation mentions, string forward references included."""
    found: set[str] = set()
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                found |= _names_in(ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                pass
    return found


def any_share(trees: list[ast.AST], aliases: set[str]) -> tuple[int, int, int]:
    """(parameters, those whose annotation mentions Any or an alias of it, unannotated)."""
    params = [p for tree in trees for p in _parameters(tree)]
    with_any = [p for p in params if p.annotation is not None and _names_in(p.annotation) & aliases]
    return len(params), len(with_any), sum(p.annotation is None for p in params)


def test_under_a_quarter_of_the_parameters_mention_any():
    trees = [ast.parse(path.read_text()) for path in MODULES.values()]
    params, with_any, unannotated = any_share(trees, _any_aliases())
    assert with_any / params < 0.25, (with_any, params)
    assert unannotated <= 287  # issue 38: no more unannotated parameters than before


def test_any_in_an_annotation_is_counted_wherever_it_is():
    tree = ast.parse(
        "def f(a: Any, b: dict[str, Any], c: 'list[Any]', d: Handler, e: int, f, *g: Any): ..."
    )
    assert any_share([tree], {"Any", "Handler"}) == (7, 5, 1)
