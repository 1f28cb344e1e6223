"""Text settings: how a ``str`` becomes tokens (tokenize, normalize, lowercase, stem).

The same names and meanings in the Python API, the command line and the
signature.  They apply to ``str`` inputs only; token lists are scored as given.

``tokenize``:

* ``"char"`` (default): every character is a token (DuReader, paddlenlp);
* ``"whitespace"``: ``str.split()``;
* ``"zh"``: each CJK character is a token, a run of other letters and digits is
  a word, any other non-space character (punctuation) is a token of its own:
  what Chinese answers with English words and numbers in them need;
* ``"jieba"``: jieba's words (optional dependency), whitespace dropped;
* ``"rouge_score"``: Google rouge-score's tokenizer: lowercase, every run of
  characters outside ``[a-z0-9]`` is a separator (so non-ASCII letters are
  dropped, as there); ``stem=True`` adds its Porter stemming (from ``nltk``,
  rouge-score's own dependency) of words longer than 3 characters;
* a callable ``str -> sequence of tokens``.

``normalize``: ``"none"`` (default) or ``"nows"`` (drop every whitespace
character: the DuReader contest's rule).  ``"nows"`` goes with ``"char"`` (or a
callable) only: with word tokenizers it would glue words together, so that
combination is an error.  ``lowercase``: lowercase before tokenizing.

>>> TextSettings(tokenize="zh").tokenizer()("我用Python 3.11写代码。")
('我', '用', 'Python', '3', '.', '11', '写', '代', '码', '。')
>>> TextSettings(tokenize="zh", lowercase=True).tokenizer()("Hi 你好")
('hi', '你', '好')
>>> TextSettings(tokenize="rouge_score").tokenizer()("The Cat-sat, on the mat!")
('the', 'cat', 'sat', 'on', 'the', 'mat')
>>> TextSettings(normalize="nows").tokenizer()(" 北京 上海 ")
'北京上海'
>>> TextSettings().signature()
'tok:char|norm:none|lc:no'
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

__all__ = ["TextSettings", "TOKENIZERS", "NORMALIZERS"]

TOKENIZERS = ("char", "whitespace", "zh", "jieba", "rouge_score")
NORMALIZERS = ("none", "nows")

# CJK ideographs (unified, extensions A-F and compatibility), kana, hangul syllables,
# and CJK punctuation: one token per character
_CJK = ("\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf"
        "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f")
_ZH_RE = re.compile(f"[{_CJK}]|[^\\W_{_CJK}]+|[^\\s{_CJK}]")
_NON_ALNUM_RE = re.compile(r"[^a-z0-9]+")


def _zh(text: str) -> tuple:
    return tuple(_ZH_RE.findall(text))


def _rouge_score(stemmer):
    def tok(text: str) -> tuple:
        words = _NON_ALNUM_RE.sub(" ", text.lower()).split()
        if stemmer is not None:
            words = [stemmer.stem(w) if len(w) > 3 else w for w in words]
        return tuple(w for w in words if w)
    return tok


def _jieba():
    try:
        import jieba  # optional: only this tokenizer needs it
    except ImportError:
        raise ImportError("tokenize='jieba' needs the optional 'jieba' package "
                          "(pip install 'paddle-rougel[jieba]')") from None
    import logging

    jieba.setLogLevel(logging.WARNING)
    return lambda text: tuple(w for w in jieba.lcut(text) if w.strip())


def _porter():
    try:
        from nltk.stem import porter
    except ImportError:
        raise ImportError("stem=True needs the optional 'nltk' package "
                          "(pip install 'paddle-rougel[stem]')") from None
    return porter.PorterStemmer()  # rouge-score's stemmer, same mode


@dataclass(frozen=True, eq=False)
class TextSettings:
    """How ``str`` inputs become tokens; part of each metric's settings and signature.

    Two settings are equal when their ``config()`` is: a callable tokenizer is
    known by its qualified name (a state loaded from a file holds that name).
    """

    tokenize: Union[str, Callable] = "char"
    normalize: str = "none"
    lowercase: Optional[bool] = None   # None: True for rouge_score (it always lowercases), else False
    stem: bool = False

    def __post_init__(self):
        tok = self.tokenize
        if isinstance(tok, str) and tok.startswith("custom:"):
            pass  # the name of a callable, from a state file: comparable, not runnable
        elif not callable(tok) and tok not in TOKENIZERS:
            raise ValueError(f"tokenize must be one of {', '.join(TOKENIZERS)} or a callable, "
                             f"got {tok!r}")
        if self.normalize not in NORMALIZERS:
            raise ValueError(f"normalize must be one of {', '.join(NORMALIZERS)}, got {self.normalize!r}")
        custom = callable(tok) or str(tok).startswith("custom:")
        if self.normalize == "nows" and tok != "char" and not custom:
            raise ValueError(f"normalize='nows' removes the spaces that tokenize={tok!r} splits on "
                             "(words would be glued together): use normalize='none'")
        lc = self.lowercase
        if lc is None:
            lc = tok == "rouge_score"
        if not isinstance(lc, bool):
            raise TypeError(f"lowercase must be a bool, got {type(lc).__name__}")
        if tok == "rouge_score" and not lc:
            raise ValueError("tokenize='rouge_score' always lowercases (as rouge-score): "
                             "leave lowercase at its default")
        object.__setattr__(self, "lowercase", lc)
        if not isinstance(self.stem, bool):
            raise TypeError(f"stem must be a bool, got {type(self.stem).__name__}")
        if self.stem and tok != "rouge_score":
            raise ValueError("stem=True is rouge-score's Porter stemming: it needs tokenize='rouge_score'")

    def __eq__(self, other) -> bool:
        return isinstance(other, TextSettings) and self.config() == other.config()

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.config().items())))

    @property
    def is_default(self) -> bool:
        return self == TextSettings()

    def c_words(self) -> Optional[tuple]:
        """``(mode, fold)`` of the C word reader (``_lcs.lcs_words``) when it gives exactly
        :meth:`tokenizer`'s words: ``"whitespace"`` (mode 0, fold = lowercase) and
        ``"rouge_score"`` without stemming (mode 1), normalize ``"none"``; else None.

        >>> TextSettings("whitespace").c_words(), TextSettings("rouge_score", stem=True).c_words()
        ((0, False), None)
        """
        if self.normalize != "none" or self.stem or not isinstance(self.tokenize, str):
            return None
        if self.tokenize == "whitespace":
            return (0, self.lowercase)
        if self.tokenize == "rouge_score":
            return (1, True)
        return None

    def tokenizer(self) -> Callable[[str], Any]:
        """``str -> str or tuple of tokens`` (a ``str`` result is scored per character).

        Its ``c_words`` attribute is :meth:`c_words` (ROUGE-L batches of str then keep the
        texts and the C reader splits them; see ``inputs.make_batch``)."""
        fn = self._tokenizer()
        if self.c_words() is not None:
            fn.c_words = self.c_words()
        return fn

    def _tokenizer(self) -> Callable[[str], Any]:
        tok, norm, lc = self.tokenize, self.normalize, self.lowercase
        if isinstance(tok, str) and tok.startswith("custom:"):
            raise ValueError(f"these settings name a custom tokenizer ({tok}); pass the callable itself")
        if callable(tok):
            def base(t, _f=tok):  # a str stays characters; any other result a tuple of tokens
                out = _f(t)
                return out if isinstance(out, str) else tuple(out)
        elif tok == "char":
            base = None
        elif tok == "whitespace":
            base = lambda t: tuple(t.split())  # noqa: E731
        elif tok == "zh":
            base = _zh
        elif tok == "jieba":
            base = _jieba()
        else:
            base = _rouge_score(_porter() if self.stem else None)
        steps = []
        if lc and tok != "rouge_score":  # rouge_score lowercases itself
            steps.append(str.lower)
        if norm == "nows":
            steps.append(lambda t: "".join(t.split()))
        if base is not None:
            steps.append(base)
        if not steps:
            return lambda t: t
        if len(steps) == 1:  # the common case (e.g. nows): no loop per string
            return steps[0]

        def run(text: str):
            for f in steps:
                text = f(text)
            return text
        return run

    def tok_name(self) -> str:
        if callable(self.tokenize) and not isinstance(self.tokenize, str):
            return "custom:" + getattr(self.tokenize, "__qualname__", type(self.tokenize).__name__)
        return self.tokenize + ("+stem" if self.stem else "")

    def signature(self) -> str:
        return f"tok:{self.tok_name()}|norm:{self.normalize}|lc:{'yes' if self.lowercase else 'no'}"

    def config(self) -> dict:
        """JSON identity (a callable is named by its qualified name)."""
        return {"tokenize": self.tok_name().replace("+stem", ""),
                "normalize": self.normalize, "lowercase": self.lowercase, "stem": self.stem}
