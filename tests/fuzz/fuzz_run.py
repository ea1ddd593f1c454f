"""Issue 32 fuzz cases: multi-shard partitioned checkpoints through `ckpt convert`, and
SavedModels (intact, damaged, hostile) through `verify`.

`shards`: a 2-shard TF1 Adam checkpoint whose weights are `w/part_0`, `w/part_1` (slots
per piece), mutated (bytes of either shard or the index, crafted entries: dtype, dims,
shard, offset, size; dropped or renumbered pieces) and converted `v1-to-keras`. Classes:
``refused`` (one line), ``equal`` (the output is the conversion of the truth),
``changed`` (accepted, and the output is the conversion of what the reader reads);
failures: ``silent`` (an output that is neither: a silent merge), ``traceback``,
``multiline``.

`verify`: a small TF2 SavedModel, or one whose serving function writes a marker file,
mutated (bytes of saved_model.pb or of the variables), run through `tfport verify`'s
scan and run (in the worker's process: the child process is the same code). Classes:
``refused``, ``equal``, ``changed``; failures: ``executed`` (the marker was written),
``traceback``, ``multiline``.
"""

from __future__ import annotations

import os
import random
import shutil

import numpy as np

from tfport._common import protos
from tfport._common.errors import TfportError
from tfport.checkpoint import CheckpointReader, CheckpointWriter, convert
from tfport.checkpoint._table import build_table, read_table

FAILURES = ("silent", "executed", "traceback", "multiline", "hang", "signal", "memory")
Entry = protos.message_class("tensorflow.BundleEntryProto")
Header = protos.message_class("tensorflow.BundleHeaderProto")
ROWS = (3, 2)


def shards_truth() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(32)
    out = {"global_step": np.int64(7), "beta1_power": np.float32(0.9) ** 8}
    out["beta2_power"] = np.float32(0.999) ** 8
    for i, n in enumerate(ROWS):
        out[f"w/part_{i}"] = rng.standard_normal((n, 3)).astype(np.float32)
        out[f"w/part_{i}/Adam"] = rng.standard_normal((n, 3)).astype(np.float32)
        out[f"w/part_{i}/Adam_1"] = rng.random((n, 3)).astype(np.float32)
    out["b"] = rng.standard_normal(3).astype(np.float32)
    out["b/Adam"] = rng.standard_normal(3).astype(np.float32)
    out["b/Adam_1"] = rng.random(3).astype(np.float32)
    return out


def write_sharded(prefix: str, values: dict, shards: int = 2) -> None:
    """Writes `values` as a checkpoint of `shards` data files (entries dealt in turn)."""
    single = prefix + ".single"
    with CheckpointWriter(single, overwrite=True) as w:
        for name, value in values.items():
            w.add(name, value)
    with open(single + ".index", "rb") as f:
        items = read_table(f.read(), single)
    with open(single + ".data-00000-of-00001", "rb") as f:
        data = f.read()
    outs = [bytearray() for _ in range(shards)]
    new = []
    for i, (key, value) in enumerate(items):
        if not key:
            header = Header.FromString(value)
            header.num_shards = shards
            new.append((key, header.SerializeToString()))
            continue
        entry = Entry.FromString(value)
        shard = i % shards
        chunk = data[entry.offset : entry.offset + entry.size]
        entry.shard_id, entry.offset = shard, len(outs[shard])
        outs[shard] += chunk
        new.append((key, entry.SerializeToString()))
    for shard, blob in enumerate(outs):
        with open(f"{prefix}.data-{shard:05d}-of-{shards:05d}", "wb") as f:
            f.write(bytes(blob))
    with open(prefix + ".index", "wb") as f:
        f.write(build_table(new))
    for suffix in (".index", ".data-00000-of-00001"):
        os.remove(single + suffix)


def expected_conversion(values: dict) -> dict:
    """The v1-to-keras conversion of `values`, computed here (concatenate the pieces)."""
    out = {"global_step": values["global_step"], "b": values["b"]}
    parts = sorted(k for k in values if k.startswith("w/part_") and k.count("/") == 1)
    out["w"] = np.concatenate([values[p] for p in parts])
    for tf1, keras in (("Adam", "m"), ("Adam_1", "v")):
        out[f"training/Adam/w/{keras}"] = np.concatenate([values[f"{p}/{tf1}"] for p in parts])
        out[f"training/Adam/b/{keras}"] = values[f"b/{tf1}"]
    return out


def _mutate_shards(prefix: str, rng: random.Random) -> str:
    files = sorted(
        os.path.join(os.path.dirname(prefix), n) for n in os.listdir(os.path.dirname(prefix))
    )
    kind = rng.choice(["flip", "trunc", "entry", "entry", "drop", "renumber", "header"])
    if kind in ("flip", "trunc"):
        path = rng.choice(files)
        data = bytearray(open(path, "rb").read())
        if kind == "flip" and data:
            for _ in range(rng.choice([1, 2, 8])):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        else:
            del data[rng.randrange(len(data) + 1) :]
        with open(path, "wb") as f:
            f.write(data)
        return f"{kind}_{os.path.basename(path).rpartition('.')[2]}"
    with open(prefix + ".index", "rb") as f:
        items = read_table(f.read(), prefix)
    pieces = [i for i, (k, _) in enumerate(items) if b"part_" in k]
    i = rng.choice(pieces)
    if kind == "header":
        header = Header.FromString(items[0][1])
        header.num_shards = rng.choice([0, 1, 3])
        items[0] = (b"", header.SerializeToString())
    elif kind == "drop":
        del items[i]
    elif kind == "renumber":
        key = items[i][0].replace(b"part_1", b"part_2").replace(b"part_0", b"part_3")
        items[i] = (key, items[i][1])
        items.sort(key=lambda kv: kv[0])
    else:
        entry = Entry.FromString(items[i][1])
        what = rng.choice(["dtype", "dims", "shard", "offset", "size"])
        if what == "dtype":
            entry.dtype = rng.choice([2, 3, 9, 19])
        elif what == "dims":
            entry.shape.dim[0].size = rng.choice([0, 1, 2, 3, 4, 6])
        elif what == "shard":
            entry.shard_id = rng.choice([0, 1, 2])
        elif what == "offset":
            entry.offset = rng.choice([0, 4, 8, 12])
        else:
            entry.size = rng.choice([0, 8, 24, 36])
        items[i] = (items[i][0], entry.SerializeToString())
        kind = "entry_" + what
    with open(prefix + ".index", "wb") as f:
        f.write(build_table(items))
    return kind


def _same(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    return all(
        np.asarray(a[k]).dtype == np.asarray(b[k]).dtype
        and np.asarray(a[k]).shape == np.asarray(b[k]).shape
        and np.asarray(a[k]).tobytes() == np.asarray(b[k]).tobytes()
        for k in a
    )


def shards_case(workdir: str, base: str, seed: int) -> tuple[str, str]:
    """One multi-shard mutant through `ckpt convert --slots v1-to-keras`."""
    rng = random.Random(seed)
    case = os.path.join(workdir, f"s{seed}")
    shutil.rmtree(case, ignore_errors=True)
    shutil.copytree(os.path.dirname(base), case)
    prefix = os.path.join(case, os.path.basename(base))
    kind = "?"
    try:
        kind = _mutate_shards(prefix, rng)
        try:
            with CheckpointReader(prefix) as r:
                read = {n: r.read(n) for n in r.names()}
            out = os.path.join(case, "out")
            convert(prefix, out, slots="v1-to-keras")
            with CheckpointReader(out) as r:
                got = {n: r.read(n) for n in r.names() if not n.startswith("training/Adam/beta")}
            got = {k: v for k, v in got.items() if k not in ("beta1_power", "beta2_power")}
        except TfportError as err:
            return kind, "multiline" if "\n" in str(err) else "refused"
        if _same(got, expected_conversion(shards_truth())):
            return kind, "equal"
        try:
            mine = expected_conversion(read)
        except (KeyError, ValueError):
            return kind, "silent"  # converted although its pieces do not merge
        return kind, "changed" if _same(got, mine) else "silent"
    except Exception as err:  # noqa: BLE001 - the point of a fuzzer
        return kind, f"traceback:{type(err).__name__}:{str(err)[:120]}"
    finally:
        shutil.rmtree(case, ignore_errors=True)


def build_saved_models(folder: str) -> dict[str, str]:
    """The bases of the verify cases: an intact TF2 SavedModel and a hostile one."""
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    marker = os.path.join(folder, "EXECUTED")

    class Model(tf.Module):
        def __init__(self, hostile: bool) -> None:
            super().__init__()
            self.hostile = hostile
            self.w = tf.Variable([[1.0, -2.0], [0.5, 3.0]])

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
        def serve(self, x):
            y = tf.matmul(x, self.w)
            if self.hostile:
                with tf.control_dependencies([tf.io.write_file(marker, "ran")]):
                    y = tf.identity(y)
            return {"y": y}

    bases = {}
    for name, hostile in (("intact", False), ("hostile", True)):
        model = Model(hostile)
        path = os.path.join(folder, name)
        tf.saved_model.save(model, path, signatures={"serving_default": model.serve})
        bases[name] = path
    return bases


def verify_case(workdir: str, bases: dict[str, str], seed: int) -> tuple[str, str]:
    """One (maybe mutated) SavedModel through verify's scan and run, against the intact one."""
    from tfport.verify import _compare

    rng = random.Random(seed)
    base = "hostile" if rng.random() < 0.25 else "intact"
    case = os.path.join(workdir, f"v{seed}")
    shutil.rmtree(case, ignore_errors=True)
    shutil.copytree(bases[base], case)
    marker = os.path.join(os.path.dirname(bases["intact"]), "EXECUTED")
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(case) for f in fs)
    target = rng.choice([os.path.join(case, "saved_model.pb")] * 3 + files)
    data = bytearray(open(target, "rb").read())
    what = rng.choice(["flip", "flip", "trunc", "none"])
    if what == "flip" and data:
        for _ in range(rng.choice([1, 2, 8])):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif what == "trunc":
        del data[rng.randrange(len(data) + 1) :]
    with open(target, "wb") as f:
        f.write(data)
    kind = f"{base}_{what}_{os.path.basename(target)}"
    try:
        try:
            limits = _compare.scan_artifacts([case, bases["intact"]], False, (), 1 << 30)
        except TfportError as err:
            return kind, "multiline" if "\n" in str(err) else "refused"
        job = {
            "a": case, "b": bases["intact"], "inputs": None, "atol": 1e-6, "rtol": 1e-6,
            "signature_a": None, "signature_b": None, "io": (None, None), "rows": 4,
            "seed": 0, "train_step": False, "label_key": "label", "trust": False,
            "limits": limits,
        }  # fmt: skip
        try:
            report = _compare.run_artifacts(**job)
        except TfportError as err:
            cls = "multiline" if "\n" in str(err) else "refused"
        else:
            cls = "equal" if report["equal"] else "changed"
        return kind, "executed" if os.path.exists(marker) else cls
    except Exception as err:  # noqa: BLE001 - the point of a fuzzer
        return kind, f"traceback:{type(err).__name__}:{str(err)[:120]}"
    finally:
        shutil.rmtree(case, ignore_errors=True)
