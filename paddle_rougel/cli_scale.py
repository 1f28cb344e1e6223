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

import argparse
import json
import math
import sys
from typing import Any, List, Optional, Tuple

from . import cli
from .cli_values import positive_count
from .progress import Progress

__all__ = ["add_parsers", "read_items"]

TOKENIZERS = ("char", "whitespace", "zh", "jieba", "rouge_score")


def read_items(path: str, field: str = "text", id_field: str = "id") -> Tuple[List[str], List[Any], List[int]]:
    """(texts, ids, line numbers) of a text or JSONL file (see the module docstring); a bad line is
    a ``cli.CliError`` naming the file and the line."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
    except UnicodeDecodeError as e:
        raise cli.CliError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
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
            raise cli.CliError(f"{path}, line {k}: not JSON ({e.msg})") from None
        if not isinstance(obj, dict):
            raise cli.CliError(f"{path}, line {k}: expected a JSON object, got {type(obj).__name__}")
        if field not in obj:
            raise cli.CliError(f"{path}, line {k}: no field {field!r} (fields: {', '.join(map(repr, obj))})")
        if not isinstance(obj[field], str):
            raise cli.CliError(f"{path}, line {k}: field {field!r} is {type(obj[field]).__name__}, not a string")
        texts.append(obj[field])
        ids.append(obj.get(id_field, k))
        nums.append(k)
    return texts, ids, nums


def _threshold(s: str) -> float:
    try:
        t = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {s!r}") from None
    if not math.isfinite(t):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {s!r}")
    return t


def _common(p) -> None:
    p.add_argument("--threshold", type=_threshold, default=0.7, help="ROUGE-L F threshold (default 0.7)")
    p.add_argument("--tokenize", choices=TOKENIZERS, default="char",
                   help="tokens: char (default), whitespace, zh, jieba, rouge_score (English: rouge_score)")
    p.add_argument("--lowercase", action="store_true", help="lowercase before tokenizing")
    p.add_argument("--stem", action="store_true", help="rouge-score's Porter stemming (rouge_score tokens)")
    p.add_argument("--alpha", type=_threshold, default=None, help="F weighting (default 0.5: rouge-score's F)")
    p.add_argument("--field", default="text", help="JSONL: the text's field (default text)")
    p.add_argument("--id-field", default="id", help="JSONL: the id's field (default id; else the line number)")
    p.add_argument("-o", "--output", default="-", help="output JSONL file (default: standard output)")
    p.add_argument("--threads", type=positive_count, default=None, help="worker threads of the LCS kernel")


def add_parsers(sub) -> None:
    """The ``dedup`` and ``join`` commands."""
    d = sub.add_parser("dedup", help="Self-Instruct de-duplication: keep items whose ROUGE-L F with every "
                                     "kept one (and the pool) is <= the threshold")
    d.add_argument("items", metavar="FILE", help="items, in order (text lines or JSONL)")
    d.add_argument("--pool", metavar="FILE", help="items already kept (text lines or JSONL)")
    d.add_argument("--all", action="store_true", help="write every item with \"kept\", not only the kept")
    d.add_argument("--best", choices=("exact", "dropped"), default="dropped",
                   help="dropped (default): the dropped items' best F, null for the kept; exact: every "
                        "item's (a second pass, quadratic in the kept items)")
    _common(d)
    d.set_defaults(func=cmd_dedup)
    j = sub.add_parser("join", help="every pair with ROUGE-L F >= the threshold (LEFT with itself, or LEFT x RIGHT)")
    j.add_argument("left", metavar="LEFT", help="texts (text lines or JSONL): the hypothesis side")
    j.add_argument("right", metavar="RIGHT", nargs="?",
                   help="texts to compare with (default: LEFT itself, pairs i < j)")
    _common(j)
    j.set_defaults(func=cmd_join)


def _settings(args) -> dict:
    return dict(alpha=args.alpha, tokenize=args.tokenize, lowercase=args.lowercase or None,
                stem=args.stem, threads=args.threads)


def _write(args, rows) -> None:
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    try:
        for r in rows:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()


def _num(x: float) -> Optional[float]:
    return None if math.isnan(x) else float(x)


def cmd_dedup(args) -> int:
    from .dedup import deduplicate

    texts, ids, nums = read_items(args.items, args.field, args.id_field)
    pool = read_items(args.pool, args.field, args.id_field)[0] if args.pool else []
    bar = Progress(len(texts), "dedup", min_total=20000)
    d = deduplicate(texts, pool, args.threshold, best=args.best, progress=bar.update, **_settings(args))
    bar.close()
    kept = set(d.kept.tolist())
    rows = ({"id": ids[i], "line": nums[i], "best": _num(d.best[i]), **({"kept": i in kept} if args.all else {})}
            for i in range(len(texts)) if args.all or i in kept)
    _write(args, rows)
    print(f"paddle-rougel dedup: kept {len(kept):,} of {len(texts):,} items (threshold {args.threshold})",
          file=sys.stderr)
    return 0


def cmd_join(args) -> int:
    from .join import similarity_join

    lt, lids, _ = read_items(args.left, args.field, args.id_field)
    rids = lids
    rt = None
    if args.right:
        rt, rids, _ = read_items(args.right, args.field, args.id_field)
    bar = Progress(len(lt), "join", min_total=20000)
    j = similarity_join(lt, rt, args.threshold, progress=bar.update, **_settings(args))
    bar.close()
    _write(args, ({"left": lids[a], "right": rids[b], "f": f}
                  for a, b, f in zip(j.left.tolist(), j.right.tolist(), j.f.tolist())))
    return 0
