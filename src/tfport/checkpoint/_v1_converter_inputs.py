"""Input checks of the legacy checkpoint converter (`checkpoint_converter`): the source
checkpoint and graph are read and must match the estimator type; the target never lies
in the source's folder.

Example:
    >>> check_kind("linear", ["linear/linear_model/bias_weights"], "m", {"Ftrl"})
"""

from __future__ import annotations

import os
from typing import Any

from tfport._common import protos
from tfport._common.errors import TfportInputError, message
from tfport.checkpoint._convert import ESTIMATOR_PREFIXES as _PREFIXES
from tfport.checkpoint._convert import ESTIMATORS as ESTIMATOR_TYPES
from tfport.checkpoint._errors import CheckpointNotFoundError
from tfport.checkpoint._reader import CheckpointReader

# Where each estimator type's TF1 slot names cut the variable name (b/131719899).
SLOT_MARKS = {"dnn": "t_0", "linear": "part_0"}


def read_graph(path: str) -> Any:
    """The GraphDef of text file `path`, as legacy parsed it.

    Raises:
        ConverterNotFoundError: the file cannot be read (legacy: `tf.errors.NotFoundError`).
        GraphParseError: not a text GraphDef (legacy: `text_format.ParseError`).

    Example:
        >>> read_graph("model_dir/graph.pbtxt").node[0].name  # doctest: +SKIP
        'global_step/Initializer/zeros'
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise not_found(f"Cannot read source_graph {path}: {err.strerror}", path) from None
    try:
        return protos.parse_text(data, protos.graph_def_class(), path)
    except TfportInputError as err:
        from tfport.checkpoint._v1_converter_errors import GraphParseError

        raise GraphParseError(str(err)) from None


def not_found(what: str, path: str) -> Exception:
    """The missing-file error (tfport's one line, legacy's `tf.errors.NotFoundError` type).

    Example:
        >>> str(not_found("Cannot read g.pbtxt", "g.pbtxt"))  # doctest: +SKIP
        "Cannot read g.pbtxt. Pass an existing file. Received: path='g.pbtxt'"
    """
    from tfport.checkpoint._v1_converter_errors import ConverterNotFoundError

    return ConverterNotFoundError(message(what, "Pass an existing file", path=path))


def open_checkpoint(source_checkpoint: str) -> CheckpointReader:
    """tfport's reader over `source_checkpoint`; a missing one raises `not_found`'s error.

    Example:
        >>> open_checkpoint("model_dir/model.ckpt-40").names()  # doctest: +SKIP
        ['dnn/hiddenlayer_0/bias', ...]
    """
    try:
        return CheckpointReader(os.fspath(source_checkpoint))
    except CheckpointNotFoundError as err:
        raise not_found(str(err).split(". ")[0], str(source_checkpoint)) from None


def check_kind(estimator_type: str, names: list[str], source: str, slot_names: set[str]) -> None:
    """Refuses an unknown `estimator_type` or a checkpoint of another kind of estimator
    (missing `dnn/` or `linear/` variables, or TF1 slots not cut where that kind cuts them).

    Args:
        estimator_type: "dnn", "linear" or "combined".
        names: the checkpoint's variable names.
        source: the checkpoint, for the message.
        slot_names: the last name parts of TF1 optimizer slots ("Adagrad", "Ftrl_1", ...).

    Example:
        >>> check_kind("dnn", ["dnn/logits/bias", "dnn/logits/bias/t_0/Adagrad"], "m", {"Adagrad"})
    """
    if estimator_type not in ESTIMATOR_TYPES:
        raise TfportInputError(
            message(
                "Unknown estimator_type for convert_checkpoint",
                f"Use one of {', '.join(ESTIMATOR_TYPES)}",
                estimator_type=estimator_type,
            )
        )
    missing = [p for p in _PREFIXES[estimator_type] if not any(n.startswith(p) for n in names)]
    mark = SLOT_MARKS.get(estimator_type)
    slots = [n for n in names if n.rsplit("/")[-1] in slot_names]
    if missing or (mark and any(mark not in n for n in slots)):
        raise TfportInputError(
            message(
                f"Checkpoint {source} was not written by a v1 canned {estimator_type} "
                "estimator (no " + (missing[0] if missing else f"'{mark}' in its slot names") + ")",
                "Pass the estimator_type the checkpoint was trained with",
                estimator_type=estimator_type,
            )
        )


def check_graph(graph: Any, names: list[str], path: str, slot_names: set[str]) -> None:
    """Refuses a graph holding none of the checkpoint's model variables (another model's).

    Example:
        >>> check_graph(read_graph("m/graph.pbtxt"), ["dnn/logits/bias"], "m/graph.pbtxt",
        ...             {"Adagrad"})  # doctest: +SKIP
    """
    nodes = {n.name for n in graph.node}
    model = [n for n in names if n.rsplit("/")[-1] not in slot_names and n != "global_step"]
    if not any(n in nodes or n + "/part_0" in nodes for n in model):
        raise TfportInputError(
            message(
                f"source_graph {path} holds none of the checkpoint's variables: it belongs "
                "to another model",
                "Pass the graph.pbtxt of the model_dir the checkpoint comes from",
                source_graph=path,
            )
        )


def check_target(target_checkpoint: str | os.PathLike[str], reader: CheckpointReader) -> str:
    """The absolute output prefix; refuses a folder, or a target in the source's folder
    (its `checkpoint` state file would be replaced).

    Example:
        >>> check_target("converted/model.ckpt", open_checkpoint("m/model.ckpt-40"))
        ... # doctest: +SKIP
        '/abs/converted/model.ckpt'
    """
    target = os.path.abspath(os.fspath(target_checkpoint))
    source_folder = os.path.realpath(os.path.dirname(os.path.abspath(reader.files[0])))
    refusal = None
    if os.path.realpath(os.path.dirname(target)) == source_folder:
        refusal = (
            "target_checkpoint is in the source checkpoint's folder: the converted "
            "checkpoint and its `checkpoint` state file would replace the source's",
            "Write into a new folder (mkdir converted; pass converted/model.ckpt)",
        )
    elif os.path.isdir(target):
        refusal = (
            "target_checkpoint is a folder; it is the prefix of the files to write",
            "Pass FOLDER/model.ckpt",
        )
    if refusal:
        raise TfportInputError(message(*refusal, target_checkpoint=os.fspath(target_checkpoint)))
    return target
