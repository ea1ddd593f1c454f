"""`TensorShape` `.value` patterns that `tf_upgrade_v2` cannot type.

In TF 2 indexing or iterating a `TensorShape` gives ints (or None), not
`Dimension`s, so `.value` fails. Rewrites:

- ``<shape>[i].value`` -> ``<shape>[i]`` where ``<shape>`` is ``x.shape``,
  ``x.get_shape()``, ``tf.TensorShape(...)`` or a name such as ``shape`` /
  ``input_shape``;
- ``for dim in <shape>: ... dim.value`` -> ``... dim`` inside the loop;
- ``d = <shape>[i]`` then ``d.value`` -> ``d`` in the same function;
- ``.value`` on a name that only looks like a dimension (``dim``, ``*_dim``,
  ``dimension``) -> ``tf.compat.v1.dimension_value(name)``, which accepts both.

``shape.dims[i].value`` is left alone: `.dims` still holds `Dimension`s.
"""

from __future__ import annotations

import re

import libcst as cst

from tfport.upgrade._base import Pass
from tfport.upgrade._names import Aliases
from tfport.upgrade._report import INFO

_SHAPE_NAME = re.compile(r"^(shape|.*_shape|shape_.*)$")
_DIM_NAME = re.compile(r"^(dim|dimension|.*_dim|dim_.*|.*_dimension)$")


class TensorShapePass(Pass):
    """Drops `.value` on known dimensions; wraps likely ones in `dimension_value`."""

    TRIGGERS = (".value",)

    def __init__(self, aliases: Aliases) -> None:
        super().__init__(aliases)
        self._scopes: list[set[str]] = [set()]
        self._called: set[cst.CSTNode] = set()

    def _is_shape(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Attribute):
            return node.attr.value == "shape"
        if isinstance(node, cst.Name):
            return bool(_SHAPE_NAME.match(node.value))
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == "get_shape":
                return True
            return self.aliases.canonical(func) in ("tf.TensorShape", "tf.compat.v1.TensorShape")
        return False

    def _is_dim(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
            return False
        return isinstance(node.slice[0].slice, cst.Index) and self._is_shape(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.append(set())

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self._scopes.pop()
        return updated_node

    def visit_For(self, node: cst.For) -> None:
        if isinstance(node.target, cst.Name) and self._is_shape(node.iter):
            self._scopes[-1].add(node.target.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                if self._is_dim(node.value):
                    self._scopes[-1].add(target.target.value)
                else:
                    self._scopes[-1].discard(target.target.value)

    def visit_Call(self, node: cst.Call) -> None:
        self._called.add(node.func)

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        if original_node.attr.value != "value" or original_node in self._called:
            return updated_node
        base = original_node.value
        if self._is_dim(base):
            self.report(original_node, INFO, "TensorShape: dropped '.value' (TF 2 gives ints)")
            return updated_node.value
        if isinstance(base, cst.Name) and base.value in self._scopes[-1]:
            self.report(original_node, INFO, f"TensorShape: '{base.value}.value' -> '{base.value}'")
            return updated_node.value
        if isinstance(base, cst.Name) and _DIM_NAME.match(base.value):
            func = self.tf_ref("tf.compat.v1.dimension_value")
            if func is not None:
                self.report(
                    original_node,
                    INFO,
                    f"TensorShape: '{base.value}.value' -> dimension_value({base.value})",
                )
                return cst.Call(func=func, args=[cst.Arg(updated_node.value)])
        return updated_node
