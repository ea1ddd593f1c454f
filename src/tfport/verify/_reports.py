"""The typed shape of a `verify` report.

A plain dict at run time (JSON-able, `tfport verify --json` prints it as is); the
TypedDict lets the type checker verify every key the CLI and `render` read. `kind` says
which fields are present: "outputs" (rows, inputs, rtol, outputs, only_in_a/b),
"train_step" (rows, inputs, rtol, optimizer, optimizer_config, loss, outputs) or
"checkpoints" (worst, diff).

Example:
    >>> ref: ArtifactRef = {"kind": "keras", "path": "model.keras"}
    >>> ref["kind"]
    'keras'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from tfport.checkpoint import DiffResult


class ArtifactRef(TypedDict):
    """One side of the comparison: its kind and how it was named."""

    kind: str
    path: str


class VerifyReport(TypedDict, total=False):
    """`verify`: both artifacts, the tolerances, per-output rows and the verdict `equal`."""

    kind: str
    a: ArtifactRef
    b: ArtifactRef
    atol: float
    rtol: float
    equal: bool
    rows: int
    inputs: str
    outputs: list[dict[str, Any]]
    only_in_a: list[str]
    only_in_b: list[str]
    optimizer: str
    optimizer_config: dict[str, Any]
    loss: str
    worst: dict[str, Any] | None
    diff: DiffResult
