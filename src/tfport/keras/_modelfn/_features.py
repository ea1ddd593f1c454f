"""Feature columns in a model_fn (`tf.compat.v1.feature_column.input_layer`, a tf_keras
`DenseFeatures` layer) -> Keras preprocessing layers in model.py.

The columns are mapped by the canned export's mapper (`tfport.keras._columns`:
`Discretization` for bucketized columns, `StringLookup` / `IntegerLookup` for vocabularies,
`Hashing` for hash buckets, `HashedCrossing` for crossed columns, `Embedding` with the
column's combiner), given stand-ins for `keras.layers` and `keras.ops` that run each call
on symbolic Keras tensors (for shapes) and write it as a line of `build_model()`. The ops
the input layer made in the graph are skipped; its output is the last line's variable.

Example:
    >>> plan_input_layers(walk)  # doctest: +SKIP
    >>> walk.plan.layers["input_layer_city_embedding"]  # doctest: +SKIP
    ['input_layer/city_embedding/embedding_weights']
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfport._common.errors import TfportInputError, message
from tfport._common.types import Tensor
from tfport.keras._columns import Columns
from tfport.keras._modelfn import _tables
from tfport.keras._modelfn._ops import Refused, TfOp
from tfport.keras._modelfn._parts import part_of
from tfport.keras._modelfn._tables import Routing
from tfport.keras._modelfn._trace import InputLayer
from tfport.keras._modelfn._walk import Walk

# preprocessing layers that run TensorFlow ops (string tensors): TensorFlow backend only
TF_ONLY = ("StringLookup", "IntegerLookup", "Hashing", "HashedCrossing")


class Sym:
    """A symbolic Keras tensor and the model.py variable holding it."""

    def __init__(self, source: Source, value: Tensor, text: str) -> None:
        self.source, self.value, self.text = source, value, text

    @property
    def shape(self) -> tuple:
        return tuple(self.value.shape)

    @property
    def dtype(self) -> str:
        return str(self.value.dtype)

    def __add__(self, other: object) -> Sym:
        return self.source.call("add", self, other)

    def __radd__(self, other: object) -> Sym:
        return self.source.call("add", other, self)

    def __sub__(self, other: object) -> Sym:
        return self.source.call("subtract", self, other)

    def __rsub__(self, other: object) -> Sym:
        return self.source.call("subtract", other, self)

    def __mul__(self, other: object) -> Sym:
        return self.source.call("multiply", self, other)

    def __rmul__(self, other: object) -> Sym:
        return self.source.call("multiply", other, self)


class LayerSym:
    """A Keras layer made in model.py (its variable is also its name)."""

    def __init__(self, source: Source, layer: Callable[[object], Tensor], var: str) -> None:
        self.source, self.layer, self.var = source, layer, var

    def __call__(self, x: object) -> Sym:
        value = self.layer(_real(x))
        return self.source.line(self.var + "_out", f"{self.var}({_text(x)})", value)


class _Namespace:
    """`layers` or `ops` as `Columns` calls them: each attribute writes a line."""

    def __init__(self, make: Callable[..., object]) -> None:
        self._make = make

    def __getattr__(self, name: str) -> Callable[..., object]:
        return lambda *args, **kwargs: self._make(name, *args, **kwargs)


class Source:
    """Writes the calls of `Columns` into the walk's plan."""

    def __init__(self, walk: Walk) -> None:
        self.walk = walk
        self.layers = _Namespace(self.layer)
        self.ops = _Namespace(self.call)

    def line(self, hint: str, text: str, value: Tensor) -> Sym:
        var = self.walk.name(hint)
        self.walk.plan.lines.append(f"{var} = {text}")
        return Sym(self, value, var)

    def call(self, name: str, *args: object, **kwargs: object) -> Sym:
        from keras import ops

        value = getattr(ops, name)(*_real(args), **_real(kwargs))
        return self.line(f"fc_{name}", f"ops.{name}({_arguments(args, kwargs)})", value)

    def layer(self, kind: str, *args: object, **kwargs: object) -> LayerSym:
        from keras import layers

        var = self.walk.name(str(kwargs.get("name") or kind.lower()))
        kwargs["name"] = var
        layer = getattr(layers, kind)(*_real(args), **_real(kwargs))
        self.walk.plan.lines.append(f"{var} = layers.{kind}({_arguments(args, kwargs)})")
        self.walk.plan.needs_tensorflow |= kind in TF_ONLY
        return LayerSym(self, layer, var)


def _real(value: object) -> object:
    if isinstance(value, Sym):
        return value.value
    if isinstance(value, tuple | list):
        return type(value)(_real(v) for v in value)
    if isinstance(value, dict):
        return {k: _real(v) for k, v in value.items()}
    return value


def _text(value: object) -> str:
    if isinstance(value, Sym):
        return value.text
    if isinstance(value, tuple):
        inner = ", ".join(_text(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, np.generic):
        return repr(value.item())
    if value is None or isinstance(value, bool | int | float | str):
        return repr(value)
    raise Refused(f"a feature column argument with no source form ({type(value).__name__})")


def _arguments(args: tuple, kwargs: dict) -> str:
    return ", ".join([_text(a) for a in args] + [f"{k}={_text(v)}" for k, v in kwargs.items()])


def _region(walk: Walk, layer: InputLayer) -> tuple[list[TfOp], list[str]]:
    """(the ops computing the input layer's output in graph order, the feature keys read)."""
    placeholders = {t.name: k for k, t in walk.traced.features.items()}
    found: dict[str, TfOp] = {}
    keys: set[str] = set()
    stack = [layer.output.op]
    while stack:
        op = stack.pop()
        if op.name in found:
            continue
        if op.type == "Placeholder":
            if op.outputs[0].name in placeholders:
                keys.add(placeholders[op.outputs[0].name])
            continue
        found[op.name] = op
        if op.type != "ReadVariableOp":
            stack.extend(t.op for t in op.inputs)
    ops = [op for op in walk.traced.graph.get_operations() if op.name in found]
    return ops, sorted(keys)


def _check_raw(walk: Walk, layer: InputLayer, keys: list[str], last: TfOp) -> None:
    """Refuses an input layer given features the model_fn computed (not the raw inputs)."""
    given = layer.features if isinstance(layer.features, dict) else {}
    for key in keys:
        tensor = given.get(key)
        if getattr(tensor, "name", None) != walk.traced.features[key].name:
            raise walk.refuse(
                last,
                f"its feature {key!r} is not the model_fn's input as given (feature "
                "columns are exported over the raw inputs only)",
            )


def _weight(
    walk: Walk, layer: InputLayer, names: dict[int, str], routes: dict[str, Routing]
) -> Callable[[str, str], np.ndarray]:
    """`weight(scope, suffix)` for `Columns`: a stand-in array of the input layer's one
    variable ending in `suffix` (named in `names`), or of the partitioned variable whose
    parts end so (merged in the order its lookup reads them: `_tables.routing`)."""
    keep: list = []

    def weight(scope: str, suffix: str) -> np.ndarray:
        hits = [n for n in layer.variables if ("/" + n).endswith(suffix)]
        hits += [w for w in _partitioned(layer) if ("/" + w).endswith(suffix)]
        if len(hits) != 1:
            raise TfportInputError(
                message(
                    f"The input layer holds {len(hits)} variables ending in {suffix!r}",
                    "Use one variable (or one partitioned variable) per embedding column",
                    variables=sorted(layer.variables),
                )
            )
        shape = layer.variables.get(hits[0])
        if shape is None:  # a partitioned variable: its parts, each with its rows
            shape = _parts_shape(walk, _partitioned(layer)[hits[0]], hits[0], routes)
        value = np.zeros(shape, np.float32)  # the checkpoint's, later
        keep.append(value)
        names[id(value)] = hits[0]
        return value

    return weight


def _partitioned(layer: InputLayer) -> dict[str, list[tuple]]:
    """{partitioned variable: the shapes of its parts, in order} among the layer's."""
    found: dict[str, list[tuple[int, tuple]]] = {}
    for name, shape in layer.variables.items():
        part = part_of(name)
        if part is not None and part[0] not in layer.variables:
            found.setdefault(part[0], []).append((part[1], shape))
    return {whole: [shape for _, shape in sorted(parts)] for whole, parts in found.items()}


def _parts_shape(
    walk: Walk, shapes: list[tuple], whole: str, routes: dict[str, Routing]
) -> tuple[int, ...]:
    """The shape of a partitioned table; records its parts in the plan with their rows."""
    route = routes.get(whole)
    if len(shapes) == 1:  # one part, looked up as a variable is
        walk.plan.add_part(f"{whole}/part_0", whole, [0, shapes[0][0]], list(shapes[0]))
    elif route is None:
        raise TfportInputError(
            message(
                f"The partitioned table {whole!r} is read by no embedding lookup recognized",
                "Use an embedding column (embedding_lookup_sparse over its parts)",
            )
        )
    else:
        route.add_parts(walk)
    return (sum(s[0] for s in shapes), *shapes[0][1:])


def _write(walk: Walk, layer: InputLayer, ops: list[TfOp], keys: list[str]) -> None:
    import keras

    last = ops[-1]
    line = walk.comment(last)
    source = Source(walk)
    names: dict[int, str] = {}
    found = (_tables.routing(walk, op) for op in ops if op.type == "ParallelDynamicStitch")
    routes = {r.whole: r for r in found if r is not None}
    ctx = Columns(_weight(walk, layer, names, routes), {}, api=(source.layers, source.ops))
    for key in keys:
        tensor = walk.traced.features[key]
        dims = tuple(tensor.shape.as_list()[1:])
        value = keras.Input(shape=dims, dtype=tensor.dtype.name)
        raw = Sym(source, value, walk.expr[tensor.name])
        ctx.inputs[key] = source.call("expand_dims", raw, -1) if not dims else raw
    try:
        out = ctx.input_layer("", layer.columns)
    except (TfportInputError, Refused) as err:
        raise walk.refuse(last, str(err).split(". Received:")[0]) from None
    for made, values in ctx.assign:
        variables = [names[id(v)] for v in values]
        walk.plan.layers[made.var] = variables
        route = routes.get(variables[0])
        if route is not None and not route.in_order:
            walk.plan.reorder_rows(made.var, route.order.tolist())
        for variable in variables:
            walk.plan.assign(variable, made.var, "embeddings")
    walk.expr[layer.output.name] = out.text
    kinds = sorted({type(c).__name__.lstrip("_") for c in layer.columns})
    for op in ops:
        walk.record(op, f"feature columns ({', '.join(kinds)})", line)


def plan_input_layers(walk: Walk) -> None:
    """Defers each needed input layer's ops: they are written at its output op."""
    needed = {op.name for op in walk.needed}
    for layer in walk.traced.input_layers:
        if layer.output.op.name not in needed:
            continue
        ops, keys = _region(walk, layer)
        _check_raw(walk, layer, keys, ops[-1])

        def write(layer: InputLayer = layer, ops: list = ops, keys: list = keys) -> None:
            _write(walk, layer, ops, keys)

        walk.defer(ops, write)
