"""`tfport verify` and `tfport keras export` from the command line (in-process `main`)."""

from __future__ import annotations

import json
import pathlib
import shutil

import numpy as np
import pytest

from tfport.cli._main import main

HERE = pathlib.Path(__file__).resolve().parent
CASES = HERE / "way_out_cases.py"


def _run(capsys, *argv: str) -> tuple[int, dict | None, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    data = json.loads(out) if "--json" in argv and out.strip() else None
    return code, data, err


def _model_dir(goldens: pathlib.Path, case: str, tmp_path: pathlib.Path) -> pathlib.Path:
    dest = tmp_path / case
    shutil.copytree(goldens / case / "model_dir", dest)
    return dest


def _inputs(tmp_path: pathlib.Path, color: bool) -> pathlib.Path:
    rng = np.random.RandomState(5)
    data = {"x": rng.normal(size=(12, 4)).astype("float32")}
    if color:
        data["color"] = np.array(["red", "green", "blue", "pink"])[rng.randint(0, 4, 12)]
    path = tmp_path / "rows.npz"
    np.savez(path, **data)
    return path


@pytest.mark.slow
def test_an_estimator_equals_its_exported_saved_model(goldens, tmp_path, capsys):
    model_dir = _model_dir(goldens, "canned_dnn", tmp_path)
    (export,) = (goldens / "canned_dnn" / "export").iterdir()
    code, report, err = _run(
        capsys,
        "verify",
        f"{CASES}:golden_canned_dnn@{model_dir}",
        str(export),
        "--signature-b",
        "predict",
        "--inputs",
        str(_inputs(tmp_path, color=False)),
        "--json",
    )
    assert code == 0, err
    assert report["equal"] and report["rows"] == 12
    rows = {r["a"]: r for r in report["outputs"]}
    assert {"probabilities", "logits", "class_ids", "classes"} <= set(rows)
    assert rows["probabilities"]["max_abs_diff"] <= 1e-5
    assert rows["probabilities"]["argmax_agreement"] == 1.0


@pytest.mark.slow
def test_an_estimator_equals_its_keras_export(goldens, tmp_path, capsys):
    model_dir = _model_dir(goldens, "canned_dnn_v2", tmp_path)
    out = tmp_path / "dnn_v2.keras"
    factory = f"{CASES}:golden_canned_dnn_v2"
    code, report, err = _run(capsys, "keras", "export", factory, str(model_dir), str(out), "--json")
    assert code == 0, err
    assert report["outputs"] == sorted(report["outputs"]) and "probabilities" in report["outputs"]
    assert set(report["inputs"]) == {"x", "color"}
    # never overwritten
    code, _, err = _run(capsys, "keras", "export", factory, str(model_dir), str(out))
    assert code == 2 and "already exists" in err
    rows = str(_inputs(tmp_path, color=True))
    code, report, err = _run(
        capsys, "verify", f"{factory}@{model_dir}", str(out), "--inputs", rows, "--json"
    )
    assert code == 0, err
    assert report["equal"] and len(report["outputs"]) >= 6
    assert max(r.get("max_abs_diff") or 0.0 for r in report["outputs"]) <= 1e-5
    # a model that differs is found: the same Keras model against the step-20 weights
    old = tmp_path / "old.keras"
    code, _, err = _run(
        capsys,
        "keras",
        "export",
        factory,
        str(model_dir),
        str(old),
        "--checkpoint",
        str(model_dir / "model.ckpt-20"),
    )
    assert code == 0, err
    code, report, _ = _run(capsys, "verify", str(out), str(old), "--inputs", rows, "--json")
    assert code == 1 and not report["equal"]
    assert not {r["a"]: r for r in report["outputs"]}["probabilities"]["pass"]


@pytest.mark.slow
def test_a_frozen_graph_equals_its_converted_saved_model(goldens, tmp_path, capsys):
    from tfport import graph

    frozen = goldens / "frozen_graph" / "frozen.pb"
    graph.convert(str(frozen), str(tmp_path / "sm"))
    code, report, err = _run(capsys, "verify", str(frozen), str(tmp_path / "sm"), "--json")
    assert code == 0, err
    assert report["inputs"] == "generated" and report["rows"] == 8
    (row,) = report["outputs"]
    assert row["max_abs_diff"] <= 1e-6 and row["argmax_agreement"] == 1.0
    assert main(["verify", str(frozen), str(tmp_path / "sm")]) == 0
    assert capsys.readouterr().out.strip().endswith("equal")


def test_mismatched_signatures_and_bad_artifacts_exit_2(goldens, tmp_path, capsys):
    frozen = str(goldens / "frozen_graph" / "frozen.pb")
    np.savez(tmp_path / "wrong.npz", a=np.zeros((3, 4), "float32"), b=np.zeros((3, 4), "float32"))
    code, _, err = _run(capsys, "verify", frozen, frozen, "--inputs", str(tmp_path / "wrong.npz"))
    assert code == 2 and "signatures do not match" in err and "missing=['input']" in err
    assert len(err.strip().splitlines()) == 1
    ckpt = str(goldens / "canned_linear" / "model_dir")
    code, _, err = _run(capsys, "verify", frozen, ckpt)
    assert code == 2 and "only be verified against another checkpoint" in err
    code, _, err = _run(capsys, "verify", frozen, str(tmp_path / "nothing_here"))
    assert code == 2 and "Unknown artifact" in err
    code, _, err = _run(capsys, "verify", frozen, frozen, "--atol", "-1")
    assert code == 2 and "--atol" in err


def test_keras_export_refuses_a_custom_model_fn_in_one_line(tmp_path, capsys):
    script = tmp_path / "custom.py"
    script.write_text(
        "import tensorflow as tf\n"
        "def make(model_dir):\n"
        "    return tf.estimator.Estimator(lambda features, labels, mode: None, model_dir)\n"
    )
    (tmp_path / "m").mkdir()
    code, _, err = _run(
        capsys, "keras", "export", f"{script}:make", str(tmp_path / "m"), str(tmp_path / "o.keras")
    )
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "Only canned estimators convert" in err and "tfport ckpt port" in err
    assert not (tmp_path / "o.keras").exists()


@pytest.mark.slow
def test_one_training_step_of_an_estimator_equals_its_keras_export(goldens, tmp_path, capsys):
    # DNNClassifier v2 (Adam, an embedding column, 3 classes) vs its .keras export: one step
    # from the step-40 weights on the same 12 rows. Measured: loss 0 apart, weights <= 6e-8
    # (float32 summation order). Adam's first step moves a weight by ~lr = 1e-3 whatever its
    # gradient, so a wrong loss, gradient or optimizer shows up ~1e4 times above atol 1e-6.
    model_dir = _model_dir(goldens, "canned_dnn_v2", tmp_path)
    factory = f"{CASES}:golden_canned_dnn_v2"
    out = tmp_path / "dnn_v2.keras"
    assert main(["keras", "export", factory, str(model_dir), str(out)]) == 0
    capsys.readouterr()
    data = dict(np.load(_inputs(tmp_path, color=True), allow_pickle=True))
    data["label"] = np.random.RandomState(6).randint(0, 3, (12, 1))
    np.savez(tmp_path / "train.npz", **data)
    argv = ["verify", f"{factory}@{model_dir}", str(out), "--train-step", "--json"]
    argv += ["--inputs", str(tmp_path / "train.npz"), "--atol", "1e-6", "--rtol", "0"]
    code, report, err = _run(capsys, *argv)
    assert code == 0, (err, [(r["name"], r["max_abs_diff"]) for r in report["outputs"]])
    assert report["kind"] == "train_step" and report["optimizer"] == "Adam"
    assert report["loss"] == "SparseCategoricalCrossentropy" and report["rows"] == 12
    loss, *weights = report["outputs"]
    assert loss["name"] == "loss" and loss["max_abs_diff"] <= 1e-6 and loss["estimator"] > 0
    assert len(weights) == 7  # 3 dense layers (kernel, bias) and the color embedding
    for row in weights:
        assert row["pass"] and row["max_abs_diff"] <= 1e-6, row
        assert 5e-4 < row["max_update"] <= 1.1e-3, row  # every weight moved by ~lr
    print("train step max diff", max(r["max_abs_diff"] for r in report["outputs"]))
    # only an Estimator and a .keras model train
    code, _, err = _run(capsys, "verify", str(out), str(out), "--train-step")
    assert code == 2 and "needs an Estimator and a .keras model" in err
    assert len(err.strip().splitlines()) == 1


MODELFN = HERE / "modelfn_factories.py"


@pytest.mark.slow
def test_an_estimator_equals_its_export_folder_only_sealed_code_is_imported(
    goldens, tmp_path, capsys, monkeypatch
):
    # custom_v1_adam's step-40 checkpoint, exported to a folder by the CLI with only
    # FACTORY, MODEL_DIR and OUT: verify imports OUT/model.py because this machine's export
    # sealed it; once edited (or sealed under another machine's key) it needs --trust.
    model_dir = _model_dir(goldens, "custom_v1_adam", tmp_path)
    factory, out = f"{MODELFN}:custom_v1_adam", tmp_path / "out"
    assert main(["keras", "export", factory, str(model_dir), str(out)]) == 0
    rows = tmp_path / "rows.npz"
    np.savez(rows, features=np.random.RandomState(3).normal(size=(10, 4)).astype("float32"))
    argv = ["verify", f"{factory}@{model_dir}", f"{out}/", "--inputs", str(rows), "--json"]
    capsys.readouterr()
    code, report, err = _run(capsys, *argv)
    assert code == 0, err
    assert report["b"]["kind"] == "keras_folder" and report["equal"]
    by_key = {r["a"]: r for r in report["outputs"]}
    assert set(by_key) == {"classes", "probabilities"}
    assert by_key["probabilities"]["max_abs_diff"] <= 1e-5
    source = (out / "model.py").read_text()
    (out / "model.py").write_text(source + "\nprint('EDITED-CODE-RAN')\n")
    code = main(argv)
    printed, err = capsys.readouterr()
    assert code == 2 and "did not write on this machine" in err and "--trust" in err
    assert len(err.strip().splitlines()) == 1 and "EDITED-CODE-RAN" not in printed + err
    code, report, err = _run(capsys, *argv, "--trust")
    assert code == 0 and report["equal"], err
    (out / "model.py").write_text(source)  # the original bytes, under another user's key
    monkeypatch.setenv("TFPORT_HOME", str(tmp_path / "elsewhere"))
    code, _, err = _run(capsys, *argv)
    assert code == 2 and "did not write on this machine" in err
