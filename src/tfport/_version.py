"""The package version (one place; `tfport.__version__` and `tfport --version` read it)."""

__version__ = "0.1.0"
