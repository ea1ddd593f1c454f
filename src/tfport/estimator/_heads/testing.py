"""Legacy `head.head_utils`' test helpers, for heads' unit tests written against TF 2.15.

`_assert_no_hooks(test_case, spec)`, `_assert_simple_summaries(test_case, expected,
summary_str, tol)`, `_initialize_variables(test_case, scaffold)` take a
`tf.test.TestCase` (`tfport._legacy_tree` places them under `head.head_utils`).

Example:
    >>> _assert_no_hooks(self, spec)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from tfport._common.tfenv import import_tf
from tfport.estimator._engine.api.spec import EstimatorSpec


def _assert_no_hooks(test_case: Any, spec: EstimatorSpec) -> None:
    """Asserts the spec has no training (chief) hooks."""
    test_case.assertAllEqual([], spec.training_chief_hooks)
    test_case.assertAllEqual([], spec.training_hooks)


def _assert_simple_summaries(
    test_case: Any, expected_summaries: dict, summary_str: bytes, tol: float = 1e-6
) -> None:
    """Asserts a serialized Summary holds `expected_summaries` (tag -> simple value)."""
    summary = import_tf().compat.v1.summary.Summary()
    summary.ParseFromString(summary_str)
    values = {value.tag: value.simple_value for value in summary.value}
    test_case.assertAllClose(expected_summaries, values, rtol=tol, atol=tol)


def _initialize_variables(test_case: Any, scaffold: Any) -> None:
    """Finalizes `scaffold` and runs its init ops in the test's default session."""
    scaffold.finalize()
    test_case.assertIsNone(scaffold.init_feed_dict)
    test_case.assertIsNone(scaffold.init_fn)
    scaffold.init_op.run()
    scaffold.ready_for_local_init_op.eval()
    scaffold.local_init_op.run()
    scaffold.ready_op.eval()
    test_case.assertIsNotNone(scaffold.saver)
