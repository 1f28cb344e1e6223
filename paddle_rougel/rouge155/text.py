"""How ROUGE-1.5.5.pl reads a summary: its ``readText``, ``readText_LCS`` and tokenizers.

The script works on bytes (here: latin-1 text, one character a byte, ASCII-only rules):

* a summary file is a list of sentences (SPL: every non-empty line without its ``\\n``; SEE
  and ISI: the text of the lines matching their markup), each lower-cased ``tr/A-Z/a-z/``;
* ROUGE-N/S (``read_text``): the sentences joined by spaces, then cut at ``-l`` words or ``-b``
  bytes; ROUGE-L/W (``read_units``): the sentences kept apart, cut the same way, except that
  under ``-b`` its byte counter never advances (its quirk: every sentence shorter than the
  limit is kept whole, the first one as long or longer is cut to the limit and ends it);
* each text then: ``-`` becomes `` - ``, every byte outside ``[A-Za-z0-9-]`` a space, runs of
  spaces one;
* tokens (``tokens``): split on whitespace, a token of the stopword set dropped (``-s``), one
  not starting with ``[a-z0-9$]`` dropped (``-``), and under ``-m`` one of more than 3
  characters MorphStem'med.
"""
from __future__ import annotations

import os
import re
from typing import Callable, Dict, List, Optional

from .stem import perl_split, stem_token

__all__ = ["read_latin1", "read_sentences", "spl_unit_words", "is_spl", "read_text", "read_units", "normalize", "tokens", "ScriptError"]


class ScriptError(Exception):
    """What the script dies with: its message (printed to stderr) and exit status (Perl's
    ``die`` exits with ``$!``, the errno of the last failed call, when it is set: 2 after a
    missing file; else 255)."""

    def __init__(self, message: str, status: int = 255):
        super().__init__(message)
        self.status = status


_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_SEE = (re.compile(r'<a size="[0-9]+" name="[0-9]+">\[([0-9]+)\]</a>\s+<a href="#[0-9]+" id=[0-9]+>([^<]+)', re.A),
        re.compile(r'<a name="[0-9]+">\[([0-9]+)\]</a>\s+<a href="#[0-9]+" id=[0-9]+>([^<]+)', re.A))
_ISI = re.compile(r'<S SNTNO="[0-9a-z,]+">([^<]+)</S>', re.A)
_KEEP_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789$")   # /^[a-z0-9\$]/


def _lines(data: str) -> List[str]:
    """Perl's ``while(<TEXT>)`` records: each line with its ``\\n``."""
    out = data.split("\n")
    lines = [x + "\n" for x in out[:-1]]
    if out[-1]:
        lines.append(out[-1])
    return lines


def read_latin1(path: str) -> str:
    """A file's bytes as latin-1 text (one character a byte); ScriptError if it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            chunks = []
            while True:
                b = os.read(fd, 1 << 16)
                if not b:
                    break
                chunks.append(b)
        finally:
            os.close(fd)
    except OSError as e:
        raise ScriptError(f"Cannot open {path}\n", e.errno or 255) from None
    return b"".join(chunks).decode("latin-1")


def read_sentences(path: str, fmt: Optional[str]) -> List[str]:
    """The summary's sentences, lower-cased, as the script collects them (``@sntList``)."""
    kind = (fmt or "").upper() if fmt is not None and re.fullmatch(r"(?i)(SEE|ISI|SPL)\n?", fmt) else None
    if kind is None:
        raise ScriptError(f"Unknown input format: {'' if fmt is None else fmt}\n")
    kind = kind.strip()
    data = read_latin1(path)
    out = []
    for line in _lines(data):
        if kind == "SPL":
            if line.endswith("\n"):
                line = line[:-1]
            if line:
                out.append(line.translate(_UPPER))
        elif kind == "SEE":
            m = _SEE[0].match(line) or _SEE[1].match(line)
            if m:
                out.append(m.group(2).translate(_UPPER))
        else:
            m = _ISI.match(line)
            if m:
                out.append(m.group(1).translate(_UPPER))
    return out


_BLANK = {c: " " for c in range(256) if not (chr(c).isascii() and (chr(c).isalnum() or chr(c) == "-"))}


_SPL_TABLE = {**_BLANK, **{c: c + 32 for c in range(65, 91)}, 10: 10}   # lower case, blanks, \n kept
_SPL = re.compile(r"(?i)SPL\n?")


def spl_unit_words(path: str) -> List[List[str]]:
    """An SPL file's ``readText_LCS`` units without a length limit, as their words: each
    non-empty line lower-cased and normalized (:func:`normalize`), the whole file at once."""
    data = read_latin1(path)
    norm = data.replace("-", " - ").translate(_SPL_TABLE).split("\n")   # "-" adds no line
    return [norm[k].split() for k, line in enumerate(data.split("\n")) if line]


def is_spl(fmt) -> bool:
    """The format ``read_sentences`` reads as SPL."""
    return fmt is not None and _SPL.fullmatch(fmt) is not None


def normalize(text: str) -> str:
    """``s/-/ - /g; s/[^A-Za-z0-9-]/ /g``, trimmed, runs of spaces one (a latin-1 str: a byte a
    character; after the first two steps the only whitespace left is the space)."""
    return " ".join(text.replace("-", " - ").translate(_BLANK).split())


def _head(words: List[str], k: int) -> str:
    """``join(" ", @words[0..k-1])`` (indices past the end are undef: empty strings)."""
    return " ".join(words[:k] + [""] * max(0, k - len(words)))


def read_text(snts: List[str], length_limit: int, byte_limit: int) -> Optional[str]:
    """``readText``: the sentences as one normalized text (None: the script's undef)."""
    if length_limit == 0 and byte_limit == 0:
        return normalize(" ".join(snts))
    text, size = "", 0
    for s in snts:
        if length_limit != 0:
            words = perl_split(s)
            n = len(words)
            if size + n < length_limit:
                text += f" {s}" if size != 0 else s
                size += n
                continue
            if size > 0:
                text += " "
            text += _head(words, length_limit - size)
            break
        n = len(s)
        if size + n < byte_limit:
            text += f" {s}" if size != 0 else s
            size += n
            continue
        if size > 0:
            text += " "
        text += s[:max(0, byte_limit - size)]
        break
    return normalize(text) if text else None


def read_units(snts: List[str], length_limit: int, byte_limit: int) -> List[str]:
    """``readText_LCS``: the sentences, normalized one by one (the ``-b`` quirk included)."""
    if length_limit == 0 and byte_limit == 0:
        units = list(snts)
    elif length_limit != 0:
        units, size = [], 0
        for s in snts:
            words = perl_split(s)
            if size + len(words) < length_limit:
                size += len(words)
                units.append(s)
            else:
                units.append(_head(words, length_limit - size))
                break
    else:
        units = []
        for s in snts:
            if len(s) < byte_limit:
                units.append(s)
            else:
                units.append(s[:byte_limit])
                break
    return [normalize(u) for u in units]


def tokens(text: Optional[str], stopwords: Dict[str, int], stemmer: Optional[Dict[str, str]]) -> List[str]:
    """The tokens of a normalized text (``createNGram``'s / ``tokenizeText_LCS``'s filter):
    ``stopwords`` the set in force (empty without ``-s``), ``stemmer`` the exception table
    under ``-m`` (None: no stemming)."""
    if text is None:
        return []
    out = []
    memo = _MEMO.setdefault(id(stemmer), ({}, stemmer))[0] if stemmer is not None else None
    for t in text.split(" ") if text else ():   # normalized: single spaces, none at the ends
        if t in stopwords or t[0] not in _KEEP_CHARS:
            continue
        if memo is not None:
            s = memo.get(t)
            if s is None:
                s = memo[t] = stem_token(t, stemmer)
            t = s
        out.append(t)
    return out


_MEMO: dict = {}   # id(table) -> (token -> stem, the table kept alive so its id stays its own)
