"""Run `tfport` as a person does: piped (plain stdout/stderr) or on a pseudo-terminal."""

from __future__ import annotations

import errno
import os
import pty
import subprocess
import sys

TFPORT = [sys.executable, "-m", "tfport"]


def user_env(**extra: str) -> dict[str, str]:
    """The environment of a person's shell: no test-only TensorFlow log settings."""
    env = {k: v for k, v in os.environ.items() if k not in ("TF_CPP_MIN_LOG_LEVEL", "NO_COLOR")}
    env.update(extra)
    return env


def piped(*args: object, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    """`tfport ARGS` with stdout and stderr captured (not terminals)."""
    return subprocess.run(
        [*TFPORT, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=user_env(**env),
    )


def on_terminal(*args: object, columns: int = 80, timeout: float = 300) -> tuple[int, str]:
    """`tfport ARGS` with stdout and stderr on one pseudo-terminal `columns` wide.

    Returns the exit code and everything the terminal received.
    """
    leader, follower = pty.openpty()
    env = user_env(COLUMNS=str(columns), LINES="50", TERM="xterm")
    proc = subprocess.Popen(
        [*TFPORT, *map(str, args)], stdin=follower, stdout=follower, stderr=follower, env=env
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError as err:  # EIO: the last writer closed the terminal
            if err.errno != errno.EIO:
                raise
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    code = proc.wait(timeout=timeout)
    return code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
