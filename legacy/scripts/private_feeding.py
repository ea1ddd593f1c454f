"""Legacy's queue-based feeding (``inputs.queues``) on fixed inputs.

``python private_feeding.py private_feeding OUT_DIR`` writes ``OUT_DIR/values.json``: the
batches legacy's feed functions return for a numpy array, an OrderedDict of arrays, a
pandas DataFrame and generator functions (in order and from a seeded random start, with
and without epochs, padded), what ``_fill_array`` / ``_pad_if_needed`` /
``_get_integer_indices_for_next_batch`` return or raise, the queues ``_enqueue_data``
builds (dtypes, shapes, summary, runner) and the batches dequeued from them in a
``MonitoredSession`` (which starts the queue runners) until the input ends, and
``_FeedingQueueRunner``'s own checks. The test runs ``record()`` under tfport and compares.
"""

import collections
import random
import sys

import _values
import numpy as np
import pandas as pd
import tensorflow as tf
from tensorflow_estimator.python.estimator.inputs.queues import feeding_functions as F
from tensorflow_estimator.python.estimator.inputs.queues import feeding_queue_runner as R

ARTIFACTS = ("private_feeding",)
v1 = tf.compat.v1


def _plain(value):
    """A JSON-able form of a feed value, keeping whether it was a list or an array."""
    if isinstance(value, np.ndarray):
        return ["ndarray", str(value.dtype), value.tolist()]
    if isinstance(value, list):
        return ["list", [_plain(v) for v in value]]
    if isinstance(value, (np.generic,)):
        return ["scalar", str(value.dtype), value.item()]
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _outcome(fn, *args, **kwargs):
    try:
        value = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception type is the recorded outcome
        builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        line = str(e).splitlines()[0] if str(e) else ""
        return ["raises", type(e).__name__, builtin.__name__, line]
    return ["returns", _plain(value)]


def _feed(feed, count):
    out = []
    for _ in range(count):
        try:
            batch = feed()
        except Exception as e:  # noqa: BLE001 - the end of input is the recorded outcome
            out.append(["raises", type(e).__name__, str(e)])
            break
        out.append({str(k): _plain(v) for k, v in sorted(batch.items(), key=lambda i: str(i[0]))})
    return out


def _index_helper():
    g = F._get_integer_indices_for_next_batch
    cases = {
        "first": (0, 3, 4, 5, 0, 2),
        "wrap": (3, 4, 4, 5, 0, None),
        "wrap_epoch": (3, 4, 2, 5, 0, 3),
        "trim_last": (3, 4, 4, 5, 1, 2),
        "trim_many": (0, 12, 4, 5, 0, 2),
        "trim_random_start": (2, 10, 1, 5, 0, 1),
        "exact_end": (0, 5, 4, 5, 0, 1),
        "forever_many": (1, 11, 0, 5, 3, None),
        "done": (0, 3, 4, 5, 2, 2),
        "done_past": (0, 3, 4, 5, 3, 1),
        "batch_one": (4, 1, 4, 5, 0, 1),
    }
    return {name: _outcome(g, *args) for name, args in cases.items()}


def _padding():
    out = {}
    for name, (shape, seq, fill, dtype) in {
        "flat": ([4], [1, 2], 9, int),
        "flat_full": ([2], [1, 2], 9, int),
        "flat_scalar": ([3], 5, 7, int),
        "flat_empty": ([3], [], 1, float),
        "nested": ([2, 3], [np.array([1]), np.array([2, 3, 4])], -1, int),
        "nested_missing_row": ([3, 2], [[1, 2]], 0, int),
        "deep": ([2, 2, 3], [[[1], [2, 3]], [[4, 5, 6]]], 0, float),
        "too_long": ([2], [1, 2, 3], 0, int),
    }.items():
        arr = np.full(shape, 8, dtype=dtype)
        got = _outcome(F._fill_array, arr, seq, fill)
        out["fill_" + name] = [got, arr.tolist()]
    out["fill_default"] = _outcome(lambda a: [F._fill_array(a, [3]), a.tolist()], np.ones([3]))
    for name, items, fill in (
        ("same_length", [np.array([1, 2]), np.array([3, 4])], 0),
        ("ragged", [np.array([1, 2, 3]), np.array([4]), np.array([], dtype=int)], -1),
        ("ragged_float", [np.array([1.5]), np.array([2.5, 3.5])], 0.25),
        ("ragged_2d", [np.ones([2, 1]), np.ones([2, 3]) * 2], 7),
        ("scalars", [np.array(1), np.array(2)], 0),
        ("shapes_differ", [np.ones([2, 1]), np.ones([3, 2])], 0),
        ("scalar_and_vector", [np.array(1), np.array([1, 2])], 0),
    ):
        out["pad_" + name] = _outcome(F._pad_if_needed, items, fill)
    out["pad_default"] = _outcome(F._pad_if_needed, [np.array([1]), np.array([2, 3])])
    out["pad_same_is_input"] = (lambda x: F._pad_if_needed(x) is x)([np.array([1])])
    return out


def _rows(n, keys=("a",), scale=1):
    def gen():
        for i in range(n):
            yield {k: np.array(i * scale + j, dtype=np.int64) for j, k in enumerate(keys)}

    return gen


def _ragged():
    for i in range(4):
        yield {"s": np.arange(i + 1, dtype=np.float32), "t": np.array(i, dtype=np.int32)}


def _feed_fns():
    array = np.arange(10).reshape(5, 2)
    columns = collections.OrderedDict(
        [("b", np.arange(5) * 10.0), ("a", np.array(list("vwxyz"))), ("c", np.ones([5, 2]))]
    )
    frame = pd.DataFrame({"z": [0.5, 1.5, 2.5, 3.5], "y": [4, 3, 2, 1]}, index=[10, 20, 30, 40])
    out = {
        "array_epochs": _feed(F._ArrayFeedFn(["i", "x"], array, 3, num_epochs=2), 6),
        "array_forever": _feed(F._ArrayFeedFn(["i", "x"], array, 4), 4),
        "array_random": _feed(
            F._ArrayFeedFn(["i", "x"], array, 2, random_start=True, seed=7, num_epochs=1), 5
        ),
        "array_big_batch": _feed(F._ArrayFeedFn(["i", "x"], array, 12, num_epochs=2), 3),
        "array_bad": _outcome(F._ArrayFeedFn, ["i"], array, 2),
        "dict_epochs": _feed(
            F._OrderedDictNumpyFeedFn(["i", "b", "a", "c"], columns, 2, num_epochs=1), 5
        ),
        "dict_random": _feed(
            F._OrderedDictNumpyFeedFn(
                ["i", "b", "a", "c"], columns, 3, random_start=True, seed=11, num_epochs=2
            ),
            6,
        ),
        "dict_bad_count": _outcome(F._OrderedDictNumpyFeedFn, ["i", "b"], columns, 2),
        "dict_bad_lengths": _outcome(
            F._OrderedDictNumpyFeedFn,
            ["i", "p", "q"],
            collections.OrderedDict([("p", np.ones(3)), ("q", np.ones(4))]),
            2,
        ),
        "pandas_epochs": _feed(F._PandasFeedFn(["i", "z", "y"], frame, 3, num_epochs=2), 5),
        "pandas_random": _feed(
            F._PandasFeedFn(["i", "z", "y"], frame, 3, random_start=True, seed=3), 3
        ),
        "pandas_bad": _outcome(F._PandasFeedFn, ["i", "z"], frame, 2),
        "gen_one_key": _feed(F._GeneratorFeedFn(["a"], _rows(5), 2, num_epochs=1), 5),
        "gen_two_keys": _feed(
            F._GeneratorFeedFn(["pa", "pb"], _rows(3, ("b", "a"), 10), 4, num_epochs=2), 6
        ),
        "gen_forever": _feed(F._GeneratorFeedFn(["a"], _rows(2), 3), 3),
        "gen_padded": _feed(
            F._GeneratorFeedFn(["s", "t"], _ragged, 4, num_epochs=1, pad_value=-1.0), 4
        ),
        "gen_unpadded_same": _feed(
            F._GeneratorFeedFn(["a"], _rows(3), 2, num_epochs=1, pad_value=0), 3
        ),
        "gen_bad_count": _outcome(F._GeneratorFeedFn, ["a", "b"], _rows(3), 2),
    }

    def mismatched():
        yield {"a": np.array(1)}
        yield {"b": np.array(2)}

    out["gen_key_mismatch"] = _feed(F._GeneratorFeedFn(["a"], mismatched, 2), 2)
    F._ArrayFeedFn(["i", "x"], array, 2, seed=5)
    out["seeds_random_module"] = random.random()
    F._GeneratorFeedFn(["a"], _rows(2), 1, seed=9)
    out["generator_seeds_random_module"] = random.random()
    return out


def _describe_queue(queue):
    runners = v1.get_collection(v1.GraphKeys.QUEUE_RUNNERS)
    return {
        "type": type(queue).__name__,
        "name": queue.name,
        "dtypes": [d.name for d in queue.dtypes],
        "shapes": None if queue.shapes is None else [s.as_list() for s in queue.shapes],
        "summaries": [
            [t.op.name, str(tf.get_static_value(t.op.inputs[0]).item().decode())]
            for t in v1.get_collection(v1.GraphKeys.SUMMARIES)
        ],
        "runners": [[type(r).__name__, len(r.enqueue_ops), r.name] for r in runners],
        "placeholders": sorted(
            op.name for op in v1.get_default_graph().get_operations() if op.type == "Placeholder"
        ),
    }


def _dequeue_all(data, batch, **kwargs):
    with tf.Graph().as_default():
        queue = F._enqueue_data(data, **kwargs)
        out = _describe_queue(queue)
        dequeued = queue.dequeue_up_to(batch)
        batches = []
        with v1.train.MonitoredSession() as session:
            while not session.should_stop() and len(batches) < 50:
                batches.append([_plain(v) for v in session.run(dequeued)])
        out["batches"] = batches
    return out


def _enqueue():
    array = np.arange(12, dtype=np.float32).reshape(6, 2)
    columns = collections.OrderedDict([("b", np.arange(4) * 2), ("a", np.arange(4) * 0.5)])
    frame = pd.DataFrame({"z": [1.5, 2.5, 3.5], "y": [7, 8, 9]}, index=[5, 6, 7])
    out = {
        "array": _dequeue_all(array, 4, capacity=20, num_epochs=2, enqueue_size=3),
        "array_one_row": _dequeue_all(array, 5, capacity=3, num_epochs=1, name="rows"),
        "dict": _dequeue_all(columns, 3, capacity=10, num_epochs=1, enqueue_size=2),
        "pandas": _dequeue_all(frame, 2, capacity=10, num_epochs=2, enqueue_size=2),
        "generator": _dequeue_all(_rows(5, ("b", "a"), 10), 3, capacity=10, num_epochs=1),
        "generator_padded": _dequeue_all(
            _ragged, 2, capacity=10, num_epochs=1, enqueue_size=2, pad_value=-1.0
        ),
        # min_after_dequeue above the rows ever enqueued: the first dequeue waits for the
        # close, so the seeded shuffle does not depend on thread timing
        "shuffled": _dequeue_all(
            np.arange(10),
            4,
            capacity=30,
            shuffle=True,
            min_after_dequeue=25,
            seed=5,
            num_epochs=1,
            enqueue_size=3,
        ),
    }
    with tf.Graph().as_default():
        out["shuffle_default"] = _describe_queue(
            F._enqueue_data(array, capacity=16, shuffle=True, num_epochs=1)
        )
    with tf.Graph().as_default():
        out["two_threads"] = _describe_queue(
            F._enqueue_data(columns, capacity=8, num_threads=2, seed=3, name="two")
        )
    for name, data, kwargs in (
        ("plain_dict", {"a": np.ones(3)}, {}),
        ("list", [1, 2], {}),
        ("pad_array", array, {"pad_value": 0}),
        ("pad_shuffle", _ragged, {"pad_value": 0, "shuffle": True}),
    ):
        with tf.Graph().as_default():
            out["error_" + name] = _outcome(F._enqueue_data, data, 4, **kwargs)
    return out


def _runner():
    out = {}
    with tf.Graph().as_default():
        queue = tf.queue.FIFOQueue(4, [tf.int64], shapes=[()])
        value = v1.placeholder(tf.int64)
        op = queue.enqueue_many([value])
        out["mismatch"] = _outcome(R._FeedingQueueRunner, queue, [op], feed_fns=[None, None])
        out["no_queue"] = _outcome(R._FeedingQueueRunner, None, [op])
        runner = R._FeedingQueueRunner(queue, [op, op])
        out["closed_types"] = [t.__name__ for t in runner.queue_closed_exception_types]
        out["to_proto"] = _outcome(runner.to_proto)
        out["from_proto"] = _outcome(runner._init_from_proto, None)
        counts = iter(range(100))

        def failing():
            if next(counts) == 2:
                raise ValueError("feed broke")
            return {value: [7]}

        runner = R._FeedingQueueRunner(queue, [op], feed_fns=[failing])
        with v1.Session() as session:
            coord = v1.train.Coordinator()
            threads = runner.create_threads(session, coord=coord)
            out["threads"] = [len(threads), [t.is_alive() for t in threads]]
            out["again"] = len(runner.create_threads(session, coord=coord))
            for t in threads:
                t.start()
            out["join"] = _outcome(coord.join, threads)
            out["queued"] = int(session.run(queue.size()))
            out["closed"] = _outcome(session.run, queue.dequeue_up_to(4))
            out["after_close"] = _outcome(session.run, queue.dequeue_up_to(4))
    return out


def record():
    return {
        "index_helper": _index_helper(),
        "padding": _padding(),
        "feed_fns": _feed_fns(),
        "enqueue": _enqueue(),
        "runner": _runner(),
    }


if __name__ == "__main__":
    _values.main("private_feeding", record, sys.argv[1:])
