"""Tokenization hints: a one-line warning when the text settings do not fit the text.

Two mistakes give a number without any error:

* English scored with the default ``tokenize="char"``: every character is a
  token (and the command line removes the spaces first), so candidates share
  letters, not words, with their references (two English lines of
  ``tests/test_hints.py``: 75.90 per character, 72.87 per word);
* CJK text without spaces scored with a word tokenizer: ``"whitespace"`` makes
  a whole sentence one token, ``"rouge_score"`` drops every character outside
  ``a-z0-9`` (DuReader with ``--config rouge155`` gives a meaningless 0.00).

Each metric (each accumulator; each :func:`paddle_rougel.compute` call) looks
at the first :data:`SAMPLE` strings it is given, before any text setting is
applied, and warns at most once, with a :class:`TokenizationHint` (a
``UserWarning``) naming what to pass instead.  The rules:

* a string *looks English* when at least two whitespace-separated pieces hold
  ASCII letters and ASCII letters are more than half of its non-space
  characters; the ``char`` hint fires when more than half of the sampled
  non-empty strings look English;
* a string *is CJK* when CJK characters are more than half of its non-space
  characters; the word-tokenizer hint fires when more than half of the sampled
  non-empty strings are CJK and, for ``whitespace``, the pieces holding CJK
  average more than 4 CJK characters (segmented text, ``今天 天气 很 好``,
  is what that tokenizer is for); ``rouge_score`` drops CJK however spaced.

Token lists are never looked at (they are scored as given), nor text under
``zh``, ``jieba`` or a callable tokenizer.  Silence the hints with
``warnings.filterwarnings("ignore", category=paddle_rougel.TokenizationHint)``;
on the command line, naming the tokenizer (``--tokenize char``, or a config
file that sets it) silences the English hint.

>>> import warnings
>>> h = Hinter(TextSettings())
>>> with warnings.catch_warnings(record=True) as w:
...     warnings.simplefilter("always")
...     h(["The cat sat on the mat"], [["the cat is on the mat"]])
...     h(["The cat sat on the mat"], [["the cat is on the mat"]])   # once per metric
>>> [type(x.message).__name__ for x in w]
['TokenizationHint']
>>> Hinter(TextSettings()).verdict(["今天天气很好", "abcd"])   # no hint: returns None
"""
from __future__ import annotations

import os
import re
import sys
import warnings
from typing import Any, Optional, Sequence

from .text import CJK, TextSettings

__all__ = ["TokenizationHint", "Hinter", "SAMPLE", "hint_texts"]

SAMPLE = 64          # strings looked at per metric (the first ones given)
_MAX_CHARS = 2000    # characters looked at per string
_ASCII_LETTERS = re.compile(r"[A-Za-z]")
_CJK_CHAR = re.compile(f"[{CJK}]")
_SPACE = re.compile(r"\s")
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the package (this file is in core/)


class TokenizationHint(UserWarning):
    """The text settings probably do not fit the text (see :mod:`paddle_rougel.hints`)."""


def _strings(cands: Any, ref_lists: Any, budget: int) -> list:
    """Up to ``budget`` str items of the instances, candidates and references alike, in order;
    anything that is not a list or tuple of them is not looked into (never an error here)."""
    out: list = []
    if not isinstance(cands, (list, tuple)) or not isinstance(ref_lists, (list, tuple)):
        return out
    for c, refs in zip(cands, ref_lists):
        if len(out) >= budget:
            break
        if type(c) is str:
            out.append(c[:_MAX_CHARS])
        if isinstance(refs, (list, tuple)):
            out.extend(r[:_MAX_CHARS] for r in refs[:4] if type(r) is str)
        elif type(refs) is str:  # compute()'s one reference each
            out.append(refs[:_MAX_CHARS])
    return out[:budget]


def _stacklevel() -> int:
    """The first frame outside this package: the warning points at the user's call."""
    f, level = sys._getframe(1), 1
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(_PKG_DIR + os.sep):
        f, level = f.f_back, level + 1
    return level


class Hinter:
    """One metric's hint state: what to look for, what the sample has shown so far."""

    def __init__(self, text: TextSettings):
        tok = text.tokenize
        self.tokenize = tok if isinstance(tok, str) else None
        self.nows = text.normalize == "nows"
        self.kind = {"char": "english", "whitespace": "cjk", "rouge_score": "cjk"}.get(self.tokenize)
        self.done = self.kind is None
        self.n = 0            # non-empty strings sampled
        self.seen = 0         # strings sampled (empty ones too)
        self.hits = 0         # of them, English (kind "english") or CJK (kind "cjk")
        self.cjk_chars = 0    # CJK characters in the pieces that hold CJK, over the CJK strings
        self.cjk_pieces = 0

    def chosen(self) -> None:
        """The user named the tokenizer: the English hint has nothing to add (a word tokenizer
        on CJK text is still worth a word)."""
        if self.kind == "english":
            self.done = True

    def _look(self, s: str) -> None:
        self.seen += 1
        if self.kind == "cjk" and s.isascii():  # no CJK character: never a hit (no regex pass)
            self.n += bool(s) and not s.isspace()  # (\s is str.isspace)
            return
        nonspace = len(s) - len(_SPACE.findall(s))
        if not nonspace:
            return
        self.n += 1
        if self.kind == "english":
            letters = len(_ASCII_LETTERS.findall(s))
            if 2 * letters > nonspace and sum(1 for p in s.split() if _ASCII_LETTERS.search(p)) >= 2:
                self.hits += 1
            return
        cjk = len(_CJK_CHAR.findall(s))
        if 2 * cjk > nonspace:
            self.hits += 1
            for p in s.split():
                k = len(_CJK_CHAR.findall(p))
                if k:
                    self.cjk_chars += k
                    self.cjk_pieces += 1

    def verdict(self, texts: Sequence[str] = ()) -> Optional[str]:
        """Look at ``texts`` (within the sample); the hint's message if it is due, else None."""
        for s in texts:
            if self.seen >= SAMPLE:
                break
            self._look(s)
        if self.n < 2 or 2 * self.hits <= self.n:
            return None
        if self.kind == "english":
            how = "each character, spaces removed," if self.nows else "each character"
            return (f"paddle_rougel: the text looks like English words, but tokenize='char' scores "
                    f"{how} as a token: pass tokenize='rouge_score' (command line: --tokenize "
                    f"rouge_score) to score words")
        if self.tokenize == "rouge_score":
            return ("paddle_rougel: the text is mostly CJK characters, but tokenize='rouge_score' "
                    "drops every character outside a-z and 0-9 (as rouge-score does), so it has "
                    "no tokens: pass tokenize='zh' (command line: --tokenize zh) to score each CJK "
                    "character, or 'jieba' for words")
        if self.cjk_chars <= 4 * self.cjk_pieces:
            return None  # segmented text: what the whitespace tokenizer is for
        return ("paddle_rougel: the text is mostly CJK characters without spaces, but "
                "tokenize='whitespace' makes each space-separated run one token (a whole sentence "
                "is one token): pass tokenize='zh' (command line: --tokenize zh) to score each CJK "
                "character, or 'jieba' for words")

    def __call__(self, cands: Any, ref_lists: Any) -> None:
        """Look at one call's instances (the raw inputs); warn once if the hint is due."""
        if self.done:
            return
        msg = self.verdict(_strings(cands, ref_lists, SAMPLE - self.seen))
        if msg is not None or self.seen >= SAMPLE:
            self.done = True
        if msg is not None:
            warnings.warn(msg, TokenizationHint, stacklevel=_stacklevel())


def hint_texts(text: TextSettings, texts: Sequence) -> None:
    """The same hint for a call given one list of texts (``rouge_l_matrix``, ``deduplicate``,
    ``similarity_join``): the first :data:`SAMPLE` str items looked at, one warning at most."""
    h = Hinter(text)
    if h.done:
        return
    msg = h.verdict([s[:_MAX_CHARS] for s in list(texts[:SAMPLE]) if type(s) is str])
    if msg is not None:
        warnings.warn(msg, TokenizationHint, stacklevel=_stacklevel())
