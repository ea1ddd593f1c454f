"""Fixtures of the Keras unit tests: those of the Keras scenario tests (`tfport_mod`, `data`)."""

from __future__ import annotations

from tests.keras.conftest import data, tfport_mod

__all__ = ["data", "tfport_mod"]
