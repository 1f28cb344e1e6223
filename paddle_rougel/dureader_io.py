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
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

__all__ = ["InputError", "read_rows", "build_contest", "Contest", "normalize", "QUESTION_TYPES"]

QUESTION_TYPES = ("YES_NO", "ENTITY", "DESCRIPTION")


class InputError(ValueError):
    """Bad input data (the CLI prints it as a one-line error)."""


def normalize(s: str) -> str:
    """Remove every whitespace character (the contest's ``normalize``).

    >>> normalize(" 北京 \\t上海\\u3000")
    '北京上海'
    """
    return "".join(s.split())


def _iter_lines(path: str, progress: Optional[Callable[[int], None]] = None
                ) -> Iterator[Tuple[str, int, str]]:
    """Yield ``(name, line_number, line)``; ``name`` is the file or ``file[member]``."""
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, expected a JSON-lines or .zip file")
    if path.endswith(".zip"):
        try:
            zf = zipfile.ZipFile(path)
        except zipfile.BadZipFile:
            raise InputError(f"{path}: not a valid zip archive") from None
        with zf:
            members = [m for m in zf.infolist() if not m.is_dir()]
            if not members:
                raise InputError(f"{path}: the zip archive holds no files")
            for m in members:
                data = zf.read(m)
                yield from _split(data, f"{path}[{m.filename}]", progress)
        return
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None
    yield from _split(data, path, progress)


def _split(data: bytes, name: str, progress) -> Iterator[Tuple[str, str]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise InputError(f"{name}:{line}: not UTF-8 text") from None
    step = 0
    scale = len(data) / max(len(text), 1)  # the bar counts bytes; lines are characters
    for i, line in enumerate(text.split("\n"), 1):
        if progress is not None:
            step += len(line) + 1
            if step >= 1 << 16:
                progress(int(step * scale))
                step = 0
        if line and not line.isspace():
            yield name, i, line
    if progress is not None and step:
        progress(int(step * scale))


def _w(where: Tuple[str, int]) -> str:
    return f"{where[0]}:{where[1]}"


def _q(q) -> str:
    return f"{_w(q[0])}: question_id {q[1]!r}"


def _is_str_list(v: Any) -> bool:
    return type(v) is list and set(map(type, v)) <= _STR  # C-level: no per-item Python call


_STR = {str}


def read_rows(path: str, is_ref: bool, progress: Optional[Callable[[int], None]] = None,
              keep_spaces: bool = False) -> Dict[Any, dict]:
    """Read and validate a prediction (``is_ref=False``) or reference file.

    Returns ``{question_id: row}`` in file order, with ``answers`` (and
    reference ``entity_answers``) normalised (unless ``keep_spaces``).
    """
    norm = (lambda s: s) if keep_spaces else normalize
    rows: Dict[Any, dict] = {}
    first_seen: Dict[Any, str] = {}
    loads = json.loads
    for name, lineno, line in _iter_lines(path, progress):
        where = (name, lineno)  # formatted only for an error message
        try:
            obj = loads(line)
        except ValueError as e:
            raise InputError(f"{_w(where)}: invalid JSON ({e})") from None
        except RecursionError:
            raise InputError(f"{_w(where)}: invalid JSON (nested too deeply)") from None
        if not isinstance(obj, dict):
            raise InputError(f"{_w(where)}: each line must be a JSON object, got {type(obj).__name__}")
        if "question_id" not in obj:
            raise InputError(f"{_w(where)}: row has no 'question_id'")
        qid = obj["question_id"]
        if not isinstance(qid, (str, int)) or isinstance(qid, bool):
            raise InputError(f"{_w(where)}: 'question_id' must be a string or an integer, got {qid!r}")
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
    missing: List[Any] = field(default_factory=list)      # scored questions with no prediction
    unexpected: List[Any] = field(default_factory=list)   # predictions for unknown questions
    no_answer: List[Any] = field(default_factory=list)    # reference questions skipped: no answers


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
    c.unexpected = [q for q in preds if q not in refs]
    return c


def file_size(path: str) -> int:
    """Bytes to read (uncompressed for a zip), for the progress bar; 0 if unknown."""
    try:
        if path.endswith(".zip"):
            with zipfile.ZipFile(path) as zf:
                return sum(m.file_size for m in zf.infolist())
        return os.path.getsize(path)
    except (OSError, zipfile.BadZipFile):
        return 0

