"""What installing the project brings: exactly one TensorFlow, the pinned tools, Python range."""

from __future__ import annotations

import importlib.metadata as md
import re

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
