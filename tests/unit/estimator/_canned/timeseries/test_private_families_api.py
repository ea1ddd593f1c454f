"""The legacy `canned.timeseries.*` and `canned.saved_model_estimator` modules, as data.

`tests/families/data/private_families_modules.json` is the legacy stack's walk of those
modules (names, signatures, class members; a subset of the whole-tree walk made on TF 2.15).
After `tfport.install()` every module imports at both prefixes, every name resolves with the
legacy parameters (added optional ones allowed), and every class member the legacy
module defined itself (public, or private to these modules) is present.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pathlib
import re

import pytest

FAMILIES_DATA = pathlib.Path(__file__).parents[4] / "families" / "data"
DATA = json.loads((FAMILIES_DATA / "private_families_modules.json").read_text())
MODULES = DATA["modules"]
PREFIXES = ("tensorflow_estimator.python.estimator", "tensorflow.python.estimator")
OURS = ("canned.timeseries", "canned.saved_model_estimator")


def _params(signature: str) -> list[tuple[str, bool]]:
    """(name, has default) of each parameter of a walked signature string."""
    inner = signature.strip()[1:-1]
    depth, part, parts = 0, "", []
    for ch in inner:
        depth += ch in "([{<"
        depth -= ch in ")]}>"
        if ch == "," and depth == 0:
            parts.append(part)
            part = ""
        else:
            part += ch
    parts.append(part)
    out = []
    for p in (p.strip() for p in parts if p.strip()):
        name = re.split(r"[=:]", p, maxsplit=1)[0].strip()
        if name not in ("*", "/"):
            out.append((name.lstrip("*"), "=" in p))
    return out


def _assert_signature(obj: object, signature: str, where: str) -> None:
    got = inspect.signature(obj).parameters
    want = _params(signature)
    names = [n for n, _ in want]
    assert [n for n in got if n in names] == names, (where, list(got), names)
    for name, param in got.items():
        if name not in names and param.kind not in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            assert param.default is not inspect.Parameter.empty, (where, name)


def _own(member: dict) -> bool:
    origin = member.get("inherited_from", "")
    return not origin or any(f".{mod}" in origin for mod in OURS)


@pytest.fixture(scope="module", autouse=True)
def installed():
    import tfport

    tfport.install()


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("path", sorted(MODULES))
def test_module_names_and_members_match_the_legacy_walk(path, prefix):
    module = importlib.import_module(path.replace(PREFIXES[0], prefix, 1))
    for name, entry in MODULES[path].items():
        obj = getattr(module, name)
        where = f"{path}.{name}"
        if entry.get("signature") and entry["kind"] in ("class", "function"):
            _assert_signature(obj, entry["signature"], where)
        for member, info in (entry.get("members") or {}).items():
            if member.startswith("__") or not (_own(info) or not member.startswith("_")):
                continue
            assert hasattr(obj, member), f"{where}.{member}"
            if info["kind"] == "method" and info.get("signature"):
                _assert_signature(getattr(obj, member), info["signature"], f"{where}.{member}")


def test_the_walk_covers_every_module():
    short = sorted(p[len(PREFIXES[0]) + 1 :] for p in MODULES)
    assert short == [
        "canned.saved_model_estimator",
        "canned.timeseries",
        "canned.timeseries.ar_model",
        "canned.timeseries.estimators",
        "canned.timeseries.feature_keys",
        "canned.timeseries.head",
        "canned.timeseries.math_utils",
        "canned.timeseries.model",
        "canned.timeseries.model_utils",
        "canned.timeseries.saved_model_utils",
        "canned.timeseries.state_management",
    ]


def test_saved_model_estimator_private_helpers_are_there():
    from tensorflow_estimator.python.estimator.canned import saved_model_estimator as sme

    for name in (
        "_check_same_dtype_and_shape",
        "_clear_saved_model_collections",
        "_extract_eval_metrics",
        "_generate_input_map",
        "_get_saved_model_ckpt",
        "_validate_and_extract_outputs",
    ):
        assert callable(getattr(sme, name)), name
