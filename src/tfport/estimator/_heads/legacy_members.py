"""Legacy v2 heads' private members, for head subclasses that call or override them.

`_processed_labels`, `_unweighted_loss_and_weights`, `_class_id_table` /
`_class_string_table` (lookup tables of the label vocabulary, cached in
`_cached_class_id_table` / `_cached_class_string_table`) over tfport's canned-head
implementation; `CannedHead` inherits them.

Example:
    >>> labels = head._processed_labels(logits, labels)  # doctest: +SKIP
    >>> loss, weights = head._unweighted_loss_and_weights(logits, labels, features)
    ... # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Labels, Tensor, TFModule
from tfport.estimator._heads import losses


class LegacyMembers:
    """The private members legacy's `BinaryClassHead`, `MultiClassHead`, `MultiLabelHead`
    and `RegressionHead` had (a mixin of `CannedHead`)."""

    _cached_class_id_table: Any = None
    _cached_class_string_table: Any = None
    vocabulary: tuple | None
    kind: str  # these four: `losses.LossHead`, set by CannedHead
    n_classes: int
    loss_fn: Callable[..., object] | None
    compute_full_loss: bool

    def _labels(self, tf: TFModule, labels: Labels, logits: Tensor) -> Any:
        raise NotImplementedError  # CannedHead's

    def _weights(self, tf: TFModule, features: Features, logits: Tensor) -> Any:
        raise NotImplementedError  # CannedHead's

    def _processed_labels(self, logits: Tensor, labels: Labels) -> Any:
        """Labels checked and converted as the head's loss uses them (class ids for a
        classifier, floats for a regression)."""
        return self._labels(import_tf(), labels, logits)

    def _unweighted_loss_and_weights(
        self, logits: Tensor, labels: Tensor, features: Features
    ) -> tuple:
        """`(per-example loss, weights)` for processed labels."""
        tf = import_tf()
        return losses.unreduced_loss(self, labels, logits, features), self._weights(
            tf, features, logits
        )

    @property
    def _class_id_table(self) -> Any:
        """A table from the label vocabulary to class ids (-1 for other strings)."""
        if self._cached_class_id_table is None:
            tf = import_tf()
            vocabulary = tf.constant(list(self.vocabulary or ()))
            ids = tf.range(len(self.vocabulary or ()), dtype=tf.int64)
            initializer = tf.lookup.KeyValueTensorInitializer(vocabulary, ids)
            self._cached_class_id_table = tf.lookup.StaticHashTable(
                initializer, -1, name="class_id_lookup"
            )
        return self._cached_class_id_table

    @property
    def _class_string_table(self) -> Any:
        """A table from class ids to the label vocabulary ('UNK' for other ids)."""
        if self._cached_class_string_table is None:
            tf = import_tf()
            vocabulary = tf.constant(list(self.vocabulary or ()))
            ids = tf.range(len(self.vocabulary or ()), dtype=tf.int64)
            initializer = tf.lookup.KeyValueTensorInitializer(ids, vocabulary)
            self._cached_class_string_table = tf.lookup.StaticHashTable(
                initializer, "UNK", name="class_string_lookup"
            )
        return self._cached_class_string_table
