"""WARNINGs for the uses of TF 1.x names whose applied rule may change numbers.

The rule table (:mod:`._rules`) marks a rule not exact only where TF 2.21 has no
`tf.compat.v1` form to keep; each use of such a name is a WARNING with the rule's
reason, and `tf_upgrade_v2`'s INFO line for the same name and line is dropped.

Example:
    >>> import libcst as cst
    >>> from tfport.upgrade._base import run_pass
    >>> src = "import tensorflow as tf\\nm = tf.train.confusion_matrix(a, b)\\n"
    >>> [i.level for i in run_pass(cst.parse_module(src), InexactPass)[1]]
    ['WARNING']
"""

from __future__ import annotations

import libcst as cst

from tfport.upgrade._base import Pass
from tfport.upgrade._report import INFO, WARNING, ReportItem
from tfport.upgrade._rules import inexact_rules

_PREFIX = "not exact: "


class InexactPass(Pass):
    """Reports (changes nothing) each use of a name whose rule is not exact."""

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        canonical = self.aliases.canonical(node)
        why = inexact_rules().get(canonical or "")
        if why is None:
            return True
        self.report(node, WARNING, f"{_PREFIX}'{canonical}': {why}")
        return False


def drop_superseded(items: list[ReportItem], earlier: list[ReportItem]) -> list[ReportItem]:
    """Drops INFO `items` about a name that an earlier WARNING of this module covers.

    Example:
        >>> drop_superseded([ReportItem(2, 0, INFO, "Renamed 'tf.a'")],
        ...                 [ReportItem(2, 0, WARNING, "not exact: 'tf.a': why")])
        []
    """
    covered = {
        (item.line, item.message[len(_PREFIX) :].split(":", 1)[0])
        for item in earlier
        if item.level == WARNING and item.message.startswith(_PREFIX)
    }
    return [
        item
        for item in items
        if item.level != INFO
        or not any(line == item.line and name in item.message for line, name in covered)
    ]
