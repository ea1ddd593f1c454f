"""Session running: what an Estimator does with a built graph.

Training, evaluation and prediction loops (`training`, `evaluation`, `prediction`) over
the session plumbing (`sessions`, `checkpointing`, `lock`, `console`); SavedModel export
(`exporting`, `export_function`, `export_function_graph`); and `train_and_evaluate` with
its executors and TF's distribute-coordinator glue (`train_and_evaluate`, `executor`,
`training_executor`, `coordinator`).
"""
