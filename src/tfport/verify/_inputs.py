"""Inputs for `verify`: an `.npz`, a TFRecord of tf.Examples, or generated from a signature.

Features are dense numpy arrays with a batch dimension; a multivalent feature of
tf.Examples is padded with `''` / `-1` (what feature columns drop), a single value per
example has shape `[n, 1]`.

Example:
    >>> batch = read_inputs("rows.npz")  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TypeAlias

import numpy as np

from tfport._common.errors import TfportInputError, message

EXAMPLES = "__serialized_examples__"  # key of the raw records of a TFRecord input


#: Feature name -> (dtype name, shape without the batch dimension; None: unknown rank).
InputSpec: TypeAlias = dict[str, tuple[str, tuple[int | None, ...] | None]]


class Batch(dict[str, np.ndarray]):
    """Feature name -> array; `serialized` holds the tf.Example records when known."""

    serialized: list[bytes] | None = None


def read_inputs(path: str) -> Batch:
    """Reads an `.npz` or a TFRecord file of tf.Examples into a `Batch`.

    Example:
        >>> read_inputs("rows.tfrecord")["x"].shape  # doctest: +SKIP
        (8, 4)
    """
    if not os.path.isfile(path):
        raise TfportInputError(
            message("The inputs file does not exist", "Pass an .npz or a TFRecord", path=path)
        )
    if path.endswith(".npz"):
        try:
            with np.load(path, allow_pickle=False) as data:
                batch = Batch({k: _text(data[k]) for k in data.files})
        except ValueError:
            with np.load(path, allow_pickle=True) as data:
                batch = Batch({k: _text(data[k]) for k in data.files})
        _check_rows(batch, path)
        return batch
    return _read_tfrecord(path)


def _text(array: np.ndarray) -> np.ndarray:
    return array.astype(object) if array.dtype.kind in "US" else array


def _check_rows(batch: Batch, path: str) -> None:
    rows = {k: (v.shape[0] if v.ndim else None) for k, v in batch.items()}
    if not batch or None in rows.values() or len(set(rows.values())) != 1:
        raise TfportInputError(
            message(
                "Every input needs the same number of rows (first dimension)",
                "Fix the inputs file",
                path=path,
                rows=rows,
            )
        )


def _read_tfrecord(path: str) -> Batch:
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    try:
        records = [r.numpy() for r in tf.data.TFRecordDataset(path)]
        examples = [tf.train.Example.FromString(r) for r in records]
    except (tf.errors.OpError, ValueError) as err:
        raise TfportInputError(
            message("Not a TFRecord file of tf.Examples", "Pass an .npz or a TFRecord", path=path)
        ) from err
    values: dict[str, list[tuple[str | None, list[object]] | None]] = {}
    for i, example in enumerate(examples):
        for key, feature in example.features.feature.items():
            kind = feature.WhichOneof("kind")
            listed = list(getattr(feature, kind).value) if kind else []
            values.setdefault(key, [None] * len(examples))[i] = (kind, listed)
    batch = Batch({k: _dense(k, rows) for k, rows in values.items()})
    batch.serialized = records
    _check_rows(batch, path)
    return batch


def _dense(key: str, rows: list[tuple[str | None, list[object]] | None]) -> np.ndarray:
    kinds = {r[0] for r in rows if r is not None and r[0]}
    kind = kinds.pop() if len(kinds) == 1 else "float_list"
    dtype, pad = {
        "float_list": (np.float32, 0.0),
        "int64_list": (np.int64, -1),
        "bytes_list": (object, b""),
    }[kind]
    width = max([len(r[1]) for r in rows if r is not None] + [1])
    out: np.ndarray = np.full((len(rows), width), pad, dtype=dtype)
    for i, row in enumerate(rows):
        if row is not None:
            out[i, : len(row[1])] = row[1]
    return out


def to_examples(batch: Mapping[str, np.ndarray]) -> list[bytes]:
    """Serializes a feature batch as tf.Examples (pad values `''` / `-1` left out)."""
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    rows = len(next(iter(batch.values())))
    out = []
    for i in range(rows):
        feature = {}
        for key, value in batch.items():
            row = np.asarray(value[i]).reshape(-1)
            if row.dtype.kind in "fc":
                feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=row))
            elif row.dtype.kind in "iub":
                kept = [int(v) for v in row if v != -1]
                feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=kept))
            else:
                kept_bytes = [v if isinstance(v, bytes) else str(v).encode() for v in row]
                kept_bytes = [v for v in kept_bytes if v]
                feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=kept_bytes))
        example = tf.train.Example(features=tf.train.Features(feature=feature))
        out.append(example.SerializeToString())
    return out


def generate(spec: InputSpec, rows: int = 8, seed: int = 0) -> Batch:
    """Random inputs for `spec` (name -> (dtype name, shape without batch, None if unknown)).

    Example:
        >>> generate({"x": ("float32", (4,))})["x"].shape
        (8, 4)
    """
    rng = np.random.RandomState(seed)
    batch = Batch()
    for name, (dtype, shape) in sorted(spec.items()):
        if shape is None:
            raise TfportInputError(
                message(
                    f"Input {name!r} has a shape of unknown rank: tfport cannot make up its values",
                    "Pass --inputs FILE (.npz or TFRecord) with its values",
                    input=name,
                    dtype=dtype,
                )
            )
        dims = (rows,) + tuple(1 if d is None else int(d) for d in shape)
        if dtype.startswith("float") or dtype == "bfloat16":
            batch[name] = rng.normal(size=dims).astype(dtype if dtype != "bfloat16" else "float32")
        elif dtype.startswith("int") or dtype.startswith("uint"):
            batch[name] = rng.randint(0, 10, dims).astype(dtype)
        elif dtype == "bool":
            batch[name] = rng.randint(0, 2, dims).astype(bool)
        elif dtype == "string":
            batch[name] = np.array(["a", "b", "c", "d"], dtype=object)[rng.randint(0, 4, dims)]
        else:
            raise TfportInputError(
                message(
                    f"Cannot generate inputs of dtype {dtype}",
                    "Pass --inputs FILE (.npz or TFRecord)",
                    input=name,
                )
            )
    return batch
