"""Devices and servers a strategy needs: logical CPU devices, GPUs, TF_CONFIG task servers.

Logical CPU devices stand in for GPUs where there are none (`mirrored:N`), so
multi-replica code runs anywhere; they must be configured before TensorFlow's runtime
starts, which is why specs are resolved once, up front.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf

log = logging.getLogger("tfport")
_servers: dict = {}


def gpus() -> list[str]:
    """Names of the logical GPU devices (empty on a CPU-only machine)."""
    tf = import_tf()
    return [d.name for d in tf.config.list_logical_devices("GPU")]


def ensure_devices(n: int) -> None:
    """Splits the CPU into `n` logical devices when there are fewer than `n` GPUs.

    Example:
        >>> ensure_devices(1)
    """
    tf = import_tf()
    if n <= 1 or len(tf.config.list_physical_devices("GPU")) >= n:
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
                "tfport.distribute.set_default / tfport.to_accelerator first)",
                strategy=f"mirrored:{n}",
                devices=[d.name for d in tf.config.list_logical_devices()],
            )
        ) from None


def replica_devices(n: int | None) -> list[str]:
    """The devices of `mirrored:n`: n GPUs, else n logical CPU devices (all GPUs for None)."""
    if n is None:
        return gpus() or ["/cpu:0"]
    ensure_devices(n)
    found = gpus()
    if len(found) >= n:
        return found[:n]
    tf = import_tf()
    cpus = [d.name for d in tf.config.list_logical_devices("CPU")]
    if len(cpus) < n:
        raise TfportInputError(
            message(
                f"mirrored:{n} needs {n} devices; found {len(found)} GPU(s) and "
                f"{len(cpus)} CPU device(s)",
                "Ask for fewer replicas",
                devices=found + cpus,
            )
        )
    return cpus[:n]


def tpu_present() -> bool:
    """Whether this process can see a TPU, without initialising any runtime."""
    if os.environ.get("TPU_NAME") or os.environ.get("COLAB_TPU_ADDR"):
        return True
    return any(name.startswith("accel") for name in _safe_listdir("/dev"))


def _safe_listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def task_server(cluster: dict, task_type: str, task_id: int) -> Any:
    """This process's `tf.distribute.Server` for its TF_CONFIG task (started once).

    Example:
        >>> task_server({"worker": ["127.0.0.1:2222"]}, "worker", 0)  # doctest: +SKIP
    """
    key = (task_type, task_id)
    if key not in _servers:
        tf = import_tf()
        _servers[key] = tf.distribute.Server(
            tf.train.ClusterSpec(cluster), job_name=task_type, task_index=task_id, start=True
        )
    return _servers[key]


def serve_if_ps_task() -> None:
    """On a `ps` task of TF_CONFIG: serve variables until killed (as legacy Estimator did)."""
    raw = os.environ.get("TF_CONFIG", "").strip()
    if not raw:
        return
    try:
        config = json.loads(raw)
    except json.JSONDecodeError:
        return  # RunConfig reports a malformed TF_CONFIG with its own message
    task = config.get("task", {}) if isinstance(config, dict) else {}
    if not isinstance(task, dict) or task.get("type") != "ps":
        return
    index = int(task.get("index", 0))
    server = task_server(config["cluster"], "ps", index)
    log.warning("ps task %s serving at %s", index, server.target)
    print(f"tfport: ps task {index} serving at {server.target}", flush=True)
    server.join()
