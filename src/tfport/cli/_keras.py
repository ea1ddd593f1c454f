"""`tfport keras export`: a canned estimator built by a script -> a Keras 3 `.keras` file.

Example:
    $ tfport keras export train.py:make_estimator model_dir out.keras
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tfport.estimator import Estimator


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: list[argparse.ArgumentParser],
) -> None:
    """Registers `tfport keras` and its verbs."""
    p = subparsers.add_parser("keras", parents=parents, help="Estimators as Keras 3 models")
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    v = verbs.add_parser(
        "export",
        parents=parents,
        help="write an Estimator's Keras 3 model (same predictions): a folder with model.py, "
        "weights, model.keras and report.json for any model_fn, or OUT.keras (canned only)",
    )
    v.add_argument(
        "factory",
        metavar="SCRIPT_OR_MODULE:FACTORY",
        help="FACTORY(model_dir) returns the estimator (the script runs under tfport)",
    )
    v.add_argument("model_dir", help="the estimator's model_dir (latest checkpoint)")
    v.add_argument(
        "out",
        metavar="OUT",
        help="the folder to create (any model_fn), or a file ending in .keras (canned estimators)",
    )
    v.add_argument("--checkpoint", help="a checkpoint other than the latest")
    v.add_argument(
        "--input-shape",
        action="append",
        default=[],
        metavar="KEY=DIMS",
        help="per-example shape of a feature, e.g. tags=None (multivalent) or x=4,2",
    )
    v.add_argument(
        "--overwrite", action="store_true", help="replace OUT if it exists (default: refuse)"
    )
    v.add_argument(
        "--check-on",
        default="tensorflow",
        metavar="BACKENDS",
        help="folder exports: Keras backends the written model is checked on against the "
        "model_fn before OUT appears, e.g. tensorflow,jax (jax runs it in a process without "
        "TensorFlow; default tensorflow)",
    )
    v.add_argument(
        "--training",
        action="store_true",
        help="OUT (a folder) also trains: model.keras is compiled with the model_fn's loss, "
        "dropout, batch-norm updates, L2 terms and optimizer (its checkpoint state), so `fit` "
        "continues the training (check one step: tfport verify --train-step)",
    )
    v.add_argument("--json", action="store_true", help="machine output on stdout")
    v.set_defaults(func=_export, filter_tf_noise=True)


def _shapes(items: list[str]) -> dict[str, tuple[int | None, ...]]:
    from tfport._common.errors import TfportInputError, message

    out = {}
    for item in items:
        key, sep, dims = item.partition("=")
        try:
            if not sep or not key:
                raise ValueError(item)
            out[key] = tuple(None if d.strip() == "None" else int(d) for d in dims.split(","))
        except ValueError as err:
            raise TfportInputError(
                message("Bad --input-shape", "Pass KEY=DIMS, e.g. tags=None", input_shape=item)
            ) from err
    return out


def _export(args: argparse.Namespace) -> int:
    from tfport._common.atomic import refuse_existing
    from tfport._common.errors import TfportInputError, message
    from tfport.keras import estimator_to_keras, save_keras
    from tfport.verify import load_estimator

    shapes = _shapes(args.input_shape)
    refuse_existing(args.out, args.overwrite)
    estimator = load_estimator(args.factory, args.model_dir)
    if not str(args.out).endswith(".keras"):
        return _export_folder(args, estimator, shapes)
    if args.check_on != "tensorflow":
        raise TfportInputError(
            message(
                "--check-on applies to folder exports (a canned estimator's OUT.keras is "
                "built from its head, not traced)",
                "Drop --check-on, or export to a folder",
                check_on=args.check_on,
            )
        )
    if args.training:
        raise TfportInputError(
            message("--training writes a folder", "Pass OUT without .keras", out=args.out)
        )
    model = estimator_to_keras(estimator, args.checkpoint, input_shapes=shapes)
    save_keras(model, args.out, overwrite=args.overwrite)
    report = {
        "out": args.out,
        "inputs": {t.name: [str(t.dtype), list(t.shape[1:])] for t in model.inputs},
        "outputs": sorted(model.output) if isinstance(model.output, dict) else None,
    }
    if args.json:
        json.dump(report, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        print(
            f"wrote {args.out}: inputs {', '.join(report['inputs'])}; "
            f"outputs {', '.join(report['outputs'] or [])}"
        )
    return 0


def _export_folder(
    args: argparse.Namespace, estimator: Estimator, shapes: dict[str, tuple[int | None, ...]]
) -> int:
    """OUT is a folder: the model_fn traced and written as Keras 3 code (any Estimator)."""
    from tfport.keras import export_model_fn

    report = export_model_fn(
        estimator,
        args.out,
        factory=args.factory,
        checkpoint=args.checkpoint,
        input_shapes=shapes,
        overwrite=args.overwrite,
        check_on=tuple(n.strip() for n in args.check_on.split(",")),
        training=args.training,
    )
    if args.json:
        json.dump({"out": args.out, **report}, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        print(
            f"wrote {args.out}/ (model.py, model.weights.h5, model.keras, report.json): "
            f"inputs {', '.join(report['inputs'])}; outputs {', '.join(report['outputs'])}"
        )
    return 0
