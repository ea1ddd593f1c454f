"""`tfport graph convert`: goldens, auto-detected inputs/outputs, TF1 SavedModels, --verify."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from graph_helpers import build_v1_saved_model, error_lines, run_cli

from tfport._common.errors import TfportInputError, TfportOperationError
from tfport._common.tfenv import import_tf
from tfport.graph import convert, inspect_graph, load_frozen


@pytest.fixture(scope="module")
def tf():
    return import_tf()


@pytest.fixture(scope="module")
def expected(frozen_dir: pathlib.Path) -> dict:
    return json.loads((frozen_dir / "expected.json").read_text())


def _session_run(tf, graph_path: pathlib.Path, fetches: list[str], feeds: dict) -> list:
    """The original frozen graph in a v1 Session (TensorFlow's own parser)."""
    graph_def = tf.compat.v1.GraphDef.FromString(graph_path.read_bytes())
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=graph) as sess:
            return sess.run(fetches, feeds)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["frozen.pb", "frozen.pbtxt"])
def test_golden_frozen_converts(tf, frozen_dir, expected, tmp_path, name):
    out = tmp_path / "sm"
    report = convert(str(frozen_dir / name), str(out), verify=True)
    assert report["verify"]["passed"]
    fn = tf.saved_model.load(str(out)).signatures["serving_default"]
    x = np.load(frozen_dir / expected["input_file"])
    got = fn(input=tf.constant(x))["probabilities"].numpy()
    np.testing.assert_allclose(got, np.array(expected["predictions"]), rtol=0, atol=1e-6)


@pytest.mark.slow
def test_golden_frozen_cli_verify(frozen_dir, tmp_path):
    out = tmp_path / "sm"
    x = frozen_dir / "input.npy"
    proc = run_cli(
        "graph",
        "convert",
        frozen_dir / "frozen.pb",
        out,
        "--verify",
        "--sample-input",
        f"input={x}",
    )
    assert proc.returncode == 0, proc.stderr
    assert "verify serving_default" in proc.stdout and (out / "saved_model.pb").exists()
    proc = run_cli("graph", "convert", frozen_dir / "frozen.pb", out)
    assert proc.returncode == 2 and "already exists" in error_lines(proc.stderr)[0]
    proc = run_cli("graph", "convert", frozen_dir / "frozen.pb", out, "--overwrite", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["signatures"]["serving_default"]["outputs"] == {
        "probabilities": "probabilities:0"
    }


@pytest.mark.slow
def test_golden_saved_model_v1_converts(tf, frozen_dir, expected, tmp_path):
    out = tmp_path / "sm"
    report = convert(str(frozen_dir / "saved_model_v1"), str(out), verify=True)
    assert set(report["verify"]["max_abs_diff"]) == set(expected["saved_model_signatures"])
    loaded = tf.saved_model.load(str(out))
    assert sorted(loaded.signatures) == expected["saved_model_signatures"]
    x = tf.constant(np.load(frozen_dir / "input.npy"))
    for key in expected["saved_model_signatures"]:
        (got,) = loaded.signatures[key](x=x).values()
        np.testing.assert_allclose(got.numpy(), expected["predictions"], rtol=0, atol=1e-6)
    assert len(loaded.signatures["serving_default"].variables) == 4


@pytest.mark.slow
def test_two_inputs_two_outputs_detected(tf, two_io_pb, tmp_path):
    report = inspect_graph(str(two_io_pb))
    assert sorted(t["name"] for t in report["graphs"][0]["inputs"]) == ["b-2:0", "in/a:0"]
    assert sorted(report["graphs"][0]["outputs"]) == ["out/prod:0", "sum:0"]
    out = tmp_path / "sm"
    convert(str(two_io_pb), str(out), verify=True)
    fn = tf.saved_model.load(str(out)).signatures["serving_default"]
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(5, 3)).astype("float32"), rng.normal(size=(5, 3)).astype("float32")
    got = fn(in_a=tf.constant(a), b_2=tf.constant(b))
    assert sorted(got) == ["out_prod", "sum"]
    want = _session_run(tf, two_io_pb, ["sum:0", "out/prod:0"], {"in/a:0": a, "b-2:0": b})
    np.testing.assert_allclose(got["sum"].numpy(), want[0], atol=1e-6)
    np.testing.assert_allclose(got["out_prod"].numpy(), want[1], atol=1e-6)


@pytest.mark.slow
def test_explicit_inputs_outputs_and_load_frozen(tf, two_io_pb, frozen_dir, expected):
    fn = load_frozen(str(two_io_pb), inputs=["in/a:0", "b-2"], outputs=["sum:0"])
    a = np.ones((2, 3), "float32")
    got = fn(in_a=tf.constant(a), b_2=tf.constant(a))
    want = _session_run(tf, two_io_pb, ["sum:0"], {"in/a:0": a, "b-2:0": a})
    assert list(got) == ["sum"]
    np.testing.assert_allclose(got["sum"].numpy(), want[0], atol=1e-6)
    golden = load_frozen(str(frozen_dir / "frozen.pbtxt"))
    x = tf.constant(np.load(frozen_dir / "input.npy"))
    np.testing.assert_allclose(
        golden(input=x)["probabilities"].numpy(), expected["predictions"], atol=1e-6
    )


def test_unknown_input_name_lists_candidates(two_io_pb, tmp_path):
    out = tmp_path / "sm"
    with pytest.raises(TfportInputError, match=r"'nope:0'.*candidates .*in/a:0"):
        convert(str(two_io_pb), str(out), inputs=["nope:0"])
    proc = run_cli("graph", "convert", two_io_pb, out, "--inputs", "in/a:0,nope:0")
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert "nope" in line and "b-2:0" in line and "in/a:0" in line
    assert not out.exists()


def test_bad_sample_input_name(frozen_dir, tmp_path):
    proc = run_cli(
        "graph", "convert", frozen_dir / "frozen.pb", tmp_path / "o", "--verify",
        "--sample-input", "nope=x.npy",
    )  # fmt: skip
    assert proc.returncode == 2 and "nope" in error_lines(proc.stderr)[0]


@pytest.mark.slow
def test_verify_fails_when_outputs_differ(tf, tmp_path):
    """Unseeded random ops give other numbers in the SavedModel: --verify must catch it."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [3], name="x")
        tf.add(x, tf.random.uniform([3]), name="noisy")
    path = tmp_path / "noisy.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    out = tmp_path / "sm"
    with pytest.raises(TfportOperationError, match="Verification failed"):
        convert(str(path), str(out), verify=True)
    assert not out.exists()
    proc = run_cli("graph", "convert", path, out, "--verify")
    assert proc.returncode == 1 and "noisy" in error_lines(proc.stderr)[0]


@pytest.mark.slow
@pytest.mark.parametrize("use_resource", [True, False], ids=["resource", "ref"])
def test_main_op_never_runs(tf, tmp_path, use_resource):
    marker = tmp_path / "main_op_ran.txt"
    export = tmp_path / "v1"
    build_v1_saved_model(export, marker, use_resource)
    assert not marker.exists()
    report = inspect_graph(str(export))
    (meta,) = report["graphs"]
    assert meta["init_ops"], meta["init_ops"]
    writes = [u for u in meta["unsafe"] if u["op"] == "WriteFile"]
    assert writes and writes[0]["role"] == "init" and not writes[0]["blocking"]
    out = tmp_path / "sm"
    report = convert(str(export), str(out), verify=True)
    assert not marker.exists()
    assert sorted(report["signatures"]) == ["both", "serving_default"]
    loaded = tf.saved_model.load(str(out))
    x = np.array([[1.0, 2.0], [-1.0, 0.5]], "float32")
    got = loaded.signatures["both"](x=tf.constant(x))
    w, bias = np.array([[2.0, -1.0], [0.5, 1.0]]), np.array([0.25, -0.75])
    np.testing.assert_allclose(got["y"].numpy(), 1 / (1 + np.exp(-(x @ w + bias))), atol=1e-6)
    np.testing.assert_allclose(got["z"].numpy(), (x * 3).sum(axis=1), atol=1e-6)
    assert not marker.exists()
    # The marker is real: TensorFlow's own loader (what --trust uses) runs the main_op.
    convert(str(export), str(tmp_path / "trusted"), trust=True)
    assert marker.read_text() == "main_op ran"


def test_tf1_saved_model_rejects_inputs_flag(frozen_dir, tmp_path):
    with pytest.raises(TfportInputError, match="signatures"):
        convert(str(frozen_dir / "saved_model_v1"), str(tmp_path / "o"), inputs=["input:0"])


@pytest.mark.slow
def test_golden_canned_export_with_partitioned_variables(tf, goldens, tmp_path):
    """A legacy DNNClassifier export: tf.Example input, partitioned (part_0) variables."""
    (export,) = (goldens / "canned_dnn" / "export").iterdir()
    rng = np.random.default_rng(0)
    examples = []
    for _ in range(6):
        feature = tf.train.Feature(float_list=tf.train.FloatList(value=rng.normal(size=4)))
        features = tf.train.Features(feature={"x": feature})
        examples.append(tf.train.Example(features=features).SerializeToString())
    sample = tmp_path / "examples.npy"
    np.save(sample, np.array(examples, dtype=object).astype(bytes))
    assert [bytes(e) for e in np.load(sample)] == examples
    out = tmp_path / "sm"
    report = convert(
        str(export), str(out), verify=True, sample_inputs={"input_example_tensor": str(sample)}
    )
    assert sorted(report["signatures"]) == ["classification", "predict", "serving_default"]
    assert report["verify"]["passed"]
    loaded = tf.saved_model.load(str(out))
    trusted = tf.saved_model.load(str(export), tags=["serve"])  # TF's own loader as the oracle
    batch = tf.constant(examples)
    got = loaded.signatures["predict"](examples=batch)
    want = trusted.signatures["predict"](examples=batch)
    np.testing.assert_allclose(got["probabilities"], want["probabilities"], atol=1e-6)


@pytest.mark.slow
def test_tags_choose_the_meta_graph(tf, tmp_path):
    v1 = tf.compat.v1
    export = tmp_path / "two_metas"
    graph = tf.Graph()
    with graph.as_default(), v1.Session(graph=graph) as sess:
        x = v1.placeholder(tf.float32, [None], name="x")
        double, triple = tf.multiply(x, 2.0, name="double"), tf.multiply(x, 3.0, name="triple")
        builder = v1.saved_model.Builder(str(export))
        sig = v1.saved_model.predict_signature_def
        builder.add_meta_graph_and_variables(
            sess, ["serve"], signature_def_map={"serving_default": sig({"x": x}, {"y": double})}
        )
        builder.add_meta_graph(["gpu"], signature_def_map={"tripled": sig({"x": x}, {"y": triple})})
        builder.save()
    report = inspect_graph(str(export))
    assert [g["tags"] for g in report["graphs"]] == [["serve"], ["gpu"]]
    out = tmp_path / "gpu_sm"
    assert list(convert(str(export), str(out), tags=["gpu"])["signatures"]) == ["tripled"]
    fn = tf.saved_model.load(str(out)).signatures["tripled"]
    np.testing.assert_allclose(fn(x=tf.constant([1.0, 2.0]))["y"].numpy(), [3.0, 6.0])
    assert list(convert(str(export), str(tmp_path / "default"))["signatures"]) == [
        "serving_default"
    ]
    with pytest.raises(TfportInputError, match="Pass --tags with one of"):
        convert(str(export), str(tmp_path / "none"), tags=["tpu"])
    # A TF2 SavedModel needs no conversion: refused with a clear message.
    with pytest.raises(TfportInputError, match="already a TF2 SavedModel"):
        convert(str(out), str(tmp_path / "again"))


def test_unfrozen_graph_refused(tf, tmp_path):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2], name="x")
        w = tf.compat.v1.Variable([1.0, 2.0], name="w", use_resource=False)
        tf.multiply(x, w, name="y")
    path = tmp_path / "unfrozen.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    with pytest.raises(TfportInputError, match="not frozen.*w"):
        convert(str(path), str(tmp_path / "out"))


@pytest.mark.slow
@pytest.mark.parametrize("flavor", ["v1", "v2"])
def test_loops_and_conds_convert_with_one_output(tf, tmp_path, flavor):
    """v1 (Switch/Merge/Enter...) and v2 (While/If functions) control flow both convert.

    Their unread plumbing (dead Switch branches, loop Identity taps) is not an output.
    """
    v1 = tf.compat.v1
    if flavor == "v1":
        v1.disable_control_flow_v2()
    try:
        graph = tf.Graph()
        with graph.as_default():
            x = v1.placeholder(tf.float32, [None, 3], name="x")

            def body(i, acc):
                return i + 1, acc * 1.5 + tf.reduce_sum(x)

            _, total = tf.while_loop(lambda i, a: i < 4, body, [tf.constant(0), tf.zeros([])])
            tf.identity(tf.cond(total > 0, lambda: x * total, lambda: x - total), name="y")
    finally:
        v1.enable_control_flow_v2()
    path = tmp_path / "loop.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    assert inspect_graph(str(path))["graphs"][0]["outputs"] == ["y:0"]
    report = convert(str(path), str(tmp_path / "sm"), verify=True)
    assert report["verify"]["max_abs_diff"]["serving_default"] == {"y": 0.0}


@pytest.mark.parametrize(
    ("name", "identifier", "key"),
    [
        ("scope/input-1:0", True, "scope_input_1"),
        ("probabilities:0", True, "probabilities"),
        ("split:1", True, "split_1"),
        ("in", True, "in_"),
        ("1st:0", True, "input_1st"),
        ("9out:0", False, "9out"),
    ],
)
def test_signature_keys(name, identifier, key):
    from tfport.graph import signature_key

    assert signature_key(name, identifier) == key


@pytest.mark.slow
def test_awkward_names_become_valid_keys(tf, tmp_path):
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        a = v1.placeholder(tf.float32, [2], name="1abc")
        b = v1.placeholder(tf.float32, [2], name="in")
        total = tf.add(a, b, name="9out")
    frozen = tmp_path / "awkward.pb"
    frozen.write_bytes(graph.as_graph_def().SerializeToString())
    out = tmp_path / "frozen_sm"
    convert(str(frozen), str(out), verify=True)
    got = tf.saved_model.load(str(out)).signatures["serving_default"](
        input_1abc=tf.constant([1.0, 2.0]), in_=tf.constant([3.0, 4.0])
    )
    np.testing.assert_allclose(got["9out"].numpy(), [4.0, 6.0])
    export = tmp_path / "v1"
    with graph.as_default(), v1.Session(graph=graph) as sess:
        builder = v1.saved_model.Builder(str(export))
        sig = v1.saved_model.predict_signature_def({"x-in": a, "in": b}, {"out/put": total})
        builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={"my sig": sig})
        builder.save()
    report = convert(str(export), str(tmp_path / "v1_sm"), verify=True)
    assert report["signatures"]["my sig"]["inputs"] == {"in_": "in:0", "x_in": "1abc:0"}
