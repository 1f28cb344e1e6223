"""The line commands' inputs (``score``, ``compare``, ``explain``, ``report``): a text file, one
instance per line, or JSON lines, one object per line and the text in one of its fields.

Which one a file is:

* ``--input-format text``: lines as written, whatever they hold;
* ``--input-format jsonl``, or a field named (``--field``, ``--hyp-field``, ``--ref-field``):
  JSON lines;
* ``auto`` (the default): JSON lines when the first non-blank line is a JSON object, else text.
  A JSON-lines file read without a field is an error that lists its keys (scoring the raw lines,
  keys and braces included, gives a number that means nothing).

JSON lines: every non-blank line one JSON object (blank lines are skipped: instance ``i`` is the
``i``-th object); the field's value must be a string, and may hold newlines (a multi-line answer:
ROUGE-Lsum's sentences).  LLaMA-Factory's ``generated_predictions.jsonl`` holds both sides:
``--hyp F --ref F --hyp-field predict --ref-field label``.  Errors name the file, the line and the
field.

>>> read_instances("p.jsonl", '{"predict": "a\\\\nb", "label": "c"}\\n', "predict", "--hyp")
['a\\nb']
>>> read_instances("h.txt", "one\\ntwo\\n", None, "--hyp")
['one', 'two']
"""
from __future__ import annotations

import json
import sys
from typing import Any, List, Optional

from .common import CliError, check_input
from .jsonline import InputError, parse_json, reject_constant

__all__ = ["INPUT_FORMATS", "read_instances", "reject_constant", "text_lines", "read_text", "read_lines", "read_json"]

INPUT_FORMATS = ("auto", "text", "jsonl")
_KINDS = {dict: "an object", list: "a list", int: "a number", float: "a number", bool: "a boolean",
          type(None): "null"}


def text_lines(text: str) -> List[str]:
    """A text's lines (``\\n`` or ``\\r\\n``; a final line end does not start a line)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def _object(line: str) -> Optional[dict]:
    """The line's JSON object, or None when it is not one."""
    s = line.strip()
    if not (s.startswith("{") and s.endswith("}")):
        return None
    try:
        obj = json.loads(s, parse_constant=reject_constant)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _keys(obj: dict) -> str:
    return ", ".join(repr(k) for k in list(obj)[:12]) + (", ..." if len(obj) > 12 else "")


def read_instances(path: str, text: str, field: Optional[str], flag: str, fmt: str = "auto") -> List[str]:
    """The texts of one input file (``text``: its decoded contents), as the module doc says;
    ``flag`` (``--hyp``, ``--ref``) names the side in messages."""
    lines = text_lines(text)
    if fmt == "text":
        if field is not None:
            raise InputError(f"{flag} {path}: a field ({field!r}) needs JSON lines, not --input-format text")
        return lines
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    obj = _object(lines[first]) if first is not None else None
    if fmt == "auto" and field is None and obj is None:
        return lines
    if field is None:
        if obj is None:
            raise InputError(f"{path}: --input-format jsonl needs a field: give {flag}-field KEY or --field KEY")
        raise InputError(f"{path}: JSON lines (keys of line {first + 1}: {_keys(obj)}): give {flag}-field KEY "
                         f"or --field KEY to score one field (LLaMA-Factory's generated_predictions.jsonl: "
                         f"--hyp-field predict --ref-field label), or --input-format text to score the "
                         f"lines as written")
    return [_field(path, i + 1, ln, field) for i, ln in enumerate(lines) if ln.strip()]


def _field(path: str, lineno: int, line: str, field: str) -> str:
    obj: Any = parse_json(line, (path, lineno))
    if not isinstance(obj, dict):
        raise InputError(f"{path}:{lineno}: expected a JSON object, got {_KINDS.get(type(obj), 'a string')}")
    if field not in obj:
        raise InputError(f"{path}:{lineno}: no field {field!r} (keys: {_keys(obj) or 'none'})")
    value = obj[field]
    if not isinstance(value, str):
        raise InputError(f"{path}:{lineno}: field {field!r} is {_KINDS.get(type(value), type(value).__name__)}, "
                         f"expected a string")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(f"{path}:{lineno}: field {field!r} holds an unpaired surrogate escape") from None
    return value


def read_text(path: str) -> str:
    """A file's text (``-``: standard input): UTF-8, an optional BOM dropped; errors name the line."""
    if path == "-":
        data = sys.stdin.buffer.read() if sys.stdin is not None else b""
    else:
        check_input(path)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise CliError(f"{path}: cannot read ({e.strerror or e})") from None
    if data.startswith(b"\xef\xbb\xbf"):  # dropped before decoding: offsets stay file offsets - 3
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CliError(f"{path}:{_line_of(data, e.start)}: not UTF-8 text") from None


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def read_json(path: str) -> Any:
    """A JSON file's value (a state file: ``merge``)."""
    return parse_json(read_text(path), path)


def read_lines(path: str) -> List[str]:
    """A text file's lines (``-``: standard input), UTF-8 with an optional BOM."""
    return text_lines(read_text(path))
