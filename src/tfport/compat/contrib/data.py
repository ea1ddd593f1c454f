"""`tf.contrib.data` transformations that `tf.data` has no direct counterpart for.

(The others, `map_and_batch`, `parallel_interleave`, `shuffle_and_repeat`, ...,
are rewritten to `tf.data.experimental` by `tfport upgrade`.)

Example:
    >>> callable(batch_and_drop_remainder(8))
    True
"""

from __future__ import annotations

from collections.abc import Callable


def batch_and_drop_remainder(batch_size: int) -> Callable:
    """For `dataset.apply`: batches, dropping a last partial batch."""

    def apply(dataset):
        return dataset.batch(batch_size, drop_remainder=True)

    return apply


def padded_batch_and_drop_remainder(
    batch_size: int, padded_shapes, padding_values=None
) -> Callable:
    """For `dataset.apply`: padded batches, dropping a last partial batch."""

    def apply(dataset):
        return dataset.padded_batch(
            batch_size, padded_shapes, padding_values=padding_values, drop_remainder=True
        )

    return apply
