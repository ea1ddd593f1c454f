"""Benchmark of `tfport graph`: TF-free inspect speed and converted-model latency.

Prints progress on stderr and, as its last stdout line, JSON with:
- inspect_seconds_per_100MB: `inspect_graph` (parse + safety scan + report) of a synthetic
  weights-heavy GraphDef of >= 100 MB, scaled to 100 MB, timed inside a fresh process that never
  imports TensorFlow (target <= 2 s). `inspect_seconds_per_100MB_many_nodes` does the same
  for a graph of ~1.5M small nodes (the worst case: per-node work dominates).
- latency_ratio_savedmodel_vs_session: median latency of the converted SavedModel's
  serving_default (tf.saved_model.load) over a tf.compat.v1.Session on the original frozen
  graph, same inputs, same run, interleaved rounds (target <= 1.05).

With `--scaling`, one JSON line per benchmark instead: `graph inspect` and `graph
convert` on a chain of N small nodes and of 10N, each in a fresh process: time ratio,
peak RSS over the RSS after imports divided by the input size, and inspect over a bare
protobuf parse of the same file (best of `--scaling-rounds`, interleaved); the full-parse
path `inspect` takes for SavedModels and text graphs is measured beside it.

Usage: python bench/graph.py [--rounds 30]
       python bench/graph.py --scaling [--nodes 100000 --convert-nodes 5000 (0: skip)]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from tfport._common import protos

MB = 1 << 20


def _const(graph, name, array):
    node = graph.node.add(name=name, op="Const")
    node.attr["dtype"].type = 1
    tensor = node.attr["value"].tensor
    tensor.dtype = 1
    tensor.tensor_shape.dim.add(size=array.shape[0])
    tensor.tensor_shape.dim.add(size=array.shape[1])
    tensor.tensor_content = array.tobytes()


def weights_graph(target_bytes):
    """An MLP-like chain: Placeholder -> (MatMul, BiasAdd, Relu) x N with 256x256 weights."""
    graph = protos.graph_def_class()()
    x = graph.node.add(name="input", op="Placeholder")
    x.attr["dtype"].type = 1
    prev, rng, i = "input", np.random.default_rng(0), 0
    while graph.ByteSize() < target_bytes:
        scope = f"layer_{i}"
        _const(graph, f"{scope}/kernel", rng.standard_normal((256, 256), dtype=np.float32))
        _const(graph, f"{scope}/bias", rng.standard_normal((1, 256), dtype=np.float32))
        graph.node.add(name=f"{scope}/MatMul", op="MatMul", input=[prev, f"{scope}/kernel"])
        graph.node.add(
            name=f"{scope}/BiasAdd", op="BiasAdd", input=[f"{scope}/MatMul", f"{scope}/bias"]
        )
        graph.node.add(name=f"{scope}/Relu", op="Relu", input=[f"{scope}/BiasAdd"])
        prev, i = f"{scope}/Relu", i + 1
    graph.node.add(name="output", op="Softmax", input=[prev])
    return graph


def many_nodes_graph(target_bytes):
    """~1M small nodes: a long chain of elementwise ops with control inputs."""
    graph = protos.graph_def_class()()
    x = graph.node.add(name="input", op="Placeholder")
    x.attr["dtype"].type = 1
    prev, i, ops = "input", 0, ("Relu", "Tanh", "Sigmoid", "Neg")
    while True:
        for _ in range(10_000):
            name = f"block_{i // 100}/op_{i}"
            graph.node.add(name=name, op=ops[i % 4], input=[prev, f"^{prev}"])
            prev, i = name, i + 1
        if graph.ByteSize() >= target_bytes:
            return graph


_CHILD = """
import json, sys, time
from tfport.graph import inspect_graph
start = time.perf_counter()
report = inspect_graph(sys.argv[1])
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "nodes": report["graphs"][0]["nodes"],
                  "blocking": len(report["blocking"]), "tf": "tensorflow" in sys.modules}))
"""


def time_inspect(make, target, folder, label):
    """Writes the graph, then times `inspect_graph` in a fresh process (no TF import there)."""
    graph = make(target)
    nodes = len(graph.node)
    path = os.path.join(folder, f"{label}.pb")
    with open(path, "wb") as f:
        f.write(graph.SerializeToString())
    del graph
    size = os.path.getsize(path)
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, path], capture_output=True, text=True, check=True
    )
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["nodes"] == nodes and not result["blocking"], result
    os.remove(path)
    seconds = result["seconds"]
    print(
        f"{label}: {size / MB:.1f} MB, {nodes} nodes, inspect {seconds:.2f} s",
        file=sys.stderr,
    )
    return seconds * 100 * MB / size, result["tf"]


def latency_ratio(folder, rounds):
    from tfport._common.tfenv import import_tf
    from tfport.graph import convert

    tf = import_tf()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 784], name="input")
        h = x
        rng = np.random.default_rng(1)
        for i, width in enumerate((512, 512, 10)):
            w = tf.constant(rng.standard_normal((h.shape[1], width), dtype=np.float32) * 0.05)
            h = tf.matmul(h, w) + tf.constant(np.zeros(width, np.float32))
            h = tf.nn.relu(h) if i < 2 else tf.nn.softmax(h, name="probabilities")
    pb = os.path.join(folder, "mlp.pb")
    with open(pb, "wb") as f:
        f.write(graph.as_graph_def().SerializeToString())
    out = os.path.join(folder, "mlp_sm")
    convert(pb, out, verify=True)
    batch = rng.standard_normal((128, 784), dtype=np.float32)
    sess = v1.Session(graph=graph)
    fetch, feed = graph.get_tensor_by_name("probabilities:0"), {"input:0": batch}
    fn = tf.saved_model.load(out).signatures["serving_default"]
    const = tf.constant(batch)

    def run_session():
        return sess.run(fetch, feed)

    def run_saved():
        return fn(input=const)["probabilities"].numpy()

    np.testing.assert_allclose(run_session(), run_saved(), atol=1e-5)
    timings = {"session": [], "saved_model": []}
    for _ in range(rounds):
        for name, call in (("session", run_session), ("saved_model", run_saved)):
            for _ in range(5):
                call()
            start = time.perf_counter()
            for _ in range(50):
                call()
            timings[name].append((time.perf_counter() - start) / 50)
    sess.close()
    session, saved = (statistics.median(timings[k]) for k in ("session", "saved_model"))
    print(
        f"latency: session {session * 1e3:.3f} ms, saved_model {saved * 1e3:.3f} ms",
        file=sys.stderr,
    )
    return saved / session, session, saved


def chain_graph(nodes):
    """A chain of `nodes` small elementwise nodes after one Placeholder."""
    graph = protos.graph_def_class()()
    x = graph.node.add(name="input", op="Placeholder")
    x.attr["dtype"].type = 1
    x.attr["shape"].shape.dim.add(size=4)
    prev, ops = "input", ("Relu", "Tanh", "Sigmoid", "Neg")
    for i in range(nodes - 1):
        name = f"block_{i // 100}/op_{i}"
        node = graph.node.add(name=name, op=ops[i % 4], input=[prev])
        node.attr["T"].type = 1
        prev = name
    return graph


_SCALE_CHILD = """
import json, sys, time
mode, path = sys.argv[1], sys.argv[2]
if mode == "convert":
    from tfport._common.tfenv import import_tf
    import_tf()
from tfport._common import protos
from tfport.graph import _inspect, _parse, convert, inspect_graph
protos.graph_def_class()
def rss(key):  # VmHWM, unlike ru_maxrss, does not inherit the parent's peak across exec
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith(key))
base = rss("VmRSS")
start = time.perf_counter()
if mode == "parse":
    with open(path, "rb") as f:
        protos.graph_def_class().FromString(f.read())
elif mode == "inspect":
    inspect_graph(path)
elif mode == "inspect_full":
    _inspect.describe(_parse.read(path))
else:
    convert(path, sys.argv[3])
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak": rss("VmHWM"), "base": base}))
"""


def _child(mode, path, folder):
    """Runs one `mode` in a fresh process: seconds and peak RSS over the RSS after imports."""
    cmd = [sys.executable, "-c", _SCALE_CHILD, mode, path, os.path.join(folder, "sm")]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    shutil.rmtree(os.path.join(folder, "sm"), ignore_errors=True)
    return result["seconds"], result["peak"] - result["base"]


def _best(modes, path, folder, rounds):
    """Best-of-`rounds` seconds and the peak growth per mode, the modes interleaved."""
    seconds = {m: [] for m in modes}
    growth = {}
    for _ in range(rounds):
        for mode in modes:
            sec, grow = _child(mode, path, folder)
            seconds[mode].append(sec)
            growth[mode] = grow
    return {m: min(v) for m, v in seconds.items()}, growth


def _graph_file(nodes, folder):
    path = os.path.join(folder, f"chain_{nodes}.pb")
    with open(path, "wb") as f:
        f.write(chain_graph(nodes).SerializeToString())
    return path


def scaling(nodes, convert_nodes, rounds=3):
    """One JSON-able dict per benchmark: 10x the nodes, time ratio, memory, cost over a parse.

    Every figure comes from a fresh process; memory is the peak RSS over the RSS after
    imports, divided by the input's size; times are the best of `rounds`, interleaved.
    """
    results = []
    with tempfile.TemporaryDirectory() as folder:
        small, big = _graph_file(nodes, folder), _graph_file(nodes * 10, folder)
        size = os.path.getsize(big)
        modes = ("parse", "inspect", "inspect_full")
        sec_small, _ = _best(modes, small, folder, rounds)
        sec_big, grow = _best(modes, big, folder, rounds)
        results.append(
            {
                "benchmark": "graph_inspect_scaling",
                "nodes": [nodes, nodes * 10],
                "input_bytes": size,
                "seconds": [round(sec_small["inspect"], 3), round(sec_big["inspect"], 3)],
                "time_ratio": round(sec_big["inspect"] / sec_small["inspect"], 2),
                "peak_rss_growth_over_input": round(grow["inspect"] / size, 2),
                "over_protobuf_parse": round(sec_big["inspect"] / sec_big["parse"], 2),
                "protobuf_parse_seconds": round(sec_big["parse"], 3),
                "protobuf_parse_rss_growth_over_input": round(grow["parse"] / size, 2),
                "full_parse_path_over_protobuf_parse": round(
                    sec_big["inspect_full"] / sec_big["parse"], 2
                ),
                "full_parse_path_rss_growth_over_input": round(grow["inspect_full"] / size, 2),
            }
        )
        if convert_nodes:
            small, big = _graph_file(convert_nodes, folder), _graph_file(convert_nodes * 10, folder)
            (s_small, _), (s_big, g_big) = (
                _child("convert", small, folder),
                _child("convert", big, folder),
            )
            results.append(
                {
                    "benchmark": "graph_convert_scaling",
                    "nodes": [convert_nodes, convert_nodes * 10],
                    "seconds": [round(s_small, 3), round(s_big, 3)],
                    "time_ratio": round(s_big / s_small, 2),
                    "peak_rss_growth_over_input": round(g_big / os.path.getsize(big), 2),
                }
            )
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--mb", type=int, default=110, help="size of the synthetic graphs")
    parser.add_argument("--scaling", action="store_true", help="10x the nodes: time ratios")
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--convert-nodes", type=int, default=5_000, help="0: skip convert")
    parser.add_argument("--scaling-rounds", type=int, default=3)
    args = parser.parse_args()
    if args.scaling:
        for result in scaling(args.nodes, args.convert_nodes, args.scaling_rounds):
            print(json.dumps(result))
        return
    with tempfile.TemporaryDirectory() as folder:
        per_100mb, tf_a = time_inspect(weights_graph, args.mb * MB, folder, "weights")
        per_100mb_nodes, tf_b = time_inspect(many_nodes_graph, args.mb * MB, folder, "many_nodes")
        tf_imported_during_inspect = tf_a or tf_b
        ratio, session, saved = latency_ratio(folder, args.rounds)
    print(
        json.dumps(
            {
                "inspect_seconds_per_100MB": round(per_100mb, 3),
                "inspect_seconds_per_100MB_many_nodes": round(per_100mb_nodes, 3),
                "tensorflow_imported_by_inspect": tf_imported_during_inspect,
                "latency_ratio_savedmodel_vs_session": round(ratio, 3),
                "session_ms": round(session * 1e3, 3),
                "saved_model_ms": round(saved * 1e3, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
