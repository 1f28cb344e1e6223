"""``stem="rouge155"`` against the script's own ``stem()`` and ``MorphStem()`` (run by perl).

The word list (tests/rouge155_oracle.py ``vocabulary``): every field of the WordNet .exc files
and the SMART stopwords, and their letters with each Porter suffix on every 40th of them
(about 85,000 words; the whole product, 1.9 million words, agreed in a longer run too: see
docs/official-scorers.md).  Both DB readings: built from the .exc files (in the pinned name
order) and empty.
"""
from __future__ import annotations

import pytest

import rouge155_oracle as oracle
from paddle_rougel.rouge155.porter import stem
from paddle_rougel.rouge155.stem import exception_table, morph_stem


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return oracle.build_data(tmp_path_factory.mktemp("r155stem"))


@pytest.fixture(scope="module")
def words(data):
    w = oracle.vocabulary(data, every=40)
    assert len(w) > 50_000
    return w


def test_porter_and_morphstem_exc_db(data, words):
    table = exception_table(data + "/WordNet-2.0-Exceptions")
    assert len(table) == 5930
    got = oracle.perl_stems(data, words)
    bad = [(w, p, stem(w)) for w, (p, _) in zip(words, got) if stem(w) != p]
    assert not bad, bad[:20]
    bad = [(w, m, morph_stem(w, table)) for w, (_, m) in zip(words, got) if morph_stem(w, table) != m]
    assert not bad, bad[:20]
    # the four keys two files disagree on: the last file in name order wins
    assert [table[k] for k in ("best", "better", "is", "testes")] == ["well", "well", "be", "testes"]


def test_morphstem_empty_db(tmp_path, words):
    data = oracle.build_data(tmp_path, empty=True)
    sample = words[::6]
    got = oracle.perl_stems(data, sample)
    bad = [(w, m) for w, (_, m) in zip(sample, got) if morph_stem(w, {}) != m]
    assert not bad, bad[:20]
    assert morph_stem("went", {}) == "went" and morph_stem("children", {}) == "children"
