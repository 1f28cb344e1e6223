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
* ``"rouge_chinese"``: the words rouge-chinese 1.0.3 scores when it is called as
  LLaMA-Factory and ChatGLM call it (``Rouge().get_scores(" ".join(jieba.cut(pred)), ...)``):
  jieba's words joined by spaces, cut into "sentences" by its rules (after ``。！？?`` and
  six dots, also inside a jieba word), each whitespace-only sentence an empty-string token
  ``""`` (a blank line, or a newline after ``。``), other whitespace dropped;
* ``"rouge_score"``: Google rouge-score's tokenizer: lowercase, every run of
  characters outside ``[a-z0-9]`` is a separator (so non-ASCII letters are
  dropped, as there); ``stem=True`` adds its Porter stemming (from ``nltk``,
  rouge-score's own dependency) of words longer than 3 characters;
* an object with a ``tokenize(text)`` method (rouge-score's ``tokenizer=``): read through
  that method; rouge-score's own ``DefaultTokenizer`` is ``"rouge_score"`` (``stem`` as it
  was made); any other is known by its class's name when it holds no state of its own,
  else it must be named as below;
* a callable ``str -> str or ordered sequence of tokens`` (a list, tuple or
  iterator, read once; a set, mapping or view of one is refused: it has no
  order).  Its name is its identity in states, signatures and ``compare()``:
  a module-level function (or a class's method, or a builtin) is known by its
  qualified name; anything else (a lambda, a function defined inside another,
  a ``functools.partial``, a bound method, a callable object) must be named,
  ``tokenize=("my_tokenizer", f)``, or is refused.  An exception it raises
  comes back as :class:`TokenizerError` naming the input (instance, side) and
  the tokenizer, the original as ``__cause__``.

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
>>> TextSettings(tokenize=("bar", lambda t: t.split("|"))).signature()
'tok:custom:bar|norm:none|lc:no'
"""
from __future__ import annotations

import functools
import re
import types
from dataclasses import dataclass
from typing import Any, Callable, Optional, Tuple, Union

from collections.abc import Mapping, MappingView, Set

__all__ = ["TextSettings", "TokenizerError", "TOKENIZERS", "NORMALIZERS", "tokenize_method", "rouge_score_default"]


def unordered(x: Any) -> Optional[str]:
    """What ``x`` is when it has no order to read items in ("a set", "a mapping", "a mapping
    view": sets, dicts, their views and any registered ``Set`` / ``Mapping``), else None.
    The C reader (``csrc/tokens.c``) refuses the same types with the same words.

    >>> unordered({"a"}), unordered({}.values()), unordered(iter("ab"))
    ('a set', 'a mapping view', None)
    """
    if isinstance(x, Set):
        return "a set"
    if isinstance(x, Mapping):
        return "a mapping"
    if isinstance(x, MappingView):
        return "a mapping view"
    return None


def as_str(x: str) -> str:
    """A ``str`` subclass read as its str value (what the C engine reads: its characters, whatever
    ``__iter__`` / ``__getitem__`` / ``__eq__`` it overrides); an exact str is returned as is."""
    return x if type(x) is str else str.__str__(x)


TOKENIZERS = ("char", "whitespace", "zh", "jieba", "rouge_score", "rouge_chinese")
NORMALIZERS = ("none", "nows")

# CJK ideographs (unified, extensions A-F and compatibility), kana, hangul syllables,
# and CJK punctuation: one token per character
CJK = ("\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf"
        "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f")
_ZH_RE = re.compile(f"[{CJK}]|[^\\W_{CJK}]+|[^\\s{CJK}]")
_NON_ALNUM_RE = re.compile(r"[^a-z0-9]+")


_NAME_RE = re.compile(r"[\w.:+/@=-]+")  # a tokenizer's name: no '|' (the signature's separator), no '<'
_HOW = ("name it: tokenize=(\"my_tokenizer\", f) (the name is its identity: give different "
        "tokenizers different names), or pass a module-level function")


class TokenizerError(ValueError):
    """A ``tokenize`` callable raised: the message names the input (``instance 3, reference 1``,
    ``sentence k``, ``entity k``) and the tokenizer; the callable's exception is ``__cause__``."""


def _stable_name(f: Callable) -> str:
    """The qualified name of a callable no other tokenizer can share, or a ValueError saying
    how to name it."""
    q = getattr(f, "__qualname__", None)
    owner = getattr(f, "__self__", None)
    if isinstance(f, functools.partial):
        why = "a functools.partial"
    elif not isinstance(q, str):
        why = f"a {type(f).__name__} object (it has no qualified name)"
    elif "<lambda>" in q:
        why = "a lambda"
    elif "<locals>" in q:
        why = f"a function defined inside another ({q})"
    elif owner is not None and not isinstance(owner, (type, types.ModuleType)):
        why = f"a method bound to a {type(owner).__name__} object ({q}: every such object's method has that name)"
    else:
        return q
    raise ValueError(f"tokenize: {why} cannot be told apart from other tokenizers (states, merges "
                     f"and compare() know a tokenizer by its name); {_HOW}")


def tokenize_method(obj: Any) -> Optional[Callable]:
    """``obj.tokenize`` of a tokenizer object as rouge-score takes one (``RougeScorer(tokenizer=)``:
    not callable itself, a callable ``tokenize`` attribute), else None."""
    if isinstance(obj, (str, tuple)) or callable(obj):
        return None
    method = getattr(obj, "tokenize", None)
    return method if callable(method) else None


def rouge_score_default(obj: Any) -> Optional[bool]:
    """Whether rouge-score's own ``DefaultTokenizer`` ``obj`` stems (its tokens are
    ``tokenize="rouge_score"``'s, with ``stem`` as it was made); None for any other object."""
    t = type(obj)
    if (t.__module__, t.__qualname__) != ("rouge_score.tokenizers", "DefaultTokenizer"):
        return None
    stemmer = getattr(obj, "_stemmer", None)
    if stemmer is None:
        return False
    porter = type(_porter())
    if type(stemmer) is porter and stemmer.mode == porter.NLTK_EXTENSIONS:  # what use_stemmer makes
        return True
    return None


def _object_name(obj: Any) -> str:
    """A tokenizer object's identity: its class's qualified name, for an object that holds no
    state of its own (every such object tokenizes alike); else a ValueError saying how to name it."""
    cls = type(obj)
    q = cls.__qualname__
    if "<locals>" in q:
        why = f"an object of a class defined inside a function ({q})"
    elif getattr(obj, "__dict__", None) or any(hasattr(obj, a) for c in cls.__mro__
                                               for a in getattr(c, "__slots__", ()) if a != "__weakref__"):
        why = (f"a {q} object with state of its own (two such objects may tokenize differently, "
               "and its class name cannot tell them apart)")
    else:
        return f"{q}.tokenize"
    raise ValueError(f"tokenize: {why}; {_HOW}")


def _custom_identity(tok: Any) -> Optional[Tuple[str, Optional[Callable]]]:
    """(name, callable) of a custom tokenizer (callable None: a name from a state file), or None
    for a built-in one; invalid ones are errors.  A tokenizer object (``.tokenize``) is read
    through its method."""
    if isinstance(tok, tuple) and len(tok) == 2 and tokenize_method(tok[1]) is not None:
        tok = (tok[0], tokenize_method(tok[1]))
    if isinstance(tok, tuple):
        if len(tok) != 2 or not isinstance(tok[0], str) or not callable(tok[1]):
            raise TypeError(f"tokenize=(name, callable) needs a str name and a callable, got {tok!r}")
        if not _NAME_RE.fullmatch(tok[0]):
            raise ValueError(f"tokenize: the name {tok[0]!r} must be letters, digits and . _ : + / @ = - "
                             "(it is printed in signatures)")
        return tok
    if isinstance(tok, str):
        if not tok.startswith("custom:"):
            return None
        name = tok[len("custom:"):]  # from a state file: comparable, not runnable
        if not _NAME_RE.fullmatch(name):  # e.g. "<lambda>" from a version that allowed it
            raise ValueError(f"tokenize {tok!r} names a tokenizer that cannot be told apart from "
                             "others (an unnamed lambda or local function): such a state cannot be "
                             f"combined; score again with a named tokenizer ({_HOW})")
        return name, None
    if tokenize_method(tok) is not None:
        return _object_name(tok), tokenize_method(tok)
    if callable(tok):
        return _stable_name(tok), tok
    return None


def _checked(f: Callable, name: str) -> Callable[[str], Any]:
    """``f`` returning a str (scored per character) or a tuple of tokens, its errors named."""
    label = f"tokenize callable {name!r}"

    def base(t):
        try:
            out = f(t)
        except Exception as e:  # noqa: BLE001 - the callable's own, re-raised with its place
            raise TokenizerError(f"{label} raised {type(e).__name__}: {e}") from e
        tp = type(out)
        if tp is tuple or tp is str:  # the common results, checked first
            return out
        if tp is list:
            return tuple(out)
        return _result(out, label)
    return base


def _result(out: Any, label: str) -> Any:
    """The tokens of a tokenizer's result that is not a list, tuple or str (the slow path)."""
    if isinstance(out, str):
        return as_str(out)  # a subclass: its str value
    want = "return a str or an ordered sequence of tokens (list, tuple, iterator)"
    if unordered(out):
        raise TypeError(f"{label} returned {unordered(out)}, which has no order; {want}")
    try:
        it = iter(out)
    except TypeError:
        got = "None" if out is None else type(out).__name__
        raise TypeError(f"{label} returned {got}; {want}") from None
    try:
        return tuple(it)  # an iterator: read once
    except Exception as e:  # noqa: BLE001 - a generator's own error, re-raised with its place
        raise TokenizerError(f"{label} raised {type(e).__name__} while its result was read: {e}") from e


def _zh(text: str) -> tuple:
    return tuple(_ZH_RE.findall(text))


def _rouge_score(stemmer):
    def tok(text: str) -> tuple:
        words = _NON_ALNUM_RE.sub(" ", text.lower()).split()
        if stemmer is not None:
            words = [stemmer.stem(w) if len(w) > 3 else w for w in words]
        return tuple(w for w in words if w)
    return tok


def _import_jieba(name: str):
    try:
        import jieba  # optional: only these tokenizers need it
    except ImportError:
        raise ImportError(f"tokenize={name!r} needs the optional 'jieba' package "
                          "(pip install 'paddle-rougel[jieba]')") from None
    import logging

    jieba.setLogLevel(logging.WARNING)
    return jieba


def _jieba():
    jieba = _import_jieba("jieba")
    return lambda text: tuple(w for w in jieba.lcut(text) if w.strip())


# rouge-chinese 1.0.3's Rouge.cut_sent, applied to the space-joined jieba words, in its order
_RC_CUTS = tuple((re.compile(p), r"\1\n\2") for p in (
    "([。！？\\?])([^”’])", "(\\.{6})([^”’])", "(\\…{2})([^”’])", "([。！？\\?][”’])([^，。！？\\?])"))


def _rouge_chinese():
    """rouge-chinese's words of ``" ".join(jieba.cut(text))`` (see the module doc): its
    sentences (``cut_sent``: the four cuts, ``rstrip``, ``split("\\n")``, empty ones dropped),
    each one's whitespace runs made single spaces, split on ``" "``: a whitespace-only
    sentence gives one ``""``."""
    jieba = _import_jieba("rouge_chinese")

    def tok(text: str) -> tuple:
        para = " ".join(jieba.cut(text))
        for rx, to in _RC_CUTS:
            para = rx.sub(to, para)
        words: list = []
        for sent in para.rstrip().split("\n"):
            if sent:
                words.extend(" ".join(sent.split()).split(" "))
        return tuple(words)
    return tok


STEMMERS = (False, True, "rouge155", "rouge155_nowordnet")


def _stemmer(stem):
    """The stemmer of a ``stem`` setting: True is rouge-score's (NLTK Porter), ``"rouge155"``
    ROUGE-1.5.5's ``-m`` (WordNet exceptions, then its Porter), ``"rouge155_nowordnet"`` the
    same with the empty exception DB (:mod:`paddle_rougel.rouge155.stem`)."""
    if stem is True:
        return _porter()
    from ..rouge155.stem import MorphStemmer

    return MorphStemmer.named(stem)


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
    known by its name (the qualified name of a module-level function, or the
    name given as ``tokenize=(name, f)``; a state loaded from a file holds it as
    ``"custom:<name>"``).
    """

    tokenize: Union[str, Callable] = "char"
    normalize: str = "none"
    lowercase: Optional[bool] = None   # None: True for rouge_score (it always lowercases), else False
    stem: Union[bool, str] = False   # STEMMERS: True (rouge-score's), "rouge155", "rouge155_nowordnet"

    def __post_init__(self):
        tok = self.tokenize
        stems = rouge_score_default(tok)
        if stems is not None:  # rouge-score's own tokenizer object: our built-in one, as made
            if self.stem and not stems:
                raise ValueError("stem=True (use_stemmer) with a rouge-score DefaultTokenizer made "
                                 "without use_stemmer: rouge-score ignores use_stemmer when a tokenizer "
                                 "is given; give one of them")
            tok = "rouge_score"
            object.__setattr__(self, "tokenize", tok)
            object.__setattr__(self, "stem", stems)
        custom = _custom_identity(tok)  # (name, callable or None): errors say how to name it
        if custom is None and tok not in TOKENIZERS:
            raise ValueError(f"tokenize must be one of {', '.join(TOKENIZERS)}, a callable, an object "
                             f"with a tokenize method (rouge-score's tokenizer=) or (name, callable), "
                             f"got {tok!r}")
        object.__setattr__(self, "_custom", custom)
        if self.normalize not in NORMALIZERS:
            raise ValueError(f"normalize must be one of {', '.join(NORMALIZERS)}, got {self.normalize!r}")
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
        if not isinstance(self.stem, (bool, str)):
            raise TypeError(f"stem must be a bool or a stemmer name, got {type(self.stem).__name__}")
        if self.stem not in STEMMERS:
            raise ValueError(f"stem must be one of {', '.join(map(repr, STEMMERS))}, got {self.stem!r}")
        if self.stem and tok != "rouge_score":
            raise ValueError(f"stem={self.stem!r} stems rouge-score's words: it needs tokenize='rouge_score'")

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
        if self._custom is not None:
            name, f = self._custom
            if f is None:
                raise ValueError(f"these settings name a custom tokenizer ({tok}); pass the callable itself")
            base = _checked(f, name)  # a str stays characters; any other result a tuple of tokens
        elif tok == "char":
            base = None
        elif tok == "whitespace":
            base = lambda t: tuple(t.split())  # noqa: E731
        elif tok == "zh":
            base = _zh
        elif tok == "jieba":
            base = _jieba()
        elif tok == "rouge_chinese":
            base = _rouge_chinese()
        else:
            base = _rouge_score(_stemmer(self.stem) if self.stem else None)
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
        if self._custom is not None:
            return "custom:" + self._custom[0]
        if isinstance(self.stem, str):
            return f"{self.tokenize}+stem:{self.stem}"
        return self.tokenize + ("+stem" if self.stem else "")

    def signature(self) -> str:
        return f"tok:{self.tok_name()}|norm:{self.normalize}|lc:{'yes' if self.lowercase else 'no'}"

    def config(self) -> dict:
        """JSON identity (a callable is known by its name: see the class doc)."""
        return {"tokenize": self.tok_name().split("+stem")[0],
                "normalize": self.normalize, "lowercase": self.lowercase, "stem": self.stem}
