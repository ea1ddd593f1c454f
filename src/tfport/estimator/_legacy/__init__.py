"""Name faces of legacy's private modules: small names with no home of their own.

Legacy's metric and prediction keys (`keys`), its private constants (`private_constants`)
and a few small names (`names`: `estimator_export`, `LOSS_METRIC_KEY`, ...). Everything
else a legacy module path offers is served from its implementation, in the package of its
concern, through `tfport._legacy_tree`'s tables: a private name added later gets a table
entry, not code here (`tests/unit/test_architecture.py` checks this package holds faces
only).
"""
