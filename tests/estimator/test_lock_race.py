"""Issue 32: the training lock excludes. Two processes race for it 200 times (no lock, a
stale lock of a dead process, a lock whose pid was reused by a live process, a live
lock); the times both were inside are counted by an O_EXCL marker file: 0 overlaps.

The workers load `lock.py` by path (no TensorFlow), so the races take seconds.
"""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import textwrap
import time

import tfport

LOCK = ".tfport-train.lock"
LOCK_PY = pathlib.Path(tfport.__file__).parent / "estimator" / "_engine" / "running" / "lock.py"
TRIALS = 200

WORKER = textwrap.dedent(
    """
    import importlib.util, json, os, sys, time
    spec = importlib.util.spec_from_file_location("tfport_lock_under_test", sys.argv[1])
    lock = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lock)
    root, trials, me = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    got = overlaps = refused = 0
    for i in range(trials):
        folder = os.path.join(root, f"t{i}")
        open(os.path.join(root, f"ready-{me}-{i}"), "w").close()
        go = os.path.join(root, f"go-{i}")
        while not os.path.exists(go):
            time.sleep(0.0005)
        try:
            with lock.training_lock(folder):
                got += 1
                try:
                    fd = os.open(os.path.join(folder, "inside"), os.O_CREAT | os.O_EXCL)
                except FileExistsError:
                    overlaps += 1
                    fd = None
                time.sleep(0.01)
                if fd is not None:
                    os.close(fd)
                    os.remove(os.path.join(folder, "inside"))
        except Exception as err:
            if "Another training runs" not in str(err):
                raise
            refused += 1
    print(json.dumps({"got": got, "overlaps": overlaps, "refused": refused}))
    """
)


def _plant(folder: pathlib.Path, kind: str, dead_pid: int) -> None:
    host = socket.gethostname()
    if kind == "none":
        return
    holder = {
        "stale": {"pid": dead_pid, "host": host, "started": time.time() - 60},
        # pid reuse: a live process (this test) that started after the lock was written
        "reused": {"pid": os.getpid(), "host": host, "started": 1.0},
        "live": {"pid": os.getpid(), "host": host, "started": time.time()},
    }[kind]
    (folder / LOCK).write_text(json.dumps(holder))


def test_two_processes_race_for_the_lock_200_times(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    kinds = ["none", "stale", "reused", "live"]
    for i in range(TRIALS):
        folder = tmp_path / f"t{i}"
        folder.mkdir()
        _plant(folder, kinds[i % 4], dead.pid)
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(LOCK_PY), str(tmp_path), str(TRIALS), name],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("a", "b")
    ]
    deadline = time.time() + 240
    for i in range(TRIALS):
        while not all((tmp_path / f"ready-{n}-{i}").exists() for n in "ab"):
            assert time.time() < deadline and all(p.poll() is None for p in procs), [
                p.stderr.read() for p in procs if p.poll() is not None
            ]
            time.sleep(0.0005)
        (tmp_path / f"go-{i}").touch()
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    overlaps = sum(r["overlaps"] for r in results)
    got = sum(r["got"] for r in results)
    refused = sum(r["refused"] for r in results)
    live = TRIALS // 4
    assert overlaps == 0, results
    # Each race without a live lock is won by one process (the other is refused or comes
    # after); a live lock refuses both and is left in place.
    assert got + refused == 2 * TRIALS
    assert got >= TRIALS - live and refused >= 2 * live
    for i in range(TRIALS):
        folder = tmp_path / f"t{i}"
        left = sorted(p.name for p in folder.iterdir())
        assert left == ([LOCK] if kinds[i % 4] == "live" else []), (i, left)
