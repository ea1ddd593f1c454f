"""Runs TensorFlow's own `tf_upgrade_v2` logic on a source text, as a library.

Its rules are first replaced by tfport's rule table (:mod:`._rules`): a rule that
would change numbers becomes the `tf.compat.v1` symbol, and a file that imports
``tensorflow.compat.v1 as tf`` keeps that import. TF 2.21 ships
`tensorflow.tools.compatibility` (and its `google-pasta` dependency); importing it
imports TensorFlow, so it is loaded on first use through
:func:`tfport._common.tfenv.import_tf`. The upgrader prints each log line on stdout;
that is captured so that `--json` output stays clean.
"""

from __future__ import annotations

import contextlib
import functools
import io
import re
import warnings
from typing import Any

from tfport._common.types import UpgradeSpec
from tfport.upgrade._report import WARNING, ReportItem
from tfport.upgrade._rules import apply_rules, rule

_RENAMED = re.compile(r"^Renamed '([\w.]+)' to '[\w.]+'$")
_LOG = re.compile(r"^(\d+):(\d+): (INFO|WARNING|ERROR): (.*)$", re.DOTALL)
# tf_upgrade_v2's generic advice for tf.contrib points at TensorFlow Addons (end of life);
# tfport reports every remaining tf.contrib use itself, with the line.
_CONTRIB_ADVICE = "tensorflow/addons"


class TfUpgradeUnavailable(RuntimeError):
    """`tensorflow.tools.compatibility` cannot be imported."""


@functools.cache
def _upgrader() -> Any:
    from tfport._common.tfenv import import_tf

    import_tf()
    try:
        from tensorflow.tools.compatibility import ast_edits, tf_upgrade_v2
    except ImportError as err:  # pragma: no cover - shipped with TF 2.21
        raise TfUpgradeUnavailable(
            f"tf_upgrade_v2 is unavailable ({err}); install google-pasta"
        ) from err
    # upgrade_compat_v1_import=False: `import tensorflow.compat.v1 as tf` stays (the code
    # runs as it is); the rule table replaces every rule that would change numbers.
    spec = tf_upgrade_v2.TFAPIChangeSpec(import_rename=False, upgrade_compat_v1_import=False)
    apply_rules(spec)
    spec.clear_preprocessing = functools.partial(_reset, spec, type(spec))
    return ast_edits.ASTCodeUpgrader(spec)


def _reset(spec: UpgradeSpec, spec_type: Any) -> None:
    """`TFAPIChangeSpec.clear_preprocessing` rebuilds the tables: apply the rules again."""
    spec_type.__init__(spec, import_rename=False, upgrade_compat_v1_import=False)
    apply_rules(spec)


def tf_upgrade(code: str, filename: str = "<string>") -> tuple[str | None, list[ReportItem]]:
    """Applies `tf_upgrade_v2` (default mode) to `code`.

    Args:
        code: Python source.
        filename: only used in messages.

    Returns:
        (new code, items); new code is None when `tf_upgrade_v2` could not parse the text.

    Example:
        >>> tf_upgrade("import tensorflow as tf\\ntf.Session()\\n")[0]  # doctest: +SKIP
        'import tensorflow as tf\\ntf.compat.v1.Session()\\n'
    """
    upgrader = _upgrader()
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            ok, new_code, logs, _ = upgrader.update_string_pasta(code, filename)
    except Exception as err:  # noqa: BLE001 - pasta fails on syntax newer than it knows
        return None, [_skipped(f"{type(err).__name__}: {' '.join(str(err).split())}")]
    if not ok:
        return None, [_skipped(logs[0].splitlines()[-1] if logs else "unknown error")]
    return new_code, [item for item in map(_parse_log, logs) if item is not None]


def _skipped(why: str) -> ReportItem:
    note = f"tf_upgrade_v2 could not process the file ({why}); only tfport's rewrites were applied"
    return ReportItem(1, 0, WARNING, note)


def _parse_log(text: str) -> ReportItem | None:
    found = _LOG.match(text.strip())
    if found is None:
        return None
    line, col, level, message = found.groups()
    if _CONTRIB_ADVICE in message and "deprecated module tf.contrib." in message:
        return None
    message = " ".join(message.split())
    renamed = _RENAMED.match(message)
    if renamed and (rule(renamed.group(1)) or {}).get("exact"):
        message += " (exact: see the rule table)"
    return ReportItem(int(line), int(col), level, "tf_upgrade_v2: " + message)
