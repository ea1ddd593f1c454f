"""Prediction: yields the model_fn's predictions from a checkpoint, example by example."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Hook, InputFn
from tfport.estimator._engine.api.spec import check_hooks
from tfport.estimator._engine.building import builder, graphs
from tfport.estimator._engine.building.context import ModeContext
from tfport.estimator._engine.running import sessions
from tfport.estimator._engine.running.evaluation import resolve_checkpoint


def predict(
    ctx: ModeContext,
    input_fn: InputFn,
    predict_keys: str | Sequence[str] | None,
    hooks: Iterable[Hook] | None,
    checkpoint_path: str | None,
    yield_single_examples: bool,
) -> Iterator[Any]:
    """Yields predictions as the legacy `Estimator.predict` did.

    Example:
        >>> next(predict(ctx, input_fn, None, None, None, True))  # doctest: +SKIP
    """
    tf = import_tf()
    hooks = list(check_hooks(tf, hooks, "predict(hooks)"))
    checkpoint_path = resolve_checkpoint(ctx.model_dir, checkpoint_path, "predict")
    built = builder.build(ctx, input_fn)
    with built.graph.as_default():
        predictions = _extract_keys(built.spec.predictions, predict_keys)
        if checkpoint_path and not built.spec.scaffold.saver:
            graphs.check_checkpoint_covers_graph(checkpoint_path)
        all_hooks = list(built.input_hooks) + hooks + list(built.spec.prediction_hooks)
        creator = tf.compat.v1.train.ChiefSessionCreator(
            checkpoint_filename_with_path=checkpoint_path,
            scaffold=built.spec.scaffold,
            config=ctx.config.session_config,
        )
        with tf.compat.v1.train.MonitoredSession(
            session_creator=creator, hooks=all_hooks
        ) as session:
            sessions.cache_runs(session)
            while not session.should_stop():
                values = session.run(predictions)
                if not yield_single_examples:
                    yield values
                elif not isinstance(predictions, dict):
                    yield from values
                else:
                    for i in range(_batch_length(values)):
                        yield {key: value[i] for key, value in values.items()}


def _extract_keys(predictions: object, predict_keys: str | Sequence[str] | None) -> Any:
    if not predict_keys:
        return predictions
    if isinstance(predict_keys, str):
        predict_keys = [predict_keys]
    if not isinstance(predictions, dict):
        raise TfportInputError(
            message(
                "predict_keys given but model_fn's predictions are not a dict",
                "Drop predict_keys or return a dict of predictions",
                predict_keys=predict_keys,
            )
        )
    missing = [k for k in predict_keys if k not in predictions]
    if missing:
        raise TfportInputError(
            message(
                f"predict_keys {missing} are not in the model_fn's predictions",
                f"Use some of {sorted(predictions)}",
                predict_keys=list(predict_keys),
            )
        )
    return {k: predictions[k] for k in predict_keys}


def _batch_length(values: dict) -> int:
    lengths = {key: len(value) for key, value in values.items() if hasattr(value, "__len__")}
    if len(set(lengths.values())) > 1:
        raise TfportInputError(
            message(
                "Prediction tensors have different batch sizes, so single examples cannot be "
                "yielded",
                "Pass yield_single_examples=False",
                batch_sizes=lengths,
            )
        )
    return next(iter(lengths.values()), 0)
