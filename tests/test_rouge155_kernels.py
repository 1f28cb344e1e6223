"""The C kernels behind rougeW / rougeS* / rougeSU* (and ``paddle-rougel rouge155``) against
the script's algorithms transcribed in tests/rouge155_oracle.py: the weighted-LCS DP with its
backtrack, and skip-bigram counting; exact (== on floats), random token sequences."""
from __future__ import annotations

import random

import rouge155_oracle as oracle
from paddle_rougel.rouge155 import kernels
from paddle_rougel.rouge155.evaluate import weighted_hits


def _seq(rng, alphabet):
    return [rng.choice(alphabet) for _ in range(rng.choice([0, 1, 2, 3, 5, 8, 13, 21, 34]))]


def test_the_c_extension_is_built():
    assert kernels._C is not None, "paddle_rougel._r155 is not built (pip install -e .)"


def test_weighted_lcs_against_the_scripts_dp():
    rng = random.Random(35)
    for k in range(600):
        alphabet = "abcdefgh"[: rng.randint(1, 8)]
        model, peer = _seq(rng, alphabet), _seq(rng, alphabet)
        w = rng.choice([1.2, 1.5, 2.0, 0.5, 1.0, 3.7])
        assert weighted_hits(model, peer, w) == oracle.wlcs_hit(model, peer, w), (k, model, peer, w)


def test_skip_bigrams_against_the_script():
    rng = random.Random(36)
    for k in range(400):
        alphabet = ["x", "y", "z", "x y", "w"][: rng.randint(1, 5)]   # "x y" is no pair x, y
        cand = _seq(rng, alphabet)
        refs = [_seq(rng, alphabet) for _ in range(rng.randint(1, 3))]
        skip, uni = rng.choice([-1, 0, 1, 4]), rng.random() < 0.5
        hits, cc, counts = kernels.skip_overlaps(cand, refs, skip, uni)
        cg = oracle.skip_bigrams(cand, skip, uni)
        assert cc == sum(cg.values()), (k, cand, skip, uni)
        for ref, h, rn in zip(refs, hits, counts):
            rg = oracle.skip_bigrams(ref, skip, uni)
            assert rn == sum(rg.values())
            assert h == sum(min(c, cg.get(g, 0)) for g, c in rg.items()), (k, cand, ref, skip, uni)


def test_a_token_with_a_space_is_no_skip_bigram():
    """Token lists given as such may hold spaces: the unigram "x y" is not the pair (x, y)
    (the string keys of the earlier counter joined them: 1 hit here)."""
    from paddle_rougel.metrics.rouge_s import skip_counts

    hits, cn, rn, rc = skip_counts([["x y", "w"]], [[["x", "y"]]], 4, True)
    assert hits.tolist() == [0] and cn.tolist() == [2] and rn.tolist() == [2]


def test_light_xml_tree_reads_configs_as_minidom(tmp_path, monkeypatch):
    """rouge155's light DOM (xmltree) gives read_evals what minidom gives, and steps aside
    (None) for a comment, CDATA, a DOCTYPE or a namespace prefix."""
    from paddle_rougel.rouge155 import config, xmltree

    cfg = oracle.write_cases(str(tmp_path / "cases"), 6, seed=3)
    variants = [open(cfg).read(),
                '<ROUGE_EVAL><EVAL ID="a&amp;1"><PEER-ROOT> /x &amp; y\n</PEER-ROOT><MODEL-ROOT>m</MODEL-ROOT>'
                '<INPUT-FORMAT TYPE="SPL"/><PEERS><P ID="1">p&lt;1\n<b/>q</P></PEERS><MODELS><M ID="2">'
                'm1</M><M ID="3"></M></MODELS></EVAL><EVAL ID="2"/></ROUGE_EVAL>',
                '<?xml version="1.0"?>\n<ROUGE_EVAL><EVAL ID="1"><PEERS><P ID="1">a<!-- c -->b</P></PEERS>'
                '</EVAL></ROUGE_EVAL>']
    for k, text in enumerate(variants):
        path = tmp_path / f"c{k}.xml"
        path.write_text(text)
        fast = config.read_evals(str(path))
        with monkeypatch.context() as m:
            m.setattr(xmltree, "parse", lambda data: None)
            assert config.read_evals(str(path)) == fast, k
    for odd in (b"<a><!-- c --></a>", b"<a><![CDATA[x]]></a>", b"<!DOCTYPE a><a/>", b"<x:a xmlns:x='u'/>",
                b"<a><?pi x?></a>", b"<a>"):
        assert xmltree.parse(odd) is None, odd
