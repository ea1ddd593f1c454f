"""Canary: every TensorFlow / Keras internal the boundary modules use still exists.

The boundary is the package `tfport._common.tf_internals` (its `SYMBOLS` and `ATTRIBUTES`
are the union of its modules') and `tfport._common.keras_internals`.

A TensorFlow, tf_keras or Keras release that moves or renames one fails exactly the test
whose id names it (`test_symbol[training.evaluation._StopAfterNEvalsHook]`, ...).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import pkgutil

import pytest

from tfport._common import keras_internals, tf_internals
from tfport._common.tfenv import import_tf

TF_BOUNDARY = sorted(pathlib.Path(tf_internals.__file__).parent.glob("*.py"))

TF_SYMBOLS = [(f"tensorflow.python.{m}", n) for m, n in tf_internals.SYMBOLS]
ATTRIBUTES = [(f"tensorflow.python.{m}", c, a) for m, c, a in tf_internals.ATTRIBUTES] + list(
    keras_internals.ATTRIBUTES
)


def _import(module: str):
    import_tf()
    return importlib.import_module(module)


@pytest.mark.parametrize(
    ("module", "name"),
    TF_SYMBOLS + list(keras_internals.SYMBOLS),
    ids=[f"{m}.{n}" for m, n in TF_SYMBOLS + list(keras_internals.SYMBOLS)],
)
def test_symbol(module, name):
    assert hasattr(_import(module), name), f"{module}.{name} is gone"


def _sets(source: str, attr: str, owner: str) -> bool:
    return f"{owner}.{attr} =" in source or f"{owner}.{attr}:" in source


def _has_attribute(module: str, cls: str | None, attr: str) -> bool:
    mod = _import(module)
    if cls is None:
        return hasattr(mod, attr) or _sets(inspect.getsource(mod), attr, "")
    klass = getattr(mod, cls)
    if hasattr(klass, attr):
        return True
    for base in klass.__mro__:
        try:
            source = inspect.getsource(base)
        except (OSError, TypeError):  # a C++ (pybind) base
            continue
        if _sets(source, attr, "self"):
            return True
    return False


@pytest.mark.parametrize(
    ("module", "cls", "attr"), ATTRIBUTES, ids=[f"{m}.{c or ''}.{a}" for m, c, a in ATTRIBUTES]
)
def test_attribute(module, cls, attr):
    assert _has_attribute(module, cls, attr), f"{module}.{cls}.{attr} is gone"


def _private_attributes(path: pathlib.Path) -> set[str]:
    """Private attribute names the module reads or writes (`x._a`, `getattr(x, "_a")`)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") in (
            "getattr",
            "hasattr",
        ):
            name = getattr(node.args[1], "value", "") if len(node.args) > 1 else ""
        else:
            continue
        if isinstance(name, str) and name.startswith("_") and not name.startswith("__"):
            found.add(name)
    return found


def _functions(paths: list[pathlib.Path]) -> set[str]:
    return {
        node.name
        for path in paths
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef)
    }


BOUNDARY_FILES = [(tf_internals, path) for path in TF_BOUNDARY] + [
    (keras_internals, pathlib.Path(keras_internals.__file__))
]


@pytest.mark.parametrize(
    ("boundary", "path"),
    BOUNDARY_FILES,
    ids=[f"{b.__name__.rpartition('.')[2]}/{p.name}" for b, p in BOUNDARY_FILES],
)
def test_every_private_attribute_used_is_listed(boundary, path):
    paths = TF_BOUNDARY if boundary is tf_internals else [path]
    listed = {a for _, _, a in boundary.ATTRIBUTES} | {n for _, n in boundary.SYMBOLS}
    # `getattr(opt, "_" + name)` in v1_optimizer_hyperparameters: its names are listed too.
    unlisted = _private_attributes(path) - listed - _functions(paths)
    assert unlisted == set()


def test_the_tables_are_the_union_of_the_modules_tables():
    modules = [
        importlib.import_module(f"{tf_internals.__name__}.{info.name}")
        for info in pkgutil.iter_modules(tf_internals.__path__)
        if not info.name.startswith("_")
    ]
    assert len(modules) > 8
    symbols = [s for m in modules for s in m.SYMBOLS]
    attributes = [a for m in modules for a in m.ATTRIBUTES]
    assert sorted(tf_internals.SYMBOLS) == sorted(symbols) == sorted(set(symbols))
    assert sorted(tf_internals.ATTRIBUTES) == sorted(attributes) == sorted(set(attributes))


def test_a_missing_attribute_is_reported():
    assert not _has_attribute("tensorflow.python.framework.ops", "Graph", "_no_such_thing")


def test_keras_mask_set_in_call_survives_the_layer_call():
    """`keras_internals.set_keras_mask` / `keras_mask`: a mask set on a subclassed model's
    output in graph mode is still on the tensor the model call returns (legacy RNNModel)."""
    tf = import_tf()

    class Masked(tf.keras.Model):
        def call(self, inputs):
            out = inputs * 2.0
            keras_internals.set_keras_mask(out, tf.ones_like(inputs, dtype=tf.bool))
            return out

    with tf.Graph().as_default():
        out = Masked()(tf.zeros([2, 3]))
        assert keras_internals.keras_mask(out) is not None
        assert keras_internals.keras_mask(out).dtype == tf.bool


def test_replace_summary_file_writer_is_what_the_writer_cache_builds(tmp_path):
    tf = import_tf()

    class Recorder:
        def __init__(self, logdir, graph=None):
            self.logdir = logdir

        def close(self):
            pass

    tf.compat.v1.summary.FileWriterCache.clear()
    previous = tf_internals.replace_summary_file_writer(Recorder)
    try:
        assert isinstance(tf.compat.v1.summary.FileWriterCache.get(str(tmp_path)), Recorder)
    finally:
        assert tf_internals.replace_summary_file_writer(previous) is Recorder
        tf.compat.v1.summary.FileWriterCache.clear()
    assert previous is tf.compat.v1.summary.FileWriter


def test_fresh_v1_variable_store_lets_each_function_create_the_name():
    tf = import_tf()
    made = []

    def creator(next_creator, **kwargs):
        kwargs["experimental_enable_variable_lifting"] = False
        with tf.init_scope():
            made.append(next_creator(**kwargs))
        return made[-1]

    @tf.function
    def fn():
        with tf_internals.fresh_v1_variable_store(), tf.variable_creator_scope(creator):
            with tf.compat.v1.variable_scope(None, default_name="scope"):
                tf.compat.v1.get_variable("v", initializer=lambda: tf.constant(1.0))
        return tf.constant(0)

    fn()
    tf.function(fn.python_function)()  # a second function graph: no "already exists"
    assert [v.name for v in made] == ["scope/v:0", "scope/v:0"]


def test_xla_control_flow_context_passes_ops_made_inside_to_add_op():
    from tfport.estimator._tpu.tpu_host import CatchInvalidHostcallFunctions

    tf = import_tf()
    assert issubclass(CatchInvalidHostcallFunctions, tf_internals.xla_control_flow_context_class())
    with tf.Graph().as_default():
        context = CatchInvalidHostcallFunctions()
        context.Enter()
        try:
            with pytest.raises(ValueError, match="TF1 summary op"):
                tf.compat.v1.summary.scalar("s", tf.constant(1.0))
        finally:
            context.Exit()


def test_tpu_columns_record_their_scope_in_the_named_collection():
    assert isinstance(tf_internals.tpu_column_scope_collection(), str)
    assert len(tf_internals.tpu_embedding_column_classes()) == 4


def test_tensor_core_padding_pads_ids_to_the_column_shape():
    tf = import_tf()
    ids = tf.compat.v1.feature_column.categorical_column_with_identity("a", 10)
    column = tf.compat.v1.tpu.experimental.embedding_column(
        ids, 4, embedding_lookup_device="tpu_tensor_core", tensor_core_shape=[2, 3]
    )
    sparse = tf.sparse.SparseTensor(
        [[0, 0], [1, 0], [1, 1]], tf.constant([3, 5, 7], tf.int64), [2, 3]
    )
    values, mask, suffix, size = tf_internals.tensor_core_padding(column, sparse)
    assert (values.numpy().tolist(), mask.numpy().tolist(), size) == (
        [[3, 0, 0], [5, 7, 0]],
        [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0]],
        3,
    )
    assert suffix.startswith("__")


def test_infeed_queue_builds_infeed_enqueue_ops_without_a_tpu():
    tf = import_tf()
    with tf.Graph().as_default():
        queue = tf_internals.infeed_queue_class()(number_of_tuple_elements=2)
        ops = queue.generate_enqueue_ops(
            [[tf.zeros([4, 3]), tf.zeros([4], tf.int64)]], tpu_ordinal_function=lambda i: i
        )
    assert [op.type for op in ops] == ["InfeedEnqueueTuple"]
    assert [tf.TensorShape(s).as_list() for s in ops[0].get_attr("shapes")] == [[4, 3], [4]]


def test_the_distribute_and_tpu_packages_are_loaded_with_tensorflow():
    import_tf()
    owners = []
    for package in ("", "distribute", "tpu"):
        assert tf_internals.set_on_loaded_package(
            lambda owner, name, value: owners.append((owner.__name__, name, value)),
            package,
            "_tfport_probe",
            1,
        )
    assert owners == [
        ("tensorflow.python", "_tfport_probe", 1),
        ("tensorflow.python.distribute", "_tfport_probe", 1),
        ("tensorflow.python.tpu", "_tfport_probe", 1),
    ]
