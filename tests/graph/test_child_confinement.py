"""Issue 37: the child that runs an artifact is confined (Landlock sandbox, memory) and
never outlives the `tfport` command that started it.

Artifacts are crafted here; processes are found through /proc (Linux).
"""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from hostile import computed_size_graph, endless_loop_graph, read_write_graph, snapshot

from tfport._common import sandbox

needs_landlock = pytest.mark.skipif(
    sandbox.landlock_abi() < 4, reason="Landlock ABI >= 4 (file and TCP rules) is not available"
)


def _children(pid: int) -> list[int]:
    """The live (non-zombie) processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def _cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@needs_landlock
def test_restrict_allows_only_the_paths_given(tmp_path):
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    (outside / "secret").write_text("secret")
    script = textwrap.dedent(
        f"""
        import socket
        from tfport._common import sandbox
        sandbox.restrict(sandbox.default_read_paths(), [{str(inside)!r}])
        open({str(inside / "ok")!r}, "w").write("ok")
        results = []
        for attempt in (
            lambda: open({str(outside / "written")!r}, "w"),
            lambda: open({str(outside / "secret")!r}).read(),
            lambda: socket.create_connection(("127.0.0.1", 9), timeout=5),
        ):
            try:
                attempt()
                results.append("allowed")
            except PermissionError:
                results.append("denied")
            except OSError as err:
                results.append(type(err).__name__)
        print(",".join(results))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "denied,denied,denied", done.stderr
    assert (inside / "ok").read_text() == "ok"
    assert not (outside / "written").exists()


def _start_verify(pb: pathlib.Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tfport", "verify", str(pb), str(pb), "--graph-outputs", "y:0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _running_child(proc: subprocess.Popen, cpu: float = 3.0, wait: float = 120) -> int:
    """The pid of `proc`'s child once it has spent `cpu` seconds of CPU (in the loop)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        for child in _children(proc.pid):
            if _cpu_seconds(child) >= cpu:
                return child
        time.sleep(0.5)
    raise AssertionError("the child never ran the loop")


@pytest.mark.slow
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_the_child_does_not_outlive_the_command(tmp_path, how):
    pb = endless_loop_graph(tmp_path / "loop.pb", v2=True)
    before = snapshot(tmp_path)
    proc = _start_verify(pb)
    try:
        child = _running_child(proc)
        os.kill(proc.pid, how)  # SIGKILL: no handler runs; the kernel's death signal acts
        proc.wait(timeout=30)
        deadline = time.monotonic() + 5
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(child), f"child {child} outlived tfport ({how.name})"
        assert proc.returncode != 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert snapshot(tmp_path) == before


def _cli(*argv: object) -> tuple[int, list[str], int]:
    """Runs `tfport ARGV` in a process of its own: (exit status, its error lines, the
    largest peak RSS in MiB of it and its children)."""
    script = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,"
        " text=True)\n"
        "sys.stderr.write(done.stderr)\n"
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, sys.executable, "-m", "tfport", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    code, peak = map(int, done.stdout.split())
    lines = [line for line in done.stderr.splitlines() if line.startswith("tfport: error:")]
    assert "Traceback" not in done.stderr, done.stderr
    return code, lines, peak


@pytest.mark.slow
@needs_landlock
def test_the_sandbox_holds_for_ops_the_user_allowed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret, target = outside / "secret", outside / "copy"
    secret.write_text("secret")
    pb = read_write_graph(tmp_path / "rw.pb", secret, target)
    before = snapshot(tmp_path)
    code, lines, _ = _cli("verify", pb, pb, "--graph-outputs", "y:0", "--allow-ops",
                          "WriteFile,ReadFile")  # fmt: skip
    assert code != 0 and len(lines) == 1, lines
    assert "Permission denied" in lines[0] or "PermissionDenied" in lines[0], lines[0]
    assert snapshot(tmp_path) == before
    code, lines, _ = _cli("verify", pb, pb, "--graph-outputs", "y:0", "--trust")
    assert code == 0, lines
    assert target.read_text() == "secret"  # trusted, it reads and writes outside


MEMORY = 1073741824


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fill", "parse", "as_string", "while", "none"])
def test_max_memory_stops_what_the_scan_cannot_bound(tmp_path, kind):
    pb = computed_size_graph(tmp_path / f"{kind}.pb", kind)
    code, lines, peak = _cli("verify", pb, pb, "--graph-outputs", "y:0", "--max-memory", MEMORY)
    if kind == "none":
        assert code == 0, lines
        return
    assert code == 2 and len(lines) == 1, lines
    assert f"--max-memory {MEMORY}" in lines[0], lines[0]
    if kind == "while":
        # shape inference cannot size the loop's result: the address-space cap stops it
        # (TensorFlow's import, about 0.9 GiB resident here, plus the 1 GiB allowed)
        assert "needed more memory" in lines[0], lines[0]
        assert peak < 2048, peak
    else:
        # sized before they run (Fill, AsString from shape inference) or failing at their
        # one allocation (ParseTensor): never near the cap
        assert peak < 1400, peak


def test_a_missing_landlock_is_one_warning_line(monkeypatch, capsys):
    from tfport._common import child

    monkeypatch.setattr(sandbox, "landlock_abi", lambda: 0)
    confine = child.Confinement(read=(), sandbox=True)
    assert child.run_in_child("os.path", "isdir", {"s": "/"}, 60, "probe", confine) is True
    warnings = [line for line in capsys.readouterr().err.splitlines() if "WARNING" in line]
    assert len(warnings) == 1 and "Landlock" in warnings[0] and "scan alone" in warnings[0]
    child.run_in_child("os.path", "isdir", {"s": "/"}, 60, "probe", None)  # nothing to warn
    child.run_in_child(
        "os.path", "isdir", {"s": "/"}, 60, "probe", child.Confinement(sandbox=False)
    )
    assert "WARNING" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1073741824", 1 << 30), ("1G", 1 << 30), ("512M", 512 << 20), ("64k", 64 << 10),
     ("2GB", 2 << 30)],
)  # fmt: skip
def test_max_memory_takes_bytes_with_suffixes(text, expected):
    from tfport.cli._graph import memory_bytes

    assert memory_bytes(text) == expected


@pytest.mark.parametrize("text", ["", "0", "-1", "1.5G", "G", "12X"])
def test_max_memory_refuses_what_is_not_a_size(text, capsys):
    from tfport.cli._main import main

    with pytest.raises(SystemExit) as exited:  # argparse's usage error
        main(["verify", "a.pb", "b.pb", "--max-memory", text])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--max-memory" in err and "Traceback" not in err


def test_static_sizes_refuse_an_op_over_the_budget_before_it_runs():
    from tfport._common.errors import TfportInputError
    from tfport._common.tfenv import import_tf
    from tfport.graph import _sizes

    tf = import_tf()
    graph = tf.Graph()
    with graph.as_default():
        filled = tf.raw_ops.Fill(dims=tf.stack([tf.constant(300), 500]), value=1.0)
        text = tf.raw_ops.AsString(input=tf.zeros([12]), width=1000)
        unknown = tf.compat.v1.placeholder(tf.float32, [None, 4])
    assert _sizes.output_bytes(filled.op) == 300 * 500 * 4
    assert _sizes.output_bytes(text.op) == 12 * 1000
    assert _sizes.output_bytes(unknown.op) == 0
    ops = graph.get_operations()
    _sizes.check_static_sizes(ops, "g.pb", budget=300 * 500 * 4)  # at the budget: allowed
    with pytest.raises(TfportInputError, match=r"Fill node .* --max-memory 599999 allows"):
        _sizes.check_static_sizes(ops, "g.pb", budget=599_999)
    _sizes.check_static_sizes(ops, "g.pb")  # no --max-memory cap in this process: no check
