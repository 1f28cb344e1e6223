"""``paddle-rougel dedup`` and ``paddle-rougel join``: corpus-scale ROUGE-L over text or JSONL files.

Input files: plain text (one item per line; its id is its line number, from 1) or JSON Lines
(every non-blank line a JSON object, detected from the first non-blank line: ``{``); the text is
the ``--field`` value (default ``text``), the id the ``--id-field`` value (default ``id``; the
line number when absent).  Output: JSON Lines on stdout (or ``-o FILE``), ids as the input
gave them:

* ``dedup``: one line per kept item, ``{"id": ..., "line": N, "best": F}`` (``--all``: every
  item, with ``"kept": true/false``; ``best``: a dropped item's best F, null for a kept one
  unless ``--best exact``); a summary line on stderr;
* ``join``: one line per pair with F >= threshold, ``{"left": id, "right": id, "f": F}``.

A progress bar on stderr (a terminal only) for long runs.
"""
from __future__ import annotations

import json
import math
import sys
from typing import Any, List, Optional, Tuple

from paddle_rougel.api.dedup import deduplicate
from paddle_rougel.api.join import similarity_join

from .common import CliError
from .progress import Progress

__all__ = ["cmd_dedup", "cmd_join", "read_items"]


def read_items(path: str, field: str = "text", id_field: str = "id") -> Tuple[List[str], List[Any], List[int]]:
    """(texts, ids, line numbers) of a text or JSONL file (see the module docstring); a bad line is
    a ``CliError`` naming the file and the line."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
    except UnicodeDecodeError as e:
        raise CliError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    if lines and lines[-1] == "":
        lines.pop()
    first = next((s for s in lines if s.strip()), "")
    if not first.lstrip().startswith("{"):
        return [s.rstrip("\r") for s in lines], list(range(1, len(lines) + 1)), list(range(1, len(lines) + 1))
    texts, ids, nums = [], [], []
    for k, s in enumerate(lines, 1):
        if not s.strip():
            continue
        try:
            obj = json.loads(s)
        except json.JSONDecodeError as e:
            raise CliError(f"{path}, line {k}: not JSON ({e.msg})") from None
        if not isinstance(obj, dict):
            raise CliError(f"{path}, line {k}: expected a JSON object, got {type(obj).__name__}")
        if field not in obj:
            raise CliError(f"{path}, line {k}: no field {field!r} (fields: {', '.join(map(repr, obj))})")
        if not isinstance(obj[field], str):
            raise CliError(f"{path}, line {k}: field {field!r} is {type(obj[field]).__name__}, not a string")
        texts.append(obj[field])
        ids.append(obj.get(id_field, k))
        nums.append(k)
    return texts, ids, nums


def _settings(opts) -> dict:
    return dict(alpha=opts.alpha, tokenize=opts.tokenize, lowercase=opts.lowercase or None,
                stem=opts.stem, threads=opts.threads)


def _write(opts, rows) -> None:
    out = sys.stdout if opts.output == "-" else open(opts.output, "w", encoding="utf-8")
    try:
        for r in rows:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()


def _num(x: float) -> Optional[float]:
    return None if math.isnan(x) else float(x)


def cmd_dedup(opts) -> int:
    texts, ids, nums = read_items(opts.items, opts.field, opts.id_field)
    pool = read_items(opts.pool, opts.field, opts.id_field)[0] if opts.pool else []
    bar = Progress(len(texts), "dedup", min_total=20000)
    d = deduplicate(texts, pool, opts.threshold, best=opts.best, progress=bar.update, **_settings(opts))
    bar.close()
    kept = set(d.kept.tolist())
    rows = ({"id": ids[i], "line": nums[i], "best": _num(d.best[i]), **({"kept": i in kept} if opts.all else {})}
            for i in range(len(texts)) if opts.all or i in kept)
    _write(opts, rows)
    print(f"paddle-rougel dedup: kept {len(kept):,} of {len(texts):,} items (threshold {opts.threshold})",
          file=sys.stderr)
    return 0


def cmd_join(opts) -> int:
    lt, lids, _ = read_items(opts.left, opts.field, opts.id_field)
    rids = lids
    rt = None
    if opts.right:
        rt, rids, _ = read_items(opts.right, opts.field, opts.id_field)
    bar = Progress(len(lt), "join", min_total=20000)
    j = similarity_join(lt, rt, opts.threshold, progress=bar.update, **_settings(opts))
    bar.close()
    _write(opts, ({"left": lids[a], "right": rids[b], "f": f}
                  for a, b, f in zip(j.left.tolist(), j.right.tolist(), j.f.tolist())))
    return 0
