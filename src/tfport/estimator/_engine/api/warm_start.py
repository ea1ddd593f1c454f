"""`WarmStartSettings`: initialize some variables from another checkpoint."""

from __future__ import annotations

import collections
import logging
import os
from collections.abc import Sequence

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf


class WarmStartSettings(
    collections.namedtuple(
        "WarmStartSettings",
        [
            "ckpt_to_initialize_from",
            "vars_to_warm_start",
            "var_name_to_vocab_info",
            "var_name_to_prev_var_name",
        ],
    )
):
    """Which variables to warm-start, from which checkpoint, under which old names.

    Example:
        >>> WarmStartSettings("/old/model_dir", vars_to_warm_start="hidden/.*").vars_to_warm_start
        'hidden/.*'
    """

    _estimator_api_names = ("estimator.WarmStartSettings",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.WarmStartSettings",)

    def __new__(
        cls,
        ckpt_to_initialize_from: str | os.PathLike[str],
        vars_to_warm_start: str | Sequence[object] | None = ".*",
        var_name_to_vocab_info: dict | None = None,
        var_name_to_prev_var_name: dict | None = None,
    ) -> WarmStartSettings:
        if not ckpt_to_initialize_from:
            raise TfportInputError(
                message(
                    "WarmStartSettings needs ckpt_to_initialize_from",
                    "Pass a checkpoint prefix or model_dir",
                    ckpt_to_initialize_from=ckpt_to_initialize_from,
                )
            )
        return super().__new__(
            cls,
            os.fspath(ckpt_to_initialize_from),
            vars_to_warm_start,
            var_name_to_vocab_info or {},
            var_name_to_prev_var_name or {},
        )


def to_settings(
    warm_start_from: str | bytes | os.PathLike[str] | WarmStartSettings | None,
) -> WarmStartSettings | None:
    """Normalizes Estimator(warm_start_from=...) to WarmStartSettings or None.

    A path to a SavedModel (a folder with `variables/variables.index`) warm-starts from
    its variables (`PATH/variables/variables`), as legacy inferred it.

    Example:
        >>> to_settings("/old").ckpt_to_initialize_from
        '/old'
    """
    if warm_start_from is None:
        return None
    if isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from
    if isinstance(warm_start_from, (str, bytes, os.PathLike)):
        path = os.fsdecode(warm_start_from)
        variables = os.path.join(path, "variables", "variables")
        if import_tf().io.gfile.exists(variables + ".index"):
            logging.getLogger("tfport").info("Warm-starting from a SavedModel")
            return WarmStartSettings(variables)
        return WarmStartSettings(path)
    raise TfportInputError(
        message(
            "warm_start_from must be a path or WarmStartSettings",
            "Fix the argument",
            warm_start_from=warm_start_from,
        )
    )
