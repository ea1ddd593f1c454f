"""Helpers shared by the contrib layer functions."""

from __future__ import annotations

from tfport.compat.contrib._tf import v1


def collect(collections, name: str, value):
    tf = v1()
    if collections:
        tf.add_to_collections(collections, value)
    return value


def var_collections(collections, name: str):
    if isinstance(collections, dict):
        collections = collections.get(name)
    return list(collections) if collections else None
