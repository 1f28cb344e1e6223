"""paddle_rougel.cli.textmarks: user strings made safe to isolate, and tokens placed in the text as
written (what the report marks). The layout itself is checked in Chromium (test_report.py);
here the pieces, against Python's own Unicode database and the tokenizers themselves."""
import random
import sys
import unicodedata

import pytest

from paddle_rougel.core.text import TextSettings
from paddle_rougel.cli.textmarks import FSI, PARAGRAPH_SEPARATORS, bidi_safe, marked_text, token_spans


def test_paragraph_separators_are_every_bidi_class_b_character():
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if unicodedata.bidirectional(chr(c)) == "B")
    assert sorted(PARAGRAPH_SEPARATORS) == sorted(every)


@pytest.mark.parametrize("text, want", [
    ("abc", "abc"),
    ("q\u202e1004", "q\u202e1004"),                 # an override stays: the isolate around it ends it
    ("q\u2069\u202e1", FSI + "q\u2069\u202e1"),      # a PDI with no opener gets one in front
    ("\u2067ab\u2069\u2069", FSI + "\u2067ab\u2069\u2069"),
    ("\u2066a\u2069", "\u2066a\u2069"),              # matched: nothing added
    ("a\u2029b\nc\x1cd\x85e\rf", "a b c d e f"),     # paragraph separators end every isolate: spaces
    (1004, "1004"),
])
def test_bidi_safe(text, want):
    assert bidi_safe(text) == want


def _check_spans(text, settings):
    tok = settings.tokenizer()
    tokens = tok(text)
    spans = token_spans(text, tokens, settings)
    assert spans is not None, (text, tokens)
    toks = list(tokens)
    assert len(spans) == len(toks)
    fold = str.lower if settings.lowercase else (lambda x: x)
    pos = 0
    for (s, e), t in zip(spans, toks):
        assert s >= pos
        piece = text[s:e]
        assert tuple(tok(piece)) == ((t,) if not isinstance(tokens, str) else tuple(t)), (piece, t)
        if not settings.stem:
            assert fold(piece) == t
        pos = e


ALPHABET = "abcXYZ019 .,-'\t\u00e9\u4e2d\u6587\u3002\u00df"


@pytest.mark.parametrize("settings", [
    TextSettings(), TextSettings(normalize="nows"), TextSettings(lowercase=True), TextSettings("whitespace"),
    TextSettings("whitespace", lowercase=True), TextSettings("zh"), TextSettings("rouge_score"),
    TextSettings("rouge_score", stem=True)], ids=lambda s: s.signature())
def test_token_spans_place_every_token_of_the_tokenizer(settings):
    rng = random.Random(7)
    texts = ["A.U.S. Profits ROSE 5%, analysts said.", "running runs ran", "  ", "", "中文 text，3.11版"]
    texts += ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40))) for _ in range(300)]
    for text in texts:
        if settings.lowercase and len(text.lower()) != len(text):
            continue
        _check_spans(text, settings)


def test_token_spans_refuse_what_cannot_be_placed():
    ws = TextSettings("whitespace")
    assert token_spans("a b", ("a", "x"), ws) is None            # not in the text
    assert token_spans("a-b", ("a", "b"), ws) is None            # something other than whitespace dropped
    assert token_spans("a b", (1, 2), ws) is None                # token ids: nothing to place
    assert token_spans("\u0130x", "i\u0307x", TextSettings(lowercase=True)) is None  # lowercase is longer
    rs = TextSettings("rouge_score")
    assert token_spans("A.B", ("a",), rs) is None                # a token missing


def test_marked_text_marks_tokens_and_the_gaps_between_marked_ones():
    text = "A.U.S. Profits rose!"
    spans = [(0, 1), (2, 3), (4, 5), (7, 14), (15, 19)]
    runs = marked_text(text, spans, [False, True, True, True, False])
    assert runs == [(False, "A."), (True, "U.S. Profits"), (False, " rose!")]
    assert "".join(t for _, t in runs) == text
    assert marked_text("ab", [(0, 1), (1, 2)], [True, True]) == [(True, "ab")]
    assert marked_text("", [], []) == []
