"""What installing the project brings: exactly one TensorFlow, the pinned tools, Python range."""

from __future__ import annotations

import importlib.metadata as md
import json
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
TF_DISTRIBUTIONS = {"tensorflow", "tensorflow-cpu", "tensorflow-intel", "tensorflow-macos"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_the_installed_project_requires_one_tensorflow():
    required = [r for r in md.requires("tfport") or [] if "extra ==" not in r]
    names = {_normal(re.split(r"[<>=\[ ;(]", req)[0]) for req in required}
    assert names & TF_DISTRIBUTIONS == {"tensorflow"}
    assert any(r.startswith("tf_keras") or r.startswith("tf-keras") for r in required)


def test_the_environment_holds_exactly_one_tensorflow_distribution():
    installed = {_normal(d.metadata["Name"]) for d in md.distributions()}
    assert installed & TF_DISTRIBUTIONS == {"tensorflow"}
    assert md.version("tensorflow").startswith("2.21.")
    assert md.version("tf_keras").startswith("2.21.")


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
    assert installed & TF_DISTRIBUTIONS == {"tensorflow"}
