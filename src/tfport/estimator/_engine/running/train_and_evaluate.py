"""`train_and_evaluate` with `TrainSpec`/`EvalSpec` and the exporters (local mode)."""

from __future__ import annotations

import collections
import glob
import os
import shutil
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Hook, InputFn

if TYPE_CHECKING:
    from tfport.estimator._engine.estimator import Estimator

tf = import_tf()
_CheckpointSaverListener: Any = tf.compat.v1.train.CheckpointSaverListener


class TrainSpec(
    collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks", "saving_listeners"])
):
    """What `train_and_evaluate` trains on and for how long.

    Example:
        >>> TrainSpec(input_fn=lambda: None, max_steps=100).max_steps
        100
    """

    _estimator_api_names = ("estimator.TrainSpec",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.TrainSpec",)

    def __new__(
        cls,
        input_fn: InputFn,
        max_steps: int | None = None,
        hooks: Iterable[Hook] | None = None,
        saving_listeners: Iterable[object] | None = None,
    ) -> TrainSpec:
        if not callable(input_fn):
            raise TfportInputError(
                message(
                    "TrainSpec.input_fn must be callable",
                    "Pass the input function",
                    input_fn=input_fn,
                )
            )
        if max_steps is not None and max_steps <= 0:
            raise TfportInputError(
                message("TrainSpec.max_steps must be positive", "Fix it", max_steps=max_steps)
            )
        return super().__new__(
            cls, input_fn, max_steps, tuple(hooks or ()), tuple(saving_listeners or ())
        )


class EvalSpec(
    collections.namedtuple(
        "EvalSpec",
        ["input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs", "throttle_secs"],
    )
):
    """What `train_and_evaluate` evaluates on, how often, and what it exports.

    Example:
        >>> EvalSpec(input_fn=lambda: None, throttle_secs=0).throttle_secs
        0
    """

    _estimator_api_names = ("estimator.EvalSpec",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.EvalSpec",)

    def __new__(
        cls,
        input_fn: InputFn,
        steps: int | None = 100,
        name: str | None = None,
        hooks: Iterable[Hook] | None = None,
        exporters: Exporter | Iterable[Exporter] | None = None,
        start_delay_secs: int = 120,
        throttle_secs: int = 600,
    ) -> EvalSpec:
        if not callable(input_fn):
            raise TfportInputError(
                message(
                    "EvalSpec.input_fn must be callable",
                    "Pass the input function",
                    input_fn=input_fn,
                )
            )
        if exporters is None:
            exporters = ()
        elif isinstance(exporters, Exporter):
            exporters = (exporters,)
        exporters = tuple(exporters)
        names = [e.name for e in exporters]
        if len(set(names)) != len(names):
            raise TfportInputError(
                message("EvalSpec.exporters must have unique names", "Rename them", names=names)
            )
        return super().__new__(
            cls,
            input_fn,
            steps,
            name,
            tuple(hooks or ()),
            exporters,
            start_delay_secs,
            throttle_secs,
        )


class Exporter:
    """Base class of exporters run after evaluations."""

    _estimator_api_names = ("estimator.Exporter",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.Exporter",)

    name: str = "exporter"

    def export(
        self,
        estimator: Estimator,
        export_path: str,
        checkpoint_path: str,
        eval_result: dict,
        is_the_final_export: bool,
    ) -> Any:
        raise NotImplementedError


class _SavedModelExporter(Exporter):
    """Exports the serving graph and checkpoint on every `export` (legacy's base exporter).

    Example:
        >>> _SavedModelExporter("sm", serving_fn).export(
        ...     est, "/m/export/sm", ckpt, metrics, False)  # doctest: +SKIP
    """

    def __init__(
        self,
        name: str,
        serving_input_receiver_fn: Callable[[], object] | None,
        assets_extra: dict | None = None,
        as_text: bool = False,
    ) -> None:
        if not callable(serving_input_receiver_fn):
            raise TfportInputError(
                message(
                    f"{type(self).__name__} needs a callable serving_input_receiver_fn",
                    "Pass one",
                    serving_input_receiver_fn=serving_input_receiver_fn,
                )
            )
        self.name = name
        self._receiver_fn = serving_input_receiver_fn
        self._assets_extra = assets_extra
        self._as_text = as_text
        self._keep: int | None = None

    def export(
        self,
        estimator: Estimator,
        export_path: str,
        checkpoint_path: str,
        eval_result: dict,
        is_the_final_export: bool,
    ) -> Any:
        """Exports a SavedModel under `export_path/<timestamp>`; returns its path."""
        del eval_result, is_the_final_export
        return self._do_export(estimator, export_path, checkpoint_path)

    def _do_export(self, estimator: Estimator, export_path: str, checkpoint_path: str) -> bytes:
        path = estimator.export_saved_model(
            export_path,
            self._receiver_fn,
            assets_extra=self._assets_extra,
            as_text=self._as_text,
            checkpoint_path=checkpoint_path,
        )
        self._garbage_collect_exports(export_path)
        return path

    def _garbage_collect_exports(self, export_dir_base: str) -> None:
        """Deletes all but the `exports_to_keep` newest timestamped exports (legacy's name)."""
        if not self._keep:
            return
        # legacy kept only 10-digit timestamp folders in mind (`export_version_parser`)
        stamps = sorted(d for d in os.listdir(export_dir_base) if d.isdigit() and len(d) == 10)
        for old in stamps[: -self._keep]:
            shutil.rmtree(os.path.join(export_dir_base, old), ignore_errors=True)


class LatestExporter(_SavedModelExporter):
    """Exports after every evaluation, keeping the `exports_to_keep` newest."""

    _estimator_api_names = ("estimator.LatestExporter",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.LatestExporter",)

    def __init__(
        self,
        name: str,
        serving_input_receiver_fn: Callable[[], object],
        assets_extra: dict | None = None,
        as_text: bool = False,
        exports_to_keep: int | None = 5,
    ) -> None:
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        self._keep = exports_to_keep

    def export(
        self,
        estimator: Estimator,
        export_path: str,
        checkpoint_path: str,
        eval_result: dict,
        is_the_final_export: bool,
    ) -> Any:
        return self._do_export(estimator, export_path, checkpoint_path)


class FinalExporter(_SavedModelExporter):
    """Exports only after the final evaluation."""

    _estimator_api_names = ("estimator.FinalExporter",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.FinalExporter",)

    def __init__(
        self,
        name: str,
        serving_input_receiver_fn: Callable[[], object],
        assets_extra: dict | None = None,
        as_text: bool = False,
    ) -> None:
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)

    def export(
        self,
        estimator: Estimator,
        export_path: str,
        checkpoint_path: str,
        eval_result: dict,
        is_the_final_export: bool,
    ) -> Any:
        if not is_the_final_export:
            return None
        return self._do_export(estimator, export_path, checkpoint_path)


def _loss_smaller(best_eval_result: dict, current_eval_result: dict) -> bool:
    return current_eval_result["loss"] < best_eval_result["loss"]


class BestExporter(_SavedModelExporter):
    """Exports when the evaluation is the best so far by `compare_fn` (default: lower loss)."""

    _estimator_api_names = ("estimator.BestExporter",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.BestExporter",)

    def __init__(
        self,
        name: str = "best_exporter",
        serving_input_receiver_fn: Callable[[], object] | None = None,
        event_file_pattern: str = "eval/*.tfevents.*",
        compare_fn: Callable[[dict, dict], object] = _loss_smaller,
        assets_extra: dict | None = None,
        as_text: bool = False,
        exports_to_keep: int | None = 5,
    ) -> None:
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        self._keep = exports_to_keep
        self._compare = compare_fn
        self._pattern = event_file_pattern
        self._best: dict | None = None

    def export(
        self,
        estimator: Estimator,
        export_path: str,
        checkpoint_path: str,
        eval_result: dict,
        is_the_final_export: bool,
    ) -> Any:
        if self._best is None:
            pattern = os.path.join(estimator.model_dir, self._pattern)
            self._best = self._get_best_eval_result(pattern)
        if self._best is None or self._compare(self._best, eval_result):
            self._best = dict(eval_result)
            return self._do_export(estimator, export_path, checkpoint_path)
        return None

    def _get_best_eval_result(self, event_files: str) -> dict | None:
        """The best eval result (by `compare_fn`) among the event files matching the glob
        `event_files`, or None (legacy's name)."""
        from tfport.estimator._engine.api.hooks import read_eval_metrics

        best = None
        folders = {os.path.dirname(p) for p in glob.glob(event_files)}
        for folder in folders:
            for metrics in read_eval_metrics(folder).values():
                if "loss" in metrics and (best is None or self._compare(best, metrics)):
                    best = metrics
        return best


def _run_exporters(
    estimator: Estimator, eval_spec: EvalSpec, checkpoint_path: str, result: dict, final: bool
) -> list:
    results = []
    for exporter in eval_spec.exporters:
        path = os.path.join(estimator.model_dir, "export", exporter.name)
        os.makedirs(path, exist_ok=True)
        out = exporter.export(estimator, path, checkpoint_path, result, final)
        if out is not None:
            results.append(out)
    return results


def check_specs(train_spec: object, eval_spec: object) -> None:
    """Refuses anything but a `TrainSpec` and an `EvalSpec`, in one line.

    Example:
        >>> check_specs(TrainSpec(lambda: None), EvalSpec(lambda: None))
    """
    if not isinstance(train_spec, TrainSpec) or not isinstance(eval_spec, EvalSpec):
        raise TfportInputError(
            message(
                "train_and_evaluate needs a TrainSpec and an EvalSpec",
                "Pass tfport.estimator.TrainSpec / EvalSpec",
                train_spec=type(train_spec).__name__,
                eval_spec=type(eval_spec).__name__,
            )
        )


def train_and_evaluate_tasks(
    estimator: Estimator, train_spec: TrainSpec, eval_spec: EvalSpec
) -> tuple:
    """`train_and_evaluate` on a cluster (TF_CONFIG): every training task trains with
    tfport's strategy, the chief evaluating after new checkpoints (at most every
    `throttle_secs`) and at the end; an `evaluator` task evaluates each new checkpoint.

    Returns:
        `(metrics, export_results)` of the task's last evaluation (None, [] without one).

    Example:
        >>> train_and_evaluate_tasks(est, TrainSpec(fn, max_steps=100), EvalSpec(fn))
        ... # doctest: +SKIP
    """
    config = estimator.config
    if config.task_type == "evaluator" and config.cluster_spec:
        return _evaluator_loop(estimator, train_spec, eval_spec)
    state: dict[str, Any] = {"last_time": 0.0, "last_step": -1, "result": None, "exports": []}

    def evaluate(step: int) -> None:
        checkpoint = import_tf().train.latest_checkpoint(estimator.model_dir)
        result, exports, _ = _evaluate_and_export(estimator, train_spec, eval_spec, checkpoint)
        state.update(last_time=time.time(), last_step=step, result=result, exports=exports)

    listener = _EvalListener(config.is_chief, state, eval_spec.throttle_secs, evaluate)
    estimator.train(
        train_spec.input_fn,
        hooks=list(train_spec.hooks),
        max_steps=train_spec.max_steps,
        saving_listeners=list(train_spec.saving_listeners) + [listener],
    )

    from tfport.estimator._engine.building.graphs import global_step_in_dir

    step = global_step_in_dir(estimator.model_dir)
    if config.is_chief and state["last_step"] != step:
        evaluate(step)
    return state["result"], state["exports"]


class _EvalListener(_CheckpointSaverListener):
    """Evaluates after a checkpoint save once `throttle_secs` passed (on the chief)."""

    def __init__(
        self, is_chief: bool, state: dict, throttle_secs: float, evaluate: Callable[[int], None]
    ) -> None:
        self._is_chief, self._state = is_chief, state
        self._throttle_secs, self._evaluate = throttle_secs, evaluate

    def after_save(self, session: object, global_step_value: int) -> None:
        if not self._is_chief:
            return
        if time.time() - self._state["last_time"] >= self._throttle_secs and global_step_value > 0:
            self._evaluate(global_step_value)


def _evaluate_and_export(
    estimator: Estimator, train_spec: TrainSpec, eval_spec: EvalSpec, checkpoint: str
) -> tuple[dict, list, bool]:
    """Evaluates `checkpoint`, runs the exporters; returns (metrics, exports, is_final)."""
    result = estimator.evaluate(
        eval_spec.input_fn,
        steps=eval_spec.steps,
        hooks=eval_spec.hooks,
        checkpoint_path=checkpoint,
        name=eval_spec.name,
    )
    final = train_spec.max_steps is not None and result["global_step"] >= train_spec.max_steps
    return result, _run_exporters(estimator, eval_spec, checkpoint, result, final), final


def _evaluator_loop(estimator: Estimator, train_spec: TrainSpec, eval_spec: EvalSpec) -> tuple:
    tf = import_tf()
    time.sleep(eval_spec.start_delay_secs)
    last, result = None, None
    exports: list = []
    while True:
        checkpoint = tf.train.latest_checkpoint(estimator.model_dir)
        if checkpoint and checkpoint != last:
            last = checkpoint
            result, exports, final = _evaluate_and_export(
                estimator, train_spec, eval_spec, checkpoint
            )
            if final:
                return result, exports
        time.sleep(max(eval_spec.throttle_secs, 1))
