"""`tf.contrib.distribute.MirroredStrategy(num_gpus=N)` on TF 2.21's graph-mode strategy.

Example:
    >>> MirroredStrategy.__name__
    'MirroredStrategy'
"""

from __future__ import annotations

from tfport.compat.contrib._tf import v1


def MirroredStrategy(
    devices=None,
    num_gpus: int | None = None,
    num_gpus_per_worker=None,  # noqa: N802
    cross_device_ops=None,
    auto_shard_dataset: bool = False,
    cross_tower_ops=None,
):
    """`tf.compat.v1.distribute.MirroredStrategy` over `devices`, or the first `num_gpus` GPUs."""
    count = num_gpus if num_gpus is not None else num_gpus_per_worker
    if devices is None and count:
        devices = [f"/gpu:{i}" for i in range(count)]
    return v1().distribute.MirroredStrategy(
        devices=devices, cross_device_ops=cross_device_ops or cross_tower_ops
    )
