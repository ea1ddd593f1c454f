"""`tf.contrib` symbols for TensorFlow 2.21, with TF1's behaviour and variable names.

Every module imports TensorFlow lazily (on the first call), so importing this
package is cheap. Graph-mode (`tf.compat.v1`) semantics, as in TF1:

- :mod:`.layers`: `layer_norm` (``LayerNorm/beta``, ``LayerNorm/gamma``, epsilon
  1e-12), `fully_connected` (``fully_connected/weights``, ``/biases``), `conv2d`,
  `batch_norm`, pooling, `flatten`, `dropout`, `embed_sequence`, the
  `xavier_initializer` / `variance_scaling_initializer` and the regularizers;
- :mod:`.framework`: `arg_scope`, variable helpers, `assign_from_checkpoint_fn`;
- :mod:`.training`: `HParams`;
- :mod:`.metrics`: the `streaming_*` metrics (TF1 argument order);
- :mod:`.data`, :mod:`.lookup`, :mod:`.seq2seq` (`sequence_loss`), :mod:`.distribute`.

Example:
    >>> from tfport.compat.contrib import layers
    >>> layers.l2_regularizer(0.0)(None) is None
    True
"""

from tfport.compat.contrib import (
    data,
    distribute,
    framework,
    layers,
    lookup,
    metrics,
    seq2seq,
    training,
)

__all__ = [
    "data",
    "distribute",
    "framework",
    "layers",
    "lookup",
    "metrics",
    "seq2seq",
    "training",
]
