"""The user's API objects of the engine: what a program builds and hands to an Estimator.

`RunConfig` and TF_CONFIG (`run_config`, `tf_config`), `ModeKeys`/`EstimatorSpec` and
`TPUEstimatorSpec` (`spec`, `tpu_spec`), session-run hooks and early stopping (`hooks`,
`stopping`, `evaluator_hook`, `fake_summary_writer`), serving input receivers (`receivers`),
`WarmStartSettings` (`warm_start`), `add_metrics` and parse specs (`extenders`), and export
garbage collection (`gc`). They hold and validate what the user gave; graph building and
session running read them.
"""
