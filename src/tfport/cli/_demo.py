"""`tfport demo`: the seed scenario on built-in data (see tfport.cli._scenario)."""

from __future__ import annotations

import argparse
import json


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: list[argparse.ArgumentParser],
) -> None:
    """Registers `tfport demo`."""
    p = subparsers.add_parser(
        "demo",
        parents=parents,
        help="train a Keras model as an Estimator on 2 replicas, evaluate, export",
        description="A compiled Keras model on built-in data becomes an Estimator, trains on "
        "mirrored:2 (2 logical CPU devices, or GPUs), evaluates and exports a SavedModel.",
    )
    p.add_argument("--strategy", default="mirrored:2", help="strategy spec (default mirrored:2)")
    p.add_argument(
        "--model-dir",
        default=None,
        help="keep the outputs here (default: a temporary folder, removed at the end)",
    )
    p.add_argument("--steps", type=int, default=200, help="training steps (default 200)")
    p.set_defaults(func=run, filter_tf_noise=True)


def run(args: argparse.Namespace) -> int:
    """Runs the demo; prints its metrics as one JSON line on stdout."""
    import logging
    import sys

    from tfport._common.tfenv import set_progress
    from tfport.cli._scenario import run as demo

    if sys.stderr.isatty():
        set_progress(sys.stderr)  # the live training line, as under `tfport run`
    if not getattr(args, "debug", False):  # tfport's own program: no user code logs here
        logging.getLogger("tensorflow").setLevel(logging.ERROR)
    metrics = demo(args.model_dir, args.strategy, args.steps)
    print(json.dumps(metrics, sort_keys=True))
    return 0
