"""`tf.contrib.layers`: the layer functions with TF1's variable names, collections and defaults.

`layer_norm` makes ``LayerNorm/beta`` and ``LayerNorm/gamma`` and normalizes with
epsilon 1e-12 over the axes from `begin_norm_axis` (default 1), as TF1 did, so
BERT-style checkpoints load unchanged; `fully_connected` and `conv2d` name their
variables ``weights`` / ``biases`` under ``fully_connected`` / ``Conv``.

Example:
    >>> from tfport.compat.contrib import layers
    >>> layers.layer_norm.__name__
    'layer_norm'
"""

from __future__ import annotations

import functools

from tfport.compat.contrib._initializers import (
    apply_regularization,
    l1_l2_regularizer,
    l1_regularizer,
    l2_regularizer,
    sum_regularizer,
    variance_scaling_initializer,
    xavier_initializer,
    xavier_initializer_conv2d,
)
from tfport.compat.contrib._norm import batch_norm, layer_norm
from tfport.compat.contrib._tf import v1
from tfport.compat.contrib._util import collect as _collect
from tfport.compat.contrib._util import var_collections as _var_collections
from tfport.compat.contrib.framework import add_arg_scope, model_variable

__all__ = [
    "apply_regularization",
    "avg_pool2d",
    "batch_norm",
    "conv2d",
    "convolution2d",
    "dropout",
    "embed_sequence",
    "flatten",
    "fully_connected",
    "l1_l2_regularizer",
    "l1_regularizer",
    "l2_regularizer",
    "layer_norm",
    "linear",
    "max_pool2d",
    "one_hot_encoding",
    "sum_regularizer",
    "variance_scaling_initializer",
    "xavier_initializer",
    "xavier_initializer_conv2d",
]

_RELU = object()  # the default activation_fn (tf.nn.relu), resolved lazily


def _activation(fn):
    return v1().nn.relu if fn is _RELU else fn


def _dense_or_conv(
    inputs,
    weights_shape,
    apply,
    *,
    activation_fn,
    normalizer_fn,
    normalizer_params,
    weights_initializer,
    weights_regularizer,
    biases_initializer,
    biases_regularizer,
    variables_collections,
    trainable,
):
    tf = v1()
    dtype = inputs.dtype.base_dtype
    weights = model_variable(
        "weights",
        weights_shape,
        dtype,
        weights_initializer or xavier_initializer(),
        weights_regularizer,
        trainable,
        _var_collections(variables_collections, "weights"),
    )
    outputs = apply(weights)
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    elif biases_initializer is not None:
        biases = model_variable(
            "biases",
            [weights_shape[-1]],
            dtype,
            biases_initializer,
            biases_regularizer,
            trainable,
            _var_collections(variables_collections, "biases"),
        )
        outputs = tf.nn.bias_add(outputs, biases)
    activation_fn = _activation(activation_fn)
    return activation_fn(outputs) if activation_fn is not None else outputs


@add_arg_scope
def fully_connected(
    inputs,
    num_outputs: int,
    activation_fn=_RELU,
    normalizer_fn=None,
    normalizer_params=None,
    weights_initializer=None,
    weights_regularizer=None,
    biases_initializer="zeros",
    biases_regularizer=None,
    reuse=None,
    variables_collections=None,
    outputs_collections=None,
    trainable: bool = True,
    scope=None,
):
    """Dense layer: ``fully_connected/weights`` [in, out] and ``/biases``; relu by default."""
    tf = v1()
    with tf.variable_scope(scope, "fully_connected", [inputs], reuse=reuse):
        inputs = tf.convert_to_tensor(inputs)
        rank = inputs.shape.ndims
        shape = [int(inputs.shape[-1]), int(num_outputs)]

        def apply(w):
            if rank == 2:
                return tf.matmul(inputs, w)
            out = tf.tensordot(inputs, w, [[rank - 1], [0]])
            out.set_shape(inputs.shape[:-1].concatenate([num_outputs]))
            return out

        outputs = _dense_or_conv(
            inputs,
            shape,
            apply,
            activation_fn=activation_fn,
            normalizer_fn=normalizer_fn,
            normalizer_params=normalizer_params,
            weights_initializer=weights_initializer,
            weights_regularizer=weights_regularizer,
            biases_initializer=_zeros(biases_initializer),
            biases_regularizer=biases_regularizer,
            variables_collections=variables_collections,
            trainable=trainable,
        )
        return _collect(outputs_collections, "fully_connected", outputs)


linear = functools.partial(fully_connected, activation_fn=None)


def _zeros(init):
    return v1().zeros_initializer() if isinstance(init, str) and init == "zeros" else init


def _pair(value) -> list[int]:
    return [int(value)] * 2 if isinstance(value, int) else [int(v) for v in value]


@add_arg_scope
def conv2d(
    inputs,
    num_outputs: int,
    kernel_size,
    stride=1,
    padding: str = "SAME",
    data_format=None,
    rate=1,
    activation_fn=_RELU,
    normalizer_fn=None,
    normalizer_params=None,
    weights_initializer=None,
    weights_regularizer=None,
    biases_initializer="zeros",
    biases_regularizer=None,
    reuse=None,
    variables_collections=None,
    outputs_collections=None,
    trainable: bool = True,
    scope=None,
):
    """2-D convolution: ``Conv/weights`` [kh, kw, in, out] and ``Conv/biases`` (NHWC)."""
    tf = v1()
    if data_format not in (None, "NHWC"):
        raise ValueError("tfport.compat.contrib.layers.conv2d supports data_format='NHWC' only")
    with tf.variable_scope(scope, "Conv", [inputs], reuse=reuse):
        inputs = tf.convert_to_tensor(inputs)
        shape = [*_pair(kernel_size), int(inputs.shape[-1]), int(num_outputs)]
        strides, dilations = _pair(stride), _pair(rate)

        def apply(w):
            return tf.nn.convolution(
                inputs, w, padding=padding.upper(), strides=strides, dilation_rate=dilations
            )

        outputs = _dense_or_conv(
            inputs,
            shape,
            apply,
            activation_fn=activation_fn,
            normalizer_fn=normalizer_fn,
            normalizer_params=normalizer_params,
            weights_initializer=weights_initializer,
            weights_regularizer=weights_regularizer,
            biases_initializer=_zeros(biases_initializer),
            biases_regularizer=biases_regularizer,
            variables_collections=variables_collections,
            trainable=trainable,
        )
        return _collect(outputs_collections, "Conv", outputs)


convolution2d = conv2d


def _pool(kind: str, inputs, kernel_size, stride, padding, data_format, outputs_collections, scope):
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(
            f"tfport.compat.contrib.layers.{kind.lower()}_pool2d: data_format must be 'NHWC' "
            f"or 'NCHW'. Received: data_format={data_format!r}"
        )
    tf = v1()
    with tf.name_scope(scope, f"{kind}Pool2D", [inputs]) as name:
        fn = tf.nn.max_pool2d if kind == "Max" else tf.nn.avg_pool2d
        if data_format == "NHWC":
            outputs = fn(inputs, _pair(kernel_size), _pair(stride), padding.upper(), name=name)
        else:  # pooled as NHWC: TensorFlow's CPU kernels take NHWC only
            nhwc = tf.transpose(inputs, [0, 2, 3, 1])
            pooled = fn(nhwc, _pair(kernel_size), _pair(stride), padding.upper())
            outputs = tf.transpose(pooled, [0, 3, 1, 2], name=name)
        return _collect(outputs_collections, name, outputs)


@add_arg_scope
def max_pool2d(
    inputs,
    kernel_size,
    stride=2,
    padding: str = "VALID",
    data_format="NHWC",
    outputs_collections=None,
    scope=None,
):
    """2-D max pooling of NHWC or NCHW (`data_format`) inputs."""
    return _pool(
        "Max", inputs, kernel_size, stride, padding, data_format, outputs_collections, scope
    )


@add_arg_scope
def avg_pool2d(
    inputs,
    kernel_size,
    stride=2,
    padding: str = "VALID",
    data_format="NHWC",
    outputs_collections=None,
    scope=None,
):
    """2-D average pooling of NHWC or NCHW (`data_format`) inputs."""
    return _pool(
        "Avg", inputs, kernel_size, stride, padding, data_format, outputs_collections, scope
    )


@add_arg_scope
def flatten(inputs, outputs_collections=None, scope=None):
    """[batch, ...] -> [batch, k]."""
    tf = v1()
    with tf.name_scope(scope, "Flatten", [inputs]) as name:
        inputs = tf.convert_to_tensor(inputs)
        rest = inputs.shape[1:]
        size = rest.num_elements() if rest.is_fully_defined() else -1
        outputs = tf.reshape(inputs, [tf.shape(inputs)[0], size], name=name)
        return _collect(outputs_collections, name, outputs)


@add_arg_scope
def dropout(
    inputs,
    keep_prob: float = 0.5,
    noise_shape=None,
    is_training=True,
    outputs_collections=None,
    scope=None,
    seed=None,
):
    """Dropout when `is_training` (a bool or a boolean tensor)."""
    tf = v1()
    with tf.name_scope(scope, "Dropout", [inputs]) as name:

        def drop():
            return tf.nn.dropout(inputs, rate=1.0 - keep_prob, noise_shape=noise_shape, seed=seed)

        if isinstance(is_training, bool):
            outputs = drop() if is_training else tf.identity(inputs)
        else:
            outputs = tf.cond(is_training, drop, lambda: tf.identity(inputs))
        return _collect(outputs_collections, name, outputs)


def embed_sequence(
    ids,
    vocab_size: int | None = None,
    embed_dim: int | None = None,
    unique: bool = False,
    initializer=None,
    regularizer=None,
    trainable: bool = True,
    scope=None,
    reuse=None,
):
    """Embeds ids with ``EmbedSequence/embeddings`` [vocab_size, embed_dim]."""
    tf = v1()
    with tf.variable_scope(scope, "EmbedSequence", [ids], reuse=reuse):
        embeddings = model_variable(
            "embeddings",
            [vocab_size, embed_dim],
            initializer=initializer,
            regularizer=regularizer,
            trainable=trainable,
        )
        return tf.nn.embedding_lookup(embeddings, ids)


def one_hot_encoding(
    labels,
    num_classes: int,
    on_value: float = 1.0,
    off_value: float = 0.0,
    outputs_collections=None,
    scope=None,
):
    """`tf.one_hot` of (int64) labels."""
    tf = v1()
    with tf.name_scope(scope, "OneHotEncoding", [labels]) as name:
        labels = tf.convert_to_tensor(labels)
        if labels.dtype == tf.int32:
            labels = tf.cast(labels, tf.int64)
        outputs = tf.one_hot(labels, num_classes, on_value=on_value, off_value=off_value)
        return _collect(outputs_collections, name, outputs)
