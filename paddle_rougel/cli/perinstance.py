"""The command line's per-instance rows (``--per-instance``): JSON lines or CSV.

One row per instance, in input order: its keys (``question_id``,
``question_type`` for ``dureader``; ``line``, 1-based, for ``score``), then
``precision``, ``recall``, ``f`` (0-1 scale) and, for ``dureader``, ``bonus``:
the weighted bonus added to the LCS, in tokens (characters under the contest's
settings): the yes/no weight times the LCS length when the predicted label
matches the reference's, else the entity weight times the summed length of the
reference entities found in the candidate; the largest over the references.

The format is ``jsonl`` or ``csv`` (``--per-instance-format``; by default
``csv`` when the file name ends in ``.csv`` in any case, else ``jsonl``).  CSV
has a header row with the JSON keys as column names, ``\\n`` line ends, and
numbers printed as Python's ``repr`` (the shortest text that reads back as the
same float, as in the JSON lines), so both round-trip exactly.

>>> import numpy as np
>>> from paddle_rougel.core.scoring import Score
>>> s = Score(np.array([0.5, 1.0]), np.array([0.25, 1.0]), np.array([1 / 3, 1.0]))
>>> print(per_instance_text(("line",), [(1,), (2,)], s, fmt="csv"), end="")
line,precision,recall,f
1,0.5,0.25,0.3333333333333333
2,1.0,1.0,1.0
"""
from __future__ import annotations

import csv
import io
import json
import math
from typing import Iterator, Optional, Sequence

__all__ = ["FORMATS", "per_instance_format", "per_instance_text"]

FORMATS = ("jsonl", "csv")


class RowError(ValueError):
    """A row cannot be written (a value that is not finite)."""


def per_instance_format(path: str, fmt: Optional[str]) -> str:
    """The format given, else by the file name: ``.csv`` (any case) is CSV, anything else JSON lines."""
    if fmt is not None:
        return fmt
    return "csv" if path.lower().endswith(".csv") else "jsonl"


def _columns(score) -> list:
    """(name, values): ``precision``, ``recall``, ``f`` of one Score; of several
    (``{"ROUGE-1": Score, ...}``) ``ROUGE-1-P``, ``ROUGE-1-R``, ``ROUGE-1`` each, the names
    of the score's JSON."""
    if isinstance(score, dict):
        return [c for name, s in score.items()
                for c in ((f"{name}-P", s.precision.tolist()), (f"{name}-R", s.recall.tolist()),
                          (name, s.fmeasure.tolist()))]
    return [("precision", score.precision.tolist()), ("recall", score.recall.tolist()),
            ("f", score.fmeasure.tolist())]


def _rows(names: Sequence[str], keys: Sequence[tuple], score, bonus=None) -> Iterator[dict]:
    cols = _columns(score)
    if bonus is not None:
        cols.append(("bonus", [float(b) for b in bonus]))
    for i, key in enumerate(keys):
        row = dict(zip(names, key))
        values = [c[i] for _, c in cols]
        if not all(map(math.isfinite, values)):
            row.update((name, c[i]) for name, c in cols)
            raise RowError(f"{dict(zip(names, key))} has a value that is not finite ({row}); "
                           "check the bonus weights")
        row.update(zip((name for name, _ in cols), values))
        yield row


def per_instance_text(names: Sequence[str], keys: Sequence[tuple], score, bonus=None,
                      fmt: str = "jsonl") -> str:
    """One row per instance: ``names`` = ``keys[i]``, then P, R, F (of each type when ``score``
    is a dict of them), and the bonus when given."""
    rows = _rows(names, keys, score, bonus)
    if fmt == "jsonl":
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    if fmt != "csv":
        raise ValueError(f"per-instance format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(list(names) + [c for c, _ in _columns(score)] + (["bonus"] if bonus is not None else []))
    for row in rows:
        w.writerow([repr(v) if type(v) is float else v for v in row.values()])
    return out.getvalue()
