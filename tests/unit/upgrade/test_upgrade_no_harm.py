"""Code that runs is left alone, names resolve against the real TensorFlow, and the report
has one item per cause."""

from __future__ import annotations

import pytest
from tests.upgrade.upgrade_helpers import src

from tfport.upgrade import ReportItem, unresolved_names, upgrade_source
from tfport.upgrade._report import group_items

USES = """
tf.disable_v2_behavior()
flags = tf.flags
flags.DEFINE_string("out", None, "where")
FLAGS = tf.flags.FLAGS
tf.logging.info("x %s", tf.app.flags.FLAGS)
config = tf.ConfigProto(allow_soft_placement=True)
x = tf.placeholder(tf.float32, [None, 3])
y = tf.image.resize_bicubic(x, [4, 4])
s = tf.reduce_sum(x, keep_dims=True)
run = tf.app.run
"""
ALIASES = {
    "import": "import tensorflow.compat.v1 as tf\n",
    "from_compat": "from tensorflow.compat import v1 as tf\n",
    "assigned": "import tensorflow as tf\ntf = tf.compat.v1\n",
}


@pytest.mark.parametrize("form", list(ALIASES))
def test_compat_v1_code_in_every_alias_form_runs_as_is(form) -> None:
    code = ALIASES[form] + src(USES)
    assert unresolved_names(code) == ()
    result = upgrade_source(code, "a.py")
    assert result.runs_as_is and result.code == code and result.items == ()


SWITCH = {
    "import": "tf.disable_v2_behavior()",
    "from_compat": "tf.disable_v2_behavior()",
    "assigned": "tf.compat.v1.disable_v2_behavior()",  # before `tf = tf.compat.v1`
}


@pytest.mark.parametrize("form", list(ALIASES))
def test_compat_v1_session_code_without_the_switch_gets_it_after_the_import(form) -> None:
    uses = src(USES).replace("tf.disable_v2_behavior()\n", "")
    code = ALIASES[form] + uses
    result = upgrade_source(code, "a.py")
    assert not result.runs_as_is and result.unresolved == ()
    first = ALIASES[form].splitlines()[0]
    assert result.code == code.replace(first + "\n", f"{first}\n{SWITCH[form]}\n", 1)
    (item,) = [i for i in result.items if "disable_v2_behavior" in i.message]
    assert (item.line, item.level) == (1, "INFO")
    assert item.message.startswith(
        f"Added {SWITCH[form]}: TF 1.x graph-mode code ('tf.placeholder')"
    )


@pytest.mark.parametrize("form", list(ALIASES))
def test_compat_v1_code_that_needs_a_fix_keeps_its_imports_and_names(form) -> None:
    code = ALIASES[form] + src(USES) + "h = tf.contrib.layers.layer_norm(x)\n"
    result = upgrade_source(code, "a.py")
    assert not result.runs_as_is and not result.unresolved
    assert result.code.startswith(ALIASES[form]) or ALIASES[form] in result.code
    assert "tfport.compat.contrib.layers.layer_norm(x)" in result.code
    for kept in ("flags = tf.flags\n", "tf.image.resize_bicubic(x", "keep_dims=True"):
        assert kept in result.code, kept
    assert "tf.compat.v1.compat" not in result.code and "tf.image.resize(" not in result.code


def test_tf1_code_is_upgraded_to_the_tf1_symbols() -> None:
    result = upgrade_source("import tensorflow as tf\n" + src(USES), "a.py")
    assert not result.unresolved, result.unresolved
    for expected in (
        "flags = tf.compat.v1.flags\n",
        "tf.compat.v1.image.resize_bicubic(x, [4, 4])",
        "tf.compat.v1.reduce_sum(x, keep_dims=True)",
    ):
        assert expected in result.code, expected


@pytest.mark.parametrize(
    "code",
    [
        "from tensorflow.core.protobuf import rewriter_config_pb2\n"
        "c = rewriter_config_pb2.RewriterConfig(layout_optimizer=2)\n",
        "import tensorflow as tf\nc = tf.core.protobuf.rewriter_config_pb2.RewriterConfig\n",
        "from tensorflow.python.ops import linalg_ops, array_ops, math_ops\n"
        "x = array_ops.reshape(math_ops.range(4), [2, 2])\ny = linalg_ops.eye(2)\n",
        "import tensorflow.python.ops.array_ops as ao\nx = ao.reshape\n",
        "from tensorflow.core.framework import graph_pb2\ng = graph_pb2.GraphDef()\n",
    ],
    ids=["from_proto", "dotted_proto", "python_ops", "import_python_ops", "graph_pb2"],
)
def test_tensorflow_core_and_python_names_resolve(code) -> None:
    assert unresolved_names(code) == ()
    assert upgrade_source(code).runs_as_is


@pytest.mark.parametrize(
    "code,name",
    [
        ("from tensorflow.python.ops import no_such_ops\n", "tf.python.ops.no_such_ops"),
        ("from tensorflow.python.ops import array_ops\nx = array_ops.no_such\n",
         "tf.python.ops.array_ops.no_such"),
        ("from tensorflow.core.protobuf import rewriter_config_pb2 as r\nx = r.NoSuch\n",
         "tf.core.protobuf.rewriter_config_pb2.NoSuch"),
        ("import tensorflow as tf\ns = tf.reduce_sum(x, keep_dims=True)\n", "tf.reduce_sum"),
    ],
    ids=["module", "module_attr", "proto_attr", "keyword"],
)  # fmt: skip
def test_what_does_not_resolve_is_still_reported(code, name) -> None:
    found = unresolved_names(code)
    assert len(found) == 1 and f"'{name}'" in found[0].message, found


def test_one_item_per_cause_with_its_lines() -> None:
    uses = "".join(f"f{i} = tf.flags.FLAGS\n" for i in range(40))
    code = "import tensorflow as tf\nimport tensorflow.compat.v1 as v1\n" + uses
    code += "s = v1.contrib.nonexistent\n"
    result = upgrade_source(code, "a.py")
    renamed = [i for i in result.items if "tf.flags" in i.message]
    assert len(renamed) == 1 and renamed[0].message.endswith("(40 uses: lines 3-42)")
    assert len(result.unresolved) == 1


def test_group_items_keeps_distinct_causes_apart() -> None:
    items = [ReportItem(5, 0, "ERROR", "a"), ReportItem(2, 1, "ERROR", "a")]
    items += [ReportItem(3, 0, "WARNING", "a"), ReportItem(9, 0, "ERROR", "b")]
    grouped = group_items(items)
    assert [(i.line, i.level, i.message) for i in grouped] == [
        (2, "ERROR", "a (2 uses: lines 2, 5)"),
        (3, "WARNING", "a"),
        (9, "ERROR", "b"),
    ]
