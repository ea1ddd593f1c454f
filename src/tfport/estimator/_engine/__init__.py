"""The graph engine behind `tfport.estimator`, in three rooms and a face.

- `api/`: the user's API objects (`RunConfig`, `EstimatorSpec`, `TPUEstimatorSpec`, hooks,
  receivers, warm start, extenders): what a program builds and hands to an Estimator.
- `building/`: one mode's graph from small steps (`builder`), with the input_fn's and
  model_fn's calls, replicas and loops.
- `running/`: sessions, the training/evaluation/prediction loops, export and
  `train_and_evaluate`.
- Here: `estimator` (the `Estimator` class, a thin face over the rooms), `internals` (the
  legacy internals subclasses call) and `estimator_helpers` (legacy `estimator.py`'s
  module helpers).

`Estimator.train` walks `running.training` -> `building.builder` -> `building.inputs`
(the user's input_fn) -> `building.steps` -> `building.calls` (the user's model_fn, per
replica: `building.replicas`) -> `building.loops` -> `running.sessions`. TensorFlow
internals are reached only through `tfport._common.tf_internals` and `keras_internals`.
"""
