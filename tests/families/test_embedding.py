"""TPUEstimator's EmbeddingConfigSpec on CPU reproduces the legacy goldens.

legacy/scripts/families_embedding.py (a TPU embedding_column and shared_embedding_columns
in an EmbeddingConfigSpec with Adagrad, Adam or SGD optimization parameters) runs under
one `tfport run` from each legacy step-0 checkpoint, with `use_tpu=False` (what legacy
ran) and `use_tpu=True` (legacy fails without TPU cores; tfport runs the same model):
both give the legacy step-40 variables (names, shapes, dtypes, values within 1e-5),
metrics and predictions. Bad specs fail with one line.
"""

from __future__ import annotations

import json

import pytest

from conftest import ATOL, HERE, compare, tfport_run
from tfport._common.errors import TfportInputError

CASES = ("families_embedding_adagrad", "families_embedding_adam", "families_embedding_sgd")
SCRIPT = HERE.parents[1] / "legacy" / "scripts" / "families_embedding.py"


@pytest.fixture(scope="module")
def embedding_runs(goldens, tmp_path_factory):
    """(case, use_tpu) -> (model_dir, out): all six runs in one `tfport run`."""
    root = tmp_path_factory.mktemp("embedding")
    jobs, runs = [], {}
    for case in CASES:
        for use_tpu in (False, True):
            name = f"{case}_{int(use_tpu)}"
            model_dir = compare.step0_copy(goldens / case, root / name)
            out = root / name / "out.json"
            jobs.append(f"{case},{model_dir},{out},{int(use_tpu)}")
            runs[case, use_tpu] = (model_dir, out)
    proc = tfport_run(str(SCRIPT), "--jobs", *jobs)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {key: (d, json.loads(out.read_text())) for key, (d, out) in runs.items()}


@pytest.mark.slow
@pytest.mark.parametrize("use_tpu", [False, True], ids=["use_tpu_false", "use_tpu_true"])
@pytest.mark.parametrize("case", CASES)
def test_case_reproduces_the_legacy_golden(case, use_tpu, goldens, embedding_runs):
    model_dir, out = embedding_runs[case, use_tpu]
    want = json.loads((goldens / case / "expected.json").read_text())
    assert out["variables"] == want["variables"]
    assert "input_layer/user_embedding/embedding_weights" in out["variables"]
    assert "item_query_shared_embedding" in out["variables"]
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"),
        str(goldens / case / "model_dir" / "model.ckpt-40"),
        ATOL,
    )
    assert set(out["eval_metrics"]) == set(want["eval_metrics"])
    assert compare.excess(out["eval_metrics"], want["eval_metrics"]) <= ATOL
    assert compare.excess(out["predictions"], want["predictions"]) <= ATOL


def _tf():
    import tfport

    tfport.install()
    from tfport._common.tfenv import import_tf

    return import_tf()


def _columns(tf):
    cat = tf.compat.v1.feature_column.categorical_column_with_identity("a", 5)
    return cat, [tf.compat.v1.tpu.experimental.embedding_column(cat, 2)]


def _one_line(err: pytest.ExceptionInfo) -> str:
    assert "\n" not in str(err.value)
    return str(err.value)


def test_spec_is_the_legacy_namedtuple():
    tf = _tf()
    _, columns = _columns(tf)
    params = tf.compat.v1.tpu.experimental.AdamParameters(0.1)
    spec = tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec(columns, params)
    assert spec.feature_columns == columns and spec.tensor_core_feature_columns == []
    assert spec.optimization_parameters is params and spec.partition_strategy == "div"
    assert isinstance(spec, tuple) and spec.index(params) == 2


# TF 2.15's tf.compat.v1.tpu.experimental optimization parameter classes and their
# parameters (read on the legacy stack); TF 2.21 has none of them
LEGACY_PARAMETERS = {
    "AdagradParameters": None,
    "AdamParameters": None,
    "StochasticGradientDescentParameters": None,
    "FtrlParameters": (
        "learning_rate learning_rate_power initial_accumulator_value "
        "l1_regularization_strength l2_regularization_strength use_gradient_accumulation "
        "clip_weight_min clip_weight_max weight_decay_factor "
        "multiply_weight_decay_factor_by_learning_rate multiply_linear_by_learning_rate beta "
        "allow_zero_accumulator clip_gradient_min clip_gradient_max"
    ),
}


@pytest.mark.parametrize("name", sorted(LEGACY_PARAMETERS))
def test_install_gives_back_tf_2_15s_optimization_parameters(name):
    import inspect

    tf = _tf()
    cls = getattr(tf.compat.v1.tpu.experimental, name)
    if LEGACY_PARAMETERS[name] is not None:
        assert list(inspect.signature(cls).parameters) == LEGACY_PARAMETERS[name].split()
    _, columns = _columns(tf)
    params = cls(0.1)
    spec = tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec(columns, params)
    assert spec.optimization_parameters is params and params.learning_rate == 0.1


def test_bad_specs_fail_with_one_line(tmp_path):
    tf = _tf()
    cat, columns = _columns(tf)
    spec_cls = tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec
    sgd = tf.compat.v1.tpu.experimental.StochasticGradientDescentParameters(0.1)
    with pytest.raises(TfportInputError) as err:
        spec_cls()
    assert "exactly one of feature_columns" in _one_line(err)
    with pytest.raises(TfportInputError) as err:
        spec_cls([cat], sgd)
    assert "column=" in _one_line(err)
    with pytest.raises(TfportInputError) as err:
        spec_cls(columns, tf.compat.v1.train.AdagradOptimizer(0.1))
    assert "optimization_parameters" in _one_line(err)
    with pytest.raises(TfportInputError) as err:
        spec_cls(columns, sgd, partition_strategy="rows")
    assert "partition_strategy" in _one_line(err)
    with pytest.raises(TfportInputError) as err:
        tf.compat.v1.tpu.experimental.AdagradParameters(-1.0)
    assert "learning_rate" in _one_line(err)
    mod = spec_cls(columns, sgd, partition_strategy="mod")
    with pytest.raises(TfportInputError) as err:
        tf.compat.v1.estimator.tpu.TPUEstimator(
            lambda features, labels, mode: None,
            model_dir=str(tmp_path),
            use_tpu=False,
            embedding_config_spec=mod,
        )
    assert "'mod'" in _one_line(err)
