"""Small names of the legacy private modules (`model_fn`, `run_config`, `export.export`,
`estimator`, `keras_lib`, ...) and `estimator_export`, the API-export decorator.

Example:
    >>> LOSS_METRIC_KEY
    'loss'
"""

from __future__ import annotations

import collections
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from tfport._common.tfenv import import_tf
from tfport._common.types import Features, InputFn, Params, Tensor

if TYPE_CHECKING:
    from tfport.estimator._engine.estimator import Estimator
    from tfport.estimator._engine.run_config import RunConfig

LOSS_METRIC_KEY = "loss"
AVERAGE_LOSS_METRIC_KEY = "average_loss"
SINGLE_FEATURE_DEFAULT_NAME = "feature"
SINGLE_RECEIVER_DEFAULT_NAME = "input"
SINGLE_LABEL_DEFAULT_NAME = "label"
EXPORT_TAG_MAP = {"infer": ["serve"], "train": ["train"], "eval": ["eval"]}
SIGNATURE_KEY_MAP = {"infer": "serving_default", "train": "train", "eval": "eval"}
string_types = (str,)
USE_DEFAULT = "use_default"
T = TypeVar("T")


class estimator_export:  # noqa: N801 - the legacy name
    """The decorator that gave estimator symbols their `tf.estimator` names.

    Records the names on the decorated object (`_estimator_api_names`,
    `_estimator_api_names_v1`) and returns it unchanged; tfport's public modules do not
    read them.

    Example:
        >>> @estimator_export("estimator.MyThing")
        ... def my_thing(): ...
        >>> my_thing._estimator_api_names
        ('estimator.MyThing',)
    """

    def __init__(self, *args: str, v1: Iterable[str] | None = None) -> None:
        self._names = args
        self._names_v1 = tuple(v1) if v1 is not None else args

    def __call__(self, func: Any) -> Any:
        func._estimator_api_names = self._names
        func._estimator_api_names_v1 = self._names_v1
        return func


class FormattedKeyError(KeyError):
    """A KeyError whose message is printed as given (legacy `keras_lib`)."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __str__(self) -> str:
        return self.message


def standardize_sample_weights(x_weight: object, output_names: list) -> dict:
    """`{output name: weight}` from None, a list (by position) or a dict (legacy `keras_lib`).

    Example:
        >>> standardize_sample_weights([1.0], ["out"])
        {'out': 1.0}
    """
    if x_weight is None or (isinstance(x_weight, (list, tuple)) and not x_weight):
        return {name: None for name in output_names}
    if isinstance(x_weight, dict):
        unknown = set(x_weight) - set(output_names)
        if unknown:
            raise ValueError(f"Unknown entries in sample weights: {sorted(unknown)}")
        return {name: x_weight.get(name) for name in output_names}
    weights = list(x_weight) if isinstance(x_weight, (list, tuple)) else [x_weight]
    if len(weights) != len(output_names):
        raise ValueError(f"Provided {len(weights)} sample weights for {len(output_names)} outputs")
    return dict(zip(output_names, weights))


def path_to_str(path: object) -> Any:
    """`os.fspath(path)` for path-like objects, other values unchanged.

    Example:
        >>> import pathlib
        >>> path_to_str(pathlib.Path("/tmp/m"))
        '/tmp/m'
    """
    return os.fspath(path) if isinstance(path, os.PathLike) else path


def get_default_session_config() -> Any:
    """The session ConfigProto an Estimator uses by default (soft placement, graph options).

    Example:
        >>> get_default_session_config().allow_soft_placement  # doctest: +SKIP
        True
    """
    tf = import_tf()
    rewrite = tf.compat.v1.RewriterConfig(meta_optimizer_iterations=1)
    graph_options = tf.compat.v1.GraphOptions(rewrite_options=rewrite)
    return tf.compat.v1.ConfigProto(allow_soft_placement=True, graph_options=graph_options)


def call_logit_fn(
    logit_fn: Callable[..., object],
    features: Features,
    mode: str,
    params: Params | None,
    config: object,
) -> Any:
    """Calls `logit_fn` with the arguments it takes; checks it returns a Tensor or dict of them.

    Example:
        >>> call_logit_fn(lambda features: features["x"], {"x": x}, "train", None, None)
        ... # doctest: +SKIP
    """
    from tfport.estimator._engine import calls

    args = calls.fn_args(logit_fn)
    given = {"mode": mode, "params": params, "config": config}
    logits = logit_fn(features=features, **{k: v for k, v in given.items() if k in args})
    tf = import_tf()
    values = logits.values() if isinstance(logits, dict) else [logits]
    if not all(isinstance(v, tf.Tensor) for v in values):
        raise ValueError(
            "logit_fn should return a Tensor or a dictionary mapping strings to Tensors. "
            f"logit_fn returned: {logits}"
        )
    return logits


def maybe_overwrite_model_dir_and_session_config(
    config: RunConfig | None, model_dir: str | os.PathLike[str] | None
) -> Any:
    """The RunConfig with `model_dir` set (legacy `estimator.maybe_overwrite_...`).

    Example:
        >>> maybe_overwrite_model_dir_and_session_config(RunConfig(), "/m").model_dir
        ... # doctest: +SKIP
        '/m'
    """
    from tfport.estimator._engine.run_config import RunConfig

    if config is None:
        config = RunConfig()
    if not isinstance(config, RunConfig):
        raise ValueError(f"config must be an instance of `RunConfig`, but provided {config}.")
    model_dir = path_to_str(model_dir)
    if model_dir and config.model_dir and model_dir != config.model_dir:
        raise ValueError(
            f"`model_dir` are set both in constructor and `RunConfig`, but with different "
            f"values. In constructor: '{model_dir}', in `RunConfig`: '{config.model_dir}' "
        )
    if model_dir:
        config = config.replace(model_dir=model_dir)
    elif config.model_dir is None:
        import tempfile

        config = config.replace(model_dir=tempfile.mkdtemp())
    return config


def create_per_replica_ready_for_local_init_op(scaffold: Any) -> Any:
    """The scaffold's `ready_for_local_init_op`, or the default one (uninitialized globals).

    Example:
        >>> create_per_replica_ready_for_local_init_op(scaffold)  # doctest: +SKIP
    """
    tf = import_tf()
    if scaffold.ready_for_local_init_op is not None:
        return scaffold.ready_for_local_init_op
    return tf.compat.v1.report_uninitialized_variables(tf.compat.v1.global_variables())


def wrap_and_check_input_tensors(
    tensors: object, field_name: str, allow_int_keys: bool = False
) -> dict:
    """`{key: tensor}` from a tensor or dict (a single tensor gets the default key).

    Example:
        >>> wrap_and_check_input_tensors(t, "features")  # doctest: +SKIP
    """
    tf = import_tf()
    if not isinstance(tensors, dict):
        default = (
            SINGLE_LABEL_DEFAULT_NAME if field_name == "labels" else SINGLE_FEATURE_DEFAULT_NAME
        )
        tensors = {default: tensors}
    for name, tensor in tensors.items():
        ok_key = isinstance(name, str) or (allow_int_keys and isinstance(name, int))
        if not ok_key:
            raise ValueError(f"{field_name} keys must be strings: {name}.")
        if not isinstance(tensor, (tf.Tensor, tf.SparseTensor)):
            raise ValueError(f"{field_name} must be Tensor or SparseTensor: {tensor}.")
    return tensors


def build_supervised_input_receiver_fn_from_input_fn(
    input_fn: InputFn, **input_fn_args: object
) -> Any:
    """A receiver fn whose placeholders match what `input_fn(**input_fn_args)` returns.

    Example:
        >>> fn = build_supervised_input_receiver_fn_from_input_fn(train_input_fn)
        ... # doctest: +SKIP
    """
    from tfport.estimator._engine import receivers

    tf = import_tf()
    with tf.Graph().as_default():
        result = input_fn(**input_fn_args)
        if isinstance(result, tf.data.Dataset):
            result = tf.compat.v1.data.make_one_shot_iterator(result).get_next()
        features, labels = result if isinstance(result, (list, tuple)) else (result, None)
        specs = tf.nest.map_structure(_spec, (features, labels))
    return receivers.build_raw_supervised_input_receiver_fn(
        tf.nest.map_structure(_placeholder_maker, specs[0]),
        tf.nest.map_structure(_placeholder_maker, specs[1]),
    )


def _spec(t: Tensor) -> Any:
    return (t.dtype, t.shape)


def _placeholder_maker(spec: tuple[object, object]) -> Any:
    return import_tf().compat.v1.placeholder(spec[0], spec[1])


def model_to_estimator(
    keras_model: object = None,
    keras_model_path: str | None = None,
    custom_objects: dict | None = None,
    model_dir: str | None = None,
    config: RunConfig | None = None,
    checkpoint_format: str | None = None,
    use_v2_estimator: bool = False,
    metric_names_map: dict | None = None,
    export_outputs: dict | None = None,
) -> Any:
    """Legacy `keras_lib.model_to_estimator`: an Estimator from a Keras model.

    Example:
        >>> est = model_to_estimator(keras_model=model)  # doctest: +SKIP
    """
    from tfport.keras import model_to_estimator as convert

    return convert(
        keras_model=keras_model,
        keras_model_path=keras_model_path,
        custom_objects=custom_objects,
        model_dir=model_dir,
        config=config,
        checkpoint_format=checkpoint_format or "checkpoint",
        use_v2_estimator=use_v2_estimator,
        metric_names_map=metric_names_map,
        export_outputs=export_outputs,
    )


def binary_or_multi_class_head(
    n_classes: int,
    weight_column: object,
    label_vocabulary: Sequence[str] | None,
    loss_reduction: str,
) -> Any:
    """`BinaryClassHead` for 2 classes, else `MultiClassHead` (legacy `head_utils`).

    Example:
        >>> binary_or_multi_class_head(3, None, None, "sum_over_batch_size")  # doctest: +SKIP
    """
    from tfport.estimator._heads.head_api import BinaryClassHead, MultiClassHead

    if n_classes == 2:
        return BinaryClassHead(
            weight_column=weight_column,
            label_vocabulary=label_vocabulary,
            loss_reduction=loss_reduction,
        )
    return MultiClassHead(
        n_classes,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
    )


def track_usage(tool_id: object, tags: object) -> None:
    """Legacy usage tracking (a no-op in the open-source stack, as here)."""
    del tool_id, tags


def track_numerical_issues(exc_info: object) -> None:
    """Legacy numerical-issue tracking (a no-op in the open-source stack, as here)."""
    del exc_info


def has_pandas() -> bool:
    """Whether pandas is importable (legacy `HAS_PANDAS`)."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def export_estimator_savedmodel(
    estimator: Estimator,
    export_dir_base: str,
    serving_input_receiver_fn: Callable[[], object],
    assets_extra: dict | None = None,
    as_text: bool = False,
    checkpoint_path: str | None = None,
) -> Any:
    """Exports `estimator`'s model for serving (legacy `tpu_estimator.export_...`).

    Example:
        >>> export_estimator_savedmodel(est, "export", serving_fn)  # doctest: +SKIP
    """
    return estimator.export_saved_model(
        export_dir_base,
        serving_input_receiver_fn,
        assets_extra=assets_extra,
        as_text=as_text,
        checkpoint_path=checkpoint_path,
    )


BatchConfig = collections.namedtuple(
    "BatchConfig",
    [
        "num_batch_threads",
        "max_batch_size",
        "batch_timeout_micros",
        "allowed_batch_sizes",
        "max_enqueued_batches",
    ],
    defaults=(100,),
)
