"""Legacy's queue-fed input: `_enqueue_data` and its `_FeedingQueueRunner`.

`_enqueue_data` builds a `tf.compat.v1` queue (FIFO, random-shuffle, or padding FIFO for
padded generator input) with one `enqueue_many` op per feeding thread, each fed by a feed
function of `feeding` (rows of a numpy array, an `OrderedDict` of arrays, a pandas
DataFrame or a generator function's dicts), and registers a `_FeedingQueueRunner` in the
graph's `QUEUE_RUNNERS` collection: `tf.compat.v1.train.start_queue_runners` (which a
`MonitoredSession` calls) starts the threads, and when every thread's feed function has
run out of epochs the queue is closed, so dequeuing past the end raises
`tf.errors.OutOfRangeError`. TF 2.21 still runs these queues in graph mode.

Example:
    >>> import numpy as np, tensorflow as tf
    >>> with tf.Graph().as_default():  # doctest: +SKIP
    ...     queue = _enqueue_data(np.arange(4), capacity=8, num_epochs=1)
    ...     batch = queue.dequeue_up_to(3)
    ...     with tf.compat.v1.train.MonitoredSession() as session:
    ...         session.run(batch)[1].tolist()
    [0, 1, 2]
"""

from __future__ import annotations

import collections
import threading
import types
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tfport._common.tfenv import import_tf
from tfport._common.types import Coordinator, Session
from tfport.estimator._inputs import feeding

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

tf = import_tf()
_QueueRunner: Any = tf.compat.v1.train.queue_runner.QueueRunner


class _FeedingQueueRunner(_QueueRunner):
    """A QueueRunner whose threads call a feed function before each enqueue.

    Each enqueue op runs in its own thread with the `feed_dict` its feed function returns
    (`feed_fns[i]` for `enqueue_ops[i]`; None feeds nothing). A feed function raising
    `tf.errors.OutOfRangeError` (input exhausted) or `CancelledError` ends its thread; the
    last thread to end runs `close_op`, which lets readers drain the queue and then raise
    `OutOfRangeError`. Any other error stops the coordinator (or, without one, is logged,
    kept in `exceptions_raised` and re-raised). Like legacy's, it cannot be built from or
    written to a `QueueRunnerDef`.

    Example:
        >>> import tensorflow as tf
        >>> with tf.Graph().as_default():  # doctest: +SKIP
        ...     queue = tf.queue.FIFOQueue(4, [tf.int64])
        ...     value = tf.compat.v1.placeholder(tf.int64)
        ...     runner = _FeedingQueueRunner(queue, [queue.enqueue(value)],
        ...                                  feed_fns=[lambda: {value: 3}])
    """

    def __init__(
        self,
        queue: object = None,
        enqueue_ops: Any = None,
        close_op: object = None,
        cancel_op: object = None,
        feed_fns: Sequence[Callable[[], Mapping[object, object]] | None] | None = None,
        queue_closed_exception_types: tuple[type[BaseException], ...] | None = None,
    ) -> None:
        if queue_closed_exception_types is None:
            queue_closed_exception_types = (tf.errors.OutOfRangeError, tf.errors.CancelledError)
        super().__init__(
            queue,
            enqueue_ops,
            close_op,
            cancel_op,
            queue_closed_exception_types=queue_closed_exception_types,
        )
        if feed_fns is None:
            feed_fns = [None] * len(enqueue_ops)
        elif len(feed_fns) != len(enqueue_ops):
            raise ValueError(
                "If feed_fns is not None, it must have the same length as enqueue_ops."
            )
        self._feed_fns = list(feed_fns)
        self._feed_lock = threading.Lock()
        self._feed_threads_alive: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._feed_errors: list = []

    @property
    def exceptions_raised(self) -> list:
        """The errors its threads raised without a coordinator (since the last start)."""
        return self._feed_errors

    def _thread_ended(self, sess: Session) -> bool:
        """Counts one thread of `sess` out; True for the last one."""
        with self._feed_lock:
            self._feed_threads_alive[sess] -= 1
            return self._feed_threads_alive[sess] == 0

    def _run(
        self,
        sess: Session,
        enqueue_op: object,
        feed_fn: Callable[[], Mapping[object, object]] | None,
        coord: Coordinator | None = None,
    ) -> None:
        """One thread's loop: feed, enqueue, until the input ends or `coord` stops."""
        if coord:
            coord.register_thread(threading.current_thread())
        counted = False
        try:
            while not (coord and coord.should_stop()):
                try:
                    sess.run(enqueue_op, feed_dict=None if feed_fn is None else feed_fn())
                except (tf.errors.OutOfRangeError, tf.errors.CancelledError):
                    counted = True
                    if self._thread_ended(sess):
                        try:
                            sess.run(self.close_op)
                        except Exception as e:  # noqa: BLE001 - closing is best effort
                            tf.compat.v1.logging.vlog(1, "Ignored exception: %s", str(e))
                    return
        except Exception as e:
            if not coord:
                tf.compat.v1.logging.error("Exception in QueueRunner: %s", str(e))
                with self._feed_lock:
                    self._feed_errors.append(e)
                raise
            coord.request_stop(e)
        finally:
            if not counted:
                self._thread_ended(sess)

    def _cancel_on_stop(self, sess: Session, coord: Coordinator) -> None:
        """Closes the queue, cancelling pending enqueues, once `coord` stops."""
        coord.wait_for_stop()
        try:
            sess.run(self.cancel_op)
        except Exception as e:  # noqa: BLE001 - the session may be gone already
            tf.compat.v1.logging.vlog(1, "Ignored exception: %s", str(e))

    def create_threads(
        self,
        sess: Session,
        coord: Coordinator | None = None,
        daemon: bool = False,
        start: bool = False,
    ) -> list:
        """The threads feeding `sess` (none while earlier ones for `sess` still run).

        One thread per enqueue op, plus (with `coord`) one that cancels the queue when the
        coordinator stops; `daemon` and `start` apply to each.
        """
        with self._feed_lock:
            if self._feed_threads_alive.get(sess, 0) > 0:
                return []
            self._feed_threads_alive[sess] = len(self.enqueue_ops)
            self._feed_errors = []
        threads = [
            threading.Thread(target=self._run, args=(sess, op, feed_fn, coord))
            for op, feed_fn in zip(self.enqueue_ops, self._feed_fns)
        ]
        if coord:
            threads.append(threading.Thread(target=self._cancel_on_stop, args=(sess, coord)))
        for thread in threads:
            if daemon:
                thread.daemon = True
            if start:
                thread.start()
        return threads

    def _init_from_proto(self, queue_runner_def: object) -> None:
        """Refused, as legacy: feed functions cannot be restored from a QueueRunnerDef."""
        del queue_runner_def
        raise NotImplementedError(
            f"{type(self).__name__} does not support initialization from proto."
        )

    def to_proto(self) -> Any:
        """Refused, as legacy: feed functions cannot be written to a QueueRunnerDef."""
        raise NotImplementedError(f"{type(self).__name__} does not support serialization to proto.")


def _queue_kind(data: object) -> tuple[list, list, Any]:
    """`(dtypes, shapes, feed function class)` of the queue `data` is read into."""
    import numpy as np

    if isinstance(data, np.ndarray):
        return [tf.int64, tf.as_dtype(data.dtype)], [(), data.shape[1:]], feeding._ArrayFeedFn
    if isinstance(data, collections.OrderedDict):
        columns = list(data.values())
        return (
            [tf.int64] + [tf.as_dtype(c.dtype) for c in columns],
            [()] + [c.shape[1:] for c in columns],
            feeding._OrderedDictNumpyFeedFn,
        )
    if isinstance(data, types.FunctionType):
        first = next(data())
        values = [first[key] for key in sorted(first.keys())]
        return (
            [tf.as_dtype(v.dtype) for v in values],
            [v.shape for v in values],
            feeding._GeneratorFeedFn,
        )
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None and isinstance(data, pd.DataFrame):
        dtypes = [tf.as_dtype(d) for d in [data.index.dtype, *data.dtypes]]
        return dtypes, [() for _ in dtypes], feeding._PandasFeedFn
    raise TypeError(
        "data must be either a numpy array or pandas DataFrame if pandas is installed; "
        f"got {type(data).__name__}"
    )


def _warn_about_threads(shuffle: bool, num_threads: int, num_epochs: int | None) -> None:
    warn = tf.compat.v1.logging.warn
    if num_threads > 1 and num_epochs is not None:
        warn(
            "enqueue_data was called with num_epochs and num_threads > 1. num_epochs is "
            "applied per thread, so this will produce more epochs than you probably intend. "
            "If you want to limit epochs, use one thread."
        )
    if shuffle and num_threads > 1 and num_epochs is not None:
        warn(
            "enqueue_data was called with shuffle=True, num_threads > 1, and num_epochs. "
            "Every thread reads the data in order into the same shuffling queue; the "
            "results will likely not be sufficiently shuffled."
        )
    if not shuffle and num_threads > 1:
        warn(
            "enqueue_data was called with shuffle=False and num_threads > 1. Every thread "
            "reads the data in order. If you want examples read in order, use one thread; "
            "if you want multiple threads, enable shuffling."
        )


def _enqueue_data(
    data: object,
    capacity: int,
    shuffle: bool = False,
    min_after_dequeue: int | None = None,
    num_threads: int = 1,
    seed: int | None = None,
    name: str = "enqueue_input",
    enqueue_size: int = 1,
    num_epochs: int | None = None,
    pad_value: ArrayLike | None = None,
) -> Any:
    """A queue of `data`'s rows, fed by `num_threads` threads of a registered queue runner.

    Each element is one row: its row number (a DataFrame's index value) then each column
    (for a generator function: each key's value, keys sorted). `shuffle` makes it a
    `RandomShuffleQueue` (`min_after_dequeue` defaults to `capacity / 4`; each thread
    starts reading at a random row drawn with seed `(i + 1) * seed`), `pad_value` a
    `PaddingFIFOQueue` padding generator values along their last axis (not with
    `shuffle`, generators only). Threads enqueue `enqueue_size` rows per step, each for
    `num_epochs` epochs (None: forever). Ops are created under the name scope `name`, with
    a `queue/<queue name>fraction_over_<m>_of_<n>_full` summary of how full it is.

    Example:
        >>> import numpy as np, tensorflow as tf
        >>> with tf.Graph().as_default():  # doctest: +SKIP
        ...     queue = _enqueue_data(np.zeros([5, 2]), capacity=10, num_epochs=1)
        ...     [d.name for d in queue.dtypes]
        ['int64', 'float64']
    """
    v1 = tf.compat.v1
    with v1.name_scope(name):
        dtypes, shapes, feed_fn_class = _queue_kind(data)
        padded = pad_value is not None
        if padded and feed_fn_class is not feeding._GeneratorFeedFn:
            raise NotImplementedError("padding is only available with generator usage")
        if shuffle and padded:
            raise NotImplementedError(
                "padding and shuffling data at the same time is not implemented"
            )
        _warn_about_threads(shuffle, num_threads, num_epochs)
        if shuffle:
            min_after_dequeue = int(
                capacity / 4 if min_after_dequeue is None else min_after_dequeue
            )
            queue = tf.queue.RandomShuffleQueue(
                capacity, min_after_dequeue, dtypes=dtypes, shapes=shapes, seed=seed
            )
        else:
            min_after_dequeue = 0  # only named in the summary
            if padded:
                shapes = [(*shape[:-1], None) if len(shape) else shape for shape in shapes]
                queue = tf.queue.PaddingFIFOQueue(capacity, dtypes=dtypes, shapes=shapes)
            else:
                queue = tf.queue.FIFOQueue(capacity, dtypes=dtypes, shapes=shapes)
        enqueue_ops = []
        feed_fns = []
        extra = {"pad_value": pad_value} if padded else {}
        for i in range(num_threads):
            # shapeless placeholders take any number of rows; enqueue_many splits them
            placeholders = [v1.placeholder(dtype) for dtype in dtypes]
            enqueue_ops.append(queue.enqueue_many(placeholders))
            feed_fns.append(
                feed_fn_class(
                    placeholders,
                    data,
                    enqueue_size,
                    random_start=shuffle,
                    seed=None if seed is None else (i + 1) * seed,
                    num_epochs=num_epochs,
                    **extra,
                )
            )
        v1.train.queue_runner.add_queue_runner(
            _FeedingQueueRunner(queue=queue, enqueue_ops=enqueue_ops, feed_fns=feed_fns)
        )
        waiting = tf.math.maximum(0, queue.size() - min_after_dequeue)
        full = tf.cast(waiting, tf.float32) * (1.0 / (capacity - min_after_dequeue))
        # the queue's name ends in "/"
        v1.summary.scalar(
            f"queue/{queue.name}fraction_over_{min_after_dequeue}_of_"
            f"{capacity - min_after_dequeue}_full",
            full,
        )
    return queue
