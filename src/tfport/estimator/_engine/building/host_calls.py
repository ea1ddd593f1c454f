"""`host_call`: a host function run once per step, outside loops and replicas.

A TPU model_fn returns `host_call=(fn, tensors)`; legacy ran `fn` on the host once per
training step on that step's `tensors` (dequeued from the TPU outfeed: concatenated
across cores along the first dimension), with its summary writers initialised after
the session was created and flushed at the end. tfport does the same on every route:

- the step (one device or replicated) hands back that step's tensors, concatenated
  across replicas (`concat_replicas`);
- inside a steps-per-loop `while_loop` each step's values are written into per-step
  buffers (`StepBuffers`), read once the loop ends;
- `HostCallHook` fetches those values with the run, calls `fn` once (at `begin()`, on
  placeholders, outside every loop and replica) and runs it once per step with that
  step's values. TF2 (`tf.summary.create_file_writer`) and TF1-style
  (`tf.compat.v2.summary` in a graph) writers are initialised after the session is
  created and flushed at checkpoints and at the end; v1 summaries (`tf.compat.v1.summary.*`)
  made by `fn` are written every `save_summary_steps` steps, as the Estimator's summary
  saver would have.

This module imports TensorFlow when imported: import it lazily (inside functions).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import RunContext, Session
from tfport.estimator._engine.building import graphs

if TYPE_CHECKING:
    from tfport.estimator._engine.api.run_config import RunConfig

tf = import_tf()
v1 = tf.compat.v1
_SessionRunHook: Any = v1.train.SessionRunHook


class HostCallHook(_SessionRunHook):
    """Runs `fn(*tensors)` (or `fn(**tensors)`) on the host once per step.

    Until the engine binds the per-step values (`bind`), the hook fetches `tensors`
    themselves as one step (a graph tfport did not build, or PREDICT).

    Example:
        >>> hook = HostCallHook(host_fn, [gs_t, loss_t])  # doctest: +SKIP
    """

    def __init__(self, fn: Callable[..., object], tensors: object) -> None:
        self.fn = fn
        self.tensors = tensors
        self._stacked: Any = None
        self._model_dir: str | None = None
        self._summary_every: int | None = None
        self._checkpoint_every: int | None = None
        self._every = 1

    def bind(self, stacked: object, config: RunConfig | None = None) -> None:
        """Per-step values `[n, ...]` (structured as `tensors`) and the RunConfig."""
        self._stacked = stacked
        if config is not None:
            self._model_dir = config.model_dir
            self._summary_every = config.save_summary_steps
            self._checkpoint_every = config.save_checkpoints_steps
            tpu_config = getattr(config, "tpu_config", None)
            self._every = getattr(tpu_config, "experimental_host_call_every_n_steps", 1) or 1

    def begin(self) -> None:
        stacked = self._stacked
        if stacked is None:
            stacked = tf.nest.map_structure(lambda t: tf.expand_dims(t, 0), self.tensors)
        self._fetch = tf.nest.flatten(stacked)
        # One step per run: the host ops run in the step's own run on its tensors (legacy's
        # CPU hook); otherwise on placeholders, once per step after the run.
        self._direct = all(t.shape.rank and t.shape[0] == 1 for t in self._fetch)
        graph = v1.get_default_graph()
        summaries = v1.get_collection_ref(v1.GraphKeys.SUMMARIES)
        before = len(summaries)
        with tf.device("/cpu:0"):  # the root name scope: summary tags are legacy's
            self._feeds = [
                t[0]
                if self._direct
                else v1.placeholder(t.dtype, t.shape[1:], name=f"host_call_value_{i}")
                for i, t in enumerate(self._fetch)
            ]
            args = tf.nest.pack_sequence_as(self.tensors, self._feeds)
            result = self.fn(**args) if isinstance(args, dict) else self.fn(*args)
            self._ops = [x for x in tf.nest.flatten(result) if x is not None]
            self._v1_summaries = list(summaries[before:])
            del summaries[before:]  # fed values: the summary saver cannot fetch them
            self._v1_merged = v1.summary.merge(self._v1_summaries) if self._v1_summaries else None
            own = set(v1.get_collection(graphs.MODEL_SUMMARY_INITS_KEY))
            inits = [op for op in tf_internals.summary_writer_init_ops(graph) if op not in own]
            self._init_ops = list(inits)
            self._flush_ops = [tf.raw_ops.FlushSummaryWriter(writer=op.inputs[0]) for op in inits]
        self._step_tensor = v1.train.get_global_step()
        self._step: int | None = None

    def after_create_session(self, session: Any, coord: object) -> None:
        session.run(self._init_ops)
        if self._step_tensor is not None:
            self._step = int(session.run(self._step_tensor))
        self._run = self._run_v1 = None
        if self._direct:
            return
        # One callable per variant: a step's host run without session.run's fetch parsing.
        if self._ops:
            self._run = session.make_callable(self._ops, feed_list=self._feeds)
        if self._v1_merged is not None:
            fetches = [*self._ops, self._v1_merged]
            self._run_v1 = session.make_callable(fetches, feed_list=self._feeds)

    def before_run(self, run_context: RunContext) -> Any:
        if not self._direct:
            return v1.train.SessionRunArgs(self._fetch)
        fetches: list = []
        if self._step is None or self._step % self._every == 0:
            fetches = [*self._ops, self._v1_merged] if self._v1_due() else list(self._ops)
        return v1.train.SessionRunArgs(fetches)

    def after_run(self, run_context: RunContext, run_values: Any) -> None:
        if self._direct:
            self._after_direct_run(run_context, run_values.results)
            return
        values = run_values.results
        steps = len(values[0]) if values else 0
        for i in range(steps):
            if self._step is None or self._step % self._every == 0:
                self._run_step([v[i] for v in values])
            if self._step is not None:
                self._step += 1
        if self._flush_ops and self._checkpoint_due(steps):
            run_context.session.run(self._flush_ops)

    def _after_direct_run(self, run_context: RunContext, results: list) -> None:
        if len(results) > len(self._ops):  # the v1 summaries were due
            writer = v1.summary.FileWriterCache.get(self._model_dir or ".")
            writer.add_summary(results[-1], self._step)
        if self._step is not None:
            self._step += 1
        if self._flush_ops and self._checkpoint_due(1):
            run_context.session.run(self._flush_ops)

    def _run_step(self, args: list) -> None:
        """The host function's ops on one step's values (and its v1 summaries when due)."""
        if self._run_v1 is not None and self._v1_due():
            summary = self._run_v1(*args)[-1]
            writer = v1.summary.FileWriterCache.get(self._model_dir or ".")
            writer.add_summary(summary, self._step)
        elif self._run is not None:
            self._run(*args)

    def end(self, session: Session) -> None:
        if self._flush_ops:
            session.run(self._flush_ops)

    def _v1_due(self) -> bool:
        if self._v1_merged is None:
            return False
        every = self._summary_every
        if not every or self._step is None:
            return False
        return self._step % every == 0

    def _checkpoint_due(self, steps: int) -> bool:
        every = self._checkpoint_every
        if not every or self._step is None or steps == 0:
            return False
        return (self._step // every) != ((self._step - steps) // every)


def find(hooks: Iterable[object] | None) -> HostCallHook | None:
    """The HostCallHook among `hooks`, or None.

    Example:
        >>> find([]) is None
        True
    """
    for hook in hooks or ():
        if isinstance(hook, HostCallHook):
            return hook
    return None


def concat_replicas(hooks: list) -> Any:
    """The replicas' host_call tensors concatenated along dim 0 (as across TPU cores).

    Example:
        >>> values = concat_replicas([hook_replica_0, hook_replica_1])  # doctest: +SKIP
    """
    first = hooks[0].tensors
    if len(hooks) == 1:
        return first
    flats = [tf.nest.flatten(h.tensors) for h in hooks]
    joined = []
    for parts in zip(*flats):
        _check_rank(parts[0])
        joined.append(tf.concat(list(parts), axis=0))
    return tf.nest.pack_sequence_as(first, joined)


def _check_rank(tensor: Any) -> None:
    if tensor.shape.rank == 0:
        raise TfportInputError(
            message(
                "host_call tensors must have a first dimension (they are concatenated across "
                "replicas, as across TPU cores)",
                "Pass e.g. tf.reshape(loss, [1]) instead of the scalar",
                tensor=tensor.name,
            )
        )


class StepBuffers:
    """Per-step buffers for the host_call values of a steps-per-loop `while_loop`.

    `write(i, values)` (inside the loop body) stores step `i`'s values; `read(done)`
    (after the loop) returns `[done, ...]` tensors structured as `values`.

    Example:
        >>> buffers = StepBuffers(100)  # doctest: +SKIP
    """

    def __init__(self, iterations: int) -> None:
        self._iterations = iterations
        self._structure: Any = None
        self._variables: list = []

    def write(self, i: object, values: object) -> list:
        """The ops writing step `i`'s `values` (buffers made on the first call)."""
        flat = tf.nest.flatten(values)
        if self._structure is None:
            self._structure = values
            for n, t in enumerate(flat):
                if not t.shape.is_fully_defined():
                    raise TfportInputError(
                        message(
                            "host_call tensors need a static shape under iterations_per_loop > 1 "
                            "(as the TPU outfeed did)",
                            "Give them a fixed shape (e.g. drop_remainder=True in the input_fn)",
                            tensor=t.name,
                            shape=str(t.shape),
                        )
                    )
                shape = [self._iterations, *t.shape.as_list()]
                self._variables.append(
                    tf_internals.local_buffer_variable(shape, t.dtype, f"host_call_buffer_{n}")
                )
        index = tf.reshape(tf.cast(i, tf.int32), [1, 1])
        return [
            tf.raw_ops.ResourceScatterNdUpdate(ref=b.handle, indices=index, updates=t[None])
            for b, t in zip(self._variables, flat)
        ]

    def read(self, done: Any) -> Any:
        """The written rows `[:done]` of every buffer, after the loop (`done` its count)."""
        if self._structure is None:
            return None
        with tf.control_dependencies([done]):
            rows = [b.read_value()[:done] for b in self._variables]
        return tf.nest.pack_sequence_as(self._structure, rows)
