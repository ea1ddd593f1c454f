"""`tfport verify A B`: numerical equivalence of two artifacts on the same inputs.

Exit 0 equal, 1 different, 2 bad input (unknown artifact, unreadable inputs, mismatched
signatures, an unsafe op, a constant over --max-const-bytes, a run over --timeout).

SavedModels and frozen graphs are scanned like `tfport graph inspect` before anything
runs, and refused unless `--trust`; an export folder's `model.py` is imported only when
this machine's `tfport keras export` wrote it (else `--trust`); the artifacts run in a
child process stopped after `--timeout` seconds.

Example:
    $ tfport verify train.py:make_estimator@model_dir model.keras --inputs rows.npz
"""

from __future__ import annotations

import argparse
import json
import sys

from tfport._common.child import DEFAULT_TIMEOUT
from tfport.cli._graph import _count, _seconds, add_max_memory
from tfport.graph import Limits

_FORMS = (
    "SCRIPT_OR_MODULE:FACTORY@MODEL_DIR (an Estimator), a SavedModel folder, OUT.keras, "
    "an OUT/ folder of `tfport keras export` (its model.py imported only if this machine's "
    "export wrote it, or with --trust), a frozen .pb/.pbtxt, or a checkpoint (both A and B)"
)


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: list[argparse.ArgumentParser],
) -> None:
    """Registers `tfport verify`."""
    p = subparsers.add_parser(
        "verify",
        parents=parents,
        help="do two artifacts compute the same thing? (exit 1 if not)",
        description=f"Artifacts: {_FORMS}.",
    )
    p.add_argument(
        "a",
        metavar="A",
        help="an Estimator as FACTORY@MODEL_DIR (FACTORY: SCRIPT_OR_MODULE:FUNCTION), a "
        "SavedModel folder, a .keras file, a frozen graph (.pb/.pbtxt) or a checkpoint",
    )
    p.add_argument("b", metavar="B", help="the artifact to compare with A (same kinds as A)")
    p.add_argument("--inputs", help=".npz or TFRecord of tf.Examples (default: generated)")
    p.add_argument(
        "--atol",
        type=float,
        default=1e-5,
        help="absolute tolerance: |a - b| <= atol + rtol * |b| (default %(default)g)",
    )
    p.add_argument(
        "--rtol", type=float, default=1e-5, help="relative tolerance (default %(default)g)"
    )
    p.add_argument("--signature-a", help="SavedModel signature of A (default serving_default)")
    p.add_argument("--signature-b", help="SavedModel signature of B")
    p.add_argument("--graph-inputs", help="frozen graph input tensors, comma-separated")
    p.add_argument("--graph-outputs", help="frozen graph output tensors, comma-separated")
    p.add_argument(
        "--rows", type=int, default=8, help="rows of generated inputs (default %(default)s)"
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of generated inputs (default %(default)s)"
    )
    p.add_argument(
        "--train-step",
        action="store_true",
        help="an Estimator and its .keras export, or its export folder written with "
        "--training: one training step from the same checkpoint (the folder: one `fit` step "
        "of OUT/model.keras vs the Estimator's next step), compare loss, weights and slots",
    )
    p.add_argument(
        "--label-key",
        default="label",
        help="labels' key in --inputs for --train-step (default label; generated if absent)",
    )
    p.add_argument(
        "--trust",
        action="store_true",
        help="run the artifacts whatever they hold: no safety scan of SavedModels and frozen "
        "graphs (TensorFlow's loader runs their main_op/init and saver ops), .keras files "
        "loaded outside Keras's safe mode, the model.py of an export folder imported though "
        "this machine's `keras export` did not write it, no Landlock sandbox around the "
        "run. Only for artifacts you trust",
    )
    p.add_argument(
        "--allow-ops", default="", help="op types the safety scan should accept: OP,OP,..."
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        help=f"stop the run after this many seconds (default {DEFAULT_TIMEOUT:g})",
    )
    p.add_argument(
        "--max-const-bytes",
        type=_count,
        default=Limits.max_const_bytes,
        help=f"refuse graphs with larger constants (default {Limits.max_const_bytes})",
    )
    add_max_memory(p, "the run")
    p.add_argument("--json", action="store_true", help="machine output on stdout")
    p.set_defaults(func=_verify, filter_tf_noise=True)


def _names(text: str | None) -> list[str] | None:
    return [t.strip() for t in text.split(",") if t.strip()] if text else None


def _verify(args: argparse.Namespace) -> int:
    from tfport import verify

    report = verify.verify(
        args.a,
        args.b,
        inputs=args.inputs,
        atol=args.atol,
        rtol=args.rtol,
        signature_a=args.signature_a,
        signature_b=args.signature_b,
        graph_inputs=_names(args.graph_inputs),
        graph_outputs=_names(args.graph_outputs),
        rows=args.rows,
        seed=args.seed,
        train_step=args.train_step,
        label_key=args.label_key,
        trust=args.trust,
        allow_ops=_names(args.allow_ops) or (),
        timeout=args.timeout,
        max_const_bytes=args.max_const_bytes,
        max_memory=args.max_memory,
    )
    if args.json:
        json.dump(report, sys.stdout, indent=2, sort_keys=True, default=str)
        sys.stdout.write("\n")
    else:
        print(verify.render(report))
    return 0 if report["equal"] else 1
