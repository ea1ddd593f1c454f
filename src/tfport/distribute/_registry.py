"""The strategy registry: spec kinds, parsing, one-time resolution, the process default."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Strategy
from tfport.distribute import _devices


@dataclasses.dataclass(frozen=True)
class Spec:
    """A parsed strategy spec: its kind and optional argument (`mirrored:2` -> 2)."""

    kind: str
    arg: str | None = None

    def __str__(self) -> str:
        return self.kind + (":" + self.arg if self.arg else "")


@dataclasses.dataclass(frozen=True)
class Kind:
    """One entry of the registry: the spec's form, what it means, how it is built."""

    name: str
    form: str
    help: str
    make: Callable[[str | None], Any]
    arg: str | None = None  # "count" (mirrored:N) or "address" (tpu:ADDRESS)


def _default(arg: str | None) -> Any:
    del arg
    return None


def _mirrored(arg: str | None) -> Any:
    devices = _devices.replica_devices(int(arg) if arg else None)
    return import_tf().compat.v1.distribute.MirroredStrategy(devices=devices)


def _multi_worker(arg: str | None) -> Any:
    del arg
    return import_tf().compat.v1.distribute.experimental.MultiWorkerMirroredStrategy()


def _parameter_server(arg: str | None) -> Any:
    del arg
    _devices.serve_if_ps_task()
    return import_tf().compat.v1.distribute.experimental.ParameterServerStrategy()


def _tpu(arg: str | None) -> Any:  # parse() refuses every tpu spec before this runs
    raise AssertionError(f"tpu:{arg} is refused while parsing")


def _auto(arg: str | None) -> Any:
    del arg
    found = _devices.gpus()
    return import_tf().compat.v1.distribute.MirroredStrategy(devices=found) if found else None


KINDS: tuple[Kind, ...] = (
    Kind("default", "default", "one device (TensorFlow's placement)", _default),
    Kind(
        "mirrored", "mirrored[:N]", "N replicas: GPUs, or N logical CPU devices", _mirrored, "count"
    ),
    Kind(
        "multi-worker",
        "multi-worker",
        "collective all-reduce over TF_CONFIG workers",
        _multi_worker,
    ),
    Kind(
        "parameter-server", "parameter-server", "variables on TF_CONFIG ps tasks", _parameter_server
    ),
    Kind("tpu", "tpu[:ADDRESS]", "a TPU (not supported by this version)", _tpu, "address"),
    Kind("auto", "auto", "all GPUs when there are any, else one device", _auto),
)
_BY_NAME = {kind.name: kind for kind in KINDS}
_state: dict[str, Any] = {"spec": None, "strategy": None}


def spec_help() -> str:
    """The registry as one help line: `default | mirrored[:N] | ...`.

    Examples:
        >>> spec_help().split(" | ")[:2]
        ['default', 'mirrored[:N]']
    """
    return " | ".join(kind.form for kind in KINDS)


def parse(spec: str) -> Spec:
    """Validates a spec string; refuses `tpu` here, before anything is initialised.

    Example:
        >>> parse("mirrored")
        Spec(kind='mirrored', arg=None)
    """
    name, _, arg = str(spec).partition(":")
    kind = _BY_NAME.get(name)
    ok = kind is not None and (not arg or kind.arg is not None)
    if ok and kind is not None and kind.arg == "count" and arg:
        ok = arg.isdigit() and int(arg) >= 1
    if not ok:
        raise TfportInputError(
            message(f"Unknown strategy spec {spec!r}", f"Use one of: {spec_help()}", strategy=spec)
        )
    if name == "tpu":
        _refuse_tpu(spec)
    return Spec(name, arg or None)


def _refuse_tpu(spec: str) -> None:
    if _devices.tpu_present() or ":" in spec:
        what = "Executing on a TPU is not supported by this version of tfport (never run on TPU"
        what += " hardware)"
    else:
        what = "No TPU found on this machine"
    raise TfportInputError(
        message(
            what,
            "Use --strategy auto or mirrored[:N]: TPUEstimator model_fns, CrossShardOptimizer "
            "included, run unchanged on GPUs and CPUs",
            strategy=spec,
        )
    )


def resolve(spec: object) -> Any:
    """Returns the strategy object of a spec (None for one device); objects pass through.

    Example:
        >>> resolve("default") is None
        True
    """
    if spec is None or not isinstance(spec, str):
        return spec
    parsed = parse(spec)
    return _BY_NAME[parsed.kind].make(parsed.arg)


def set_default(spec: object) -> Any:
    """Resolves `spec` once and makes it the strategy of every later RunConfig.

    Returns the strategy object (None for one device).

    Example:
        >>> set_default("default") is None
        True
    """
    strategy = resolve(spec)
    _state["spec"], _state["strategy"] = spec, strategy
    return strategy


def clear_default() -> None:
    """Forgets the process default (RunConfigs then default to one device)."""
    _state["spec"], _state["strategy"] = None, None


def default() -> Any:
    """The process default strategy object set by :func:`set_default`, or None."""
    return _state["strategy"]


def num_replicas(strategy: Strategy | None) -> int:
    """Replicas in sync of `strategy` (1 for None).

    Example:
        >>> num_replicas(None)
        1
    """
    return 1 if strategy is None else int(strategy.num_replicas_in_sync)


task_server = _devices.task_server
