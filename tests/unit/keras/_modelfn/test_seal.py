"""The seal that lets `verify` import an export's model.py: this user's HMAC of its bytes."""

from __future__ import annotations

import os
import stat

from tfport.keras._modelfn import _seal


def test_a_seal_holds_for_the_same_bytes_under_the_same_key_only(tmp_path, monkeypatch):
    monkeypatch.setenv("TFPORT_HOME", str(tmp_path / "home"))
    source = {"model.py": b"import keras\n"}
    seal = _seal.seal_of(source)
    key = tmp_path / "home" / _seal.KEY_FILE
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    assert _seal.is_sealed(source, seal)
    assert _seal.seal_of(source) == seal  # the key is made once, then read
    assert not _seal.is_sealed({"model.py": b"import keras\n "}, seal)
    assert not _seal.is_sealed({**source, "preprocess.py": b"import os\n"}, seal)  # a file more
    assert not _seal.is_sealed(source, {**seal, "hmac_sha256": "0" * 64})
    assert not _seal.is_sealed(source, None) and not _seal.is_sealed(source, {"x": 1})
    monkeypatch.setenv("TFPORT_HOME", str(tmp_path / "other"))
    assert not _seal.is_sealed(source, seal)  # no key here: nothing is sealed
    assert not (tmp_path / "other").exists()  # checking never makes a key
    _seal.seal_of({"model.py": b"x"})
    assert not _seal.is_sealed(source, seal)  # another key
