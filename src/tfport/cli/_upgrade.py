"""`tfport upgrade PATH... (--in-place | --out DIR) [--diff] [--report FILE] [--json]
[--check-imports]`.

Exit codes: 0 every file was upgraded and resolves on TF 2.21 (changed or
runs as is), 1 at least one file failed or needs manual work (the others are still
upgraded), 2 bad usage. Output: with `--json` one JSON document on stdout;
otherwise WARNING/ERROR report lines (and diffs with `--diff`) on stdout,
progress and the summary on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

from tfport._common.atomic import atomic_file, refuse_existing
from tfport._common.errors import TfportInputError, message
from tfport.cli._output import Counter, colour_diff, plural, spinner, use_colour

if TYPE_CHECKING:
    from tfport.upgrade import FileResult

_EPILOG = """\
Code that runs is left alone: a file whose every name resolves on the installed
TensorFlow + tfport (tensorflow.compat.v1 under any alias, tf.estimator,
tensorflow.core / tensorflow.python modules) is reported "runs as is under tfport"
and copied as it is (--rewrite-all rewrites it too, to run with plain python).

For the rest, runs TensorFlow's tf_upgrade_v2 logic with tfport's rule table (every
rewrite keeps TF 1.x's numbers: a rule that would change them becomes the
tf.compat.v1 symbol; see docs/upgrade-rules.md), then tfport's rewrites: tf.estimator and
tf.contrib.tpu -> tfport.estimator, tf.keras.estimator.model_to_estimator ->
tfport.keras, tf.layers -> tf.compat.v1.layers (with `import tfport;
tfport.install()` added before the TensorFlow import), TensorShape `.value`,
colocate_with blocks, ConfigProto device settings -> tf.config, tf.flags ->
tf.compat.v1.flags, and the tf.contrib names public TF1 code uses most ->
tf.compat.v1 / tf.data / tfport.compat.contrib (same variable names). A
rewritten file runs with plain `python` on TF 2.21; one left as is runs under
`tfport run` (or after --rewrite-all). The report has one line per cause, with
the lines it covers.

Each upgraded file is then checked, without running it, for names that do not
resolve on the installed TensorFlow (tf.contrib.*, tf.flags, removed tf.* names):
a file with any "needs manual work", listed as OUTPUT:LINE:COL. --check-imports
also imports each upgraded module in its own process (after tfport.install())
and reports its first error.

exit status: 0 every file was upgraded and resolves, 1 a file could not be
upgraded or needs manual work (the others still were), 2 bad usage. --diff
writes no upgraded file (a --report FILE is still written).

examples:
  tfport upgrade train.py --out upgraded/
  tfport upgrade src/ --in-place --report upgrade.txt
  tfport upgrade src/ --diff
  tfport upgrade src/ --out up/ --check-imports
"""


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    parents: list[argparse.ArgumentParser],
) -> None:
    """Registers `tfport upgrade` (a single-verb area).

    Example:
        >>> from tfport.cli._main import build_parser
        >>> build_parser().parse_args(["upgrade", "a.py", "--diff"]).diff
        True
    """
    p = subparsers.add_parser(
        "upgrade",
        parents=parents,
        help="upgrade legacy TF / Estimator source to run on TF 2.21 with tfport",
        description="Upgrade TF 1.x / Estimator-era Python files to run on TF 2.21.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (*.py)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--in-place", action="store_true", help="rewrite the files themselves")
    where.add_argument("--out", metavar="DIR", help="write the upgraded files under DIR")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace existing outputs (files under --out, the --report file)",
    )
    p.add_argument("--diff", action="store_true", help="show the changes, write nothing")
    p.add_argument("--report", metavar="FILE", help="write the full report (all levels) to FILE")
    p.add_argument("--json", action="store_true", help="machine-readable result on stdout")
    p.add_argument(
        "--rewrite-all",
        action="store_true",
        help="also rewrite files that run under tfport as they are (tf.estimator -> "
        "tfport.estimator, `import tfport; tfport.install()`), to run with plain python",
    )
    p.add_argument(
        "--check-imports",
        action="store_true",
        help="import each upgraded module in a subprocess (after tfport.install())",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Runs the upgrade; returns the exit code (0 ok, 1 a file failed or needs manual work)."""
    from tfport.upgrade import check_imports, plan_outputs, report_text, summary, upgrade_paths

    if args.check_imports and args.diff:
        raise TfportInputError(
            message("--check-imports needs the upgraded files", "Drop --diff, pass --out DIR")
        )
    if args.report:
        _check_report_path(args.report, args.overwrite)
    where = {"in_place": args.in_place, "out_dir": args.out, "write": not args.diff}
    total = len(plan_outputs(args.paths, **where))
    with Counter("upgrading", total) as counter:

        def progress(result: FileResult) -> None:
            if not args.json:
                counter.note(_status_line(result))
            counter.advance()

        results = upgrade_paths(
            args.paths,
            overwrite=args.overwrite,
            rewrite_all=args.rewrite_all,
            progress=progress,
            **where,
        )
    if args.check_imports:
        with spinner(f"importing {plural(len(results), 'upgraded module')}"):
            results = check_imports(results)
    if args.report:
        with atomic_file(args.report, "w") as f:
            f.write(report_text(results))
    counts = summary(results)
    if args.json:
        doc = {"files": [r.to_json() for r in results], "summary": counts, "wrote": not args.diff}
        print(json.dumps(doc, indent=1))
    else:
        _print_human(results, args.diff)
    if counts["files"] and counts["unchanged"] == counts["files"]:
        print(
            "tfport upgrade: nothing to upgrade, every file runs as is under tfport",
            file=sys.stderr,
        )
    print(_summary_line(counts, args.diff), file=sys.stderr)
    return 1 if counts["failed"] or counts["needs_manual"] else 0


def _check_report_path(path: str, overwrite: bool) -> None:
    refuse_existing(path, overwrite)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise TfportInputError(
            message(f"The folder of --report {path} does not exist", "Create it first", report=path)
        )


def _status_line(result: FileResult) -> str:
    where = f" -> {result.output}" if result.output and result.output != result.path else ""
    return f"{result.status.value:9} {result.path}{where}"


def _print_human(results: list[FileResult], diff: bool) -> None:
    colour = use_colour(sys.stdout)
    for result in results:
        if diff and result.diff:
            sys.stdout.write(colour_diff(result.diff) if colour else result.diff)
        for line in result.lines():
            if ": INFO: " not in line:
                print(line)


def _summary_line(counts: dict[str, int], diff: bool) -> str:
    """The last line on stderr, e.g. `tfport upgrade: 1 file: 1 changed, ...; 2 warnings`.

    Example:
        >>> from tfport.upgrade import summary
        >>> _summary_line(summary([]), False).startswith("tfport upgrade: 0 files: 0 changed")
        True
    """
    from tfport.upgrade import files_text

    text = (
        f"tfport upgrade: {files_text(counts)}; {plural(counts['errors'], 'error')}, "
        f"{plural(counts['warnings'], 'warning')}, "
        f"{plural(counts['unresolved'], 'unresolved name')}"
    )
    return text + (" (--diff: nothing written)" if diff else "")
