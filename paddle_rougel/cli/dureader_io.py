"""Reading DuReader contest files and turning them into scoring instances.

Files are JSON lines, or ``.zip`` archives of JSON-lines files (every member
is read, in archive order), as the contest's ``mrc_eval.py`` accepts.

* prediction rows: ``question_id``, ``answers`` (list of str), optional ``yesno_answers``;
* reference rows: ``question_id``, ``question_type`` (``YES_NO`` | ``ENTITY`` |
  ``DESCRIPTION``), ``answers``, ``yesno_answers`` (one per answer for
  ``YES_NO``), ``entity_answers`` (list of lists of str), ``source``.

Normalisation, as the contest: every whitespace character is removed and the
characters are the tokens.  Every problem raises :class:`InputError` with a
one-line message naming the file, line (and zip member) and question.

>>> preds = {"q1": {"answers": ["是的可以"], "yesno_answers": ["Yes"]}}
>>> refs = {"q1": {"question_type": "YES_NO", "answers": ["可以"], "yesno_answers": ["Yes"],
...                "entity_answers": [[]]}}
>>> c = build_contest(preds, refs)
>>> c.cands, c.ref_lists, c.yn_labels, c.missing
(['是的可以'], [['可以']], ['Yes'], [])
"""
from __future__ import annotations

import itertools
import json
import os
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from .jsonline import InputError, parse_json

__all__ = ["InputError", "read_rows", "build_contest", "Contest", "normalize", "QUESTION_TYPES"]

QUESTION_TYPES = ("YES_NO", "ENTITY", "DESCRIPTION")


def normalize(s: str) -> str:
    """Remove every whitespace character (the contest's ``normalize``).

    >>> normalize(" 北京 \\t上海\\u3000")
    '北京上海'
    """
    return "".join(s.split())


MAX_LINE = 256 << 20  # bytes: a longer line is an error, so memory is bounded by it, not the file
_CHUNK = 1 << 20
_BOM = b"\xef\xbb\xbf"
try:
    from lzma import LZMAError as _LZMAError
except ImportError:  # a Python without lzma: zipfile cannot read such members either
    _LZMAError = OSError
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, _LZMAError, EOFError, OSError, RuntimeError,
               NotImplementedError, ValueError, OverflowError)


def is_zip(path: str) -> bool:
    """A zip archive: a ``.zip`` extension in any case, or (a regular file) zip magic bytes.

    JSON text never starts with ``PK``, so sniffing cannot misread a JSON-lines file.
    """
    if path.lower().endswith(".zip"):
        return True
    if not os.path.isfile(path):  # a FIFO or device: peeking would consume its data
        return False
    try:
        with open(path, "rb") as f:
            return f.read(4) in (b"PK\x03\x04", b"PK\x05\x06")
    except OSError:
        return False


def _zip_why(e: BaseException) -> str:
    """A short reason for a zip failure (zipfile's own messages embed ZipInfo reprs)."""
    if isinstance(e, zlib.error) or type(e).__name__ == "LZMAError":
        return f"corrupt compressed data ({e})"
    if isinstance(e, RuntimeError) and "encrypted" in str(e):
        return "encrypted members are not supported"
    if isinstance(e, NotImplementedError):
        return "unsupported compression method"
    if isinstance(e, EOFError):
        return "truncated compressed data"
    return getattr(e, "strerror", None) or str(e) or type(e).__name__


def _iter_lines(path: str, progress: Optional[Callable[[int], None]] = None
                ) -> Iterator[Tuple[str, int, str]]:
    """Yield ``(name, line_number, line)`` of the non-blank lines; ``name`` is the file or
    ``file[member]``.  Streams: memory is bounded by the longest line, not the file."""
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, expected a JSON-lines or .zip file")
    if is_zip(path):
        yield from _zip_lines(path, progress)
        return
    try:
        f = open(path, "rb")
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror or e})") from None
    with f:
        yield from _lines(f, path, progress, OSError)


def _zip_lines(path: str, progress) -> Iterator[Tuple[str, int, str]]:
    try:
        zf = zipfile.ZipFile(path)
    except _ZIP_ERRORS as e:
        raise InputError(f"{path}: not a valid zip archive ({_zip_why(e)})") from None
    with zf:
        members = [m for m in zf.infolist() if not m.is_dir()]
        if not members:
            raise InputError(f"{path}: the zip archive holds no files")
        for m in members:
            name = f"{path}[{m.filename}]"
            try:
                f = zf.open(m)
            except _ZIP_ERRORS as e:
                raise InputError(f"{name}: cannot read ({_zip_why(e)})") from None
            with f:
                yield from _lines(f, name, progress, _ZIP_ERRORS)


def _read(f, name: str, lineno: int, errors) -> bytes:
    try:
        return f.read(_CHUNK)
    except errors as e:  # a bad CRC surfaces at the member's end: name the line reached
        why = _zip_why(e) if errors is _ZIP_ERRORS else (e.strerror or str(e))
        raise InputError(f"{name}:{lineno + 1}: cannot read ({why})") from None


def _decoded(raw: bytes, name: str, lineno: int) -> Optional[str]:
    if len(raw) > MAX_LINE:
        raise InputError(f"{name}:{lineno}: line longer than {MAX_LINE >> 20} MiB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{name}:{lineno}: not UTF-8 text (byte {e.start + 1} of the line)") from None
    return text if text and not text.isspace() else None


def _lines(f, name: str, progress, errors) -> Iterator[Tuple[str, int, str]]:
    """Split a binary stream into lines chunk by chunk (a BOM at its start is dropped)."""
    lineno, pending, pending_len, first = 0, [], 0, True
    while True:
        chunk = _read(f, name, lineno, errors)
        if not chunk:
            break
        if progress is not None:
            progress(len(chunk))
        if first:
            first = False
            while len(chunk) < 3 and _BOM.startswith(chunk):  # short reads (a FIFO)
                more = _read(f, name, lineno, errors)
                if not more:
                    break
                chunk += more
            if chunk.startswith(_BOM):
                chunk = chunk[3:]
        parts = chunk.split(b"\n")
        if len(parts) == 1:  # no line end in this chunk: a long line, kept in pieces
            pending.append(chunk)
            pending_len += len(chunk)
            if pending_len > MAX_LINE:
                _decoded(b"".join(pending), name, lineno + 1)  # raises: too long
            continue
        if pending:
            parts[0] = b"".join(pending) + parts[0]
        tail = parts.pop()
        pending, pending_len = ([tail], len(tail)) if tail else ([], 0)
        for raw in parts:
            lineno += 1
            text = _decoded(raw, name, lineno)
            if text is not None:
                yield name, lineno, text
    if pending:
        text = _decoded(b"".join(pending), name, lineno + 1)
        if text is not None:
            yield name, lineno + 1, text


def _utf8_ok(s: str) -> bool:
    """False for a lone surrogate from a JSON escape (it cannot be written back as UTF-8)."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _w(where: Tuple[str, int]) -> str:
    return f"{where[0]}:{where[1]}"


def _q(q) -> str:
    return f"{_w(q[0])}: question_id {q[1]!r}"


def _is_str_list(v: Any) -> bool:
    return type(v) is list and set(map(type, v)) <= _STR  # C-level: no per-item Python call


_STR = {str}


class _DuplicateKey(Exception):
    pass


def _unique_pairs(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(k)
            seen.add(k)
    return obj


def _check_unique_keys(line: str, where: Tuple[str, int]) -> None:
    """Refuse a key given twice in one object (``json.loads`` keeps the last silently).

    Called only when the line holds more ``:`` than its row has keys: every key is followed
    by a ``:``, so with exactly as many, no key was repeated (nor is any object nested).
    Such lines (a ``:`` in a text, say) are parsed again, keeping the pairs."""
    try:
        json.loads(line, object_pairs_hook=_unique_pairs)
    except _DuplicateKey as e:
        raise InputError(f"{_w(where)}: duplicate key {e.args[0]!r} in one JSON object") from None


def read_rows(path: str, is_ref: bool, progress: Optional[Callable[[int], None]] = None,
              keep_spaces: bool = False) -> Dict[Any, dict]:
    """Read and validate a prediction (``is_ref=False``) or reference file.

    Returns ``{question_id: row}`` in file order, with ``answers`` (and
    reference ``entity_answers``) normalised (unless ``keep_spaces``).
    """
    norm = (lambda s: s) if keep_spaces else normalize
    rows: Dict[Any, dict] = {}
    first_seen: Dict[Any, str] = {}
    for name, lineno, line in _iter_lines(path, progress):
        where = (name, lineno)  # formatted only for an error message
        obj = parse_json(line, where, constants=True)  # NaN: as the contest's json.loads
        if not isinstance(obj, dict):
            raise InputError(f"{_w(where)}: each line must be a JSON object, got {type(obj).__name__}")
        if line.count(":") != len(obj):  # cheap: no key repeated (see _check_unique_keys)
            _check_unique_keys(line, where)
        if "question_id" not in obj:
            raise InputError(f"{_w(where)}: row has no 'question_id'")
        qid = obj["question_id"]
        if not isinstance(qid, (str, int)) or isinstance(qid, bool):
            raise InputError(f"{_w(where)}: 'question_id' must be a string or an integer, got {qid!r}")
        if type(qid) is str and not qid.isascii() and not _utf8_ok(qid):
            raise InputError(f"{_w(where)}: 'question_id' holds an unpaired surrogate escape ({qid!r})")
        if qid in first_seen:
            raise InputError(f"{_w(where)}: duplicate question_id {qid!r} (first at {_w(first_seen[qid])})")
        first_seen[qid] = where
        q = (where, qid)
        if "answers" not in obj:
            raise InputError(f"{_q(q)}: missing 'answers'")
        answers = obj["answers"]
        if not _is_str_list(answers):
            raise InputError(f"{_q(q)}: 'answers' must be a list of strings")
        yesno = obj.get("yesno_answers", [])
        if yesno is None:
            yesno = []
        if not _is_str_list(yesno):
            raise InputError(f"{_q(q)}: 'yesno_answers' must be a list of strings")
        row = {"answers": [norm(a) for a in answers], "yesno_answers": yesno}
        if is_ref:
            qtype = obj.get("question_type")
            if "question_type" not in obj:  # a prediction row: the files given the other way round?
                raise InputError(f"{_q(q)}: reference row has no 'question_type': is {path} a "
                                 "prediction file? (--pred_file and --ref_file swapped?)")
            if qtype not in QUESTION_TYPES:
                raise InputError(f"{_q(q)}: unknown question_type {qtype!r} (expected one of "
                                 f"{', '.join(QUESTION_TYPES)})")
            ents = obj.get("entity_answers", [])
            if ents is None:
                ents = []
            if type(ents) is not list or not all(map(_is_str_list, ents)):
                raise InputError(f"{_q(q)}: 'entity_answers' must be a list of lists of strings")
            if qtype == "YES_NO" and len(yesno) != len(answers):
                raise InputError(f"{_q(q)}: YES_NO question has {len(answers)} answers but "
                                 f"{len(yesno)} yesno_answers (need one label per answer)")
            row["question_type"] = qtype
            row["entity_answers"] = [[norm(e) for e in es] for es in ents]
            row["source"] = obj.get("source")
        rows[qid] = row
    return rows


@dataclass
class Contest:
    """Scoring instances in reference-file order, with the bookkeeping counts."""

    qids: List[Any] = field(default_factory=list)
    types: List[str] = field(default_factory=list)
    cands: List[str] = field(default_factory=list)
    ref_lists: List[List[str]] = field(default_factory=list)
    yn_labels: List[Optional[str]] = field(default_factory=list)
    yn_refs: List[Optional[List[str]]] = field(default_factory=list)
    entity_refs: List[Optional[set]] = field(default_factory=list)
    sources: List[Any] = field(default_factory=list)      # the reference's "source" (None if absent)
    missing: List[Any] = field(default_factory=list)      # scored questions with no prediction
    unexpected: List[Any] = field(default_factory=list)   # predictions for unknown questions
    no_answer: List[Any] = field(default_factory=list)    # reference questions skipped: no answers
    # (prediction id, reference id) pairs equal only as text ("1001" and 1001): the contest's script
    # keys ids by their JSON value, so these are a missing and an unexpected prediction
    text_matches: List[Tuple[Any, Any]] = field(default_factory=list)


def build_contest(preds: Dict[Any, dict], refs: Dict[Any, dict]) -> Contest:
    """The contest's ``calc_metrics`` loop, as data: one instance per reference
    question that has answers; the candidate is the first predicted answer
    ("" when missing); YES_NO gets the predicted label (first ``yesno_answers``
    entry); ENTITY the union of the reference entities (None when empty)."""
    c = Contest()
    for qid, ref in refs.items():
        if not ref["answers"]:
            c.no_answer.append(qid)
            continue
        pred = preds.get(qid)
        if pred is None:
            c.missing.append(qid)
            pred = {}
        answers = pred.get("answers") or []
        cand = answers[0] if answers else ""
        qtype = ref["question_type"]
        yn_label, yn_ref, ents = None, None, None
        if qtype == "ENTITY":
            ents = set(itertools.chain.from_iterable(ref["entity_answers"])) or None
        elif qtype == "YES_NO":
            labels = pred.get("yesno_answers") or []
            yn_label = labels[0] if labels else None
            yn_ref = ref["yesno_answers"]
        c.qids.append(qid)
        c.types.append(qtype)
        c.cands.append(cand)
        c.ref_lists.append(ref["answers"])
        c.yn_labels.append(yn_label)
        c.yn_refs.append(yn_ref)
        c.entity_refs.append(ents)
        c.sources.append(ref.get("source"))
    c.unexpected = [q for q in preds if q not in refs]
    if c.unexpected and c.missing:
        missing = {str(q): q for q in c.missing}
        c.text_matches = [(q, missing[str(q)]) for q in c.unexpected if str(q) in missing]
    return c


def text_match_warning(path: str, contest: Contest) -> Optional[str]:
    """What to tell the user when prediction ids equal missing reference ids only as text."""
    pairs = contest.text_matches
    if not pairs:
        return None

    def shown(q):
        return f"{q!r} ({'string' if isinstance(q, str) else 'number'})"

    some = ", ".join(f"{shown(p)} vs {shown(r)}" for p, r in pairs[:3]) + (", ..." if len(pairs) > 3 else "")
    return (f"{path}: {len(pairs)} prediction question_id(s) equal reference ids only as text "
            f"(prediction vs reference: {some}): scored as missing predictions, as the official "
            f"DuReader script keys ids by their JSON value; write the ids with the reference file's type")


def distinct_entities(ents: Optional[set], key: Optional[Callable[[str], Any]]) -> Optional[tuple]:
    """The question's entities as the contest counts them: one per distinct text *after* the
    text settings (``key``: the metrics' tokenizer; None = as given), so ``"七"`` and ``"七 "``
    are one entity once whitespace is dropped (the official driver normalises every entity
    string, then takes the set).  Word tokens: one per distinct token tuple.  The first
    representative in sorted order is kept (all of a class give the same tokens)."""
    if ents is None:
        return None
    if key is None:
        return tuple(sorted(ents))
    seen, out = set(), []
    for e in sorted(ents):
        k = key(e)
        if k not in seen:
            seen.add(k)
            out.append(e)
    return tuple(out)


def file_size(path: str) -> int:
    """Bytes to read (uncompressed for a zip), for the progress bar; 0 if unknown."""
    try:
        if is_zip(path):
            with zipfile.ZipFile(path) as zf:
                return sum(m.file_size for m in zf.infolist())
        return os.path.getsize(path)
    except _ZIP_ERRORS:
        return 0

