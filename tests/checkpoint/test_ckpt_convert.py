"""`tfport ckpt convert`: legacy converter parity, slot round trips, atomic output."""

from __future__ import annotations

import hashlib
import json
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from ckpt_helpers import run_cli, write_adam_ckpt

from tfport._common.tfenv import import_tf
from tfport.checkpoint import CheckpointReader, convert

# Deliberate differences from the legacy converter (see tfport.checkpoint._convert):
# hyperparameters come from the graph, and `combined` drops the stale TF1 slot names.
STALE_V1_SLOT = ("/Adagrad", "/Ftrl", "/Ftrl_1")


def _graph_consts(path) -> dict[str, float]:
    tf = import_tf()
    from google.protobuf import text_format

    graph = text_format.Parse(path.read_text(), tf.compat.v1.GraphDef())
    return {
        n.name: n.attr["value"].tensor.float_val[0]
        for n in graph.node
        if n.op == "Const" and n.attr["value"].tensor.float_val
    }


@pytest.mark.parametrize("estimator", ["dnn", "linear", "combined"])
def test_legacy_converter_parity(goldens, tmp_path, estimator):
    case = goldens / f"canned_{estimator}"
    out = tmp_path / "converted"
    proc = run_cli(
        "ckpt",
        "convert",
        case / "model_dir" / "model.ckpt-40",
        out,
        "--estimator",
        estimator,
        "--graph",
        case / "model_dir" / "graph.pbtxt",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    ours, golden = CheckpointReader(str(out)), CheckpointReader(str(case / "converted"))
    golden_names = set(golden.names())
    if estimator == "combined":
        golden_names = {n for n in golden_names if not n.endswith(STALE_V1_SLOT)}
    assert set(ours.names()) == golden_names
    consts = _graph_consts(case / "model_dir" / "graph.pbtxt")
    for name in sorted(golden_names):
        got, want = ours.read(name), golden.read(name)
        assert got.dtype == want.dtype and got.shape == want.shape, name
        if report["hyperparameters"].get(name) == "graph":
            opt, hyper = name.split("/")[1:]
            # TF1 Ftrl feeds `l2 + beta / (2 lr)` to its op: l2 is the `add` op's x.
            hyper = {"l2_regularization_strength": "add/x"}.get(hyper, hyper)
            (value,) = {v for k, v in consts.items() if k.endswith(f"head/{opt}/{hyper}")}
            assert got == np.float32(value), name
        else:
            np.testing.assert_array_equal(got, want, err_msg=name)


def test_adam_round_trip_is_bit_exact(goldens, tmp_path):
    src = goldens / "custom_v1_adam" / "model_dir" / "model.ckpt-40"
    assert run_cli("ckpt", "convert", src, tmp_path / "k", "--slots", "v1-to-keras").returncode == 0
    keras = CheckpointReader(str(tmp_path / "k"))
    assert "training/Adam/hidden/kernel/m" in keras.names()
    assert keras.read("training/Adam/beta_1") == np.float32(0.9)
    proc = run_cli("ckpt", "convert", tmp_path / "k", tmp_path / "v1", "--slots", "keras-to-v1")
    assert proc.returncode == 0, proc.stderr
    for suffix in (".index", ".data-00000-of-00001"):
        original = (src.parent / (src.name + suffix)).read_bytes()
        assert (tmp_path / "v1" / ("model.ckpt" + suffix)).read_bytes() == original


def _train_v1(tf, make_opt, prefix: str) -> None:
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        v1.set_random_seed(3)
        x = tf.constant(np.random.default_rng(0).standard_normal((8, 4)), tf.float32)
        kernel = v1.get_variable("dense/kernel", [4, 2])
        bias = v1.get_variable("dense/bias", [2], initializer=v1.ones_initializer())
        loss = tf.reduce_sum(tf.square(tf.matmul(x, kernel) + bias))
        step = v1.train.get_or_create_global_step()
        train = make_opt().minimize(loss, global_step=step)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            v1.train.Saver().save(sess, prefix, write_meta_graph=False)


V1_OPTIMIZERS = {
    "adam": (lambda t: t.AdamOptimizer(0.1), "Adam", {}),
    "adagrad": (lambda t: t.AdagradOptimizer(0.1), "Adagrad", {}),
    "ftrl": (lambda t: t.FtrlOptimizer(0.1), "Ftrl", {}),
    "rmsprop": (lambda t: t.RMSPropOptimizer(0.1), "RMSprop", {"momentum": 0.0}),
    "rmsprop_momentum": (
        lambda t: t.RMSPropOptimizer(0.1, momentum=0.5),
        "RMSprop",
        {"momentum": 0.5},
    ),
    "rmsprop_centered": (
        lambda t: t.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
        "RMSprop",
        {"momentum": 0.5, "centered": True},
    ),
    "momentum": (lambda t: t.MomentumOptimizer(0.1, 0.9), "SGD", {"momentum": 0.9}),
    "sgd": (lambda t: t.GradientDescentOptimizer(0.1), "SGD", {}),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(V1_OPTIMIZERS))
def test_slots_every_optimizer(tmp_path, case):
    tf = import_tf()
    make, keras_name, kwargs = V1_OPTIMIZERS[case]
    src = str(tmp_path / "v1" / "model.ckpt-3")
    _train_v1(tf, lambda: make(tf.compat.v1.train), src)
    convert(src, str(tmp_path / "k"), slots="v1-to-keras")
    keras = CheckpointReader(str(tmp_path / "k"))
    prefix = f"training/{keras_name}/dense/kernel/"
    got = {n[len(prefix) :] for n in keras.names() if n.startswith(prefix)}
    # The slot names the (tf_keras) Keras optimizer itself creates for a variable:
    opt = getattr(tf.keras.optimizers.legacy, keras_name)(**kwargs)
    var = tf.Variable(np.zeros((4, 2), np.float32))
    opt._create_all_weights([var])
    expected = set(opt.get_slot_names())
    if case == "rmsprop":
        expected.add("momentum")  # TF1 RMSProp keeps it; documented in _slots
    assert got == expected
    convert(str(tmp_path / "k"), str(tmp_path / "back"), slots="keras-to-v1")
    original, back = CheckpointReader(src), CheckpointReader(str(tmp_path / "back"))
    assert back.names() == original.names()
    for name in original.names():
        assert back.read_bytes(name) == original.read_bytes(name), name


def test_partitioned_slots_are_merged(tmp_path):
    from tfport.checkpoint import CheckpointWriter

    src = str(tmp_path / "src")
    with CheckpointWriter(src) as w:
        w.add("global_step", np.int64(5))
        w.add("emb", np.arange(10, dtype=np.float32).reshape(5, 2))
        w.add("emb/part_0/Adagrad", np.ones((3, 2), np.float32))
        w.add("emb/part_1/Adagrad", np.full((2, 2), 2, np.float32))
        w.add("w/part_0", np.zeros((2, 3), np.float32))
        w.add("w/part_1", np.ones((1, 3), np.float32))
    convert(src, str(tmp_path / "out"), slots="v1-to-keras")
    out = CheckpointReader(str(tmp_path / "out"))
    np.testing.assert_array_equal(
        out.read("training/Adagrad/emb/accumulator"), np.array([[1, 1]] * 3 + [[2, 2]] * 2)
    )
    np.testing.assert_array_equal(out.read("w"), np.array([[0] * 3] * 2 + [[1] * 3]))


def test_existing_output_refused_and_bad_args(small_ckpt, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    proc = run_cli("ckpt", "convert", small_ckpt, out, "--slots", "v1-to-keras")
    assert proc.returncode == 2 and "--overwrite" in proc.stderr
    ok = run_cli("ckpt", "convert", small_ckpt, out, "--slots", "v1-to-keras", "--overwrite")
    assert ok.returncode == 0, ok.stderr
    proc = run_cli("ckpt", "convert", small_ckpt, tmp_path / "x", "--estimator", "dnn")
    assert proc.returncode == 2 and "--graph" in proc.stderr


def _sha256(prefix: str) -> str:
    digest = hashlib.sha256()
    for suffix in (".index", ".data-00000-of-00001"):
        with open(prefix + suffix, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def _convert_cmd(src: str, out) -> list[str]:
    return [
        sys.executable,
        "-m",
        "tfport",
        "ckpt",
        "convert",
        src,
        str(out),
        "--slots",
        "v1-to-keras",
    ]


@pytest.mark.slow
def test_kill_9_leaves_no_partial_output(tmp_path):
    src = write_adam_ckpt(str(tmp_path / "src" / "model.ckpt-3"), scale=400_000)  # ~100 MB
    before = _sha256(src)
    reference = tmp_path / "reference"
    start = time.monotonic()
    subprocess.run(_convert_cmd(src, reference), check=True, capture_output=True)
    full = time.monotonic() - start  # kill moments spread over one whole run
    ref = CheckpointReader(str(reference))
    rng = random.Random(0)
    for attempt in range(6):
        out = tmp_path / f"out{attempt}"
        proc = subprocess.Popen(
            _convert_cmd(src, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(0.1, 1.05) * full)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if out.exists():  # complete, or nothing at all
            got = CheckpointReader(str(out))
            assert got.names() == ref.names()
            for name in ("dense/kernel", "training/Adam/dense/kernel/v"):
                assert got.read_bytes(name) == ref.read_bytes(name)
            assert (out / "checkpoint").is_file()
    assert _sha256(src) == before


def test_partitioned_round_trip_with_partitions_like(tmp_path):
    tf = import_tf()
    v1 = tf.compat.v1
    src = str(tmp_path / "v1" / "model.ckpt-2")
    with tf.Graph().as_default():
        emb = v1.get_variable("emb", [10, 3], partitioner=v1.fixed_size_partitioner(3))
        x = tf.constant(np.random.default_rng(0).standard_normal((4, 10)), tf.float32)
        loss = tf.reduce_sum(tf.square(tf.matmul(x, tf.concat(list(emb), 0))))
        step = v1.train.get_or_create_global_step()
        train = v1.train.AdagradOptimizer(0.1).minimize(loss, global_step=step)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(train)
            v1.train.Saver().save(sess, src, write_meta_graph=False)
    assert len(CheckpointReader(src).entry("emb/Adagrad").slices) == 3
    convert(src, str(tmp_path / "k"), slots="v1-to-keras")
    keras = CheckpointReader(str(tmp_path / "k"))
    assert keras.names() == ["emb", "global_step", "training/Adagrad/emb/accumulator"]
    assert not keras.entry("emb").slices  # merged whole
    proc = run_cli(
        "ckpt",
        "convert",
        tmp_path / "k",
        tmp_path / "back",
        "--slots",
        "keras-to-v1",
        "--partitions-like",
        src,
    )
    assert proc.returncode == 0, proc.stderr
    for suffix in (".index", ".data-00000-of-00001"):
        with open(src + suffix, "rb") as f:
            assert (tmp_path / "back" / ("model.ckpt" + suffix)).read_bytes() == f.read()


def test_convert_imports_no_tensorflow(goldens, tmp_path):
    case = goldens / "canned_dnn" / "model_dir"
    code = (
        "import sys; from tfport.cli import main; "
        f"rc = main(['ckpt', 'convert', {str(case)!r}, {str(tmp_path / 'o')!r}, "
        f"'--estimator', 'dnn', '--graph', {str(case / 'graph.pbtxt')!r}]); "
        "assert rc == 0; assert 'tensorflow' not in sys.modules, 'tensorflow imported'"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
