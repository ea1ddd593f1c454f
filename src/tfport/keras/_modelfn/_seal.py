"""The seal of an export folder: proof that `tfport keras export` on this machine wrote
its `model.py`, so that `tfport verify` may import it (it is code) without `--trust`.

The seal is an HMAC-SHA256 of the code files' bytes (`model.py`, and `preprocess.py`
where the model_fn parsed tf.Examples) under a key kept in tfport's home
(`$TFPORT_HOME`, default `~/.tfport`; `export.key`, made on the first export, readable by
its owner only). A folder from another machine, or a `model.py` edited since, is not sealed:
verify then needs `--trust`.

Example:
    >>> seal = seal_of({"model.py": b"import keras\\n"})  # doctest: +SKIP
    >>> is_sealed({"model.py": b"import keras\\n"}, seal)  # doctest: +SKIP
    True
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from collections.abc import Mapping

from tfport._common.errors import TfportInputError, message

KEY_FILE = "export.key"
_KEY_BYTES = 32


def home() -> str:
    """tfport's folder for this user: `$TFPORT_HOME`, else `~/.tfport`.

    Example:
        >>> home()  # doctest: +SKIP
        '/home/ana/.tfport'
    """
    return os.environ.get("TFPORT_HOME") or os.path.join(os.path.expanduser("~"), ".tfport")


def _read_key(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            key = f.read()
    except FileNotFoundError:
        return None
    return key if len(key) == _KEY_BYTES else None


def _key(create: bool) -> bytes | None:
    path = os.path.join(home(), KEY_FILE)
    key = _read_key(path)
    if key is not None or not create:
        return key
    os.makedirs(home(), mode=0o700, exist_ok=True)
    tmp = f"{path}.{os.getpid()}.{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(secrets.token_bytes(_KEY_BYTES))
    try:
        os.link(tmp, path)  # the first writer wins; a concurrent export reads its key
    except FileExistsError:
        pass
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    key = _read_key(path)
    if key is None:
        raise TfportInputError(
            message(
                "tfport's export key is damaged",
                f"Remove {path} (exports sealed with it will need --trust)",
                path=path,
            )
        )
    return key


def _digest(key: bytes, files: Mapping[str, bytes]) -> str:
    listing = "".join(
        f"{name}\0{hashlib.sha256(data).hexdigest()}\n" for name, data in sorted(files.items())
    )
    return hmac.new(key, listing.encode(), hashlib.sha256).hexdigest()


def seal_of(files: Mapping[str, bytes]) -> dict[str, object]:
    """The seal of an export's code files (`report.json`'s `"seal"`): their sha256 and an
    HMAC of them under this user's key.

    Example:
        >>> sorted(seal_of({"model.py": b"x = 1\\n"}))  # doctest: +SKIP
        ['files', 'hmac_sha256']
    """
    key = _key(create=True)
    assert key is not None
    return {
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())},
        "hmac_sha256": _digest(key, files),
    }


def is_sealed(files: Mapping[str, bytes], seal: object) -> bool:
    """Whether `seal` (from report.json) is this user's seal of exactly these files.

    Example:
        >>> is_sealed({"model.py": b"x = 1\\n"}, {"hmac_sha256": "00"})
        False
    """
    key = _key(create=False)
    if key is None or not isinstance(seal, dict):
        return False
    given = seal.get("hmac_sha256")
    if not isinstance(given, str):
        return False
    return hmac.compare_digest(given, _digest(key, files))
