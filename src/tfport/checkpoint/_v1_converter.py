"""Legacy `tools/checkpoint_converter.py`: v1 canned-estimator checkpoints to v2 names.

`convert_checkpoint(estimator_type, source_checkpoint, source_graph, target_checkpoint)`
turns the checkpoint of a v1 `DNNClassifier`/`DNNRegressor` ("dnn"), `Linear*`
("linear") or `DNNLinearCombined*` ("combined") trained with `tf.compat.v1.train`
optimizers (Adagrad, Adam, Ftrl, RMSProp, SGD) into the names the v2 canned estimators
(Keras optimizers) restore: slots become `training/<Opt>/<var>/<slot>`, Adam's
`beta1_power`/`beta2_power` become `beta_1`/`beta_2` (`power ** (1 / global_step)`, as
legacy), and the Keras hyperparameter variables are added. The output is legacy's,
name for name and bit for bit, including its quirks: the hyperparameters are always
the Keras defaults (legacy's graph lookup compared `"Opt/name"` with bare names and
never matched; `tfport ckpt convert --estimator` reads them from the graph instead),
and "combined" keeps the TF1 slot names next to the new ones.

It reads and writes with tfport's TensorFlow-free checkpoint reader and writer. Beyond
legacy: the output appears atomically (index last) with a relative `checkpoint` state
file and no `.meta`; an unknown `estimator_type`, a checkpoint of another kind of
estimator, a graph that does not hold the checkpoint's variables and a target in the
source's folder are refused with one line (legacy wrote nonsense names, or overwrote the
model_dir's `checkpoint` state file); missing files raise `tf.errors.NotFoundError` and
a graph that does not parse `text_format.ParseError`, as legacy did, both also
`TfportInputError`.

Example:
    >>> convert_checkpoint("dnn", "model_dir/model.ckpt-40", "model_dir/graph.pbtxt",
    ...                    "converted/model.ckpt")  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import collections.abc
import math
import os
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from tfport._common.atomic import atomic_file
from tfport._common.errors import TfportInputError, message
from tfport.checkpoint import _slots
from tfport.checkpoint._reader import CheckpointReader
from tfport.checkpoint._v1_converter_inputs import (
    ESTIMATOR_TYPES,
    SLOT_MARKS,
    check_graph,
    check_kind,
    check_target,
    open_checkpoint,
    read_graph,
)
from tfport.checkpoint._writer import CheckpointWriter

HP_IN_CKPT = {
    "Adam": {"beta1_power": "training/Adam/beta_1", "beta2_power": "training/Adam/beta_2"}
}
HP_IN_GRAPH = {
    "Adam": ["decay", "learning_rate"],
    "Ftrl": [
        "decay",
        "l1_regularization_strength",
        "l2_regularization_strength",
        "beta",
        "learning_rate",
        "learning_rate_power",
    ],
    "RMSProp": ["decay", "learning_rate", "momentum", "rho"],
    "Adagrad": ["decay", "learning_rate"],
    "SGD": ["decay", "learning_rate", "momentum"],
}
OPT_NAME_V1_TO_V2 = {
    "Adagrad": "Adagrad",
    "RMSProp": "RMSprop",
    "Ftrl": "Ftrl",
    "Adam": "Adam",
    "SGD": "SGD",
}
OPT_VAR_NAME_V1_TO_V2: dict[str, dict[str, str | None]] = {
    "Adam": {"Adam": "m", "Adam_1": "v"},
    "Ftrl": {"Ftrl": "accumulator", "Ftrl_1": "linear"},
    "RMSProp": {"RMSProp": "rms", "RMSProp_1": None},
    "Adagrad": {"Adagrad": "accumulator"},
}
_V1_SLOTS = {s for slots in OPT_VAR_NAME_V1_TO_V2.values() for s in slots}


class _KerasOptimizers(collections.abc.Mapping[str, Any]):
    """Legacy `OPT_V2_INSTANCE`: a default Keras (legacy) optimizer per v1 name, made
    when first read (legacy made all five at import)."""

    def __init__(self) -> None:
        self._made: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._made:
            from tfport._common.tfenv import import_tf

            keras_name = OPT_NAME_V1_TO_V2[name]  # KeyError for unknown names, as a dict
            self._made[name] = getattr(import_tf().keras.optimizers.legacy, keras_name)()
        return self._made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(OPT_NAME_V1_TO_V2)

    def __len__(self) -> int:
        return len(OPT_NAME_V1_TO_V2)


OPT_V2_INSTANCE = _KerasOptimizers()


class _Reader:
    """The method of legacy's `NewCheckpointReader` the converter's helpers call
    (`get_tensor`), over tfport's TensorFlow-free reader."""

    def __init__(self, reader: CheckpointReader) -> None:
        self._reader = reader

    def get_tensor(self, name: str) -> np.ndarray:
        return self._reader.read(name)


def _root_of_power(power: np.ndarray, step: float | np.ndarray) -> np.ndarray:
    """`power ** (1 / step)` as legacy's `tf.math.pow` gives it: correctly rounded in the
    power's dtype (the exponent first rounded to that dtype). Computed in float64 with
    libm's `pow` per element; numpy's own float32 `power` uses SIMD code on AVX-512
    machines that is off by one ulp (measured: Adam's beta_2 0x3f7fa8a2, TF 0x3f7fa8a3)."""
    exponent = float(np.asarray(1.0 / step, power.dtype))
    flat = [math.pow(float(x), exponent) for x in power.ravel()]
    return np.asarray(flat, np.float64).astype(power.dtype).reshape(power.shape)


def _variable_value(value: object) -> np.ndarray:
    """The value `tf.Variable(value)` would hold: Python floats float32, ints int32."""
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value)
    if isinstance(value, bool):
        return np.asarray(value, np.bool_)
    if isinstance(value, int):
        return np.asarray(value, np.int32)
    if isinstance(value, float):
        return np.asarray(value, np.float32)
    return np.asarray(value)


def _add_new_variable(
    initial_value: object,
    var_name_v2: str,
    var_name_v1: str,
    var_map: dict[str, object],
    var_names_map: dict[str, str],
) -> None:
    """Records `var_name_v2` (its value) and where it came from (legacy helper).

    Example:
        >>> var_map, names = {}, {}
        >>> _add_new_variable(0.5, "training/SGD/momentum", "momentum", var_map, names)
        >>> var_map["training/SGD/momentum"].dtype
        dtype('float32')
    """
    var_map[var_name_v2] = _variable_value(initial_value)
    var_names_map[var_name_v2] = var_name_v1


def _add_opt_variable(
    opt_name_v2: str,
    var_name_v1: str,
    idx: int,
    suffix_v2: str,
    reader: _Reader,
    var_map: dict[str, object],
    var_names_map: dict[str, str],
) -> None:
    """Adds slot `var_name_v1` as `training/<opt>/<var_name_v1[:idx]><suffix_v2>`."""
    var_name_v2 = "training/" + opt_name_v2 + "/" + var_name_v1[:idx] + suffix_v2
    tensor = reader.get_tensor(var_name_v1)
    _add_new_variable(tensor, var_name_v2, var_name_v1, var_map, var_names_map)


def _convert_variables_in_ckpt(
    opt_name_v1: str,
    reader: _Reader,
    variable_names: list[str],
    var_map: dict[str, object],
    var_names_map: dict[str, str],
    est_type: str,
) -> None:
    """Converts every checkpoint variable for optimizer `opt_name_v1` (legacy helper):
    its hyperparameters (Adam's powers), its slots, and the model variables as they are."""
    hp_ckpt = HP_IN_CKPT.get(opt_name_v1, {})
    step = reader.get_tensor("global_step") if opt_name_v1 == "Adam" else 1
    opt_name_v2 = OPT_NAME_V1_TO_V2[opt_name_v1]
    for var_name in variable_names:
        hp_name = next((h for h in hp_ckpt if h in var_name), None)
        if hp_name is not None:
            value = _root_of_power(np.asarray(reader.get_tensor(var_name)), step)
            _add_new_variable(value, hp_ckpt[hp_name], var_name, var_map, var_names_map)
        elif opt_name_v1 in var_name:
            suffix_v1 = var_name.rsplit("/")[-1]
            suffix_v2 = _slot_suffix(opt_name_v1, suffix_v1, var_name)
            if suffix_v2:
                mark = SLOT_MARKS.get(est_type, suffix_v1)
                idx = var_name.rfind(mark)
                _add_opt_variable(
                    opt_name_v2, var_name, idx, suffix_v2, reader, var_map, var_names_map
                )
        else:
            tensor = reader.get_tensor(var_name)
            _add_new_variable(tensor, var_name, var_name, var_map, var_names_map)


def _slot_suffix(opt_name_v1: str, suffix_v1: str, var_name: str) -> str | None:
    mapping = OPT_VAR_NAME_V1_TO_V2[opt_name_v1]
    if suffix_v1 not in mapping:
        raise TfportInputError(
            message(
                f"Checkpoint variable {var_name} names the {opt_name_v1} optimizer but is "
                f"none of its slots ({', '.join(mapping)})",
                "Convert a checkpoint written by a v1 canned estimator",
                variable=var_name,
            )
        )
    return mapping[suffix_v1]


def _convert_hyper_params_in_graph(
    graph_from_path: str,
    opt_name_v1: str,
    var_map: dict[str, object],
    var_names_map: dict[str, str],
) -> None:
    """Adds the Keras hyperparameter variables of `opt_name_v1` (legacy helper).

    Legacy looked each one up in the graph as ``"<Opt>/<node>"`` among the bare names of
    `HP_IN_GRAPH`, which never matched, so every value is the Keras default; the graph
    is still read (and must parse), as legacy did.
    """
    read_graph(graph_from_path)
    _add_hyper_defaults(opt_name_v1, var_map, var_names_map)


def _add_hyper_defaults(
    opt_name_v1: str, var_map: dict[str, object], var_names_map: dict[str, str]
) -> None:
    opt_name_v2 = OPT_NAME_V1_TO_V2[opt_name_v1]
    defaults = _slots.KERAS_HYPER[opt_name_v2]  # the Keras optimizers' get_config()
    for node_name in sorted(HP_IN_GRAPH[opt_name_v1]):
        hp_name_v2 = "training/" + opt_name_v2 + "/" + node_name
        _add_new_variable(defaults[node_name], hp_name_v2, node_name, var_map, var_names_map)


def _optimizers(names: list[str], estimator_type: str) -> dict[str, str]:
    """v1 optimizer name -> a variable naming it (legacy's detection, SGD added)."""
    found: dict[str, str] = {}
    for var_name in names:
        for opt_name in OPT_NAME_V1_TO_V2:
            if opt_name in var_name:
                found[opt_name] = var_name
    if not found and estimator_type == "combined":
        raise TfportInputError(
            message(
                "Two `SGD` optimizers are used in DNNLinearCombined model, and this is not "
                "handled by the checkpoint converter",
                "Give the two parts different optimizers",
                estimator_type=estimator_type,
            )
        )
    return found or {"SGD": ""}


def _linear_iter(
    reader: _Reader, found: dict[str, str], var_map: dict[str, object], names_map: dict[str, str]
) -> None:
    """Combined: the linear optimizer's own `iter` (the DNN one uses global_step)."""
    linear = [k for k, v in found.items() if v.startswith("linear/linear_model/")]
    if len(found) == 1:
        found["SGD"] = ""
        linear = linear or ["SGD"]
    if not linear:
        raise TfportInputError(
            message(
                "No linear/linear_model/ optimizer slot found in a combined checkpoint",
                "Pass the estimator_type the checkpoint was trained with",
                optimizers=sorted(found),
            )
        )
    iter_name = "training/" + OPT_NAME_V1_TO_V2[linear[-1]] + "/iter"
    _add_new_variable(
        reader.get_tensor("global_step"), iter_name, "global_step", var_map, names_map
    )


def _save(var_map: dict[str, object], target: str) -> None:
    with CheckpointWriter(target, overwrite=True) as writer:
        for name in sorted(var_map):
            writer.add(name, var_map[name])
    base = os.path.basename(target)
    with atomic_file(os.path.join(os.path.dirname(target), "checkpoint"), "w") as f:
        f.write(f'model_checkpoint_path: "{base}"\nall_model_checkpoint_paths: "{base}"\n')


def convert_checkpoint(
    estimator_type: str, source_checkpoint: str, source_graph: str, target_checkpoint: str
) -> None:
    """Converts a v1 canned-estimator checkpoint to the names of the v2 canned estimators.

    Args:
        estimator_type: "dnn", "linear" or "combined".
        source_checkpoint: the v1 checkpoint prefix (e.g. `model_dir/model.ckpt-100`);
            never modified.
        source_graph: the model_dir's `graph.pbtxt`.
        target_checkpoint: the output prefix, in another folder (e.g.
            `converted/model.ckpt-100`); its folder gets a `checkpoint` state file.

    Raises:
        TfportInputError: bad arguments or a checkpoint this converter cannot handle;
            `tf.errors.NotFoundError` (also TfportInputError) for missing files and
            `text_format.ParseError` (also TfportInputError) for a graph that is not one.

    Example:
        >>> convert_checkpoint("linear", "m/model.ckpt-40", "m/graph.pbtxt",
        ...                    "v2/model.ckpt")  # doctest: +SKIP
    """
    with open_checkpoint(source_checkpoint) as ckpt:
        names = ckpt.names()
        check_kind(estimator_type, names, ckpt.prefix, _V1_SLOTS)
        check_graph(read_graph(os.fspath(source_graph)), names, os.fspath(source_graph), _V1_SLOTS)
        target = check_target(target_checkpoint, ckpt)
        reader = _Reader(ckpt)
        found = _optimizers(names, estimator_type)
        var_map: dict[str, object] = {}
        names_map: dict[str, str] = {}
        if estimator_type == "combined":
            _linear_iter(reader, found, var_map, names_map)
        for opt_name_v1 in found:
            _convert_variables_in_ckpt(
                opt_name_v1, reader, names, var_map, names_map, estimator_type
            )
            # (legacy re-read the graph here for each optimizer; it was read and checked above)
            _add_hyper_defaults(opt_name_v1, var_map, names_map)
        _save(var_map, target)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Converts a TF1 canned-estimator checkpoint to the v2 (Keras optimizer) names."
    )
    parser.add_argument("estimator_type", choices=list(ESTIMATOR_TYPES))
    parser.add_argument("source_checkpoint", help="Path to source checkpoint file to be read in.")
    parser.add_argument("source_graph", help="Path to source graph file to be read in.")
    parser.add_argument("target_checkpoint", help="Path to checkpoint file to be written out.")
    return parser


def main(_: object) -> None:
    """Legacy's command line: `estimator_type source_checkpoint source_graph target_checkpoint`
    read from `sys.argv` (an argv list given as `_` is used instead, as `app.run` passes).

    Example:
        >>> main(["prog", "dnn", "m/model.ckpt-40", "m/graph.pbtxt", "v2/model.ckpt"])
        ... # doctest: +SKIP
    """
    argv = list(_) if isinstance(_, (list, tuple)) and len(_) > 1 else sys.argv
    flags = _parser().parse_args([str(a) for a in argv[1:]])
    convert_checkpoint(
        flags.estimator_type, flags.source_checkpoint, flags.source_graph, flags.target_checkpoint
    )


if __name__ == "__main__":
    main(sys.argv)
