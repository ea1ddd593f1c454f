"""The `tfport` command line; see `tfport --help`."""

from tfport.cli._main import main

__all__ = ["main"]
