"""Small names of the legacy private modules (`model_fn`, `run_config`, `export.export`,
`estimator`, `keras_lib`, ...) and `estimator_export`, the API-export decorator.

Example:
    >>> LOSS_METRIC_KEY
    'loss'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

LOSS_METRIC_KEY = "loss"
AVERAGE_LOSS_METRIC_KEY = "average_loss"
SINGLE_FEATURE_DEFAULT_NAME = "feature"
SINGLE_RECEIVER_DEFAULT_NAME = "input"
SINGLE_LABEL_DEFAULT_NAME = "label"
EXPORT_TAG_MAP = {"infer": ["serve"], "train": ["train"], "eval": ["eval"]}
SIGNATURE_KEY_MAP = {"infer": "serving_default", "train": "train", "eval": "eval"}
string_types = (str,)
USE_DEFAULT = "use_default"
T = TypeVar("T")


class estimator_export:  # noqa: N801 - the legacy name
    """The decorator that gave estimator symbols their `tf.estimator` names.

    Records the names on the decorated object (`_estimator_api_names`,
    `_estimator_api_names_v1`) and returns it unchanged; tfport's public modules do not
    read them.

    Example:
        >>> @estimator_export("estimator.MyThing")
        ... def my_thing(): ...
        >>> my_thing._estimator_api_names
        ('estimator.MyThing',)
    """

    def __init__(self, *args: str, v1: Iterable[str] | None = None) -> None:
        self._names = args
        self._names_v1 = tuple(v1) if v1 is not None else args

    def __call__(self, func: Any) -> Any:
        func._estimator_api_names = self._names
        func._estimator_api_names_v1 = self._names_v1
        return func


def track_usage(tool_id: Any, tags: Any) -> None:
    """Legacy usage tracking (a no-op in the open-source stack, as here)."""
    del tool_id, tags


def track_numerical_issues(exc_info: object) -> None:
    """Legacy numerical-issue tracking (a no-op in the open-source stack, as here)."""
    del exc_info


def has_pandas() -> bool:
    """Whether pandas is importable (legacy `HAS_PANDAS`)."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True
