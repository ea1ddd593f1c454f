"""`tfport ckpt {inspect,diff,convert,port}`: the checkpoint toolkit's command line.

`inspect`, `diff` and `convert` never import TensorFlow; `port` does (it builds a model).

Example:
    $ tfport ckpt inspect model_dir --json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from tfport.cli._output import human_bytes, plural, print_table, spinner

if TYPE_CHECKING:
    from tfport.checkpoint import DiffResult


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: list[argparse.ArgumentParser],
) -> None:
    """Registers `tfport ckpt` and its verbs."""
    p = subparsers.add_parser(
        "ckpt", parents=parents, help="inspect, diff, convert and port TF checkpoints"
    )
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)

    v = verbs.add_parser("inspect", parents=parents, help="list variables, slots, bookkeeping")
    v.add_argument("path", help="checkpoint prefix, model_dir or `checkpoint` file")
    v.add_argument("--json", action="store_true", help="machine output on stdout")
    v.set_defaults(func=_inspect)

    v = verbs.add_parser("diff", parents=parents, help="compare two checkpoints (exit 1 if differ)")
    v.add_argument("a", metavar="A", help="checkpoint prefix, model_dir or `checkpoint` file")
    v.add_argument("b", metavar="B", help="the checkpoint to compare with A (same forms)")
    v.add_argument(
        "--atol",
        type=float,
        default=0.0,
        help="tolerated max |A - B| per tensor (default %(default)g)",
    )
    v.add_argument("--json", action="store_true", help="machine output on stdout")
    v.set_defaults(func=_diff)

    v = verbs.add_parser("convert", parents=parents, help="rename optimizer slots TF1 <-> Keras")
    v.add_argument("src", help="source checkpoint (never modified)")
    v.add_argument("dst", help="output folder (model.ckpt.* and a `checkpoint` file)")
    v.add_argument(
        "--slots",
        choices=["v1-to-keras", "keras-to-v1"],
        help="rename optimizer slots: TF1 `<var>/Adam` <-> Keras `training/Adam/<var>/m`",
    )
    v.add_argument(
        "--estimator",
        choices=["dnn", "linear", "combined"],
        help="a v1 canned estimator's checkpoint to v2 names (the legacy checkpoint_converter; "
        "needs --graph)",
    )
    v.add_argument("--graph", help="the model_dir's graph.pbtxt (optimizer hyperparameters)")
    v.add_argument(
        "--partitions-like",
        metavar="REF",
        help="split variables into partitions as TF1 checkpoint REF has them",
    )
    v.add_argument("--overwrite", action="store_true", help="replace an existing checkpoint in DST")
    v.add_argument("--json", action="store_true", help="machine output on stdout")
    v.set_defaults(func=_convert)

    v = verbs.add_parser("port", parents=parents, help="load a checkpoint into a model, save it")
    v.add_argument("src", help="source checkpoint")
    v.add_argument("out", help="output: a .weights.h5 file or a checkpoint prefix")
    v.add_argument("--model", required=True, help="MODULE:FACTORY returning the model")
    v.add_argument(
        "--to",
        required=True,
        choices=["keras-weights", "tf-checkpoint"],
        help="OUT's format: Keras `.weights.h5` or a TF2 object-based checkpoint",
    )
    v.add_argument("--map", help="JSON {checkpoint name: model variable path} overrides")
    v.add_argument(
        "--dry-run",
        action="store_true",
        help="only print the mapping (exit 1 if a model variable is unmatched)",
    )
    v.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    v.add_argument("--json", action="store_true", help="machine output on stdout")
    v.set_defaults(func=_port, filter_tf_noise=True)  # port builds a model: TensorFlow starts


def _print_json(data: object) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=True, default=str)
    sys.stdout.write("\n")


_GROUPS = {
    "model_weights": "model weights",
    "optimizer_slots": "optimizer slots",
    "bookkeeping": "bookkeeping",
}


def _inspect(args: argparse.Namespace) -> int:
    from tfport.checkpoint import inspect_checkpoint

    report = inspect_checkpoint(args.path)
    if args.json:  # exact byte counts
        _print_json(report)
        return 0
    rows = []
    for var in report["variables"]:
        what = var["group"]
        if var["optimizer"]:
            what += f" ({var['optimizer']}, {var['naming'] or '?'})"
        parts = f" x{var['partitions']}" if var["partitions"] > 1 else ""
        shape = "[" + ", ".join(str(d) for d in var["shape"]) + "]"
        rows.append([var["name"], shape, var["dtype"], human_bytes(var["bytes"]), what + parts])
    shards = plural(report["num_shards"], "shard")
    print_table(
        f"{report['prefix']} ({report['format']}, {shards})",
        ["name", "shape", "dtype", "size", "group"],
        rows,
    )
    groups = ", ".join(
        f"{_GROUPS.get(g, g)}: {plural(v['count'], 'tensor')} ({human_bytes(v['bytes'])})"
        for g, v in report["groups"].items()
    )
    print(f"{groups}; total {human_bytes(report['total_bytes'])}")
    return 0


def _diff(args: argparse.Namespace) -> int:
    from tfport.checkpoint import diff_checkpoints

    result = diff_checkpoints(args.a, args.b, atol=args.atol)
    if args.json:
        _print_json(result)
        return 0 if result["equal"] else 1
    for name in result["only_in_a"]:
        print(f"only in A: {name}")
    for name in result["only_in_b"]:
        print(f"only in B: {name}")
    for m in result["mismatches"]:
        a, b = m["a"], m["b"]
        print(f"mismatch: {m['name']}: A {a['dtype']} {a['shape']}, B {b['dtype']} {b['shape']}")
    for t in result["tensors"]:
        if t["differs"]:
            print(f"differs: {t['name']}: max |A-B| = {t['max_abs_diff']}")
    print(_diff_summary(result))
    return 0 if result["equal"] else 1


def _diff_summary(result: DiffResult) -> str:
    """`N equal, M differ, K only in A, L only in B[, S shape/dtype mismatches]`.

    Example:
        >>> _diff_summary({"tensors": [{"differs": False}], "only_in_a": [],
        ...     "only_in_b": ["x"], "mismatches": [], "equal": False, "atol": 0.0})
        'checkpoints differ: 1 equal, 0 differ, 0 only in A, 1 only in B'
    """
    differ = sum(t["differs"] for t in result["tensors"])
    parts = [
        f"{len(result['tensors']) - differ} equal",
        f"{differ} differ" if differ != 1 else "1 differs",
        f"{len(result['only_in_a'])} only in A",
        f"{len(result['only_in_b'])} only in B",
    ]
    if result["mismatches"]:
        parts.append(
            plural(len(result["mismatches"]), "shape/dtype mismatch", "shape/dtype mismatches")
        )
    tolerance = f" (atol {result['atol']:g})" if result["atol"] else ""
    verdict = "checkpoints equal" if result["equal"] else "checkpoints differ"
    return f"{verdict}{tolerance}: " + ", ".join(parts)


def _convert(args: argparse.Namespace) -> int:
    from tfport.checkpoint import convert

    with spinner(f"converting {args.src}"):
        report = convert(
            args.src,
            args.dst,
            slots=args.slots,
            estimator=args.estimator,
            graph=args.graph,
            overwrite=args.overwrite,
            partitions_like=args.partitions_like,
        )
    if args.json:
        _print_json(report)
        return 0
    for t in report["tensors"]:
        print(_convert_line(t))
    for name, why in report["dropped"].items():
        print(f"dropped {name}: {why}", file=sys.stderr)
    for name, source in report["hyperparameters"].items():
        print(f"hyperparameter {name} from {source}", file=sys.stderr)
    for warning in report["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    print(f"wrote {report['output']}", file=sys.stderr)
    return 0


def _convert_line(tensor: Mapping[str, object]) -> str:
    """One output tensor of `ckpt convert`: how it is made and from what.

    Example:
        >>> _convert_line({"name": "w", "kind": "merge", "from": ["w/part_0", "w/part_1"]})
        '   merge  w  <-  w/part_0, w/part_1'
        >>> _convert_line({"name": "opt/lr", "kind": "computed", "from": "0.1 (from the graph)"})
        'computed  opt/lr  =  0.1 (from the graph)'
    """
    source = tensor["from"]
    text = ", ".join(source) if isinstance(source, list) else str(source or "")
    arrow = "=" if tensor["kind"] == "computed" else "<-"
    return f"{tensor['kind']:>8}  {tensor['name']}  {arrow}  {text}".rstrip()


def _port(args: argparse.Namespace) -> int:
    from tfport.checkpoint import port

    report = port(
        args.src,
        args.model,
        args.to,
        args.out,
        map_file=args.map,
        overwrite=args.overwrite,
        dry_run=args.dry_run,
    )
    status = 1 if args.dry_run and not report["complete"] else 0
    if args.json or not sys.stdout.isatty():
        _print_json(report)
        return status
    rows = [[m["checkpoint"], m["model"], m["how"]] for m in report["mapping"]]
    print_table("checkpoint -> model", ["checkpoint name", "model variable", "matched by"], rows)
    for name in report["unused"]:
        print(f"not used: {name}", file=sys.stderr)
    for name in report.get("unmatched_model", []):
        print(f"no checkpoint value for model variable: {name}", file=sys.stderr)
    if report["output"]:
        print(f"wrote {report['output']}", file=sys.stderr)
    return status
