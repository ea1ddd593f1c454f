"""Human-readable `inspect` output (rich tables on a terminal, plain text otherwise)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfport._common.text import human_bytes, plural
from tfport.graph._reports import GraphReport, InspectReport, UnsafeNode

if TYPE_CHECKING:
    from rich.console import Console


def render_inspect(report: InspectReport, console: Console | None = None) -> None:
    """Prints an `inspect_graph` report for people.

    Example:
        >>> render_inspect(inspect_graph("frozen.pb"))  # doctest: +SKIP
    """
    from rich.console import Console

    console = console or Console(highlight=False, soft_wrap=True, markup=False)
    console.print(f"{report['path']}: {report['format']}, {human_bytes(report['bytes'])}")
    for index, graph in enumerate(report["graphs"]):
        if "tags" in graph:
            console.print(f"MetaGraph {index}: tags {graph['tags']}")
            _saved_model_parts(console, graph)
        console.print(f"{plural(graph['nodes'], 'node')}, graph size {human_bytes(graph['bytes'])}")
        for t in graph["inputs"]:
            console.print(f"input  {t['name']}  {t['dtype']}  {t['shape']}")
        for name in graph["outputs"]:
            console.print(f"output {name}")
        ops = ", ".join(f"{op} {n}" for op, n in graph["op_histogram"].items())
        console.print(f"ops: {ops}")
        for fn in graph["functions"]:
            console.print(
                f"function {fn['name']} ({plural(fn['nodes'], 'node')}) used by {fn['used_by']}"
            )
        _unsafe(console, graph["unsafe"])
        unbounded = graph.get("unbounded")
        if unbounded:
            shown = ", ".join(f"{op} {n}" for op, n in unbounded.items())
            console.print(
                f"unbounded output size: {shown} (sized at run time; held only by --max-memory)"
            )


def _saved_model_parts(console: Console, graph: GraphReport) -> None:
    for key, sig in graph["signatures"].items():
        ins = ", ".join(f"{k}={v['name']}" for k, v in sig["inputs"].items())
        outs = ", ".join(f"{k}={v['name']}" for k, v in sig["outputs"].items())
        console.print(f"signature {key} ({sig['method_name']}): [{ins}] -> [{outs}]")
    for var in graph["variables"]:
        console.print(f"variable {var['name']}  {var['dtype']}  {var['shape']}  ({var['op']})")
    for key, ops in graph["init_ops"].items():
        console.print(f"init ({key}): {', '.join(ops)}  (never run without --trust)")


def _unsafe(console: Console, unsafe: list[UnsafeNode]) -> None:
    if not unsafe:
        console.print("unsafe ops: none")
        return
    if not console.is_terminal:
        for u in unsafe:
            blocks = "BLOCKS" if u["blocking"] else "allowed"
            via = f" via {u['via']}" if u["via"] else ""
            console.print(f"unsafe {u['op']} {u['where']}/{u['node']}{via} [{u['role']}] {blocks}")
        return
    from rich.table import Table

    table = Table(title="ops outside the safe list")
    for column in ("op", "node", "where", "via", "role", "blocks"):
        table.add_column(column)
    for u in unsafe:
        table.add_row(
            u["op"],
            u["node"],
            u["where"],
            u["via"] or "-",
            u["role"],
            "yes" if u["blocking"] else "no",
        )
    console.print(table)
