"""Legacy `canned.dnn`'s Keras DNN models (`_DNNModel`, `_DNNModelV2`) over tfport's DNN graph.

Each is a Keras model whose `call(features, mode)` builds the canned DNN's logits with
`dnn.dnn_logits` and legacy's variable names:

- `_DNNModel` (v1): the layers take the variable scope the model was constructed in
  (`<scope>/hiddenlayer_N/kernel`, `<scope>/logits/kernel`; the input layer under
  `<scope>/input_from_feature_columns` with `input_layer_partitioner`);
- `_DNNModelV2`: the layers are named after the name scopes open at construction, inside
  the model's own scope at its first call (`dnn/hiddenlayer_N/kernel` for `name='dnn'`).

Calling a model again reuses its variables. `weights` (`variables`), `trainable_weights`
and `non_trainable_weights` are the variables its first call created.

Example:
    >>> model = _DNNModelV2(3, [8], cols, tf.nn.relu, None, False, name="dnn")
    ... # doctest: +SKIP
    >>> logits = model(features, "train")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport.estimator._canned import dnn, legacy_helpers, v2_entry

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, Mode

tf = import_tf()
_Model: Any = tf.keras.Model

__all__ = ["_DNNModel", "_DNNModelV2"]


class _Settings(dnn.DNNSettings, total=False):
    """`dnn_logits`'s settings of a `_DNNModel`: also its input layer's partitioner."""

    input_layer_partitioner: Callable[..., object] | None


class _Built:
    """The variables a model's first call created (Keras does not track v1 layers' ones)."""

    def __init__(self) -> None:
        self.variables: list = []
        self.called = False

    def track(self, build: Callable[[], object]) -> object:

        v1 = tf.compat.v1
        before = set(v1.global_variables())
        out = build()
        if not self.called:
            self.variables = [v for v in v1.global_variables() if v not in before]
            self.called = True
        return out


class _FirstCallWeights(_Model):
    """A Keras model whose weights are the variables its first call created (`_built_vars`).

    Subclasses set `self._built_vars = _Built()` and build their call through its `track`.
    """

    _built_vars: _Built

    @property
    def trainable_weights(self) -> list:
        return [v for v in self._built_vars.variables if v.trainable]

    @property
    def non_trainable_weights(self) -> list:
        return [v for v in self._built_vars.variables if not v.trainable]

    @property
    def weights(self) -> list:
        return list(self._built_vars.variables)


class _DNNModel(_FirstCallWeights):
    """The v1 canned DNN as a Keras model: `model(features, mode)` gives the logits.

    Args:
        units: width of the logits.
        hidden_units: widths of the hidden layers.
        feature_columns: the input's feature columns (v1 or v2).
        activation_fn: activation of the hidden layers.
        dropout: drop probability in training, or None.
        input_layer_partitioner: partitioner of the input layer's variables, or None.
        batch_norm: batch normalization after each hidden layer.
        name: the Keras model's name.
        **kwargs: other Keras model arguments.

    Example:
        >>> with tf.compat.v1.variable_scope("dnn"):  # doctest: +SKIP
        ...     logits = _DNNModel(2, [4], cols, tf.nn.relu, None, None, False)(x, "train")
    """

    def __init__(
        self,
        units: int,
        hidden_units: Sequence[int],
        feature_columns: FeatureColumns,
        activation_fn: Callable[..., object] | str,
        dropout: float | None,
        input_layer_partitioner: Callable[..., object] | None,
        batch_norm: bool,
        name: str | None = None,
        **kwargs: object,
    ) -> None:
        super().__init__(name=name, **kwargs)
        # legacy's v1 layers were made (and took their variable scope) here
        self._scope = tf.compat.v1.get_variable_scope()
        self._settings: _Settings = dict(
            units=units,
            hidden_units=tuple(hidden_units),
            feature_columns=list(feature_columns),
            activation_fn=activation_fn,
            dropout=dropout,
            batch_norm=batch_norm,
            input_layer_partitioner=input_layer_partitioner,
        )
        self._built_vars = _Built()

    def call(self, features: dict[str, object], mode: Mode) -> Any:
        """The logits of `features` (dropout and batch statistics when `mode` is TRAIN)."""
        v1 = tf.compat.v1
        reuse = True if self._built_vars.called else None

        def build() -> Any:
            # legacy built its ops in the scope around the model's own name scope
            with v1.name_scope(legacy_helpers._get_previous_name_scope()):
                with v1.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False):
                    return dnn.dnn_logits(features, mode, **self._settings)

        return self._built_vars.track(build)

    def _add_layer(self, layer: object, layer_name: str) -> None:
        """Keeps `layer` as the attribute `layer_name` (Keras tracks it)."""
        setattr(self, layer_name, layer)


class _DNNModelV2(_FirstCallWeights):
    """The v2 canned DNN as a Keras model: `model(features, mode)` gives the logits.

    Args:
        units: width of the logits.
        hidden_units: widths of the hidden layers.
        feature_columns: v2 feature columns (v1 ones: ValueError).
        activation_fn: activation of the hidden layers.
        dropout: drop probability in training, or None.
        batch_norm: batch normalization after each hidden layer.
        name: the Keras model's name (the variables' scope).
        **kwargs: other Keras model arguments.

    Example:
        >>> model = _DNNModelV2(2, [4], cols, tf.nn.relu, None, False, name="dnn")
        ... # doctest: +SKIP
        >>> logits = model(features, tf.estimator.ModeKeys.PREDICT)  # doctest: +SKIP
    """

    def __init__(
        self,
        units: int,
        hidden_units: Sequence[int],
        feature_columns: FeatureColumns,
        activation_fn: Callable[..., object] | str,
        dropout: float | None,
        batch_norm: bool,
        name: str | None = None,
        **kwargs: object,
    ) -> None:
        super().__init__(name=name, **kwargs)
        v2_entry._check_v2_columns(feature_columns)
        hidden = tuple(hidden_units)
        self._names = v2_entry._layer_names(hidden)  # legacy named its layers here
        self._settings = (units, hidden, list(feature_columns), activation_fn, dropout, batch_norm)
        self._scope: Any = None
        self._built_vars = _Built()

    def call(self, features: dict[str, object], mode: Mode) -> Any:
        """The logits of `features` (dropout and batch statistics when `mode` is TRAIN)."""
        v1 = tf.compat.v1
        if self._scope is None:
            here = v1.get_default_graph().get_name_scope()  # the model's own name scope
            self._scope = v1.VariableScope(reuse=None, name=tf_internals.unreplicated_name(here))
        else:
            self._scope = v1.VariableScope(reuse=True, name=self._scope.name)
        scope = self._scope

        def build() -> Any:
            return v2_entry.dnn_in_scope(scope, self._names, features, mode, *self._settings)[0]

        return self._built_vars.track(build)
