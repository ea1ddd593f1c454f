"""`tf.contrib.training.HParams`: named hyperparameters, parsed from strings or JSON.

Example:
    >>> hp = HParams(learning_rate=0.1, layers=[2, 3], use_tpu=False)
    >>> hp.parse("learning_rate=0.5,layers=[4],use_tpu=true").values()
    {'learning_rate': 0.5, 'layers': [4], 'use_tpu': True}
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from tfport._common.errors import TfportInputError, message

_ITEM = re.compile(r"\s*([A-Za-z_]\w*)\s*=\s*(\[[^\]]*\]|[^,]*)\s*(?:,|$)")


def _convert(name: str, value: Any, like: Any) -> Any:
    if isinstance(like, list):
        items = value if isinstance(value, list) else [value]
        sample = like[0] if like else (items[0] if items else "")
        return [_convert(name, item, sample) for item in items]
    if isinstance(like, bool):
        if isinstance(value, str):
            if value.lower() in ("true", "1"):
                return True
            if value.lower() in ("false", "0"):
                return False
        if isinstance(value, bool | int):
            return bool(value)
    elif isinstance(like, int) and not isinstance(value, float):
        return int(value)
    elif isinstance(like, float):
        return float(value)
    elif isinstance(like, str) or like is None:
        return value if isinstance(value, str) or like is None else str(value)
    else:
        return value
    raise TfportInputError(
        message(f"Could not convert hparam {name!r} to {type(like).__name__}", value=value)
    )


class HParams:
    """A set of hyperparameters, accessed as attributes (TF1 `tf.contrib.training.HParams`).

    Example:
        >>> HParams(batch_size=32).batch_size
        32
    """

    def __init__(
        self, hparam_def: object = None, model_structure: object = None, **kwargs: object
    ) -> None:
        self._hparam_types: dict[str, Any] = {}
        self._model_structure = model_structure
        if hparam_def is not None:
            raise TfportInputError(
                message(
                    "HParams(hparam_def=...) (a protocol buffer) is not supported",
                    "Pass the values as keyword arguments",
                )
            )
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name: str, value: object) -> None:
        """Adds a new hyperparameter (ValueError if it exists)."""
        if getattr(self, name, None) is not None or name in self._hparam_types:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        self._hparam_types[name] = value
        setattr(self, name, value)

    def set_hparam(self, name: str, value: object) -> None:
        """Sets an existing hyperparameter, converting to its type."""
        if name not in self._hparam_types:
            raise ValueError(f"Unknown hyperparameter: {name}")
        like = getattr(self, name)
        setattr(self, name, value if like is None else _convert(name, value, like))

    def del_hparam(self, name: str) -> None:
        """Removes a hyperparameter."""
        if name in self._hparam_types:
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values: str) -> HParams:
        """Overrides values from ``"a=1,b=[1,2],c=text"``; returns self."""
        pos = 0
        values = values.strip()
        while pos < len(values):
            found = _ITEM.match(values, pos)
            if found is None:
                raise ValueError(f"Could not parse hparam at {values[pos:]!r}")
            name, text = found.group(1), found.group(2).strip()
            if text.startswith("["):
                parsed: Any = [t.strip() for t in text[1:-1].split(",") if t.strip()]
            else:
                parsed = text
            self.set_hparam(name, parsed)
            pos = found.end()
        return self

    def override_from_dict(self, values_dict: Mapping[str, object]) -> HParams:
        """Sets every value of `values_dict`; returns self."""
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_model_structure(self, model_structure: object) -> None:
        self._model_structure = model_structure

    def get_model_structure(self) -> Any:
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys: bool = False) -> str:
        """The values as a JSON object."""
        return json.dumps(self.values(), indent=indent, separators=separators, sort_keys=sort_keys)

    def parse_json(self, values_json: str) -> HParams:
        """Overrides values from a JSON object; returns self."""
        return self.override_from_dict(json.loads(values_json))

    def values(self) -> dict[str, Any]:
        """The hyperparameters as a dict."""
        return {name: getattr(self, name) for name in self._hparam_types}

    def get(self, key: str, default: object = None) -> Any:
        return getattr(self, key) if key in self._hparam_types else default

    def __contains__(self, key: str) -> bool:
        return key in self._hparam_types

    def __str__(self) -> str:
        return str(sorted(self.values().items()))

    def __repr__(self) -> str:
        return f"HParams({self.values()!r})"
