"""`Estimator`: the drop-in for `tf.estimator.Estimator` on TensorFlow 2.21."""

from __future__ import annotations

import copy
import logging
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Hook, InputFn
from tfport.distribute import num_replicas
from tfport.estimator._engine import internals
from tfport.estimator._engine.api.run_config import RunConfig
from tfport.estimator._engine.api.spec import ModeKeys
from tfport.estimator._engine.api.warm_start import to_settings
from tfport.estimator._engine.building import calls, graphs
from tfport.estimator._engine.building.context import ModeContext, strategy_for
from tfport.estimator._engine.running import console, evaluation, exporting, prediction, training

if TYPE_CHECKING:
    from tfport.estimator._engine.api.warm_start import WarmStartSettings

log = logging.getLogger("tfport")


class Estimator:
    """Trains, evaluates, predicts with and exports a `model_fn`, like `tf.estimator.Estimator`.

    Args:
        model_fn: `model_fn(features, labels, mode, params, config)` (any subset) returning
            an `EstimatorSpec`.
        model_dir: where checkpoints and summaries go (default: `config.model_dir` or a
            temporary folder).
        config: a `RunConfig`.
        params: dict passed to model_fn and input_fn.
        warm_start_from: a checkpoint path or `WarmStartSettings`.

    Example:
        >>> est = Estimator(model_fn, model_dir="/tmp/m")  # doctest: +SKIP
        >>> est.train(input_fn, max_steps=100).evaluate(eval_input_fn)  # doctest: +SKIP
    """

    def __init__(
        self,
        model_fn: Any,
        model_dir: str | None = None,
        config: RunConfig | None = None,
        params: dict | None = None,
        warm_start_from: str | os.PathLike[str] | WarmStartSettings | None = None,
    ) -> None:
        calls.check_model_fn(model_fn)
        if config is None:
            config = RunConfig()
        elif not isinstance(config, RunConfig):
            raise TfportInputError(
                message(
                    "config must be a tfport.estimator.RunConfig",
                    "Pass RunConfig(...) (tf.estimator.RunConfig after tfport.install())",
                    config=config,
                )
            )
        model_dir = os.fspath(model_dir) if model_dir is not None else None
        if model_dir and config.model_dir and model_dir != config.model_dir:
            raise TfportInputError(
                message(
                    "model_dir differs from config.model_dir",
                    "Pass only one of them",
                    model_dir=model_dir,
                    config_model_dir=config.model_dir,
                )
            )
        model_dir = model_dir or config.model_dir
        if model_dir is None:
            model_dir = tempfile.mkdtemp()
            log.warning("Using temporary folder as model directory: %s", model_dir)
        self._config = config.replace(model_dir=model_dir)
        self._model_dir = model_dir
        self._model_fn = model_fn
        self._params = copy.deepcopy(params or {})
        self._warm_start_settings = to_settings(warm_start_from)
        internals.set_legacy_attributes(self)
        # legacy's class-level call: a library's `staticmethod(lambda _: None)` gets self
        type(self)._assert_members_are_not_overridden(self)
        console.using_config(self._config)

    model_dir = property(lambda self: self._model_dir)
    config = property(lambda self: copy.deepcopy(self._config))
    params = property(lambda self: copy.deepcopy(self._params))

    @property
    def model_fn(self) -> Any:
        """Legacy's wrapper `model_fn(features, labels, mode, config)` (calls `_call_model_fn`)."""
        return internals.public_model_fn(self)

    warm_start_settings = property(lambda self: self._warm_start_settings)

    # -- legacy internals that subclasses and libraries call (see internals.py) ----------
    _assert_members_are_not_overridden = internals.assert_members_are_not_overridden
    _call_model_fn = internals.call_model_fn
    _call_input_fn = internals.call_input_fn
    _create_global_step = internals.create_global_step
    _create_and_assert_global_step = internals.create_and_assert_global_step
    _get_features_and_labels_from_input_fn = internals.get_features_and_labels_from_input_fn
    _get_features_from_input_fn = internals.get_features_from_input_fn
    _validate_features_in_predict_input = internals.validate_features_in_predict_input
    _extract_keys = internals.extract_keys
    _extract_batch_length = internals.extract_batch_length
    _estimator_api_names = ("estimator.Estimator",)
    _estimator_api_names_v1 = ("estimator.Estimator",)

    # legacy's training and evaluation steps, each called through `self` as legacy did
    # (training.py, evaluation.py): subclasses and libraries override or patch them
    _convert_train_steps_to_hooks = training.convert_train_steps_to_hooks
    _train_model = training.train_model
    _train_model_default = training.train_model_default
    _train_model_distributed = training.train_model_distributed
    _actual_train_model_distributed = training.actual_train_model_distributed
    _train_with_estimator_spec = training.train_with_estimator_spec
    _train_with_estimator_spec_distributed = training.train_with_estimator_spec_distributed
    _actual_eval = evaluation.actual_eval
    _convert_eval_steps_to_hooks = evaluation.convert_eval_steps_to_hooks
    _evaluate_build_graph = evaluation.evaluate_build_graph
    _call_model_fn_eval = evaluation.call_model_fn_eval
    _call_model_fn_eval_distributed = evaluation.call_model_fn_eval
    _evaluate_run = evaluation.evaluate_run
    _get_iterator_from_input_fn = internals.get_iterator_from_input_fn
    _add_meta_graph_for_mode = exporting.add_meta_graph_for_mode
    _tf_docs_inheritable_header = internals.DOCS_HEADER

    def _maybe_warm_start(self, checkpoint_path: str | None) -> None:
        """Warm-starts the current graph from `warm_start_from` unless resuming a checkpoint."""
        if not checkpoint_path and self._warm_start_settings:
            console.warm_starting(self._warm_start_settings)
            graphs.maybe_warm_start(self._warm_start_settings)

    def _export_all_saved_models(
        self,
        export_dir_base: str,
        input_receiver_fn_map: dict,
        assets_extra: dict | None = None,
        as_text: bool = False,
        checkpoint_path: str | None = None,
        strip_default_attrs: bool = True,
    ) -> bytes:
        """Legacy's export of one SavedModel per receiver map (subclasses may override it)."""
        return exporting.export_all(
            self,
            export_dir_base,
            input_receiver_fn_map,
            assets_extra,
            as_text,
            checkpoint_path,
            strip_default_attrs,
        )

    def _params_for_input(self, mode: str) -> dict:
        """The params an input_fn of `mode` receives (TPUEstimator adds `batch_size`)."""
        del mode
        return self._params

    def _params_for_model_fn(self, mode: str, replicas: int) -> dict:
        """The params the model_fn of `mode` receives on each of `replicas` replicas."""
        del mode, replicas
        return self._params

    def _context(self, mode: str) -> ModeContext:
        """The engine's context for one call in `mode` (params copied, strategy resolved)."""
        replicas = num_replicas(strategy_for(self._config, mode))
        return ModeContext.create(
            mode,
            self._config,
            self._model_fn,
            self._params_for_input(mode),
            model_fn_params=self._params_for_model_fn(mode, replicas),
            warm_start=self._warm_start_settings,
        )

    def train(
        self,
        input_fn: InputFn,
        hooks: Iterable[Hook] | None = None,
        steps: int | None = None,
        max_steps: int | None = None,
        saving_listeners: Iterable[object] | None = None,
    ) -> Estimator:
        """Trains for `steps` more steps or up to global step `max_steps`; returns self."""
        training.train(self, input_fn, hooks, steps, max_steps, saving_listeners)
        return self

    def evaluate(
        self,
        input_fn: InputFn,
        steps: int | None = None,
        hooks: Iterable[Hook] | None = None,
        checkpoint_path: str | None = None,
        name: str | None = None,
    ) -> dict:
        """Evaluates on `input_fn` (until it ends, or `steps` batches); returns the metrics."""
        return evaluation.evaluate(self, input_fn, steps, hooks, checkpoint_path, name)

    def _evaluate_in_memory(
        self,
        input_fn: InputFn,
        steps: int | None,
        hooks: Iterable[Hook] | None,
        checkpoint_path: str,
        name: str | None,
    ) -> dict:
        """`InMemoryEvaluatorHook`'s evaluation of the training session's variables.

        They come through a temporary checkpoint that the eval summaries do not name
        (legacy evaluated the live variables and wrote no `checkpoint_path`).
        """
        return evaluation.evaluate(
            self, input_fn, steps, hooks, checkpoint_path, name, record_path=False
        )

    def predict(
        self,
        input_fn: InputFn,
        predict_keys: str | Sequence[str] | None = None,
        hooks: Iterable[Hook] | None = None,
        checkpoint_path: str | None = None,
        yield_single_examples: bool = True,
    ) -> Iterator[Any]:
        """Yields predictions for `input_fn`'s features."""
        ctx = self._context(ModeKeys.PREDICT)
        return prediction.predict(
            ctx, input_fn, predict_keys, hooks, checkpoint_path, yield_single_examples
        )

    def export_saved_model(
        self,
        export_dir_base: str,
        serving_input_receiver_fn: Callable[[], object],
        assets_extra: dict | None = None,
        as_text: bool = False,
        checkpoint_path: str | None = None,
        experimental_mode: str = ModeKeys.PREDICT,
    ) -> bytes:
        """Exports a SavedModel under `export_dir_base/<timestamp>`; returns that path."""
        return self._export_all_saved_models(
            export_dir_base,
            {experimental_mode: serving_input_receiver_fn},
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
            strip_default_attrs=True,
        )

    def export_savedmodel(
        self,
        export_dir_base: str,
        serving_input_receiver_fn: Callable[[], object],
        assets_extra: dict | None = None,
        as_text: bool = False,
        checkpoint_path: str | None = None,
        strip_default_attrs: bool = False,
    ) -> bytes:
        """The TF 1.x name of `export_saved_model` (PREDICT mode)."""
        return self._export_all_saved_models(
            export_dir_base,
            {ModeKeys.PREDICT: serving_input_receiver_fn},
            assets_extra,
            as_text,
            checkpoint_path,
            strip_default_attrs,
        )

    def eval_dir(self, name: str | None = None) -> str:
        """The folder `evaluate(name=name)` writes its summaries to.

        Example:
            >>> Estimator(model_fn, model_dir="/m").eval_dir("test")  # doctest: +SKIP
            '/m/eval_test'
        """
        return evaluation.eval_dir(self._model_dir, name)

    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint prefix in model_dir, or None."""
        return import_tf().train.latest_checkpoint(self._model_dir)

    def get_variable_names(self) -> list[str]:
        """Names of the variables in the latest checkpoint."""
        return [name for name, _ in import_tf().train.list_variables(self._need_checkpoint())]

    def get_variable_value(self, name: str) -> Any:
        """Value of variable `name` in the latest checkpoint."""
        return import_tf().train.load_variable(self._need_checkpoint(), name)

    def _need_checkpoint(self) -> str:
        latest = self.latest_checkpoint()
        if not latest:
            raise TfportInputError(
                message(
                    f"Estimator's model_dir ({self._model_dir}) holds no checkpoint",
                    "Train the model first",
                    model_dir=self._model_dir,
                )
            )
        return latest

    def experimental_export_all_saved_models(
        self,
        export_dir_base: str,
        input_receiver_fn_map: dict,
        assets_extra: dict | None = None,
        as_text: bool = False,
        checkpoint_path: str | None = None,
    ) -> bytes:
        """Exports one SavedModel with a meta graph per mode of `input_receiver_fn_map`.

        TRAIN (tag `train`), EVAL (`eval`) and PREDICT (`serve`) receivers; TRAIN/EVAL
        receivers are `SupervisedInputReceiver`s (e.g. from
        `tf.estimator.experimental.build_raw_supervised_input_receiver_fn`).

        Example:
            >>> est.experimental_export_all_saved_models(
            ...     "export", {ModeKeys.PREDICT: serving_fn})  # doctest: +SKIP
        """
        return self._export_all_saved_models(
            export_dir_base, input_receiver_fn_map, assets_extra, as_text, checkpoint_path
        )
