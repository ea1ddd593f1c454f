"""The upgrade of one source text: tfport's libcst passes around `tf_upgrade_v2`.

A text whose every name resolves on the installed TensorFlow + tfport is returned as
it is (`runs_as_is`): code that runs is left alone. Otherwise, in order:

1. :class:`EstimatorPass` and :class:`ContribRewritePass` (`tf.contrib`, `tf.flags`)
   on the original text (they need the original imports: `tf_upgrade_v2` turns
   ``import tensorflow.compat.v1 as tf`` into ``import tensorflow as tf``, which
   would change what ``tf.estimator.X`` means, and rewrites some `tf.contrib`
   names to targets that do not exist on TF 2.21);
2. `tf_upgrade_v2` (TF 2.21's own logic, default mode, its rules replaced by
   tfport's rule table :mod:`._rules`: every rewrite keeps TF 1.x's numbers, or each
   use is a WARNING); skipped where ``tf`` is `tf.compat.v1` (any alias form);
3. Estimator names again, layers, TensorShape, colocate_with, ConfigProto,
   the tf.contrib report, graph mode for TF 1.x session programs
   (:mod:`._graphmode`), and the prelude (tfport imports + ``tfport.install()``);
4. the check of the result for names TF 2.21 cannot resolve (:mod:`._check`).

Report positions refer to the input text: each pass's lines are mapped back
through the earlier passes' edits. With `tf_upgrade` (TensorFlow imported
anyway), every rewrite target is also checked against the installed tfport.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
from typing import cast

import libcst as cst

from tfport._common.errors import TfportInputError, message
from tfport.upgrade._base import Pass, run_pass
from tfport.upgrade._check import unresolved_names
from tfport.upgrade._colocate import ColocatePass
from tfport.upgrade._configproto import ConfigProtoPass
from tfport.upgrade._contrib import ContribPass, ContribRewritePass
from tfport.upgrade._estimator import CHECK_TARGETS, EstimatorPass
from tfport.upgrade._exactness import InexactPass, drop_superseded
from tfport.upgrade._graphmode import GraphModePass, find_signs
from tfport.upgrade._layers import LayersPass
from tfport.upgrade._names import collect_aliases
from tfport.upgrade._prelude import PreludePass
from tfport.upgrade._report import ReportItem, SourceResult, group_items
from tfport.upgrade._tensorshape import TensorShapePass

AFTER_TF_UPGRADE = (
    EstimatorPass,  # again, in case tf_upgrade_v2 produced tf.estimator names
    LayersPass,
    TensorShapePass,
    ColocatePass,
    ConfigProtoPass,
    ContribPass,
    GraphModePass,
    PreludePass,
)


class SourceSyntaxError(TfportInputError):
    """The source text is not valid Python."""


def check_syntax(code: str, path: str = "<string>") -> None:
    """Raises :class:`SourceSyntaxError` (one line, with the position) for invalid Python.

    Example:
        >>> check_syntax("x = (")
        Traceback (most recent call last):
        ...
        tfport.upgrade._codemods.SourceSyntaxError: Syntax error ...
    """
    try:
        ast.parse(code, filename=path)
    except (SyntaxError, ValueError) as err:
        line = getattr(err, "lineno", None) or 0
        col = max((getattr(err, "offset", None) or 1) - 1, 0)
        what = getattr(err, "msg", None) or str(err)
        raise SourceSyntaxError(
            message(
                f"Syntax error at {path}:{line}:{col}: {what}",
                "Fix the file so that Python can parse it, then run again",
            )
        ) from None


def upgrade_source(
    code: str, path: str = "<string>", *, tf_upgrade: bool = True, rewrite_all: bool = False
) -> SourceResult:
    """Upgrades one Python source text to run on TF 2.21 (with tfport).

    Args:
        code: the Python source.
        path: its file name, for messages.
        tf_upgrade: also run TF's `tf_upgrade_v2` logic (imports TensorFlow on first use).
        rewrite_all: also rewrite a text that runs under tfport as it is (`tf.estimator`
            -> `tfport.estimator` and the prelude), so that it runs with plain `python`.

    Returns:
        A :class:`SourceResult` with the new code and the report items.

    Raises:
        SourceSyntaxError: `code` is not valid Python.

    Example:
        >>> src = "import tensorflow as tf\\nspec = tf.estimator.EstimatorSpec\\n"
        >>> print(upgrade_source(src, tf_upgrade=False).code)
        import tfport  # tfport upgrade: keep this before TensorFlow is imported
        tfport.install()
        import tfport.estimator
        import tensorflow as tf
        spec = tfport.estimator.EstimatorSpec
        <BLANKLINE>
    """
    check_syntax(code, path)
    module = cst.parse_module(code)
    if tf_upgrade and not rewrite_all and runs_as_is(module, code):
        return SourceResult(code, (), runs_as_is=True)  # it runs: leave it alone
    lines = _LineMap(code)
    items: list[ReportItem] = []
    # tf_upgrade_v2 reads `tf.x` as TF 1.x's `tf`; where `tf` is tf.compat.v1 (any alias
    # form) or not TensorFlow at all, its rules do not apply.
    run_tf_upgrade = tf_upgrade and collect_aliases(module).names.get("tf") == "tf"
    if run_tf_upgrade:
        module, inexact = run_pass(module, InexactPass, code)
        items += inexact
    stages: list[type[Pass] | str] = [
        EstimatorPass,
        ContribRewritePass,
        *(["tf_upgrade_v2"] if run_tf_upgrade else []),
        *AFTER_TF_UPGRADE,
    ]
    token = CHECK_TARGETS.set(tf_upgrade)
    try:
        for stage in stages:
            if stage == "tf_upgrade_v2":
                new, more = _run_tf_upgrade(module, lines.code, path)
            else:
                new, more = run_pass(module, cast("type[Pass]", stage), lines.code)
            more = [lines.to_input(item) for item in more]
            items += drop_superseded(more, items) if stage == "tf_upgrade_v2" else more
            if new is not module:
                module = new
                lines.advance(module.code)
    finally:
        CHECK_TARGETS.reset(token)
    unresolved = unresolved_names(module.code, resolve=tf_upgrade)
    return SourceResult(module.code, group_items(items), group_items(unresolved))


def runs_as_is(module: cst.Module, code: str) -> bool:
    """True when every name of `code` resolves on the installed TF + tfport and nothing fails.

    Besides names (:func:`unresolved_names`), TF 1.x's ``Dimension.value`` on a
    `TensorShape` fails on TF 2 unless ``tf`` is `tf.compat.v1` (such code turns the v2
    behaviour off itself), and a TF 1.x session program fails in eager mode unless it
    turns the v2 behaviour off (:mod:`._graphmode`).

    Example:
        >>> src = "import tensorflow as tf\\nx = tf.constant(1.0)\\n"
        >>> runs_as_is(cst.parse_module(src), src)  # doctest: +SKIP
        True
    """
    if unresolved_names(code):
        return False
    aliases = collect_aliases(module)
    if find_signs(module, aliases).needs_switch():
        return False
    if aliases.names.get("tf", "tf") != "tf":
        return True
    new, _ = run_pass(module, TensorShapePass, code)
    return new is module or new.code == code


def _run_tf_upgrade(
    module: cst.Module, code: str, path: str
) -> tuple[cst.Module, list[ReportItem]]:
    from tfport.upgrade._tf_upgrade import tf_upgrade

    new_code, items = tf_upgrade(code, path)
    if new_code is None or new_code == code:
        return module, items
    return cst.parse_module(new_code), items


class _LineMap:
    """Maps line numbers of the text between passes back to the input file's lines."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.lines = code.splitlines()
        self.origin = list(range(1, len(self.lines) + 2))

    def to_input(self, item: ReportItem) -> ReportItem:
        if item.line < 1:
            return item
        line = self.origin[min(item.line, len(self.origin)) - 1]
        return dataclasses.replace(item, line=line)

    def advance(self, code: str) -> None:
        if code == self.code:
            return
        new_lines = code.splitlines()
        origin = [0] * (len(new_lines) + 1)
        matcher = difflib.SequenceMatcher(None, self.lines, new_lines, autojunk=False)
        for _, i1, i2, j1, j2 in matcher.get_opcodes():
            for k in range(j1, j2):
                origin[k] = self.origin[min(i1 + (k - j1), max(i2 - 1, i1))]
        origin[-1] = self.origin[-1]
        self.code, self.lines, self.origin = code, new_lines, origin
