"""Strategy specs (`mirrored:2`, `tpu`, `auto`, ...) and the process-wide default strategy.

`tfport run --strategy SPEC` sets the default; every `RunConfig` that sets no
`train_distribute` of its own then gets it. Logical CPU devices stand in for
GPUs where there are none (`mirrored:N`), so multi-replica code runs anywhere.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf

log = logging.getLogger("tfport")
SPECS = (
    "default",
    "mirrored",
    "mirrored:N",
    "multi-worker",
    "parameter-server",
    "tpu",
    "tpu:ADDRESS",
    "auto",
)
_default: dict[str, Any] = {"spec": None, "strategy": None}


def set_default_strategy(spec: Any) -> None:
    """Makes `spec` the strategy of every RunConfig that does not set its own.

    Example:
        >>> set_default_strategy("default")
    """
    _default["spec"] = spec
    _default["strategy"] = None
    if isinstance(spec, str):
        _parse(spec)  # validate early, before the script runs
        if spec == "parameter-server":
            serve_if_ps_task()
        if spec.startswith("mirrored:"):
            _ensure_devices(int(spec.split(":", 1)[1]))


def default_strategy() -> Any:
    """The process-wide default strategy object (created on first use), or None."""
    if _default["spec"] is None:
        return None
    if _default["strategy"] is None:
        _default["strategy"] = resolve(_default["spec"])
    return _default["strategy"]


def _parse(spec: str) -> tuple[str, str | None]:
    kind, _, arg = spec.partition(":")
    ok = kind in ("default", "mirrored", "multi-worker", "parameter-server", "tpu", "auto")
    if kind == "mirrored" and arg:
        ok = arg.isdigit() and int(arg) >= 1
    elif kind not in ("tpu",) and arg:
        ok = False
    if not ok:
        raise TfportInputError(
            message(
                f"Unknown strategy spec {spec!r}", f"Use one of {', '.join(SPECS)}", strategy=spec
            )
        )
    return kind, arg or None


def resolve(spec: Any) -> Any:
    """Returns the strategy object for a spec string (or the object itself).

    Example:
        >>> resolve("default") is None
        True
    """
    if spec is None or not isinstance(spec, str):
        return spec
    kind, arg = _parse(spec)
    tf = import_tf()
    d = tf.compat.v1.distribute
    if kind == "default":
        return None
    if kind == "mirrored":
        return d.MirroredStrategy(devices=_devices(int(arg) if arg else None))
    if kind == "multi-worker":
        return d.experimental.MultiWorkerMirroredStrategy()
    if kind == "parameter-server":
        serve_if_ps_task()
        return d.experimental.ParameterServerStrategy()
    if kind == "tpu":
        return _tpu_strategy(arg)
    return _auto()


_servers: dict = {}


def task_server(cluster: dict, task_type: str, task_id: int) -> Any:
    """This process's `tf.distribute.Server` for its TF_CONFIG task (started once)."""
    key = (task_type, task_id)
    if key not in _servers:
        tf = import_tf()
        _servers[key] = tf.distribute.Server(
            tf.train.ClusterSpec(cluster), job_name=task_type, task_index=task_id, start=True
        )
    return _servers[key]


def serve_if_ps_task() -> None:
    """On a `ps` task of TF_CONFIG: serve variables until killed (as legacy Estimator did)."""
    from tfport._src.engine.run_config import parse_tf_config

    config = parse_tf_config()
    task = config.get("task", {})
    if task.get("type") != "ps":
        return
    server = task_server(config["cluster"], "ps", int(task.get("index", 0)))
    log.warning("ps task %s serving at %s", task.get("index", 0), server.target)
    print(f"tfport: ps task {task.get('index', 0)} serving at {server.target}", flush=True)
    server.join()


def _gpus() -> list[str]:
    tf = import_tf()
    return [d.name for d in tf.config.list_logical_devices("GPU")]


def _ensure_devices(n: int) -> None:
    """Splits the CPU into `n` logical devices when there are fewer than `n` GPUs."""
    tf = import_tf()
    if len(tf.config.list_physical_devices("GPU")) >= n or n <= 1:
        return
    cpu = tf.config.list_physical_devices("CPU")[0]
    current = tf.config.get_logical_device_configuration(cpu) or [None]
    if len(current) >= n:
        return
    try:
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(n)]
        )
    except RuntimeError:
        raise TfportInputError(
            message(
                f"Cannot split the CPU into {n} logical devices: TensorFlow's runtime is "
                "already initialized",
                "Choose the strategy before any TensorFlow op runs (tfport run --strategy, or "
                "call tfport.to_accelerator / set_default_strategy first)",
                strategy=f"mirrored:{n}",
                devices=[d.name for d in tf.config.list_logical_devices()],
            )
        ) from None


def _devices(n: int | None) -> list[str]:
    if n is not None:
        _ensure_devices(n)  # before anything initializes the runtime
    gpus = _gpus()
    if n is None:
        return gpus or ["/cpu:0"]
    if len(gpus) >= n:
        return gpus[:n]
    _ensure_devices(n)
    tf = import_tf()
    cpus = [d.name for d in tf.config.list_logical_devices("CPU")]
    if len(cpus) < n:
        raise TfportInputError(
            message(
                f"mirrored:{n} needs {n} devices; found {len(gpus)} GPU(s) and "
                f"{len(cpus)} CPU device(s)",
                "Ask for fewer replicas",
                devices=gpus + cpus,
            )
        )
    return cpus[:n]


def _tpu_strategy(address: str | None) -> Any:
    tf = import_tf()
    try:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=address or "")
        tf.config.experimental_connect_to_cluster(resolver)
        tf.tpu.experimental.initialize_tpu_system(resolver)
    except (ValueError, RuntimeError, tf.errors.OpError) as err:
        found = [d.name for d in tf.config.list_logical_devices()]
        raise TfportInputError(
            message(
                f"No TPU found{' at ' + address if address else ''} ({str(err).splitlines()[0]})",
                "Run on a TPU VM / pass tpu:ADDRESS, or use --strategy auto or mirrored",
                strategy="tpu" + (":" + address if address else ""),
                devices_found=found,
            )
        ) from None
    return tf.compat.v1.distribute.experimental.TPUStrategy(resolver)


def _auto() -> Any:
    tf = import_tf()
    try:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver()
        if resolver.master():
            return _tpu_strategy(None)
    except (ValueError, RuntimeError):
        pass
    gpus = _gpus()
    if gpus:
        return tf.compat.v1.distribute.MirroredStrategy(devices=gpus)
    return None


def to_accelerator(estimator: Any, strategy: Any = "auto") -> Any:
    """Returns a copy of `estimator` whose training and evaluation run on `strategy`.

    Example:
        >>> est2 = to_accelerator(est, "mirrored:2")  # doctest: +SKIP
    """
    if isinstance(strategy, str) and strategy.startswith("mirrored:"):
        _ensure_devices(int(strategy.split(":", 1)[1]))
    obj = resolve(strategy)
    new = copy.copy(estimator)
    new._config = estimator._config.replace(train_distribute=obj, eval_distribute=obj)
    return new


def num_replicas(strategy: Any) -> int:
    """Replicas in sync of `strategy` (1 for None)."""
    return 1 if strategy is None else int(strategy.num_replicas_in_sync)
