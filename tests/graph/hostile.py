"""Hostile and damaged artifacts, built by the tests themselves (with TensorFlow) in tmp folders.

Each builder writes its artifact and returns its path; where the artifact acts on files it
is pointed at `target` paths inside the test's own tmp folder, so that a test can prove
that nothing was written or deleted outside the output.
"""

from __future__ import annotations

import os
import pathlib

from graph_helpers import build_v1_saved_model

from tfport._common.tfenv import import_tf


def snapshot(root: pathlib.Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under `root`: relative path -> (size, mtime ns)."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            size = st.st_size if name in files else 0
            found[os.path.relpath(path, root)] = (size, st.st_mtime_ns)
    return found


def tf2_saved_model(path: pathlib.Path, action: str, target: pathlib.Path) -> pathlib.Path:
    """A TF2 SavedModel whose serving function writes `target`, reads it and lists its
    folder, or calls Python (`action`: "write", "read", "pyfunc" or "none")."""
    tf = import_tf()

    class Model(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.v = tf.Variable([1.0, 2.0])

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
        def serve(self, x):
            y = x * self.v
            if action == "write":
                with tf.control_dependencies([tf.io.write_file(str(target), "pwned")]):
                    y = tf.identity(y)
            elif action == "read":
                size = tf.strings.length(tf.io.read_file(str(target)))
                listed = tf.size(tf.io.matching_files(str(target.parent / "*")))
                y = y + tf.cast(size + listed, tf.float32) * 0.0
            elif action == "pyfunc":
                y = tf.py_function(lambda t: t * 2.0, [y], tf.float32)
            return {"y": y}

    model = Model()
    tf.saved_model.save(model, str(path), signatures={"serving_default": model.serve})
    return path


def tf1_saved_model_main_op(path: pathlib.Path, marker: pathlib.Path) -> pathlib.Path:
    """A TF1 SavedModel whose main_op writes `marker` (TensorFlow's loader runs it)."""
    build_v1_saved_model(path, marker)
    return path


def tf1_saved_model_evil_saver(
    path: pathlib.Path, written: pathlib.Path, victim: pathlib.Path
) -> pathlib.Path:
    """A TF1 SavedModel whose restore op also saves a checkpoint at `written` and merges
    away (deleting its folder) the checkpoint `victim` (a prefix it creates now)."""
    tf = import_tf()
    build_v1_saved_model(path)
    victim.parent.mkdir(parents=True, exist_ok=True)
    tf.raw_ops.SaveV2(
        prefix=str(victim), tensor_names=["keep"], shape_and_slices=[""], tensors=[[1.0]]
    )
    from tensorflow.core.protobuf import saved_model_pb2

    model = saved_model_pb2.SavedModel.FromString((path / "saved_model.pb").read_bytes())
    meta = model.meta_graphs[0]
    graph = tf.Graph()
    with graph.as_default(), tf.name_scope("evil"):
        value = tf.constant([3.0], name="value")
        save = tf.raw_ops.SaveV2(
            prefix=tf.constant(str(written)),
            tensor_names=tf.constant(["x"]),
            shape_and_slices=tf.constant([""]),
            tensors=[value],
            name="save",
        )
        with tf.control_dependencies([save]):
            tf.raw_ops.MergeV2Checkpoints(
                checkpoint_prefixes=tf.constant([str(victim)]),
                destination_prefix=tf.constant(str(written) + "_merged"),
                delete_old_dirs=True,
                name="merge",
            )
    meta.graph_def.node.extend(graph.as_graph_def().node)
    restore = meta.saver_def.restore_op_name
    node = next(n for n in meta.graph_def.node if n.name == restore)
    node.input.append("^evil/merge")
    (path / "saved_model.pb").write_bytes(model.SerializeToString())
    return path


def endless_loop_graph(path: pathlib.Path, v2: bool) -> pathlib.Path:
    """A frozen graph whose output needs a while loop that never ends (v1 or v2 control
    flow)."""
    tf = import_tf()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [2], name="x")
        if not v2:
            v1.disable_control_flow_v2()
        try:
            _, total = tf.while_loop(
                lambda i, acc: i >= 0, lambda i, acc: (i + 1, acc + 1.0), [0, tf.constant(0.0)]
            )
        finally:
            v1.enable_control_flow_v2()
        tf.identity(x + total, name="y")
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return path


def graph_with(path: pathlib.Path, edit: str) -> pathlib.Path:
    """A small frozen graph, `x` [2] -> `y`, damaged or stretched by `edit`:
    "broadcast" (a Const of 2**29 floats from one float_val), "short" (a Const whose
    tensor_content is too short), "unknown_rank" (a Placeholder of unknown rank)."""
    tf = import_tf()
    graph_def = tf.compat.v1.GraphDef()
    x = graph_def.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = 1
    if edit != "unknown_rank":
        x.attr["shape"].shape.dim.add(size=2)
    else:
        x.attr["shape"].shape.unknown_rank = True
    c = graph_def.node.add(name="c", op="Const")
    c.attr["dtype"].type = 1
    tensor = c.attr["value"].tensor
    tensor.dtype = 1
    if edit == "broadcast":
        tensor.tensor_shape.dim.add(size=2**29)
        tensor.float_val.append(1.0)
    elif edit == "short":
        tensor.tensor_shape.dim.add(size=4)
        tensor.tensor_content = b"\x00" * 6
    else:
        tensor.float_val.append(2.0)
    y = graph_def.node.add(name="y", op="Mul", input=["x", "c"])
    y.attr["T"].type = 1
    path.write_bytes(graph_def.SerializeToString())
    return path


def _string_const(graph_def: object, name: str, value: bytes) -> None:
    node = graph_def.node.add(name=name, op="Const")  # type: ignore[attr-defined]
    node.attr["dtype"].type = 7  # DT_STRING
    node.attr["value"].tensor.dtype = 7
    node.attr["value"].tensor.string_val.append(value)


def disguised_write_graph(path: pathlib.Path, target: pathlib.Path) -> pathlib.Path:
    """A frozen graph `x` [2] -> `y` whose `y` waits for a node that writes its `op` field
    twice (Identity, then WriteFile of `target`: protobuf and TensorFlow keep the last), and
    a padding node without op that keeps a per-field count of ops equal to the node count.

    Built byte by byte (no writer emits a field twice), TF-free.
    """
    from tfport._common import protos

    graph_def = protos.graph_def_class()()
    _string_const(graph_def, "fname", str(target).encode())
    _string_const(graph_def, "contents", b"pwned")
    x = graph_def.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = 1
    x.attr["shape"].shape.dim.add(size=2)
    y = graph_def.node.add(name="y", op="Identity", input=["x", "^w"])
    y.attr["T"].type = 1
    head = graph_def.SerializeToString()
    node = protos.message_class("tensorflow.NodeDef")(name="w", input=["fname", "contents"])
    body = node.SerializeToString()
    for op in (b"Identity", b"WriteFile"):  # field 2 (op), length-delimited, twice
        body += b"\x12" + bytes([len(op)]) + op
    pad = protos.message_class("tensorflow.NodeDef")(name="pad").SerializeToString()
    tail = b"".join(b"\x0a" + bytes([len(b)]) + b for b in (body, pad))
    path.write_bytes(head + tail)
    return path


def _saver_op(tf: object, action: str, target: pathlib.Path, value: object) -> object:
    """The file-touching op of `tf2_saved_model_restore_trick`."""
    raw = tf.raw_ops  # type: ignore[attr-defined]
    if action == "save_v2":
        return raw.SaveV2(
            prefix=str(target), tensor_names=["v"], shape_and_slices=[""], tensors=[value]
        )
    if action == "gs":
        return raw.SaveV2(
            prefix="gs://tfport-test-bucket/x", tensor_names=["v"], shape_and_slices=[""],
            tensors=[value],
        )  # fmt: skip
    if action == "save_v1":
        return raw.Save(filename=str(target), tensor_names=["v"], data=[value])
    if action == "merge":
        return raw.MergeV2Checkpoints(
            checkpoint_prefixes=[str(target)],
            destination_prefix=str(target) + "_merged",
            delete_old_dirs=True,
        )
    return raw.RestoreV2(
        prefix=str(target), tensor_names=["v"], shape_and_slices=[""], dtypes=[tf.float32]
    )[0]  # type: ignore[attr-defined]


def tf2_saved_model_restore_trick(
    path: pathlib.Path, action: str, target: pathlib.Path
) -> pathlib.Path:
    """A TF2 SavedModel whose signature function runs a saver op on `target` ("save_v2",
    "save_v1", "merge", "restore" or "gs": SaveV2 to a gs:// path), disguised in the
    `graph_def`: the signature's call node there calls a harmless function instead, and
    the saver's restore node gains a `func` attribute naming the signature's wrapper, so a
    scan that takes roles from the `graph_def` calls the wrapper "saver"."""
    tf = import_tf()

    class Model(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.v = tf.Variable([1.0, 2.0])

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
        def serve(self, x):
            op = _saver_op(tf, action, target, self.v.read_value())
            deps = [op] if action != "restore" else []
            with tf.control_dependencies(deps):
                y = x * self.v
            if action == "restore":
                y = y + op[0]
            return {"y": y}

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
        def harmless(self, x):
            return {"y": x * 2.0}

    model = Model()
    tf.saved_model.save(model, str(path), signatures={"serving_default": model.serve})
    from tensorflow.core.protobuf import saved_model_pb2

    saved = saved_model_pb2.SavedModel.FromString((path / "saved_model.pb").read_bytes())
    meta = saved.meta_graphs[0]
    names = [f.signature.name for f in meta.graph_def.library.function]
    wrapper = next(n for n in names if "signature_wrapper" in n)
    harmless = next(n for n in names if "harmless" in n)
    restore = meta.saver_def.restore_op_name
    for node in meta.graph_def.node:
        if node.attr["f"].func.name == wrapper:
            node.attr["f"].func.name = harmless
        if node.name == restore:
            node.attr["_tfport_extra"].func.name = wrapper
    (path / "saved_model.pb").write_bytes(saved.SerializeToString())
    return path


def tf1_implementation_selector(path: pathlib.Path, target: pathlib.Path) -> pathlib.Path:
    """A TF1 SavedModel whose signature calls F (`api_implements` X, preferred on GPU, a
    Mul) while G (same `api_implements`, preferred on CPU, a SaveV2 to `target`) is reached
    only from the saver's restore op: on a CPU host Grappler swaps G in for F."""
    tf = import_tf()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 2], name="x")

        @tf.function(
            experimental_attributes={
                "api_implements": "tfport_test.scale",
                "api_preferred_device": "GPU",
            }
        )
        def scale_gpu(t):
            return t * 2.0

        @tf.function(
            experimental_attributes={
                "api_implements": "tfport_test.scale",
                "api_preferred_device": "CPU",
            }
        )
        def scale_cpu(t):
            save = tf.raw_ops.SaveV2(
                prefix=str(target), tensor_names=["t"], shape_and_slices=[""], tensors=[t]
            )
            with tf.control_dependencies([save]):
                return t * 2.0

        y = tf.identity(scale_gpu(x), name="y")
        hidden = scale_cpu(x)
        v1.Variable([1.0], name="w")
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            builder = v1.saved_model.Builder(str(path))
            builder.add_meta_graph_and_variables(
                sess,
                ["serve"],
                signature_def_map={
                    "serving_default": v1.saved_model.predict_signature_def({"x": x}, {"y": y})
                },
            )
            builder.save()
    from tensorflow.core.protobuf import saved_model_pb2

    saved = saved_model_pb2.SavedModel.FromString((path / "saved_model.pb").read_bytes())
    meta = saved.meta_graphs[0]
    restore = meta.saver_def.restore_op_name
    node = next(n for n in meta.graph_def.node if n.name == restore)
    node.input.append("^" + hidden.op.name)
    (path / "saved_model.pb").write_bytes(saved.SerializeToString())
    return path


def computed_size_graph(path: pathlib.Path, kind: str) -> pathlib.Path:
    """A small frozen graph `x` [2] -> `y` whose run needs gigabytes the scan cannot see
    in any Const: "fill" (Fill of a shape packed from small Consts, 6.4 GB), "parse"
    (ParseTensor of a 12-byte TensorProto declaring 425 million floats, 1.7 GB),
    "as_string" (AsString of 12 floats at width 2**28, 3 GB), "while" (a While loop
    doubling a tensor by concatenation each iteration), "none" (harmless)."""
    tf = import_tf()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [2], name="x")
        if kind == "fill":
            side = tf.constant(40000, name="side")
            dims = tf.raw_ops.Pack(values=[side, side], name="dims")
            big = tf.raw_ops.Fill(dims=dims, value=tf.constant(1.0), name="big")
            extra = tf.reduce_sum(big)
        elif kind == "parse":
            from tensorflow.core.framework import tensor_pb2

            proto = tensor_pb2.TensorProto(dtype=1)
            proto.tensor_shape.dim.add(size=425_000_000)
            data = proto.SerializeToString()
            assert len(data) == 12, len(data)
            big = tf.raw_ops.ParseTensor(
                serialized=tf.constant(data), out_type=tf.float32, name="big"
            )
            extra = tf.reduce_sum(big)
        elif kind == "as_string":
            values = tf.constant([1.0] * 12, name="values")
            big = tf.raw_ops.AsString(input=values, width=2**28, name="big")
            extra = tf.cast(tf.reduce_sum(tf.strings.length(big)), tf.float32)
        elif kind == "while":
            start = tf.ones([1 << 16], name="start")
            _, grown = tf.while_loop(
                lambda i, acc: i < 40,
                lambda i, acc: (i + 1, tf.concat([acc, acc], 0)),
                [tf.constant(0), start],
                shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])],
            )
            extra = tf.reduce_sum(grown)
        else:
            extra = tf.constant(0.5)
        tf.identity(x + extra * 0.0, name="y")
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return path


def read_write_graph(
    path: pathlib.Path, secret: pathlib.Path, target: pathlib.Path
) -> pathlib.Path:
    """A frozen graph `x` [2] -> `y` that reads `secret` (ReadFile) and writes what it read
    to `target` (WriteFile) before `y` is computed."""
    tf = import_tf()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [2], name="x")
        content = tf.io.read_file(tf.constant(str(secret)), name="read")
        write = tf.io.write_file(tf.constant(str(target)), content, name="write")
        with tf.control_dependencies([write]):
            tf.identity(x, name="y")
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return path
