"""The graph engine behind `tfport.estimator`: sessions, hooks, loops, export.

The package stays flat (one level, ~30 modules) on purpose: every module is small and
has one job, and the public API imports from here by module name. It holds two kinds:

- API definitions (what `tfport.estimator` re-exports): `estimator` (the `Estimator`
  class, a thin face over the pipeline), `spec` (`EstimatorSpec`, `ModeKeys`),
  `run_config`, `hooks` (early stopping), `evaluator_hook` (`InMemoryEvaluatorHook`),
  `train_and_evaluate` (specs, exporters, `train_and_evaluate`), `extenders`,
  `receivers`, `warm_start`.
- The pipeline those call, in the order `Estimator.train` walks it: `training` ->
  `builder` (one graph) -> `inputs` / `calls` (the user's input_fn) -> `steps` / `calls`
  (the user's model_fn, per replica: `replicas`, `sync_batch_norm`, `lifted_variables`)
  -> `loops` (steps per `session.run`) -> `sessions` (hooks, session target, cached
  runs) with `context`, `checkpointing`, `graphs`, `aligned_names`, `lock`, `console`;
  evaluation,
  prediction and export have `evaluation`, `prediction`, `exporting`, `metrics`.

TensorFlow internals are reached only through `tfport._common.tf_internals` and
`keras_internals`.
"""
