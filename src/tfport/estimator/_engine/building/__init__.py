"""Graph building: one mode's graph from small steps, with replicas and loops.

`builder` composes the steps over a typed `context`: the input step and the one owner of
input_fn (`inputs`), the model step and model_fn calls (`steps`, `calls`), replicas that
stay one model (`replicas`, `lifted_variables`, `sync_batch_norm`), steps per loop
(`loops`), host calls, TF2 summaries and metrics (`host_calls`, `model_summaries`,
`metrics`), and the checks and names around a graph (`graphs`, `aligned_names`).
"""
