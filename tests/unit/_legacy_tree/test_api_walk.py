"""The legacy public API walked after `install()`: every path, signature and member."""

from __future__ import annotations

import importlib
import json
import pathlib

import pytest
from tests.api import api_walk

from tfport._legacy_paths import GoneFinder

API = pathlib.Path(__file__).resolve().parents[2] / "api"  # tests/api: the walk's data
IMPORT_PATHS = json.loads((API / "legacy_import_paths.json").read_text())


@pytest.fixture(scope="module")
def tf():
    import tfport

    tfport.install()
    import tensorflow

    return tensorflow


def test_every_listed_path_resolves_with_the_legacy_signature_and_members(tf):
    findings = api_walk.walk(tf)
    counts = api_walk.counts(findings)
    print(json.dumps(counts, sort_keys=True))
    bad = [f for f in findings if not f.ok and f.path not in api_walk.PENDING_ISSUE_15]
    assert not bad, [(f.path, f.present, f.signature_diffs, f.missing_members) for f in bad]
    missing = {f.path for f in findings if not f.present}
    assert missing <= api_walk.PENDING_ISSUE_15
    assert counts["signature_differences"] == 0 and counts["missing_members"] == 0


def test_no_public_name_that_legacy_lacks(tf):
    assert api_walk.extra_names(tf) == []
    assert tf.estimator.inputs.numpy_input_fn is tf.compat.v1.estimator.inputs.numpy_input_fn


@pytest.mark.parametrize("path", sorted(IMPORT_PATHS["paths"]))
def test_legacy_import_paths_resolve_with_the_names_found_in_public_code(tf, path):
    module = importlib.import_module(path)
    for name in IMPORT_PATHS["paths"][path]["names"]:
        assert getattr(module, name) is not None, name


def test_a_path_outside_the_legacy_tree_says_so(tf):
    with pytest.raises(ImportError, match="not provided by tfport"):
        importlib.import_module("tensorflow_estimator.python.estimator.no_such")
    with pytest.raises(ImportError, match="not a module of tensorflow-estimator 2.15"):
        GoneFinder().find_spec("tensorflow.python.estimator.no_such.module")


def test_a_name_that_cannot_exist_says_what_to_use(tf):
    from tensorflow_estimator.python.estimator.canned import head

    with pytest.raises(AttributeError, match="MultiClassHead"):
        head._no_such_head  # noqa: B018


def test_legacy_module_imports(tf):
    import tensorflow_estimator as tf_estimator
    from tensorflow.compat.v1 import estimator as v1_estimator
    from tensorflow_estimator.python.estimator import estimator, run_config
    from tensorflow_estimator.python.estimator.tpu import tpu_estimator

    assert tf_estimator.estimator.Estimator is estimator.Estimator
    assert v1_estimator.DNNClassifier is tf.compat.v1.estimator.DNNClassifier
    assert run_config.RunConfig is tf.estimator.RunConfig
    assert tpu_estimator.ExportSavedModelApiVersion.V1.value == 1
