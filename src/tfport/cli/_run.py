"""`tfport run [--strategy SPEC] SCRIPT [ARGS...]`: run a legacy Estimator script unmodified."""

from __future__ import annotations

import argparse
import os
import sys

from tfport import distribute
from tfport._common.errors import TfportInputError, message

STRATEGY_HELP = (
    "put every RunConfig the script makes on this strategy unless it set its own: "
    + "; ".join(f"{kind.form} ({kind.help})" for kind in distribute.KINDS)
)


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: list[argparse.ArgumentParser],
) -> None:
    """Registers `tfport run`."""
    p = subparsers.add_parser(
        "run",
        parents=parents,
        help="run a legacy tf.estimator script unmodified on TF 2.21",
        description="Runs SCRIPT as __main__ with tf.estimator, tf.compat.v1.estimator and "
        "tf.keras.estimator provided by tfport. TF 1.x code (SCRIPT and the modules it "
        "imports from its folder) runs as `tfport upgrade` would write it, in memory; code "
        "that runs as written is run as written. sys.argv is [SCRIPT, ARGS...]; the exit "
        "code is the script's.",
    )
    p.add_argument("--strategy", default=None, metavar="SPEC", help=STRATEGY_HELP)
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no live progress line while training (shown only when stderr is a terminal)",
    )
    p.add_argument(
        "--jit",
        action="store_true",
        help="compile training sessions with XLA (RunConfig(experimental_jit=True) for every "
        "RunConfig the script makes): faster on accelerators, float results differ slightly",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="train even where another training holds the model_dir's lock "
        "(sets TFPORT_FORCE_LOCK=1)",
    )
    p.add_argument("script", metavar="SCRIPT", help="the Python script to run")
    p.add_argument(
        "args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments passed to the script"
    )
    p.set_defaults(func=run, filter_tf_noise=True)


def run(args: argparse.Namespace) -> int:
    """Runs the script; returns its exit code."""
    script = args.script
    if not os.path.isfile(script):
        raise TfportInputError(
            message(
                f"Script {script} does not exist or is not a file",
                "Pass the path of a Python script",
                script=script,
            )
        )
    from tfport._common.tfenv import (
        filter_tf_warnings,
        set_progress,
        tf_logger_as_if_imported_here,
    )
    from tfport._install import install

    if args.force:
        os.environ["TFPORT_FORCE_LOCK"] = "1"
    if args.jit:
        os.environ["TFPORT_JIT"] = "1"
    if not getattr(args, "quiet", False) and sys.stderr.isatty():
        set_progress(sys.stderr)

    if getattr(args, "debug", False):
        os.environ["TFPORT_DEBUG"] = "1"  # install() then filters no warnings either
    if not os.environ.get("TFPORT_DEBUG"):
        filter_tf_warnings()  # TensorFlow's own UserWarnings; --debug shows them
    if args.strategy:
        distribute.set_default(args.strategy)
    install()
    from tfport.upgrade import install_finder, run_script

    sys.argv = [script, *args.args]
    folder = os.path.dirname(os.path.abspath(script))
    sys.path.insert(0, folder)
    install_finder(folder)  # TF 1.x modules of the script's folder run upgraded
    try:
        with tf_logger_as_if_imported_here():
            run_script(script)
    except SystemExit as done:
        code = done.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    return 0
