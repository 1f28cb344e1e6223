"""Text as a person wrote it, for pages that show it (the report).

* :func:`bidi_safe`: a user string made safe to isolate (``<bdi>``, or FSI ... PDI in SVG): a
  right-to-left override (U+202E) in a question id then reorders that id only, never the
  numbers after it.  Two things end an isolate from inside the string and are neutralised: a
  paragraph separator (bidi class B) becomes a space, and a PDI (U+2069) with no opener
  before it in the string gets one (an FSI, invisible) at the front.
* :func:`token_spans`: where each token of a text lies in the text, so that the counted tokens
  can be marked in the original (case, punctuation, spacing as written) rather than shown as
  tokens ("a u s profits"); ``None`` when the tokens cannot be placed exactly (a custom
  tokenizer that rewrites its text): then the tokens themselves are shown.
* :func:`marked_text`: ``[(marked, text)]`` runs of the original text, the gap between two
  counted tokens inside the run that marks them.
"""
from __future__ import annotations

import re
from typing import Any, List, Optional, Sequence, Tuple

__all__ = ["FSI", "PDI", "PARAGRAPH_SEPARATORS", "bidi_safe", "token_spans", "marked_text"]

FSI, PDI = "\u2068", "\u2069"
# every character of bidi class B (unicodedata.bidirectional(c) == "B"; tests check the list)
PARAGRAPH_SEPARATORS = "\n\r\x1c\x1d\x1e\x85\u2029"
_SEPARATORS = re.compile(f"[{PARAGRAPH_SEPARATORS}]")
_OPENERS = "\u2066\u2067\u2068"  # LRI, RLI, FSI
_WORD = re.compile("[a-z0-9]+")   # rouge-score's tokens (before stemming), in the lowercased text


def bidi_safe(text: Any) -> str:
    """``text`` (``str()`` of it) with the same length plus one FSI per unmatched PDI in
    front: safe to put inside an isolate (see the module doc)."""
    s = _SEPARATORS.sub(" ", str(text))
    depth = unmatched = 0
    if PDI in s:
        for c in s:
            if c in _OPENERS:
                depth += 1
            elif c == PDI:
                if depth:
                    depth -= 1
                else:
                    unmatched += 1
    return FSI * unmatched + s


def _tokens(tokens: Any) -> Optional[List[str]]:
    toks = list(tokens)
    return toks if all(isinstance(t, str) and t for t in toks) else None


def token_spans(text: str, tokens: Any, text_settings) -> Optional[List[Tuple[int, int]]]:
    """``[(start, end)]`` of each token of ``text`` (``tokens``: what ``text_settings``' tokenizer
    made of it, a ``str`` for characters), or ``None`` when they cannot be placed exactly.

    rouge-score tokens are the ``[a-z0-9]`` runs of the lowercased text (each checked against
    the tokenizer, stemming included); every other tokenizer's tokens are found in order in the
    text (lowercased if the settings lowercase), with only whitespace between them."""
    toks = _tokens(tokens)
    if not isinstance(text, str) or toks is None:
        return None
    lower = text_settings is not None and text_settings.lowercase
    folded = text.lower() if lower else text
    if len(folded) != len(text):  # a letter whose lowercase is longer: offsets would move
        return None
    if text_settings is not None and text_settings.tokenize == "rouge_score":
        spans = [m.span() for m in _WORD.finditer(folded)]
        if len(spans) != len(toks):
            return None
        if text_settings.stem:
            tok = text_settings.tokenizer()
            ok = all(tuple(tok(text[s:e])) == (t,) for (s, e), t in zip(spans, toks))
        else:
            ok = all(folded[s:e] == t for (s, e), t in zip(spans, toks))
        return spans if ok else None
    spans, pos = [], 0
    for t in toks:
        k = folded.find(t, pos)
        if k < 0 or (k > pos and not folded[pos:k].isspace()):
            return None  # the tokenizer dropped or rewrote something other than whitespace
        spans.append((k, k + len(t)))
        pos = k + len(t)
    return spans


def marked_text(text: str, spans: Sequence[Tuple[int, int]], marks: Sequence[bool]) -> List[Tuple[bool, str]]:
    """Runs ``[(marked, text)]`` covering all of ``text``: a token's span is marked when its mark
    is set, and so is the gap between two marked tokens (one highlight for "U.S. profits")."""
    runs: List[Tuple[bool, str]] = []

    def add(m: bool, s: str) -> None:
        if not s:
            return
        if runs and runs[-1][0] == m:
            runs[-1] = (m, runs[-1][1] + s)
        else:
            runs.append((m, s))

    pos, prev = 0, False
    for (s, e), m in zip(spans, marks):
        add(prev and bool(m), text[pos:s])
        add(bool(m), text[s:e])
        pos, prev = e, bool(m)
    add(False, text[pos:])
    return runs
