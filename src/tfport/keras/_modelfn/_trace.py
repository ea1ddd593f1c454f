"""A model_fn traced in PREDICT mode in a `tf.Graph`, fed what its input_fn fed it.

The features' dtypes and per-example shapes come from the `IteratorGetNext` op of the
training graph the Estimator wrote (`MODEL_DIR/graph.pbtxt`): its outputs are the
flattened `(features, labels)` of the input_fn, a features dict flattened in sorted key
order. The keys are not in the graph; they are learnt by calling the model_fn with a
dict that records the keys it reads (one trace per new key, each stopped at the read).

Example:
    >>> traced = trace(estimator, "model_dir", {})  # doctest: +SKIP
    >>> sorted(traced.features)  # doctest: +SKIP
    ['x']
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import weakref
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from tfport._common.errors import TfportInputError, message
from tfport._common.types import Features, KerasLayer, TFModule
from tfport.keras._modelfn._recurrent_trace import RecurrentCall, recurrent_calls_recorded

if TYPE_CHECKING:
    from tfport.estimator import Estimator, EstimatorSpec

TfGraph: TypeAlias = Any  # a tf.Graph
TfTensor: TypeAlias = Any  # a symbolic tf.Tensor of that graph
Shape: TypeAlias = tuple  # per-example dims, None where unknown
FeatureSpec: TypeAlias = dict[str, tuple[str, Shape]]  # key -> (dtype name, shape)

TENSOR_KEY = "features"  # the input's name when the features are one tensor
_MAX_KEYS = 256


@dataclasses.dataclass
class Traced:
    """The PREDICT graph: feature placeholders, prediction tensors, the model_fn."""

    graph: TfGraph
    features: dict[str, TfTensor]
    single: bool  # the model_fn took one tensor, not a dict
    predictions: dict[str, TfTensor]
    single_output: bool  # predictions was one tensor
    model_fn: Any
    checkpoint_keys: dict[str, str]  # graph variable -> its checkpoint name, where they differ
    input_layers: list[InputLayer] = dataclasses.field(default_factory=list)
    recurrent: list[RecurrentCall] = dataclasses.field(default_factory=list)  # RNN layers
    # (dtype, per-example shape) of every tensor the training input_fn gave (`training_inputs`)
    given: list[tuple[str, Shape]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class InputLayer:
    """One `tf.compat.v1.feature_column.input_layer` (or `DenseFeatures`) call of the model_fn."""

    features: object  # the features it was given
    columns: list  # its feature columns
    output: TfTensor
    variables: dict[str, tuple]  # variable name -> shape (embedding tables)


class _NeedKey(Exception):
    """Raised by `_KeyRecorder` at the first read of a key it does not know yet."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _KeyRecorder(dict):
    """A features dict that stops the model_fn at its first read of an unknown key."""

    def __init__(self, known: Mapping | Iterable[tuple] = (), make: object = None) -> None:
        super().__init__(known)  # (`tf.nest` rebuilds it from its items: Keras layers)
        self._make = make

    def __missing__(self, key: str) -> TfTensor:
        raise _NeedKey(key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str) and not dict.__contains__(self, key):
            raise _NeedKey(key)  # feature columns ask before they read
        return dict.__contains__(self, key)

    def get(self, key: str, default: object = None) -> object:
        return self[key] if isinstance(key, str) else default

    def copy(self) -> _KeyRecorder:
        return _KeyRecorder(dict(self), self._make)


def training_inputs(model_dir: str) -> list[tuple[str, Shape]]:
    """(dtype, per-example shape) of every tensor the training input_fn gave, in order.

    Example:
        >>> training_inputs("model_dir")  # doctest: +SKIP
        [('float32', (4,)), ('int64', ())]
    """
    from google.protobuf import text_format

    from tfport._common.tfenv import import_tf

    tf = import_tf()
    path = os.path.join(model_dir, "graph.pbtxt")
    fix = "Pass the model_dir the Estimator trained in (it writes graph.pbtxt), or --input-shape"
    try:
        with open(path) as f:
            graph_def = text_format.Parse(f.read(), tf.compat.v1.GraphDef())
    except (OSError, text_format.ParseError) as err:
        raise TfportInputError(
            message("Cannot read the training graph", fix, path=path, error=err)
        ) from None
    # at the top, or in a loop's body (TPUEstimator's iterations_per_loop on the host)
    every = [*graph_def.node, *(n for f in graph_def.library.function for n in f.node_def)]
    nodes = [n for n in every if n.op == "IteratorGetNext"]
    if not nodes:
        raise TfportInputError(
            message("The training graph has no input iterator (IteratorGetNext)", fix, path=path)
        )
    node = nodes[0]
    types = [tf.dtypes.as_dtype(t).name for t in node.attr["output_types"].list.type]
    shapes = [
        tuple(None if d.size < 0 else d.size for d in s.dim[1:])
        for s in node.attr["output_shapes"].list.shape
    ]
    return list(zip(types, shapes, strict=True))


def _placeholder(tf: TFModule, key: str, spec: tuple[str, Shape]) -> TfTensor:
    dtype, shape = spec
    return tf.compat.v1.placeholder(dtype, (None, *shape), name=key)


def _call(estimator: Estimator, features: Features) -> Any:
    from tfport._common.tfenv import import_tf

    import_tf().compat.v1.train.get_or_create_global_step()  # as the Estimator's graphs
    return estimator.model_fn(features, None, "infer", estimator.config)


def _discover_keys(estimator: Estimator, specs: list) -> list[str] | None:
    """The feature keys the model_fn reads (None: it takes one tensor)."""
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    known: list[str] = []
    for _ in range(_MAX_KEYS):
        with tf.Graph().as_default():
            ordered = sorted(known)
            feats = {
                k: _placeholder(tf, k, specs[min(i, len(specs) - 1)]) for i, k in enumerate(ordered)
            }
            try:
                _call(estimator, _KeyRecorder(feats, None))
            except _NeedKey as need:
                known.append(need.key)
                continue
            except Exception:  # noqa: BLE001 - the model_fn may want one tensor
                if not known:
                    return None
                raise
            return sorted(known)
    raise TfportInputError(message("The model_fn reads too many feature keys", None))


def _feature_specs(
    estimator: Estimator, flat: list[tuple[str, Shape]], input_shapes: dict
) -> tuple[FeatureSpec, bool]:
    found = _discover_keys(estimator, flat)
    single = found is None
    keys = [TENSOR_KEY] if found is None else found
    if len(flat) - len(keys) not in (0, 1):
        raise TfportInputError(
            message(
                "The model_fn reads fewer features than the input_fn gave "
                f"({len(keys)} of {len(flat) - 1}); their dtypes cannot be told apart",
                "Make the model_fn read every feature the input_fn yields",
                keys=keys,
            )
        )
    specs = {k: flat[i] for i, k in enumerate(keys)}
    for key, shape in input_shapes.items():
        if key not in specs:
            raise TfportInputError(
                message("--input-shape names no feature", f"Use one of {sorted(specs)}", key=key)
            )
        specs[key] = (specs[key][0], tuple(shape))
    return specs, single


def trace(estimator: Estimator, model_dir: str, input_shapes: dict) -> Traced:
    """Calls the estimator's model_fn in PREDICT mode in a new graph.

    Example:
        >>> trace(estimator, "model_dir", {"x": (4,)}).predictions  # doctest: +SKIP
        {'probabilities': <tf.Tensor 'Softmax:0' ...>}
    """
    from tfport._common import tf_internals
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    given = training_inputs(model_dir)
    specs, single = _feature_specs(estimator, given, input_shapes)
    graph = tf.Graph()
    with graph.as_default():
        feats = {k: _placeholder(tf, k, s) for k, s in specs.items()}
        with (
            tf_internals.input_layers_recorded() as calls,
            _dense_features_recorded() as keras_calls,
            recurrent_calls_recorded() as rnn,
        ):
            spec = _call(estimator, feats[TENSOR_KEY] if single else feats)
        keys = _saver_keys(graph, spec)
    layers = [
        InputLayer(features, columns, out, _variables(to_vars))
        for features, columns, out, to_vars in calls + keras_calls
    ]
    predictions = spec.predictions
    single_output = not isinstance(predictions, dict)
    if single_output:
        predictions = {"predictions": predictions}
    fn = estimator._model_fn
    predictions = dict(predictions)
    return Traced(graph, feats, single, predictions, single_output, fn, keys, layers, rnn, given)


@contextlib.contextmanager
def _dense_features_recorded() -> Iterator[list[tuple[object, list, object, dict]]]:
    """Within it, every call of a tf_keras `DenseFeatures` layer (the v2 class
    `tf.keras.layers.DenseFeatures` and the v1 one it subclasses,
    `tf.compat.v1.keras.layers.DenseFeatures`, which takes a partitioner) is recorded as
    `tf_internals.input_layers_recorded` records `input_layer` calls (its columns as its
    constructor got them, its variables as `{"": variables}`).

    Example:
        >>> with _dense_features_recorded() as calls:  # doctest: +SKIP
        ...     pass
    """
    calls: list[tuple[object, list, object, dict]] = []
    try:
        import tf_keras
    except ImportError:  # pragma: no cover - tf_keras is a dependency
        yield calls
        return
    # the v2 class and the v1 class it subclasses; each one's own methods are wrapped
    classes = [c for c in tf_keras.layers.DenseFeatures.__mro__ if c.__name__ == "DenseFeatures"]
    columns: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def recording_init(init: Any) -> Any:
        def wrapped(
            self: object, feature_columns: Iterable[object], *args: object, **kwargs: object
        ) -> None:
            single = hasattr(feature_columns, "name")  # one column (a namedtuple) or several
            given: list[object] = [feature_columns] if single else list(feature_columns)
            columns[self] = given
            init(self, given, *args, **kwargs)

        return wrapped

    def recording_call(call: Any) -> Any:
        def wrapped(self: KerasLayer, features: object, *args: object, **kwargs: object) -> object:
            out = call(self, features, *args, **kwargs)
            if self in columns:
                calls.append((features, columns[self], out, {"": list(self.weights)}))
            return out

        return wrapped

    wrap = {"__init__": recording_init, "call": recording_call}
    saved = [(c, k, vars(c)[k]) for c in classes for k in wrap if k in vars(c)]
    for layer_class, key, own in saved:
        setattr(layer_class, key, wrap[key](own))
    try:
        yield calls
    finally:
        for layer_class, key, own in saved:
            setattr(layer_class, key, own)


def _variables(to_vars: dict) -> dict[str, tuple]:
    """{variable name: shape} of an input layer's `cols_to_vars` (partitions each)."""
    found = {}
    for variables in to_vars.values():
        for v in variables:
            found[v.op.name] = tuple(v.shape.as_list())
    return found


def _saver_keys(graph: TfGraph, spec: EstimatorSpec) -> dict[str, str]:
    """{graph variable: checkpoint key} from the model_fn's own Saver (object-based
    checkpoints of `model_to_estimator`: `layer_with_weights-0/kernel/.ATTRIBUTES/...`)."""
    from tfport.keras._modelfn._ops import static

    scaffold = getattr(spec, "scaffold", None)
    if scaffold is None or getattr(scaffold, "saver", None) is None:
        return {}
    keys: dict[str, str] = {}
    for op in graph.get_operations():
        if op.type != "SaveV2":
            continue
        names = static(op.inputs[1])
        for name, tensor in zip(names.reshape(-1), op.inputs[3:], strict=False):
            source = tensor.op
            while source.type in ("Identity", "ReadVariableOp") and source.inputs:
                source = source.inputs[0].op
            if source.type in ("VarHandleOp", "VariableV2"):
                keys[source.name] = name.decode() if isinstance(name, bytes) else str(name)
    return keys
