"""`tf.estimator`, `tf.keras.estimator` and `tf.contrib.tpu` names -> `tfport`.

Runs on the *original* source, before `tf_upgrade_v2`: that tool rewrites
``import tensorflow.compat.v1 as tf`` into ``import tensorflow as tf``, after
which ``tf.estimator.DNNClassifier`` would read as the v2 canned estimator.
"""

from __future__ import annotations

import contextvars
import functools
import importlib
from typing import cast

import libcst as cst

from tfport._common.canned import FAMILY
from tfport.upgrade._base import Pass
from tfport.upgrade._names import Aliases, build, module_path, tf_path
from tfport.upgrade._report import INFO, WARNING

# Whether rewrite targets are checked against the installed tfport (imports tfport.estimator).
CHECK_TARGETS: contextvars.ContextVar[bool] = contextvars.ContextVar("check", default=False)

CANNED = (*FAMILY, "BoostedTreesClassifier", "BoostedTreesEstimator", "BoostedTreesRegressor")
TPU_NAMES = (
    "TPUEstimator",
    "TPUEstimatorSpec",
    "RunConfig",
    "TPUConfig",
    "InputPipelineConfig",
    "CrossShardOptimizer",
)

RULES: dict[str, str] = {
    "tf.estimator": "tfport.estimator",
    "tf.compat.v1.estimator": "tfport.estimator",
    "tf.compat.v2.estimator": "tfport.estimator",
    "tf.estimator.tpu": "tfport.estimator.tpu",
    "tf.compat.v1.estimator.tpu": "tfport.estimator.tpu",
    "tf.keras.estimator": "tfport.keras",
    "tf.compat.v1.keras.estimator": "tfport.keras",
    "tf.compat.v2.keras.estimator": "tfport.keras",
    "tf.compat.v1.tpu.CrossShardOptimizer": "tfport.estimator.tpu.CrossShardOptimizer",
    **{f"tf.compat.v1.estimator.{name}": f"tfport.estimator.v1.{name}" for name in CANNED},
    **{f"tf.contrib.tpu.{name}": f"tfport.estimator.tpu.{name}" for name in TPU_NAMES},
}


def match(canonical: str | None) -> tuple[int, str] | None:
    """Returns (length of the matched rule in components, target) for a canonical name.

    Example:
        >>> match("tf.estimator.ModeKeys.TRAIN")
        (2, 'tfport.estimator.ModeKeys.TRAIN')
    """
    if canonical is None:
        return None
    parts = canonical.split(".")
    for size in range(len(parts), 0, -1):
        target = RULES.get(".".join(parts[:size]))
        if target is not None:
            return size, ".".join([target, *parts[size:]])
    return None


@functools.cache
def provided(path: str) -> bool:
    """True when the installed tfport provides the dotted `path` (``tfport.estimator.X``)."""
    parts = path.split(".")
    for size in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:size]))
        except ImportError:
            continue
        try:
            for part in parts[size:]:
                obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - a lazy attribute may fail in any way
            return False
        return True
    return False


class EstimatorPass(Pass):
    """Rewrites references and imports of removed Estimator-era names to tfport."""

    TRIGGERS = ("estimator", "contrib", "CrossShardOptimizer")

    def __init__(self, aliases: Aliases) -> None:
        super().__init__(aliases)
        self._targets: dict[cst.Attribute, tuple[str, str]] = {}

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        canonical = self.aliases.canonical(node)
        found = match(canonical)
        root = match(self.aliases.root_of(node))
        if found is None or (root is not None and found[0] <= root[0]):
            return True
        self._targets[node] = (cast(str, canonical), found[1])
        return False

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        if original_node not in self._targets:
            return updated_node
        canonical, target = self._targets[original_node]
        self.report(original_node, INFO, f"Renamed '{canonical}' to '{target}'")
        self._check(original_node, target)
        return build(target)

    def _check(self, node: cst.CSTNode, target: str) -> None:
        if CHECK_TARGETS.get() and not provided(target):
            self.report(node, WARNING, f"'{target}' is not provided by this tfport: it will fail")

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
        names = []
        for alias in updated_node.names:
            found = match(tf_path(module_path(alias.name)))
            if found is None or alias.asname is None:
                names.append(alias)
                continue
            self.report(original_node, INFO, f"Import of '{module_path(alias.name)}' -> tfport")
            names.append(alias.with_changes(name=build(found[1])))
        return updated_node.with_changes(names=names)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        if len(updated_node.body) != 1 or not isinstance(updated_node.body[0], cst.ImportFrom):
            return updated_node
        lines = self._split_import(original_node, updated_node.body[0])
        if lines is None:
            return updated_node
        first = updated_node.with_changes(body=[lines[0]])
        rest = [cst.SimpleStatementLine(body=[stmt]) for stmt in lines[1:]]
        return cst.FlattenSentinel([first, *rest])

    def _split_import(
        self, original: cst.CSTNode, node: cst.ImportFrom
    ) -> list[cst.ImportFrom] | None:
        base = tf_path(module_path(node.module))
        if base is None or node.relative or isinstance(node.names, cst.ImportStar):
            return None
        kept: list[cst.ImportAlias] = []
        moved: dict[str, list[cst.ImportAlias]] = {}
        for alias in node.names:
            found = match(f"{base}.{module_path(alias.name)}")
            if found is None:
                kept.append(alias)
                continue
            parent, _, last = found[1].rpartition(".")
            local = alias.evaluated_alias or alias.evaluated_name
            asname = None if local == last else cst.AsName(name=cst.Name(local))
            moved.setdefault(parent, []).append(cst.ImportAlias(name=cst.Name(last), asname=asname))
            self.report(
                original, INFO, f"Import of '{base}.{alias.evaluated_name}' -> '{found[1]}'"
            )
            self._check(original, found[1])
        if not moved:
            return None
        out = [
            cst.ImportFrom(module=cast("cst.Attribute | cst.Name", build(parent)), names=names)
            for parent, names in moved.items()
        ]
        if kept:
            out.insert(0, node.with_changes(names=kept))
        return [_no_trailing_comma(stmt) for stmt in out]


def _no_trailing_comma(node: cst.ImportFrom) -> cst.ImportFrom:
    if isinstance(node.names, cst.ImportStar):
        return node
    names = list(node.names)
    names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return node.with_changes(names=names)
