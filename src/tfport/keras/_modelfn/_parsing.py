"""`tf.io.parse_example` inside a model_fn: the parsing goes to a TF-only `preprocess.py`,
the Keras model takes the parsed features.

A `ParseExampleV2` op whose serialized input is a feature the input_fn gave (a batch of
serialized `tf.Example`s) is lifted out of the model: each dense feature it parses becomes
a `keras.Input` named after its key, and `preprocess.py` parses the same features with
`tf.io.parse_example` (same `FixedLenFeature` specs and defaults). `model(preprocess(raw))`
is the model_fn on `raw`. Sparse and ragged features (`VarLenFeature`, `RaggedFeature`)
have no Keras input and are refused, as is a serialized feature also read elsewhere.

Example:
    >>> parsed = lift_parsing(traced)  # doctest: +SKIP
    >>> print(preprocess_source(parsed, "train.py:make"))  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tfport.keras._modelfn._ops import line_of
from tfport.keras._modelfn._static import TfOp, TfTensor, static
from tfport.keras._modelfn._trace import TENSOR_KEY, Traced
from tfport.keras._modelfn._walk import refusal

PARSE_OPS = ("ParseExampleV2",)
Spec = tuple[str, tuple[int, ...], object]  # (dtype name, per-example shape, default or None)


@dataclasses.dataclass
class Parsed:
    """What `preprocess.py` parses: raw feature key -> {parsed key: spec}."""

    specs: dict[str, dict[str, Spec]]
    ops: list[str]  # the parse ops (the walk skips them)
    lone: bool  # the model_fn was given the serialized tensor itself, not a dict
    lines: list[str]  # the model_fn lines of the parse calls


def _spec(op: TfOp, index: int, key: str) -> Spec:
    dtype = op.get_attr("Tdense")[index].name
    shape = tuple(int(d.size) for d in op.get_attr("dense_shapes")[index].dim)
    default = _constant(op.inputs[5 + index])
    if default is None:
        raise refusal(op, f"the default of parsed feature {key!r} is computed, not constant")
    value = np.asarray(default)
    if value.size == 0:
        return dtype, shape, None  # required
    plain = value.astype(object).tolist() if value.dtype.kind != "S" else value.tolist()
    return dtype, shape, _decoded(plain)


def _constant(tensor: TfTensor) -> object:
    """A constant, or a constant reshaped (how parse_example passes a scalar default)."""
    if tensor.op.type == "Reshape":
        value, shape = static(tensor.op.inputs[0]), static(tensor.op.inputs[1])
        if value is None or shape is None:
            return None
        return np.reshape(value, [int(d) for d in np.asarray(shape).reshape(-1)])
    return static(tensor)


def _decoded(value: object) -> object:
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value


def lift_parsing(traced: Traced) -> Parsed | None:
    """Makes the parsed features the model's inputs (in place); None when nothing parses.

    Raises:
        TfportInputError: sparse or ragged parsed features, a serialized feature read by
            other ops too, a parsed key equal to another feature's, naming the line.
    """
    raw = {t.name: k for k, t in traced.features.items()}
    ops = [op for op in traced.graph.get_operations() if op.type in PARSE_OPS]
    ops = [op for op in ops if op.inputs[0].name in raw]
    if not ops:
        return None
    specs: dict[str, dict[str, Spec]] = {}
    inputs = dict(traced.features)
    for op in ops:
        if op.get_attr("num_sparse") or op.get_attr("ragged_value_types"):
            raise refusal(
                op,
                "it parses sparse or ragged features (VarLenFeature, RaggedFeature), which "
                "have no Keras input; parse them to dense (FixedLenFeature) in the model_fn",
            )
        key = raw[op.inputs[0].name]
        keys = [k.decode() if isinstance(k, bytes) else str(k) for k in static(op.inputs[3])]
        for i, parsed in enumerate(keys):
            if parsed in inputs and inputs[parsed] is not op.outputs[i]:
                raise refusal(op, f"the parsed feature {parsed!r} has the name of another input")
            specs.setdefault(key, {})[parsed] = _spec(op, i, parsed)
            inputs[parsed] = op.outputs[i]  # dense outputs come first without sparse ones
    parse_names = {op.name for op in ops}
    for key in specs:
        readers = {c.name for c in traced.features[key].consumers()}
        if readers - parse_names:
            other = traced.graph.get_operation_by_name(sorted(readers - parse_names)[0])
            raise refusal(
                other,
                f"it reads the serialized feature {key!r}, which is parsed for the model "
                "(only tf.io parsing may read it)",
            )
        del inputs[key]
    lines = [line_of(op) for op in ops]
    traced.features = dict(sorted(inputs.items()))
    lone = traced.single
    traced.single = False
    return Parsed(specs, sorted(parse_names), lone, lines)


def _feature(spec: Spec) -> str:
    dtype, shape, default = spec
    text = f"tf.io.FixedLenFeature({list(shape)!r}, tf.{dtype}"
    return text + (")" if default is None else f", default_value={default!r})")


def preprocess_source(parsed: Parsed, factory: str) -> str:
    """The text of `preprocess.py`.

    Example:
        >>> "def preprocess(" in preprocess_source(parsed, "t.py:f")  # doctest: +SKIP
        True
    """
    where = ", ".join(line for line in parsed.lines if line) or "the model_fn"
    lines = [
        '"""The TensorFlow-only parsing of the model in model.py: the features the input_fn',
        f"gives -> the model's inputs (the `tf.io.parse_example` of {where}), exported by",
        f"`tfport keras export {factory}`.",
        "",
        "`model(preprocess(features))` is the model_fn's PREDICT outputs on `features`.",
        '"""',
        "",
        "import tensorflow as tf",
        "",
        "# raw feature (serialized tf.Examples) -> the features parsed from it",
        "PARSED = {",
    ]
    for key, specs in parsed.specs.items():
        lines.append(f"    {key!r}: {{")
        lines += [f"        {name!r}: {_feature(spec)}," for name, spec in specs.items()]
        lines.append("    },")
    lines += [
        "}",
        "",
        "",
        "def preprocess(features):",
        '    """The model\'s inputs: every feature but the serialized ones, and what they parse',
        '    to."""',
    ]
    if parsed.lone:
        lines.append(f"    features = {{{TENSOR_KEY!r}: features}}  # the model_fn took one tensor")
    lines += [
        "    inputs = {k: v for k, v in features.items() if k not in PARSED}",
        "    for key, spec in PARSED.items():",
        "        inputs.update(tf.io.parse_example(features[key], spec))",
        "    return inputs",
        "",
    ]
    return "\n".join(lines)
