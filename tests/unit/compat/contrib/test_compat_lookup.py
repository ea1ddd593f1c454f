"""`tfport.compat.contrib.lookup`: contrib's table builders with their written-out arguments."""

from __future__ import annotations

import pytest

from tfport.compat.contrib import lookup


@pytest.fixture()
def tf():
    from tfport._common.tfenv import import_tf

    v1 = import_tf().compat.v1
    with v1.Graph().as_default():
        yield v1


def _run(tf, value):
    with tf.Session() as session:
        session.run(tf.tables_initializer())
        return session.run(value)


def test_tables_from_a_tensor_and_back(tf) -> None:
    words = tf.constant(["b", "zz", "a"])
    ids = lookup.index_table_from_tensor(tf.constant(["a", "b", "c"]), default_value=-5)
    names = lookup.index_to_string(tf.constant([2, 0, 7], tf.int64), ["a", "b", "c"])
    got_ids, got_names = _run(tf, [ids.lookup(words), names])
    assert got_ids.tolist() == [1, -5, 0]  # position in the vocabulary, else default_value
    assert got_names.tolist() == [b"c", b"a", b"UNK"]


def test_tables_from_a_vocabulary_file(tf, tmp_path) -> None:
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("x\ny\nz\n")
    ids = lookup.index_table_from_file(str(vocab), num_oov_buckets=1)
    names = lookup.index_to_string_table_from_file(str(vocab), default_value="?")
    got_ids, got_names = _run(
        tf,
        [ids.lookup(tf.constant(["z", "x", "new"])), names.lookup(tf.constant([1, 9], tf.int64))],
    )
    assert got_ids.tolist() == [2, 0, 3]  # one OOV bucket after the 3 words
    assert got_names.tolist() == [b"y", b"?"]
