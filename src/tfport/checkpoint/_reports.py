"""The typed shapes of the checkpoint reports (`inspect`, `diff`, `convert`, `port`).

Each is a plain dict at run time (JSON-able, `tfport ckpt ... --json` prints it as is);
the TypedDicts let the type checker verify every key the CLI and callers read.

Example:
    >>> report: DiffResult = {"a": "A", "b": "B", "atol": 0.0, "only_in_a": [],
    ...     "only_in_b": [], "mismatches": [], "tensors": [], "equal": True}
    >>> report["equal"]
    True
"""

from __future__ import annotations

from typing import Any, TypedDict


class InspectReport(TypedDict):
    """`inspect_checkpoint`: one row per variable (`name`, `shape`, `dtype`, `bytes`,
    `group`, `optimizer`, `naming`, `partitions`, ...), counts and bytes per group."""

    prefix: str
    format: str
    num_shards: int
    variables: list[dict[str, Any]]
    groups: dict[str, dict[str, int]]
    optimizers: list[dict[str, Any]]
    total_bytes: int


class DiffResult(TypedDict):
    """`diff_checkpoints`: names in one checkpoint only, shape/dtype mismatches and
    `{name, max_abs_diff, differs}` per common tensor."""

    a: str
    b: str
    atol: float
    only_in_a: list[str]
    only_in_b: list[str]
    mismatches: list[dict[str, Any]]
    tensors: list[dict[str, Any]]
    equal: bool


class ConvertReport(TypedDict):
    """`convert`: each output tensor `{name, kind, from}`, what was dropped and why."""

    source: str
    output: str
    tensors: list[dict[str, Any]]
    dropped: dict[str, str]
    hyperparameters: dict[str, str]
    warnings: list[str]


class PortReport(TypedDict, total=False):
    """`assignment_map` / `restore` / `port`: the name mapping and what stayed unmatched."""

    map: dict[str, str]
    mapping: list[dict[str, str]]
    unmatched_model: list[str]
    unused: list[str]
    ambiguous: list[Any]
    complete: bool
    output: str | None
