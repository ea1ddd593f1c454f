"""tfport's dependencies: the list declared in pyproject.toml (`[tool.tfport]`), with the
Keras 2 distribution matched to the TensorFlow the target environment already holds.

Why at build time: `tf_keras` X.Y requires `tensorflow` X.Y, and pip tries the newest
`tf_keras` first, so static `tensorflow>=2.16,<2.22` + `tf_keras>=2.16,<2.22` make pip
replace an installed TensorFlow 2.16 with 2.21 rather than pick `tf_keras` 2.16. Built
from a source checkout by pip (`pip install .`, `pip install -e .`), the requirements
follow the environment pip installs into:

- `tensorflow` X.Y of the supported range installed: `tf_keras` X.Y (pip keeps X.Y);
- `tf-nightly` installed (and no `tensorflow`): `tf-keras-nightly` in place of
  `tensorflow` + `tf_keras` (pip then installs no second TensorFlow);
- otherwise, and always when building from an sdist (PKG-INFO present), outside pip, or
  with `TFPORT_STATIC_DEPS=1`: the declared ranges (pip picks the newest stable).

Example:
    >>> requirements(["tensorflow>=2.16,<2.22", "tf_keras>=2.16,<2.22"], {"tensorflow": "2.16.2"})
    ['tensorflow>=2.16,<2.22', 'tf_keras>=2.16,<2.17']
"""

from __future__ import annotations

import importlib.metadata
import os
import pathlib
import re
import sys
import sysconfig

HERE = pathlib.Path(__file__).resolve().parent
TF_NAMES = {"tensorflow", "tf-keras"}
NIGHTLY = ("tf-nightly", "tf-keras-nightly")


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.split(r"[<>=!~\[ ;(]", requirement, maxsplit=1)[0]).lower()


def installed(paths: list[str]) -> dict[str, str]:
    """{normalised distribution name: version} of the distributions found on `paths`."""
    found = {}
    for dist in importlib.metadata.distributions(path=paths):
        name = dist.metadata["Name"]
        if name:
            found[_name(name)] = dist.version
    return found


def supported_range(declared: list[str]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The oldest and newest TensorFlow (major, minor) of the declared `tensorflow>=A,<B`."""
    lows, highs = [], []
    for req in declared:
        if _name(req) == "tensorflow":
            spec = req.split(";", 1)[0]
            lows += [(int(a), int(b)) for a, b in re.findall(r">=\s*(\d+)\.(\d+)", spec)]
            highs += [(int(a), int(b) - 1) for a, b in re.findall(r"<\s*(\d+)\.(\d+)", spec)]
    return min(lows), max(highs)


def requirements(declared: list[str], present: dict[str, str]) -> list[str]:
    """`declared` adjusted to the TensorFlow in `present` (see the module docstring)."""
    tf_version = present.get("tensorflow")
    if tf_version:
        minor = tuple(int(p) for p in re.findall(r"\d+", tf_version)[:2])
        oldest, newest = supported_range(declared)
        if oldest <= minor <= newest:
            pin = f"tf_keras>={minor[0]}.{minor[1]},<{minor[0]}.{minor[1] + 1}"
            adjusted = [pin if _name(r) == "tf-keras" else r for r in declared]
            return list(dict.fromkeys(adjusted))
        return declared
    if NIGHTLY[0] in present:
        return [NIGHTLY[1], *(r for r in declared if _name(r) not in TF_NAMES)]
    return declared


def declared() -> list[str]:
    """The dependencies pyproject.toml declares (`[tool.tfport] dependencies`)."""
    if sys.version_info >= (3, 11):
        import tomllib  # novm (guarded: Python 3.11+)
    else:  # build-system requires tomli there
        import tomli as tomllib
    with open(HERE / "pyproject.toml", "rb") as f:
        return list(tomllib.load(f)["tool"]["tfport"]["dependencies"])


def _adapted() -> bool:
    """Whether this build follows the target environment (pip building a source checkout)."""
    from_checkout = not (HERE / "PKG-INFO").exists()
    by_pip = any(k.startswith("PIP_BUILD_TRACKER") or k == "PIP_REQ_TRACKER" for k in os.environ)
    return from_checkout and by_pip and os.environ.get("TFPORT_STATIC_DEPS") != "1"


def _target_paths() -> list[str]:
    paths = sysconfig.get_paths()
    return sorted({paths["purelib"], paths["platlib"]})


if __name__ == "__main__":
    from setuptools import setup

    listed = declared()
    if _adapted():
        listed = requirements(listed, installed(_target_paths()))
    setup(install_requires=listed)
