"""The `values.json` goldens (legacy/goldens/NAME/values.json, written by the legacy stack's
run of legacy/scripts/NAME.py) against the same script's `record()` run under tfport.

Outcomes are recorded as legacy/scripts/_values.py does: ``["returns", value]`` or
``["raises", builtin class name, first message line, whether a builtin was raised]``."""

from __future__ import annotations

import json
import pathlib
import re
import types

import pytest
from tests.legacy import compare

LEGACY = pathlib.Path(__file__).parents[2] / "legacy"
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def golden(name: str) -> dict:
    """legacy/goldens/NAME/values.json."""
    return json.loads((LEGACY / "goldens" / name / "values.json").read_text())


def script(name: str) -> types.ModuleType:
    """The script that makes the golden NAME, imported with tfport installed."""
    return compare.load_script_installed(LEGACY, name)


def recorded_fixture(module: types.ModuleType, as_json: bool):
    """A module-scoped fixture: `module.record()` under tfport (`as_json`: through a JSON
    round trip, as the golden was written: tuples become lists, keys strings)."""

    @pytest.fixture(scope="module")
    def recorded():
        import tfport

        tfport.install()
        got = module.record()
        return json.loads(json.dumps(got)) if as_json else got

    return recorded


def same(got: object, want: object, *, addresses: bool = True, nested: bool = False) -> bool:
    """Whether `got` is what legacy recorded. A ``raises`` outcome needs the same builtin
    class; the message counts only where both raised a builtin exception (`addresses`:
    with object addresses left out of both). `nested`: also inside dicts and lists."""
    if isinstance(want, list) and want[:1] == ["raises"]:
        if not (isinstance(got, list) and got[:2] == want[:2]):
            return False
        if not (len(want) > 3 and want[3] and got[3]):  # not both builtin
            return True
        if addresses:
            return _ADDRESS.sub("", got[2]) == _ADDRESS.sub("", want[2])
        return got[2] == want[2]
    if nested and isinstance(want, dict) and isinstance(got, dict):
        return sorted(got) == sorted(want) and all(
            same(got[k], want[k], addresses=addresses, nested=nested) for k in want
        )
    if nested and isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(
            same(g, w, addresses=addresses, nested=nested) for g, w in zip(got, want)
        )
    return got == want


def differ(got: dict, want: dict, skip: tuple = (), **options: bool) -> dict:
    """key -> (got, want) for each of want's keys (but `skip`) that `got` lacks or answers
    otherwise (`same` with `options`)."""
    return {
        k: (got.get(k), want[k])
        for k in want
        if k not in skip and (k not in got or not same(got[k], want[k], **options))
    }
