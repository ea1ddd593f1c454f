"""`TPUClusterResolver` that resolves an empty TPU name to the local machine off TPU.

TPU programs build `TPUClusterResolver(FLAGS.tpu)` even with `use_tpu=False`, and
`FLAGS.tpu` defaults to `''` or None; off a TPU host TensorFlow raises "Please provide
a TPU Name to connect to.". tfport runs such programs on its CPU/GPU route, so where no
TPU exists (no `TPU_NAME` in the environment, no TPU device files) an empty or missing
name resolves to the local machine (`tpu='local'`), with one INFO line. A named TPU,
or any name on a TPU host, is TensorFlow's own resolution.

This module imports TensorFlow when imported: import it lazily.
"""

from __future__ import annotations

import glob
import logging
import os
from typing import Any

from tfport._common.tfenv import import_tf

log = logging.getLogger("tfport")
tf = import_tf()
_Base: Any = tf.distribute.cluster_resolver.TPUClusterResolver


def tpu_host() -> bool:
    """Whether this machine looks like a TPU host (`TPU_NAME` set, or TPU device files).

    Example:
        >>> isinstance(tpu_host(), bool)
        True
    """
    return bool(os.environ.get("TPU_NAME")) or bool(
        glob.glob("/dev/accel*") or glob.glob("/dev/vfio/[0-9]*")
    )


class TPUClusterResolver(_Base):
    """`tf.distribute.cluster_resolver.TPUClusterResolver`; `''`/None off TPU is local.

    Example:
        >>> TPUClusterResolver("").master()  # doctest: +SKIP
        ''
    """

    def __init__(self, tpu: str | None = None, *args: object, **kwargs: object) -> None:
        if not tpu and not tpu_host():
            log.info(
                "TPUClusterResolver(tpu=%r): no TPU on this machine; resolving to the local "
                "machine (tfport runs the program on its CPU/GPU route).",
                tpu,
            )
            tpu = "local"
        super().__init__(tpu, *args, **kwargs)
