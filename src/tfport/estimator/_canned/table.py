"""The canned estimator classes of both generations, built from one table.

A v1 (`tf.compat.v1.estimator`) and a v2 (`tf.estimator`) canned estimator differ only in data:
the generation of their head (which picks v1 or Keras optimizers in the model_fns), the default
`loss_reduction`, a few arguments (the v1 partitioners) or their order, and the docstring. Each
class is a `CannedEstimator` whose `__init__` has the signature of its TF counterpart.

Example:
    >>> v2 = build(v2=True, loss_reduction="sum_over_batch_size", module=__name__)
    >>> v2["DNNClassifier"](hidden_units=[8], feature_columns=cols)  # doctest: +SKIP
"""

from __future__ import annotations

import inspect
from typing import Any

from tfport.estimator._canned import base, dnn, names
from tfport.estimator._canned.base import CannedEstimator
from tfport.estimator._canned.combined import combined_model_fn
from tfport.estimator._canned.model_fns import baseline_model_fn, dnn_model_fn, linear_model_fn

_WIDE_DEEP = (
    "linear_feature_columns linear_optimizer dnn_feature_columns dnn_optimizer"
    " dnn_hidden_units dnn_activation_fn dnn_dropout"
)
# Per family: model_fn, default optimizer, then the argument order of its Classifier / Regressor
# (LABELS: their label arguments) and of its Estimator (user-given head). `v1:` / `v2:` marks an
# argument only that generation takes at that place.
_FAMILIES = {
    "Baseline": (
        baseline_model_fn,
        "Ftrl",
        "model_dir LABELS optimizer config loss_reduction",
        "head model_dir optimizer config",
    ),
    "DNN": (
        dnn_model_fn,
        "Adagrad",
        "hidden_units feature_columns model_dir LABELS optimizer activation_fn dropout"
        " v1:input_layer_partitioner config warm_start_from loss_reduction batch_norm",
        "head hidden_units feature_columns model_dir optimizer activation_fn dropout"
        " v1:input_layer_partitioner config warm_start_from batch_norm",
    ),
    "DNNLinearCombined": (
        combined_model_fn,
        None,
        f"model_dir {_WIDE_DEEP} LABELS v1:input_layer_partitioner config warm_start_from"
        " loss_reduction batch_norm linear_sparse_combiner",
        f"head model_dir {_WIDE_DEEP} v1:input_layer_partitioner config v2:batch_norm"
        " linear_sparse_combiner warm_start_from v1:batch_norm",
    ),
    "Linear": (
        linear_model_fn,
        "Ftrl",
        "feature_columns model_dir LABELS optimizer config v1:partitioner warm_start_from"
        " loss_reduction sparse_combiner",
        "head feature_columns model_dir optimizer config v1:partitioner sparse_combiner"
        " warm_start_from",
    ),
}
_LABELS = {
    "Classifier": "n_classes weight_column label_vocabulary",
    "Regressor": "label_dimension weight_column",
}
_DEFAULTS = {
    "n_classes": 2,
    "label_dimension": 1,
    "activation_fn": "relu",
    "dnn_activation_fn": "relu",
    "linear_optimizer": "Ftrl",
    "dnn_optimizer": "Adagrad",
    "batch_norm": False,
    "sparse_combiner": "sum",
    "linear_sparse_combiner": "sum",
}
_REQUIRED = {"head", "hidden_units", "feature_columns"}  # every other default is None
_TYPES = {
    "n_classes": "int",
    "label_dimension": "int",
    "batch_norm": "bool",
    "sparse_combiner": "str",
    "linear_sparse_combiner": "str",
}
_HEAD_ARGS = ("n_classes", "label_dimension", "weight_column", "label_vocabulary")
_ESTIMATOR_ARGS = ("model_dir", "config", "warm_start_from", "loss_reduction", *_HEAD_ARGS)

_DOCS = {  # name: (v1 docstring, v2 docstring)
    "BaselineClassifier": (
        "v1 baseline classifier: learns the class prior (Ftrl 0.3).",
        "v2 baseline classifier (Keras Ftrl 0.3).",
    ),
    "BaselineRegressor": (
        "v1 baseline regressor: learns the label mean (Ftrl 0.3).",
        "v2 baseline regressor (Keras Ftrl 0.3).",
    ),
    "BaselineEstimator": (
        "v1 baseline with a user-given (v1) head.",
        "v2 baseline with a user-given head.",
    ),
    "DNNClassifier": (
        "v1 DNN classifier (Adagrad 0.05, SUM loss reduction).",
        "v2 DNN classifier (Keras Adagrad by default, SUM_OVER_BATCH_SIZE).",
    ),
    "DNNRegressor": ("v1 DNN regressor (Adagrad 0.05, SUM loss reduction).", "v2 DNN regressor."),
    "DNNEstimator": (
        "v1 DNN with a user-given (v1) head.",
        "v2 DNN with a user-given head (`MultiClassHead`, ...).",
    ),
    "LinearClassifier": (
        "v1 linear classifier (Ftrl, SUM loss reduction, partitioned variables).",
        "v2 linear classifier (Keras Ftrl).",
    ),
    "LinearRegressor": (
        "v1 linear regressor (Ftrl, SUM loss reduction).",
        "v2 linear regressor (Keras Ftrl).",
    ),
    "LinearEstimator": (
        "v1 linear model with a user-given (v1) head.",
        "v2 linear model with a user-given head.",
    ),
    "DNNLinearCombinedClassifier": (
        "v1 wide & deep classifier (Ftrl for linear, Adagrad for DNN, SUM loss reduction).",
        "v2 wide & deep classifier.",
    ),
    "DNNLinearCombinedRegressor": ("v1 wide & deep regressor.", "v2 wide & deep regressor."),
    "DNNLinearCombinedEstimator": (
        "v1 wide & deep with a user-given (v1) head.",
        "v2 wide & deep with a user-given head.",
    ),
}


def build(v2: bool, loss_reduction: str, module: str) -> dict[str, type]:
    """The canned estimator classes of one generation, by public name, placed in `module`.

    Example:
        >>> build(v2=False, loss_reduction="weighted_sum", module=__name__)["DNNClassifier"]
        ... # doctest: +SKIP
    """
    classes = {}
    for family in names.FAMILIES:
        model_fn, optimizer, labelled, given = _FAMILIES[family]
        defaults = {**_DEFAULTS, "optimizer": optimizer, "loss_reduction": loss_reduction}
        for kind in names.KINDS:
            layout = given if kind == "Estimator" else labelled.replace("LABELS", _LABELS[kind])
            signature = _signature(layout, "v2" if v2 else "v1", defaults)
            doc = _DOCS[family + kind][int(v2)]
            classes[family + kind] = _canned_class(
                family + kind, doc, signature, model_fn, v2, module
            )
    return classes


def _signature(layout: str, generation: str, defaults: dict) -> inspect.Signature:
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for word in layout.split():
        only, _, name = word.rpartition(":")
        if only in ("", generation):
            default = inspect.Parameter.empty if name in _REQUIRED else defaults.get(name)
            params.append(
                inspect.Parameter(
                    name,
                    inspect.Parameter.POSITIONAL_OR_KEYWORD,
                    default=default,
                    annotation=_TYPES.get(name, "Any"),
                )
            )
    return inspect.Signature(params, return_annotation="None")


def _canned_class(
    name: str, doc: str, signature: inspect.Signature, model_fn: Any, v2: bool, module: str
) -> type:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as err:
            raise TypeError(f"{name}.__init__() {err}") from None
        bound.apply_defaults()
        super(cls, self).__init__(**_estimator_kwargs(model_fn, bound.arguments, v2))

    __init__.__signature__ = signature
    __init__.__qualname__ = f"{name}.__init__"
    __init__.__module__ = module
    namespace = {"__init__": __init__, "__doc__": doc, "__module__": module, "__qualname__": name}
    cls = type(name, (CannedEstimator,), namespace)
    return cls


def _estimator_kwargs(model_fn: Any, arguments: dict, v2: bool) -> dict:
    """`CannedEstimator.__init__` arguments: the head first, then the model_fn's arguments."""
    args = dict(arguments)
    del args["self"]
    head = _head(args, v2)
    model_fn_kwargs = {}
    for name, value in args.items():
        if name == "hidden_units":
            value = dnn.check_hidden_units(value)
        elif name.endswith("feature_columns"):
            value = tuple(value or ())
        if name not in _ESTIMATOR_ARGS:
            model_fn_kwargs[name] = value
    return base.make(
        model_fn,
        args["model_dir"],
        args["config"],
        args.get("warm_start_from"),  # Baseline estimators take none
        head=head,
        **model_fn_kwargs,
    )


def _head(args: dict, v2: bool) -> Any:
    if "head" in args:
        return base.check_head(args.pop("head"), v2)
    if "n_classes" in args:
        return base.classifier_head(
            args["n_classes"],
            args["weight_column"],
            args["label_vocabulary"],
            args["loss_reduction"],
            v2=v2,
        )
    return base.regression_head(
        args["label_dimension"], args["weight_column"], args["loss_reduction"], v2=v2
    )
