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


def _edges(name: str, path: pathlib.Path) -> set[str]:
    """Every tfport module `name` imports, anywhere in the file (functions included)."""
    out: set[str] = set()
    base = name if _is_package(name) else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
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
