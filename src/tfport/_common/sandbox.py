"""Confinement of the child process that runs an artifact: Landlock, memory, lifetime.

Linux only, through raw system calls (``ctypes``, no dependency):

- :func:`die_with_parent`: ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, so the child cannot
  outlive the ``tfport`` process that started it;
- :func:`restrict`: a Landlock ruleset (kernel >= 5.13, unprivileged) under which the
  process and everything it starts may read only the paths given, write only the
  folders given, and (Landlock ABI >= 4) open no TCP connection;
- :func:`limit_memory`: ``RLIMIT_AS`` set to the current address space plus a budget,
  so what the artifact's run adds is bounded, not TensorFlow's own mappings.

Example:
    >>> landlock_abi() >= 0
    True
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import site
import sys
from collections.abc import Iterable

# prctl options
_budget: int | None = None  # what limit_memory allowed this process to add
_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38
# Landlock system calls (the same numbers on x86_64 and aarch64)
_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
# Landlock filesystem rights, by the ABI that introduced them
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1, 1 << 1, 1 << 2, 1 << 3
_FS_ABI1 = (1 << 13) - 1  # EXECUTE .. MAKE_SYM
_REFER, _TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE  # what a file rule may hold
_READ = _EXECUTE | _READ_FILE | _READ_DIR
# Landlock network rights (ABI 4)
_BIND_TCP, _CONNECT_TCP = 1, 1 << 1

# What TensorFlow and Python read besides their installation (pseudo-files, libraries).
SYSTEM_READ = (
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/opt/conda",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/os-release",
    "/etc/mime.types",
    "/proc/self",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/stat",
    "/proc/sys/kernel",
    "/sys/devices/system/cpu",
    "/sys/devices/system/node",
    "/sys/fs/cgroup",
    "/dev/null",
    "/dev/zero",
    "/dev/urandom",
    "/dev/random",
)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    libc.prctl.restype = ctypes.c_int
    return libc


def _prctl(option: int, value: int) -> None:
    if _libc().prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")


def die_with_parent(parent: int) -> None:
    """Makes the kernel kill this process (SIGKILL) when its parent exits; exits at once
    if the parent `parent` (a pid) is already gone.

    Example:
        >>> die_with_parent(os.getppid())  # doctest: +SKIP
    """
    if sys.platform.startswith("linux"):
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the prctl took effect
        os._exit(1)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; 0 where Landlock is missing or disabled.

    Example:
        >>> landlock_abi() in range(0, 100)
        True
    """
    if not sys.platform.startswith("linux"):
        return 0
    version = _libc().syscall(
        _SYS_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION
    )
    return max(int(version), 0)


def default_read_paths() -> list[str]:
    """The Python/TensorFlow installation (prefixes, site-packages, the `sys.path`
    folders but the first, which is the working folder of `python -m`, the folder holding
    tfport, Keras's config folder) and :data:`SYSTEM_READ`.

    Example:
        >>> sys.prefix in default_read_paths()
        True
    """
    paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)]
    paths += [os.path.realpath(sys.executable)]
    paths += site.getsitepackages() + [site.getusersitepackages()]
    # sys.path[0] is the working folder of `python -m`: not the installation
    paths += [p for p in sys.path[1:] if p]
    paths.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    paths.append(os.environ.get("KERAS_HOME") or os.path.expanduser("~/.keras"))
    return paths + list(SYSTEM_READ)


def restrict(read: Iterable[str], write: Iterable[str], abi: int | None = None) -> int:
    """Confines this process (and all it starts) with Landlock: read only `read`, read
    and write only `write`, no TCP bind or connect (ABI >= 4). Irreversible. Call it
    while the process has one thread: threads already running stay unconfined.

    Paths that do not exist are skipped. Returns the ABI used (0: nothing was done,
    Landlock is missing).

    Raises:
        OSError: Landlock is present but refused the ruleset.

    Example:
        >>> restrict(default_read_paths(), ["/tmp/tfport-child"])  # doctest: +SKIP
        7
    """
    abi = landlock_abi() if abi is None else abi
    if abi <= 0:
        return 0
    if len(os.listdir("/proc/self/task")) > 1:  # Landlock binds only the calling thread
        raise OSError("a sandbox must be entered before the process starts other threads")
    handled = _FS_ABI1 | (_REFER if abi >= 2 else 0) | (_TRUNCATE if abi >= 3 else 0)
    attr = _RulesetAttr(handled, (_BIND_TCP | _CONNECT_TCP) if abi >= 4 else 0)
    size = ctypes.sizeof(attr) if abi >= 4 else 8
    libc = _libc()
    ruleset = int(libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0))
    if ruleset < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock_create_ruleset: {os.strerror(err)}")
    try:
        for path in dict.fromkeys(read):
            _add_path(libc, ruleset, path, _READ & handled)
        for path in dict.fromkeys(write):
            _add_path(libc, ruleset, path, handled)
        _prctl(_PR_SET_NO_NEW_PRIVS, 1)
        if libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"landlock_restrict_self: {os.strerror(err)}")
    finally:
        os.close(ruleset)
    return abi


def _add_path(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # absent: nothing to allow
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rule = _PathBeneathAttr(rights, fd)
        if libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"landlock_add_rule({path}): {os.strerror(err)}")
    finally:
        os.close(fd)


def address_space() -> int:
    """This process's current virtual memory size in bytes (``VmSize``).

    Example:
        >>> address_space() > 0
        True
    """
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def limit_memory(budget: int) -> int:
    """Caps this process's address space at its current size plus `budget` bytes; returns
    the cap.

    Example:
        >>> limit_memory(1 << 40)  # doctest: +SKIP
    """
    global _budget
    _budget = budget
    cap = address_space() + budget
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    return cap


def memory_budget() -> int | None:
    """The bytes :func:`limit_memory` allowed this process to add, or None (no cap set).

    Example:
        >>> memory_budget() is None or memory_budget() > 0
        True
    """
    return _budget


def physical_memory() -> int:
    """Bytes of physical memory of this machine.

    Example:
        >>> physical_memory() > 0
        True
    """
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
