"""What installing the project brings: exactly one TensorFlow of the supported range (or
tf-nightly) with the tf_keras of its minor version, the pinned tools, the Python range."""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
import json
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
TF_DISTRIBUTIONS = {
    "tensorflow", "tensorflow-cpu", "tensorflow-intel", "tensorflow-macos", "tf-nightly"
}  # fmt: skip
KERAS2 = {"tensorflow": "tf-keras", "tf-nightly": "tf-keras-nightly"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _minor(version: str) -> tuple[int, int]:
    major, minor = re.findall(r"\d+", version)[:2]
    return int(major), int(minor)


def _setup_py():
    spec = importlib.util.spec_from_file_location("tfport_setup", REPO / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _installed_tensorflow() -> str:
    installed = {_normal(d.metadata["Name"]) for d in md.distributions()}
    (tf,) = installed & TF_DISTRIBUTIONS
    return tf


def test_the_installed_project_requires_one_tensorflow():
    required = [r for r in md.requires("tfport") or [] if "extra ==" not in r]
    names = {_normal(re.split(r"[<>=\[ ;(!~]", req)[0]) for req in required}
    if _installed_tensorflow() == "tf-nightly":  # tf-keras-nightly brings tf-nightly
        assert names & (TF_DISTRIBUTIONS | set(KERAS2.values())) == {"tf-keras-nightly"}
    else:
        assert names & (TF_DISTRIBUTIONS | set(KERAS2.values())) == {"tensorflow", "tf-keras"}


def test_the_environment_holds_one_tensorflow_of_the_range_and_its_tf_keras():
    tf = _installed_tensorflow()
    version = md.version(tf)
    if tf == "tensorflow":
        oldest, newest = _setup_py().supported_range(_setup_py().declared())
        assert oldest <= _minor(version) <= newest, version
    assert _minor(md.version(KERAS2[tf])) == _minor(version)


def test_setup_py_picks_the_tf_keras_of_the_installed_tensorflow():
    setup = _setup_py()
    declared = setup.declared()
    oldest, newest = setup.supported_range(declared)
    assert oldest == (2, 16)
    for minor in range(oldest[1], newest[1] + 1):
        got = setup.requirements(declared, {"tensorflow": f"2.{minor}.1"})
        keras2 = [r for r in got if r.startswith("tf_keras")]
        assert keras2 == [f"tf_keras>=2.{minor},<2.{minor + 1}"]
        assert [r for r in got if not r.startswith("tf_keras")] == [
            r for r in declared if not r.startswith("tf_keras")
        ]
    for outside in ("2.15.1", f"2.{newest[1] + 1}.0"):
        assert setup.requirements(declared, {"tensorflow": outside}) == declared
    nightly = setup.requirements(declared, {"tf-nightly": "2.23.0.dev20261026"})
    assert nightly[0] == "tf-keras-nightly"
    assert not any(r.startswith(("tensorflow", "tf_keras")) for r in nightly)
    assert setup.requirements(declared, {}) == declared


def test_every_supported_python_has_a_tensorflow_of_the_range():
    """Python 3.13 wheels exist from TensorFlow 2.20 on: the requirements say so by marker."""
    declared = _setup_py().declared()
    tf = [r for r in declared if r.startswith("tensorflow")]
    assert any("python_version < '3.13'" in r and ">=2.16," in r for r in tf)
    assert any("python_version >= '3.13'" in r and ">=2.20," in r for r in tf)


@pytest.mark.slow
def test_pip_resolves_the_project_against_one_tensorflow(tmp_path):
    """`pip install --dry-run --report`, offline: the installed environment (one TensorFlow)
    satisfies every requirement, and nothing else (no second TensorFlow) would be installed."""
    report = tmp_path / "report.json"
    cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index",
           "--no-build-isolation", "--quiet", "--report", str(report), str(REPO)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    planned = {
        _normal(item["metadata"]["name"]) for item in json.loads(report.read_text())["install"]
    }
    assert planned == {"tfport"}
    installed = {_normal(d.metadata["Name"]) for d in md.distributions()}
    assert len(installed & TF_DISTRIBUTIONS) == 1
