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

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf


def replica_variables_lifted() -> contextlib.AbstractContextManager[None]:
    """In a replica thread building a function graph: `init_scope` sees the replica.

    Does nothing outside a function graph (the outer graph is then the current one).

    Example:
        >>> with replica_variables_lifted():
        ...     pass
    """
    import_tf()  # the TF environment first
    return tf_internals.outer_graph_shares_replica_stacks()
