"""Strategies as values: one registry of specs (`mirrored:2`, `multi-worker`, `tpu`, ...).

A spec string is parsed against :data:`KINDS` (the CLI's `--strategy` choices, the
README's table and the error messages all come from it) and resolved **once** into a
strategy object: devices are split once, a parameter-server task's server starts once,
and `tpu` where there is none is refused while parsing, before anything is initialised.
`tfport run --strategy SPEC` calls :func:`set_default`; every `RunConfig` built later
that names no strategy of its own reads that default at construction.

Examples:
    >>> import tfport.distribute as dist
    >>> dist.parse("mirrored:2")
    Spec(kind='mirrored', arg='2')
    >>> [k.name for k in dist.KINDS][:3]
    ['default', 'mirrored', 'multi-worker']
"""

from __future__ import annotations

from tfport.distribute._registry import (
    KINDS,
    Spec,
    clear_default,
    default,
    num_replicas,
    parse,
    resolve,
    set_default,
    spec_help,
    task_server,
)

__all__ = [
    "KINDS",
    "Spec",
    "clear_default",
    "default",
    "num_replicas",
    "parse",
    "resolve",
    "set_default",
    "spec_help",
    "task_server",
]
