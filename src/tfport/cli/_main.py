"""Entry point of the `tfport` command: `tfport <area> <verb> ...`.

Every area lives in its own module exposing ``add_parser(subparsers, parents)``
which registers a sub-parser whose ``func(args) -> int`` does the work. Area
modules import TensorFlow only inside ``func``, so `tfport --help` stays fast.
Exit codes: 0 ok, 1 the operation failed, 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from typing import NoReturn

from tfport._common.errors import TfportError, os_error
from tfport._version import __version__

_AREAS = (
    "tfport.cli._demo",
    "tfport.cli._run",
    "tfport.cli._ckpt",
    "tfport.cli._graph",
    "tfport.cli._upgrade",
    "tfport.cli._keras",
    "tfport.cli._verify",
)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit 2); the usage stays behind `--help`."""

    def error(self, message: str) -> NoReturn:
        text = " ".join(message.split())
        self.exit(2, f"tfport: error: {text}. See `{self.prog} --help`\n")


def _common_parent() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="show tracebacks and TensorFlow logs",
    )
    return parent


def build_parser() -> argparse.ArgumentParser:
    """Returns the full `tfport` argument parser (imports no TensorFlow).

    Example:
        >>> build_parser().prog
        'tfport'
    """
    parent = _common_parent()
    parser = _Parser(
        prog="tfport",
        description="Run legacy TensorFlow Estimator code on TF 2.21 and migrate its artifacts.",
        parents=[parent],
    )
    parser.add_argument("--version", action="version", version=f"tfport {__version__}")
    sub = parser.add_subparsers(dest="area", metavar="AREA", required=True)
    for name in _AREAS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name != name:
                raise
            continue
        module.add_parser(sub, [parent])
    return parser


def main(argv: list[str] | None = None) -> int:
    """Runs the `tfport` command and returns its exit code.

    Example:
        >>> main(["--version"])  # doctest: +SKIP
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = bool(getattr(args, "debug", False)) or bool(os.environ.get("TFPORT_DEBUG"))
    if debug:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "0")
    elif getattr(args, "filter_tf_noise", False):
        from tfport._common.tfenv import filter_stderr_noise

        filter_stderr_noise()
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except BrokenPipeError:  # `tfport ... | head`: the reader has all it wants
        _silence_stdout()
        return 141  # as a process killed by SIGPIPE
    except TfportError as err:
        if debug:
            traceback.print_exc()
        print(f"tfport: error: {err}", file=sys.stderr)
        return err.exit_code
    except OSError as err:  # anything not already turned into a TfportError
        if debug:
            traceback.print_exc()
        error = os_error(err, "A file operation failed")
        print(f"tfport: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("tfport: interrupted", file=sys.stderr)
        return 130


def _silence_stdout() -> None:
    """Points fd 1 at /dev/null so the interpreter's final flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (tests capture it)
        pass
    finally:
        os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
