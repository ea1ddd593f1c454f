"""The numbers of the upgrade acceptance trees' ORIGINAL code, on the legacy stack.

``python upgrade_trees.py NAME OUT_DIR`` runs the entry script of
``tests/upgrade/data/trees/<tree>/`` unmodified and keeps what it writes as
``OUT_DIR/numbers.json``. Trees written against TF 2.x (``compat_flags``, ``internals``,
``plain``) run on TF 2.15 as they are. TF 1.x trees (``tf1_contrib``, ``resize``) cannot
run on any TF 2 as written: their ``import tensorflow`` gets a TF 1.x stand-in,
``tf.compat.v1`` (after ``disable_v2_behavior()``, TF 1.x's graph mode) plus
``tf.contrib.layers.layer_norm`` as TF 1.15 defined it (the function of
``tests/upgrade/data/make_bert_checkpoint.py``). Nothing else is changed.
"""

import builtins
import importlib.util
import os
import runpy
import sys
import types

ARTIFACTS = (
    "upgrade_compat_flags",
    "upgrade_tf1_contrib",
    "upgrade_resize",
    "upgrade_internals",
    "upgrade_plain",
)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "upgrade", "data")
# artifact -> (tree folder, entry script, TF 1.x code)
TREES = {
    "upgrade_compat_flags": ("compat_flags", "train.py", False),
    "upgrade_tf1_contrib": ("tf1_contrib", "run.py", True),
    "upgrade_resize": ("resize", "resize.py", True),
    "upgrade_internals": ("internals", "solve.py", False),
    "upgrade_plain": ("plain", "predict.py", False),
}


def _tf1_standin(tree: str):
    """Makes ``import tensorflow`` in the files of `tree` see TF 1.x's API."""
    spec = importlib.util.spec_from_file_location(
        "make_bert_checkpoint", os.path.join(DATA, "make_bert_checkpoint.py")
    )
    bert = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bert)  # disables v2 behaviour, defines TF 1.15's layer_norm

    class _TF1(types.ModuleType):
        def __getattr__(self, name):
            return getattr(bert.v1, name)

    shim = _TF1("tensorflow")
    shim.contrib = types.SimpleNamespace(layers=types.SimpleNamespace(layer_norm=bert.layer_norm))
    real_import = builtins.__import__

    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        here = os.path.dirname(os.path.abspath((globals or {}).get("__file__", "") or "."))
        if name == "tensorflow" and here == tree:
            return shim
        return real_import(name, globals, locals, fromlist, level)

    builtins.__import__ = _import


def main(argv):
    name, out_dir = argv
    folder, script, tf1 = TREES[name]
    tree = os.path.join(DATA, "trees", folder)
    if tf1:
        _tf1_standin(tree)
    sys.path.insert(0, tree)
    sys.argv = [script, f"--out={os.path.join(os.path.abspath(out_dir), 'numbers.json')}"]
    try:
        runpy.run_path(os.path.join(tree, script), run_name="__main__")
    except SystemExit as err:  # tf.app.run exits
        if err.code not in (None, 0):
            raise


if __name__ == "__main__":
    main(sys.argv[1:])
