"""Frozen GraphDefs and TF1 SavedModels: inspect without running, convert to TF2, refuse unsafe ops.

Example:
    >>> from tfport import graph
    >>> report = graph.inspect_graph("frozen.pb")  # no TensorFlow import  # doctest: +SKIP
    >>> graph.convert("frozen.pb", "/tmp/saved_model", verify=True)  # doctest: +SKIP
    >>> fn = graph.load_frozen("frozen.pb")  # doctest: +SKIP
    >>> graph.check_runnable("saved_model_dir")  # refuses unsafe ops, in one line  # doctest: +SKIP
"""

from __future__ import annotations

from tfport.graph._convert import convert, load_frozen, load_saved_model_v1
from tfport.graph._inspect import inspect_graph
from tfport.graph._ops import SAFE_OPS
from tfport.graph._plan import sanitize as signature_key
from tfport.graph._render import render_inspect
from tfport.graph._reports import ConvertReport, InspectReport, UnsafeNode
from tfport.graph._runnable import check_runnable, is_tf2_saved_model
from tfport.graph._textstream import Limits

__all__ = [
    "SAFE_OPS",
    "ConvertReport",
    "InspectReport",
    "Limits",
    "UnsafeNode",
    "check_runnable",
    "convert",
    "inspect_graph",
    "is_tf2_saved_model",
    "load_frozen",
    "load_saved_model_v1",
    "render_inspect",
    "signature_key",
]
