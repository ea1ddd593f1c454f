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
convert` on a chain of N small nodes and of 10N (fresh processes; time ratio, peak
RSS over input size, and inspect over a bare protobuf parse of the same file).

Usage: python bench/graph.py [--rounds 30] | --scaling [--nodes 100000 --convert-nodes 5000]
"""

from __future__ import annotations

import argparse
import json
import os
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
import json, resource, sys, time
mode, path = sys.argv[1], sys.argv[2]
if mode == "convert":
    from tfport._common.tfenv import import_tf
    import_tf()
from tfport._common import protos
from tfport.graph import convert, inspect_graph
data = open(path, "rb").read()
start = time.perf_counter()
protos.graph_def_class().FromString(data)
parse = time.perf_counter() - start
del data
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
start = time.perf_counter()
if mode == "inspect":
    inspect_graph(path)
else:
    convert(path, sys.argv[3])
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "parse_seconds": parse, "peak": peak, "base": base}))
"""


def _scaled(mode, nodes, folder):
    path = os.path.join(folder, f"chain_{nodes}.pb")
    with open(path, "wb") as f:
        f.write(chain_graph(nodes).SerializeToString())
    size = os.path.getsize(path)
    cmd = [sys.executable, "-c", _SCALE_CHILD, mode, path, os.path.join(folder, f"sm_{nodes}")]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["bytes"] = size
    return result


def scaling(nodes, convert_nodes):
    """One JSON-able dict per benchmark: 10x the nodes, time ratio and memory."""
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for mode, n in (("inspect", nodes), ("convert", convert_nodes)):
            small, big = _scaled(mode, n, folder), _scaled(mode, n * 10, folder)
            results.append(
                {
                    "benchmark": f"graph_{mode}_scaling",
                    "nodes": [n, n * 10],
                    "seconds": [round(small["seconds"], 3), round(big["seconds"], 3)],
                    "time_ratio": round(big["seconds"] / small["seconds"], 2),
                    "peak_rss_growth_over_input": round(
                        (big["peak"] - big["base"]) / big["bytes"], 2
                    ),
                    "over_protobuf_parse": round(big["seconds"] / big["parse_seconds"], 2),
                }
            )
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--mb", type=int, default=110, help="size of the synthetic graphs")
    parser.add_argument("--scaling", action="store_true", help="10x the nodes: time ratios")
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--convert-nodes", type=int, default=5_000)
    args = parser.parse_args()
    if args.scaling:
        for result in scaling(args.nodes, args.convert_nodes):
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
