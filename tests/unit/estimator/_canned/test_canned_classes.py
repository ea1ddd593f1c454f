"""The public estimator classes are written as classes, with TF 2.15's signatures."""

from __future__ import annotations

import inspect
import json
import pathlib

import pytest

import tfport

LISTING = pathlib.Path(__file__).resolve().parents[4] / "legacy" / "api" / "legacy_api.json"
FAMILIES = ("Baseline", "DNN", "DNNLinearCombined", "Linear")
KINDS = ("Classifier", "Estimator", "Regressor")
CANNED = [family + kind for family in FAMILIES for kind in KINDS]


@pytest.fixture(scope="module")
def tf():
    tf = tfport._common.tfenv.import_tf()
    tfport.install()
    return tf


@pytest.fixture(scope="module")
def symbols():
    return json.loads(LISTING.read_text())["symbols"]


def _estimator_classes(tf):
    namespaces = {
        "tf.estimator": tf.estimator,
        "tf.compat.v1.estimator": tf.compat.v1.estimator,
        "tf.compat.v1.estimator.tpu": tf.compat.v1.estimator.tpu,
    }
    found = {}
    for prefix, module in namespaces.items():
        for name in dir(module):
            value = getattr(module, name, None)
            if inspect.isclass(value) and issubclass(value, tfport.estimator.Estimator):
                found[f"{prefix}.{name}"] = value
    return found


def test_every_public_estimator_class_is_a_class_statement_with_a_docstring(tf):
    found = _estimator_classes(tf)
    expected = {f"{p}.{n}" for p in ("tf.estimator", "tf.compat.v1.estimator") for n in CANNED}
    assert expected | {"tf.estimator.Estimator", "tf.compat.v1.estimator.tpu.TPUEstimator"} <= set(
        found
    )
    for path, cls in found.items():
        assert inspect.getsource(cls).startswith(f"class {cls.__name__}"), path
        assert path.rsplit(".", 1)[1] == cls.__name__, path
        assert cls.__doc__ and cls.__doc__.strip(), path


@pytest.mark.parametrize("name", CANNED)
@pytest.mark.parametrize("namespace", ["tf.estimator", "tf.compat.v1.estimator"])
def test_canned_signature_is_the_legacy_one(tf, symbols, namespace, name):
    cls = eval(f"{namespace}.{name}", {"tf": tf})  # noqa: S307 - a fixed dotted path
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    legacy = symbols[f"{namespace}.{name}"]["sig"]
    assert [p.name for p in params] == [n for n, _, _ in legacy]
    for param, (pname, kind, default) in zip(params, legacy, strict=True):
        assert param.kind.name == kind, pname
        if default is None:
            assert param.default is inspect.Parameter.empty, pname
        elif default == "<function relu>":
            assert param.default is tf.nn.relu, pname
        else:
            assert repr(param.default) == default, pname


def test_v1_and_v2_classes_are_distinct_and_re_exported(tf):
    import tfport.estimator as v2
    from tfport.estimator import v1

    assert set(CANNED) <= set(v2.__all__) and set(v1.__all__) == set(CANNED)
    for name in CANNED:
        assert getattr(tf.estimator, name) is getattr(v2, name)
        assert getattr(tf.compat.v1.estimator, name) is getattr(v1, name)
        assert getattr(v1, name) is not getattr(v2, name)
