"""Variables lifted out of a steps-per-loop body by a replica stay one replicated variable.

Inside the steps-per-loop `while_loop` the model step is built in the loop body's
function graph, and under a strategy each replica builds it in its own thread. Code
that creates variables under `tf.init_scope()` (tf_keras optimizers create their slots
and hyperparameters that way) then creates them in the outer graph, where this replica
thread has entered neither the strategy's replica context nor its variable creators
(both are per graph and per thread). Each replica would make its own plain copies
(`training/Adagrad/...` and `training_1/Adagrad/...`): checkpoints that do not restore
and slots that the replicas do not share.

`replica_variables_lifted()` gives the outer graph, for this thread and while the
replica builds its step, the loop body's strategy stack and variable creators: lifted
variables are then created as they are without a loop (replica 0 creates the mirrored
variable, the other replicas reuse it by name).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tfport._common.tfenv import import_tf


@contextlib.contextmanager
def replica_variables_lifted() -> Iterator[None]:
    """In a replica thread building a function graph: `init_scope` sees the replica.

    Does nothing outside a function graph (the outer graph is then the current one).

    Example:
        >>> with replica_variables_lifted():
        ...     pass
    """
    import_tf()  # the TF environment first
    from tensorflow.python.framework import ops

    inner = ops.get_default_graph()
    if not getattr(inner, "building_function", False):
        yield
        return
    with ops.init_scope():
        outer = ops.get_default_graph()
    if outer is inner or getattr(outer, "building_function", False):
        yield  # eager outer context (tf.function): nothing to lift into
        return
    saved = (outer._distribution_strategy_stack, outer._variable_creator_stack)
    outer._distribution_strategy_stack = list(inner._distribution_strategy_stack)
    outer._variable_creator_stack = inner._variable_creator_stack
    try:
        yield
    finally:
        outer._distribution_strategy_stack, outer._variable_creator_stack = saved
