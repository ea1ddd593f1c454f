"""`tfport graph {inspect,convert}`: frozen GraphDefs and TF1 SavedModels.

`inspect` never imports TensorFlow; `convert` imports it only after every input check.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from tfport._common import sandbox
from tfport._common.child import DEFAULT_TIMEOUT
from tfport._common.errors import TfportInputError, message
from tfport.cli._output import spinner
from tfport.graph import ConvertReport, Limits


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: list[argparse.ArgumentParser],
) -> None:
    """Registers `tfport graph` and its verbs."""
    parser = subparsers.add_parser(
        "graph",
        parents=parents,
        help="inspect / convert frozen GraphDefs (.pb, .pbtxt) and TF1 SavedModels",
    )
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    inspect = verbs.add_parser(
        "inspect",
        parents=parents,
        help="describe a graph and list unsafe ops, without executing or importing TensorFlow",
    )
    inspect.add_argument("path", help="a .pb/.pbtxt GraphDef or a SavedModel folder")
    _safety_flags(inspect)
    _limit_flags(inspect)
    inspect.add_argument("--json", action="store_true", help="machine output on stdout")
    inspect.set_defaults(func=_inspect)

    convert = verbs.add_parser(
        "convert", parents=parents, help="convert to a TF2 SavedModel (serving signatures)"
    )
    convert.add_argument("path", help="a .pb/.pbtxt frozen graph or a TF1 SavedModel folder")
    convert.add_argument("out_dir", help="the TF2 SavedModel folder to write")
    convert.add_argument("--inputs", help="input tensors, e.g. a:0,b:0 (default: placeholders)")
    convert.add_argument("--outputs", help="output tensors, e.g. x:0,y:0 (default: sink nodes)")
    convert.add_argument("--tags", help="MetaGraph tags, e.g. serve (default: the only one)")
    _safety_flags(convert)
    _limit_flags(convert)
    convert.add_argument(
        "--max-const-bytes",
        type=_count,
        default=Limits.max_const_bytes,
        help=f"--verify refuses larger constants and inputs (default {Limits.max_const_bytes})",
    )
    convert.add_argument(
        "--verify",
        action="store_true",
        help="compare with a v1 Session run of the original (in a child process; variables "
        "read from the checkpoint bundle: the artifact's saver and init ops never run "
        "without --trust)",
    )
    convert.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        help=f"--verify is stopped after this many seconds (default {DEFAULT_TIMEOUT:g})",
    )
    add_max_memory(convert, "--verify")
    convert.add_argument(
        "--atol", type=float, default=1e-6, help="max abs difference (default %(default)g)"
    )
    convert.add_argument(
        "--sample-input",
        nargs="+",
        action="extend",
        default=[],
        metavar="NAME=FILE.npy",
        help="inputs for --verify (default: random of the right dtype and shape)",
    )
    convert.add_argument("--overwrite", action="store_true", help="replace an existing out_dir")
    convert.add_argument("--json", action="store_true", help="machine output on stdout")
    convert.set_defaults(func=_convert, filter_tf_noise=True)


def _safety_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--allow-ops", default="", help="more op types to accept: OP,OP,...")
    parser.add_argument(
        "--trust",
        action="store_true",
        help="accept every op and let TensorFlow run a SavedModel's main_op/init and saver "
        "ops (also under --verify, then run without the Landlock sandbox). Only for "
        "artifacts you trust",
    )


def _count(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return number


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def memory_bytes(value: str) -> int:
    """A byte count for --max-memory: digits, optionally followed by K, M or G (1024-based).

    Example:
        >>> memory_bytes("1G"), memory_bytes("512M"), memory_bytes("4096")
        (1073741824, 536870912, 4096)
    """
    text = value.strip().upper().removesuffix("B")
    unit = text[-1:] if text[-1:] in _UNITS else ""
    digits = text[: len(text) - len(unit)]
    if not digits.isdigit() or int(digits) < 1:
        raise argparse.ArgumentTypeError(
            f"expected a positive number of bytes (suffix K, M or G allowed), got {value!r}"
        )
    return int(digits) * _UNITS[unit]


def add_max_memory(parser: argparse.ArgumentParser, what: str) -> None:
    """Adds --max-memory (default: half of the physical memory) to `parser`; `what` names
    what it stops in the help text.

    Example:
        >>> add_max_memory(argparse.ArgumentParser(), "--verify")
    """
    default = sandbox.physical_memory() // 2
    parser.add_argument(
        "--max-memory",
        type=memory_bytes,
        default=default,
        metavar="BYTES",
        help=f"stop {what} when the artifact's run adds more than this much memory to its "
        f"process (K/M/G suffixes accepted; default half of the physical memory: {default})",
    )


def _seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not number > 0 or number == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {value!r}")
    return number


def _limit_flags(parser: argparse.ArgumentParser) -> None:
    for flag, default, what in (
        ("--max-nodes", Limits.max_nodes, "nodes in the graph and its functions"),
        ("--max-depth", Limits.max_depth, "function call depth and attribute nesting"),
        ("--max-bytes", Limits.max_bytes, "input file size"),
    ):
        parser.add_argument(flag, type=_count, default=default, help=f"{what} (default {default})")


def _limits(args: argparse.Namespace) -> Limits:
    return Limits(
        max_bytes=args.max_bytes,
        max_nodes=args.max_nodes,
        max_depth=args.max_depth,
        max_const_bytes=getattr(args, "max_const_bytes", Limits.max_const_bytes),
    )


def _split(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def _inspect(args: argparse.Namespace) -> int:
    from tfport.graph import inspect_graph

    with spinner(f"reading {args.path}"):
        report = inspect_graph(args.path, _split(args.allow_ops), args.trust, _limits(args))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        from tfport.graph import render_inspect

        render_inspect(report)
    blocking = report["blocking"]
    if blocking:
        ops = sorted({u["op"] for u in blocking})
        nodes = ", ".join(f"{u['where']}/{u['node']} ({u['op']})" for u in blocking[:10])
        raise TfportInputError(
            message(
                f"{args.path} is refused: {len(blocking)} node(s) use ops outside the safe "
                f"list: {nodes}",
                f"If you trust it, pass --allow-ops {','.join(ops)} (or --trust)",
                unsafe_ops=ops,
            )
        )
    return 0


def _samples(values: list[str]) -> dict[str, str]:
    result = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            raise TfportInputError(
                message("--sample-input takes NAME=FILE.npy", "e.g. input=x.npy", value=value)
            )
        result[name] = path
    return result


def _convert(args: argparse.Namespace) -> int:
    from tfport.graph import convert

    with spinner(f"converting {args.path}" + (" and verifying" if args.verify else "")):
        report = _run_convert(convert, args)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"Wrote TF2 SavedModel {report['output']}")
    for key, sig in report["signatures"].items():
        ins = ", ".join(f"{k}={v}" for k, v in sig["inputs"].items())
        outs = ", ".join(f"{k}={v}" for k, v in sig["outputs"].items())
        print(f"  signature {key}: inputs [{ins}] -> outputs [{outs}]")
    if "verify" in report:
        for key, diffs in report["verify"]["max_abs_diff"].items():
            shown = ", ".join(f"{k}: {v:.3g}" for k, v in diffs.items())
            print(f"  verify {key}: max abs diff {shown} (atol {args.atol:g}) ok")
    return 0


def _run_convert(convert: Callable[..., ConvertReport], args: argparse.Namespace) -> ConvertReport:
    return convert(
        args.path,
        args.out_dir,
        inputs=_split(args.inputs) or None,
        outputs=_split(args.outputs) or None,
        allow_ops=_split(args.allow_ops),
        trust=args.trust,
        tags=_split(args.tags) or None,
        overwrite=args.overwrite,
        verify=args.verify,
        atol=args.atol,
        sample_inputs=_samples(args.sample_input),
        limits=_limits(args),
        timeout=args.timeout,
        max_memory=args.max_memory,
    )
