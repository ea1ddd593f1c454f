"""TF2 summaries a model_fn writes (`tf.summary.scalar`, `histogram`, `image`, ...).

Beyond legacy: TF 2.15's Estimator never set a default TF2 summary writer, so these calls
returned False and wrote nothing (measured; only `tf.compat.v1.summary.*` reached
TensorBoard). tfport writes them into the model_dir, on the chief, when training runs
one step per `session.run` (a steps-per-loop program logs through `host_call`):

- while model_fn builds, `Recorder.recording()` stands in for `tf.summary.write` and
  records each call, creating exactly the op TF's writer-less `write` creates, so every
  later op (and every op-seeded random draw) is numbered as on the legacy stack;
- after the step is built, `summary_hook` makes the writer and the real write ops
  (under the name scope `tfport_summaries`) from what was recorded;
- `ModelSummaryHook` initialises the writer after the session is created, runs the writes
  every `save_summary_steps` steps (the steps whose run the summary saver also records),
  at the global step before the update (also for `step=` the global step variable, which
  read beside the update could give either value) unless a call passed another `step`,
  and flushes at the end.

A call under a writer the model_fn made itself goes to that writer, as on legacy. A call
made inside `tf.cond`/`tf.while_loop` (its tensor cannot leave that context) or in a
replica other than the first is not written, as on legacy; the first kind logs a WARNING.

This module imports TensorFlow when imported: import it lazily (inside functions).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Iterator
from typing import Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import Graph, RunContext, Session
from tfport.estimator._engine.building.graphs import MODEL_SUMMARY_INITS_KEY, STEP_AFTER_TRAIN_KEY

tf = import_tf()
v1 = tf.compat.v1
_SessionRunHook: Any = v1.train.SessionRunHook
_log = logging.getLogger("tfport")
SCOPE = "tfport_summaries"


@dataclasses.dataclass(frozen=True)
class SummaryCall:
    """One `tf.summary.write` call of the model_fn, as it was made."""

    tag: Any
    tensor: Any
    step: Any
    metadata: Any


class Recorder:
    """Records the model_fn's TF2 summary writes in `graph` (first replica only).

    Example:
        >>> recorder = Recorder(graph)  # doctest: +SKIP
        >>> with recorder.recording():  # doctest: +SKIP
        ...     spec = model_fn(features, labels, mode)
    """

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.calls: list[SummaryCall] = []
        self._original: Any = None

    @contextlib.contextmanager
    def recording(self) -> Iterator[None]:
        """Within it, `tf.summary.write` records instead of writing."""
        self._original = tf.summary.write
        with tf_internals.replaced_summary_write(self._write):
            yield

    def _write(
        self,
        tag: object,
        tensor: Any,
        step: Any = None,
        metadata: object = None,
        name: str | None = None,
    ) -> Any:
        if tf_internals.default_summary_writer() is not None:  # the model_fn's own writer
            return self._original(tag, tensor, step, metadata, name)
        with v1.name_scope(name, "write_summary"):
            result = tf.constant(False)  # the one op of TF's write without a default writer
        if tf_internals.replica_id() not in (0, None):
            return result
        inner = [t for t in (tensor, step) if tf.is_tensor(t)]
        nested = v1.get_default_graph() is not self.graph or any(
            t.graph is not self.graph or tf_internals.control_flow_context(t.op) is not None
            for t in inner
        )
        if nested:
            _log.warning(
                "tf.summary call %r inside tf.cond/tf.while_loop in model_fn is not written "
                "(write it outside the control flow, or from a TPUEstimator host_call)",
                tag,
            )
            return result
        self.calls.append(SummaryCall(tag, tensor, step, metadata))
        return result


def summary_hook(recorder: Recorder, model_dir: str, every: int) -> ModelSummaryHook | None:
    """The writer, the write ops and the hook running them; None when nothing was recorded.

    Call it in the recorder's graph after the step (and its train_op) is built.

    Example:
        >>> hook = summary_hook(recorder, "/tmp/model", every=100)  # doctest: +SKIP
    """
    if not recorder.calls:
        return None
    with v1.name_scope(None), v1.name_scope(SCOPE), tf.device("/cpu:0"):
        step = v1.placeholder(tf.int64, [], name="step")
        writer = tf.summary.create_file_writer(model_dir)
        writes = []
        made = len(recorder.graph.get_operations())
        with writer.as_default(), tf.summary.record_if(True), tf_internals.results_always_used():
            global_step = v1.train.get_global_step()
            for call in recorder.calls:
                # the global step variable itself would race the update in the run: the
                # step before the update is fed instead
                at = step if call.step is None or call.step is global_step else call.step
                writes.append(tf.summary.write(call.tag, call.tensor, at, call.metadata))
        # the checks TensorBoard's lazy tensors make (image: rank, max_outputs) run with them
        writes += [op for op in recorder.graph.get_operations()[made:] if op.type == "Assert"]
        init, flush = writer.init(), writer.flush()
    v1.add_to_collection(MODEL_SUMMARY_INITS_KEY, init)
    after = v1.get_collection(STEP_AFTER_TRAIN_KEY)
    return ModelSummaryHook(writes, step, init, flush, every, after[0] if after else None)


class ModelSummaryHook(_SessionRunHook):
    """Runs the model_fn's TF2 summary writes every `every` steps (see the module)."""

    def __init__(
        self, writes: list, step: object, init: object, flush: object, every: int, after: object
    ) -> None:
        self._writes, self._step_feed = writes, step
        self._init, self._flush, self._every, self._after = init, flush, every, after
        self._step = 0

    def after_create_session(self, session: Any, coord: object) -> None:
        session.run(self._init)
        global_step = v1.train.get_global_step()
        self._step = int(session.run(global_step)) if global_step is not None else 0

    def before_run(self, run_context: RunContext) -> Any:
        fetches: dict = {"after": self._after} if self._after is not None else {}
        if self._step % self._every == 0:
            fetches["writes"] = self._writes
            return v1.train.SessionRunArgs(fetches, feed_dict={self._step_feed: self._step})
        return v1.train.SessionRunArgs(fetches)

    def after_run(self, run_context: RunContext, run_values: Any) -> None:
        after = run_values.results.get("after")
        self._step = int(after) if after is not None else self._step + 1

    def end(self, session: Session) -> None:
        session.run(self._flush)
