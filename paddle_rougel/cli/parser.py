"""The command line's parser: every command's flags, in one place (the commands' bodies never see
argparse; :func:`paddle_rougel.cli.options.resolve` turns the namespace into their options).

The settings' flags come from the option table (:data:`paddle_rougel.metrics.OPTIONS`: one
definition for flags, config keys and checks); the namespace lists which a command has
(``setting_keys``), so that the options keep them apart from the command's other flags.
"""
from __future__ import annotations

import argparse
import math
from typing import Dict, Optional

from paddle_rougel.core.version import __version__
from paddle_rougel.metrics import OPTIONS, rouge_types
from paddle_rougel.metrics.bonus import BONUS_OPTIONS
from paddle_rougel.core.settings import ROUGE_OPTIONS, TEXT_OPTIONS

from .breakdown import DUREADER_BY
from .common import PROG, TYPE_OPTIONS
from .lineio import INPUT_FORMATS
from .options import SETTING_KEYS
from .perinstance import FORMATS
from .signatures import current_engine
from .values import confidence_level, flag_type, positive_count, seed_value

__all__ = ["build_parser", "SCALE_TOKENIZERS"]

SCALE_TOKENIZERS = ("char", "whitespace", "zh", "jieba", "rouge_score")


# ------------------------------------------------------------------ shared flags

def add_options(p: argparse.ArgumentParser, options, aliases: Optional[Dict[str, tuple]] = None) -> None:
    """Flags from the settings' option table (one definition for flags, config keys and checks)."""
    for o in options:
        p.add_argument(*(o.flags + (aliases or {}).get(o.key, ())), dest=o.key, type=flag_type(o.parse),
                       choices=o.choices, default=None, help=o.help)
    p.set_defaults(**{SETTING_KEYS: (p.get_default(SETTING_KEYS) or ()) + tuple(o.key for o in options)})


def _rouge_types(text: str):
    try:
        return rouge_types(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_summary(p: argparse.ArgumentParser, types: bool = True) -> None:
    """Without ``types`` (explain, report: ROUGE-L or -Lsum only) other types' options are left out."""
    if types:
        p.add_argument("--rouge-types", "--rouge_types", dest="rouge_types", type=_rouge_types, default=None,
                       metavar="TYPES", help="comma-separated: rouge1, rouge2 (any rougeN), rougeL "
                                             "(default), rougeLsum; every type in one table / JSON")
    p.add_argument("--summary-level", "--summary_level", dest="summary_level", action="store_true",
                   help="ROUGE-Lsum (summary-level, union LCS over sentences) instead of ROUGE-L "
                        "(= --rouge-types rougeLsum)")
    add_options(p, [OPTIONS[k] for k, spec in TYPE_OPTIONS.items()
                    if types or spec.key in ("rougeL", "rougeLsum")])


def add_confidence(p: argparse.ArgumentParser, always: bool = False) -> None:
    """``always``: intervals without the flag too (``report``), at 0.95 unless LEVEL is given."""
    when = "always drawn; LEVEL " if always else ""
    p.add_argument("--confidence", nargs="?", const=0.95, type=confidence_level, default=0.95 if always else None,
                   metavar="LEVEL", help=f"percentile bootstrap interval of each score over instances at LEVEL "
                                         f"({when}default 0.95; at least 2 instances)")
    p.add_argument("--resamples", type=positive_count, default=None, metavar="N",
                   help="bootstrap resamples of --confidence (default 1000; at least 40 at 0.95, "
                        "200 at 0.99)")
    p.add_argument("--seed", type=seed_value, default=0, help="resampling seed (default 0)")


def add_outputs(p: argparse.ArgumentParser, per_instance_help: str) -> None:
    p.add_argument("--config", help="YAML config file or preset name (dureader, paddlenlp, rouge155, t2t)")
    p.add_argument("--per-instance", "--per_instance", dest="per_instance", metavar="FILE",
                   help=per_instance_help + " (- for standard output: the score then goes to stderr)")
    p.add_argument("--per-instance-format", "--per_instance_format", dest="per_instance_format",
                   choices=FORMATS, default=None,
                   help="jsonl or csv (default: csv when FILE ends in .csv, else jsonl)")
    p.add_argument("--save-state", "--save_state", dest="save_state", metavar="FILE",
                   help="write the metrics' state (for `merge`; - for standard output)")
    p.add_argument("--format", choices=("json", "table"), default="json",
                   help="json (default: one line on stdout, scores x100) or table")


def add_field_options(p: argparse.ArgumentParser) -> None:
    """``--field``, ``--hyp-field``, ``--ref-field`` and ``--input-format`` on a line command
    (the formats: :mod:`paddle_rougel.cli.lineio`)."""
    p.add_argument("--field", default=None, metavar="KEY",
                   help="JSON-lines inputs: score this field of each object (both sides)")
    p.add_argument("--hyp-field", "--hyp_field", dest="hyp_field", default=None, metavar="KEY",
                   help="JSON-lines hypotheses: their field (LLaMA-Factory: predict)")
    p.add_argument("--ref-field", "--ref_field", dest="ref_field", default=None, metavar="KEY",
                   help="JSON-lines references: their field (LLaMA-Factory: label)")
    p.add_argument("--input-format", "--input_format", dest="input_format", choices=INPUT_FORMATS,
                   default="auto", help="auto (default: JSON lines when the first line is a JSON "
                                        "object), text (lines as written) or jsonl")


def add_by(p: argparse.ArgumentParser, dureader: bool, text: bool) -> None:
    """``--by`` on a scoring command (the groups: :mod:`paddle_rougel.cli.breakdown`)."""
    if dureader and text:
        what = (f"one of {', '.join(DUREADER_BY)} (DuReader files), or for text files a key file "
                "(one key per line) or length")
    elif dureader:
        what = f"one of {', '.join(DUREADER_BY)}"
    else:
        what = "a key file (one key per line, line-aligned with --hyp) or length (first reference's tokens)"
    p.add_argument("--by", metavar="KEY", default=None, choices=DUREADER_BY if dureader and not text else None,
                   help=f"scores per group: {what}; length buckets the first reference answer's tokens")


def add_sources(p: argparse.ArgumentParser, multi: bool = False) -> None:
    """``explain`` and ``report``: DuReader files or text files, and their settings."""
    act = "append" if multi else "store"
    p.add_argument("--ref_file", "--ref-file", help="DuReader references (JSON lines or .zip)")
    p.add_argument("--pred_file", "--pred-file", action=act,
                   help="DuReader predictions" + (" (A, then optionally B)" if multi else ""))
    p.add_argument("--ref", action="append", help="text references, one per line (repeatable)")
    p.add_argument("--hyp", action=act, help="text hypotheses, one per line" + (" (A, then optionally B)" if multi else ""))
    add_options(p, [OPTIONS["gamma"], OPTIONS["multi_ref"]] + list(TEXT_OPTIONS))
    add_options(p, BONUS_OPTIONS)
    add_summary(p, types=multi)  # report: --rouge-types (every type); explain: ROUGE-L or -Lsum
    p.add_argument("--config", help="YAML config file or preset name")
    add_field_options(p)  # text files as JSON lines


# ------------------------------------------------------------------ commands

def _dureader(sub) -> None:
    d = sub.add_parser("dureader", help="DuReader contest score: ROUGE-L and BLEU-4 with bonus")
    d.add_argument("--pred_file", "--pred-file", required=True, help="predictions (JSON lines or .zip)")
    d.add_argument("--ref_file", "--ref-file", required=True, help="references (JSON lines or .zip)")
    add_options(d, [OPTIONS["gamma"], OPTIONS["multi_ref"]] + list(TEXT_OPTIONS))
    # --alpha / --beta: the contest script's names for the bonus weights (ROUGE's alpha is --alpha
    # of `score`); kept as aliases
    add_options(d, BONUS_OPTIONS, {"yesno_weight": ("--alpha",), "entity_weight": ("--beta",)})
    add_outputs(d, "write one row per question: id, type, ROUGE-L P, R, F (0-1) and the "
                   "weighted bonus in tokens (the largest over its references)")
    add_confidence(d)
    add_by(d, dureader=True, text=False)


def _score(sub) -> None:
    sc = sub.add_parser("score", help="ROUGE-L of line-aligned hypothesis/reference text files")
    sc.add_argument("--hyp", required=True, help="hypotheses, one per line or JSON lines (- for standard input)")
    sc.add_argument("--ref", required=True, action="append",
                    help="references, one per line; repeat for several reference sets (- for stdin)")
    add_field_options(sc)  # JSON lines: --field, --hyp-field, --ref-field, --input-format
    add_options(sc, ROUGE_OPTIONS + TEXT_OPTIONS)
    add_summary(sc)
    add_outputs(sc, "write one row per hypothesis line: line, P, R, F (0-1)")
    add_confidence(sc)
    add_by(sc, dureader=False, text=True)


def _compare(sub) -> None:
    c = sub.add_parser("compare", help="is system B better than A? paired test on the same references")
    c.add_argument("--ref_file", "--ref-file", help="DuReader references (with two --pred_file)")
    c.add_argument("--pred_file", "--pred-file", action="append", help="DuReader predictions: A, then B")
    c.add_argument("--ref", action="append", help="text references, one per line (with two --hyp)")
    c.add_argument("--hyp", action="append", help="text hypotheses: A, then B")
    add_field_options(c)
    c.add_argument("--method", choices=("paired_bootstrap", "approximate_randomization"),
                   default="paired_bootstrap", help="sacreBLEU's paired-bs (default) or paired-ar")
    c.add_argument("--resamples", type=positive_count, default=None,
                   help="bootstrap resamples (default 1000, at least 40) or randomization trials "
                        "(default 10000); at least 2 instances")
    c.add_argument("--confidence", type=confidence_level, default=None, metavar="LEVEL",
                   help="level of the interval of the difference (default 0.95)")
    c.add_argument("--seed", type=seed_value, default=0, help="resampling seed (default 0)")
    add_options(c, [OPTIONS["gamma"], OPTIONS["multi_ref"]] + list(TEXT_OPTIONS))
    add_options(c, BONUS_OPTIONS)
    add_summary(c)
    c.add_argument("--config", help="YAML config file or preset name")
    c.add_argument("--format", choices=("json", "table"), default="json")
    add_by(c, dureader=True, text=True)


def _merge(sub) -> None:
    m = sub.add_parser("merge", help="combine state files into the score of all their data")
    m.add_argument("state_files", nargs="+", metavar="STATE_FILE")
    m.add_argument("--config", help="check the states were made with this config")
    m.add_argument("--format", choices=("json", "table"), default="json")
    add_confidence(m)  # over the instances the states keep (score --confidence --save-state)


def _explain_report(sub) -> None:
    e = sub.add_parser("explain", help="show which tokens one instance's LCS matches (best reference)")
    add_sources(e)
    e.add_argument("--question_id", "--question-id", help="the DuReader question to explain")
    e.add_argument("--line", type=positive_count, help="the text line to explain (1-based)")
    e.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the matched tokens (auto: on a terminal); otherwise [brackets]")

    r = sub.add_parser("report", help="write a self-contained HTML report (scores, groups, alignments)")
    add_sources(r, multi=True)
    r.add_argument("-o", "--output", required=True, help="the HTML file to write")
    r.add_argument("--by", metavar="KEYFILE", default=None,
                   help="text files: also group by this key file (one key per line)")
    r.add_argument("--worst", type=positive_count, default=20, help="instances listed in full (default 20)")
    add_confidence(r, always=True)  # score's --confidence [LEVEL] --resamples N --seed S


def _threshold(s: str) -> float:
    try:
        t = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {s!r}") from None
    if not math.isfinite(t):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {s!r}")
    return t


def _scale_common(p) -> None:
    p.add_argument("--threshold", type=_threshold, default=0.7, help="ROUGE-L F threshold (default 0.7)")
    p.add_argument("--tokenize", choices=SCALE_TOKENIZERS, default="char",
                   help="tokens: char (default), whitespace, zh, jieba, rouge_score (English: rouge_score)")
    p.add_argument("--lowercase", action="store_true", help="lowercase before tokenizing")
    p.add_argument("--stem", action="store_true", help="rouge-score's Porter stemming (rouge_score tokens)")
    p.add_argument("--alpha", type=_threshold, default=None, help="F weighting (default 0.5: rouge-score's F)")
    p.add_argument("--field", default="text", help="JSONL: the text's field (default text)")
    p.add_argument("--id-field", default="id", help="JSONL: the id's field (default id; else the line number)")
    p.add_argument("-o", "--output", default="-", help="output JSONL file (default: standard output)")
    p.add_argument("--threads", type=positive_count, default=None, help="worker threads of the LCS kernel")


def _dedup_join(sub) -> None:
    d = sub.add_parser("dedup", help="Self-Instruct de-duplication: keep items whose ROUGE-L F with every "
                                     "kept one (and the pool) is <= the threshold")
    d.add_argument("items", metavar="FILE", help="items, in order (text lines or JSONL)")
    d.add_argument("--pool", metavar="FILE", help="items already kept (text lines or JSONL)")
    d.add_argument("--all", action="store_true", help="write every item with \"kept\", not only the kept")
    d.add_argument("--best", choices=("exact", "dropped"), default="dropped",
                   help="dropped (default): the dropped items' best F, null for the kept; exact: every "
                        "item's (a second pass, quadratic in the kept items)")
    _scale_common(d)
    j = sub.add_parser("join", help="every pair with ROUGE-L F >= the threshold (LEFT with itself, or LEFT x RIGHT)")
    j.add_argument("left", metavar="LEFT", help="texts (text lines or JSONL): the hypothesis side")
    j.add_argument("right", metavar="RIGHT", nargs="?",
                   help="texts to compare with (default: LEFT itself, pairs i < j)")
    _scale_common(j)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=PROG, description="Fast exact ROUGE-L (and the DuReader contest score).")
    ap.add_argument("--version", action="version",
                    version=f"{PROG} {__version__} (engine: {current_engine()})")
    sub = ap.add_subparsers(dest="command", required=True)
    for add in (_dureader, _score, _compare, _merge, _explain_report, _dedup_join):
        add(sub)
    # rouge155 takes ROUGE-1.5.5.pl's own flags: main() hands its arguments over before argparse
    sub.add_parser("rouge155", add_help=False,
                   help="ROUGE-1.5.5.pl's command line, its output byte for byte (rouge155/cli.py)")
    return ap
