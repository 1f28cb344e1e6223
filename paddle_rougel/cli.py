"""The ``paddle-rougel`` command line.

Commands:

* ``dureader --pred_file P --ref_file R``: the DuReader contest score (ROUGE-L
  and BLEU-4 with the yes/no and entity bonus), printed as the contest's
  JSON ``{"ROUGE-L": .., "BLEU-4": ..}`` (x100, 2 decimals) on stdout;
* ``score --hyp H --ref R [--ref R2 ...]``: ROUGE-L of line-aligned text files;
* ``merge STATE...``: combine ``dureader --save-state`` files (or metric
  ``state_dict()`` JSON files) into the score of all their data.

Every run prints a signature naming the settings that change the number.
Machine-readable output (JSON) keeps stdout pure: the signature and counts go
to stderr; the ``table`` format prints the signature under the table.
Errors are one line on stderr, exit status 2, and no output file is left
half-written.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from typing import Any, Dict, List, Optional

import numpy as np

from . import __version__, engine, scoring
from .bleu import BLEUForDuReader
from .config import ConfigError, Settings, load_config
from .dureader import RougeLForDuReader
from .dureader_io import InputError, build_contest, file_size, read_rows
from .metric import RougeL
from .progress import Progress

__all__ = ["main"]

PROG = "paddle-rougel"
_BATCH = 8192  # instances per scoring call (progress granularity)
STATE_FORMAT = "paddle-rougel-state/1"


class CliError(Exception):
    """A one-line error for the user."""


# ------------------------------------------------------------------ helpers

def _err(msg: str) -> None:
    print(f"{PROG}: error: {msg}", file=sys.stderr)


def _write_atomic(path: str, text: str) -> None:
    """Write via a temp file in the same directory + rename: never half-written."""
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d):
        raise CliError(f"{path}: directory {d} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _settings(args, **flags) -> Settings:
    """Config file (if any), then the explicit flags (None = not given)."""
    s = load_config(args.config) if getattr(args, "config", None) else Settings()
    for key, val in flags.items():
        if val is None:
            continue
        if key == "gamma":
            s.gamma, s.alpha = scoring.check_gamma(val), None
        elif key == "alpha":
            s.alpha, s.gamma = scoring.check_alpha(val), None
        else:
            setattr(s, key, val)
    return s


def _pct(x: float) -> float:
    return round(x * 100, 2)


def _print_result(result: Dict[str, Any], fmt: str, signature: str, extra_lines: List[str]) -> None:
    if fmt == "json":
        print(json.dumps(result, ensure_ascii=False))
        for line in extra_lines:
            print(line, file=sys.stderr)
        print(signature, file=sys.stderr)
    else:
        width = max(len(k) for k in result) if result else 6
        print(f"{'metric':<{width}}  score")
        for k, v in result.items():
            print(f"{k:<{width}}  {v}")
        for line in extra_lines:
            print(line, file=sys.stderr)
        print(signature)


# ----------------------------------------------------------------- dureader

def _score_contest(contest, rouge: RougeLForDuReader, bleu: BLEUForDuReader) -> None:
    n = len(contest.cands)
    bar = Progress(n, "scoring", min_total=2 * _BATCH)
    for lo in range(0, n, _BATCH):
        hi = min(lo + _BATCH, n)
        sl = slice(lo, hi)
        args = (contest.cands[sl], contest.ref_lists[sl], contest.yn_labels[sl],
                contest.yn_refs[sl], contest.entity_refs[sl])
        rouge.add_batch(*args)
        bleu.add_batch(*args)
        bar.update(hi - lo)
    bar.close()


def cmd_dureader(args) -> int:
    s = _settings(args, bonus_alpha=args.alpha, bonus_beta=args.beta)
    if s.tokenize != "char":
        raise ConfigError(f"the dureader command scores characters; tokenize {s.tokenize!r} "
                          "is not supported (use tokenize: char)")
    gamma = s.rouge_gamma()
    norm = None if s.normalize == "none" else True
    total = file_size(args.pred_file) + file_size(args.ref_file)
    bar = Progress(total, "reading", min_total=8 << 20)
    preds = read_rows(args.pred_file, is_ref=False, progress=bar.update, keep_spaces=norm is None)
    refs = read_rows(args.ref_file, is_ref=True, progress=bar.update, keep_spaces=norm is None)
    bar.close()
    contest = build_contest(preds, refs)

    rouge = RougeLForDuReader(alpha=s.bonus_alpha, beta=s.bonus_beta, gamma=gamma,
                              multi_ref=s.multi_ref)
    bleu = BLEUForDuReader(n_size=4, alpha=s.bonus_alpha, beta=s.bonus_beta)
    _score_contest(contest, rouge, bleu)
    result = {"ROUGE-L": _pct(rouge.score()), "BLEU-4": _pct(bleu.score())}
    signature = s.signature("rougeL+bleu4", with_bonus=True)

    if args.per_instance:
        pi = rouge.per_instance()
        bonus = rouge.per_instance_bonus()
        lines = []
        for i, qid in enumerate(contest.qids):
            lines.append(json.dumps({
                "question_id": qid, "question_type": contest.types[i],
                "precision": float(pi.precision[i]), "recall": float(pi.recall[i]),
                "f": float(pi.fmeasure[i]), "bonus": float(bonus[i]),
            }, ensure_ascii=False))
        _write_atomic(args.per_instance, "".join(line + "\n" for line in lines))
    if args.save_state:
        state = {"format": STATE_FORMAT, "signature": signature,
                 "metrics": {"rouge_l": rouge.state_dict(), "bleu": bleu.state_dict()}}
        _write_atomic(args.save_state, json.dumps(state, ensure_ascii=False, indent=1) + "\n")

    counts = (f"questions scored: {len(contest.qids)}; missing predictions: {len(contest.missing)}; "
              f"unexpected predictions: {len(contest.unexpected)}; "
              f"skipped (no reference answers): {len(contest.no_answer)}")
    _print_result(result, args.format, signature, [counts])
    return 0


# -------------------------------------------------------------------- merge

def _metric_from_state(st: dict, where: str):
    name, cfg = st.get("metric"), st.get("config")
    if not isinstance(cfg, dict) or not isinstance(st.get("states"), dict):
        raise CliError(f"{where}: not a metric state (needs 'metric', 'config' and 'states')")
    try:
        if name == "RougeLForDuReader":
            m = RougeLForDuReader(alpha=cfg["alpha"], beta=cfg["beta"], gamma=cfg["gamma"],
                                  multi_ref=cfg["multi_ref"])
        elif name == "RougeL":
            m = RougeL(gamma=cfg["gamma"], multi_ref=cfg["multi_ref"])
        elif name == "BLEUForDuReader":
            m = BLEUForDuReader(n_size=cfg["n_size"], alpha=cfg["alpha"], beta=cfg["beta"])
        else:
            raise CliError(f"{where}: unknown metric {name!r} (expected RougeLForDuReader, "
                           "RougeL or BLEUForDuReader)")
    except KeyError as e:
        raise CliError(f"{where}: {name} state lacks the setting {e.args[0]!r}") from None
    return m


def _load_state_file(path: str) -> Dict[str, dict]:
    if not os.path.isfile(path):
        raise CliError(f"{path}: no such file")
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
    except ValueError as e:
        raise CliError(f"{path}: invalid JSON ({e})") from None
    if isinstance(obj, dict) and isinstance(obj.get("metrics"), dict):
        states = dict(obj["metrics"])
        sig = obj.get("signature")
    elif isinstance(obj, dict) and "metric" in obj and "states" in obj:
        states = {"rouge_l" if "Rouge" in str(obj["metric"]) else "bleu": obj}
        sig = None
    else:
        raise CliError(f"{path}: not a paddle-rougel state file (from `dureader --save-state` "
                       "or json.dump(metric.state_dict()))")
    return {"states": states, "signature": sig}


def cmd_merge(args) -> int:
    files = [(p, _load_state_file(p)) for p in args.state_files]
    first_path, first = files[0]
    keys = sorted(first["states"])
    sigs = {p: f["signature"] for p, f in files if f["signature"] is not None}
    metrics: Dict[str, Any] = {}
    for key in keys:
        m = _metric_from_state(first["states"][key], first_path)
        try:
            m.load_state_dict(first["states"][key])
        except ValueError as e:
            raise CliError(f"{first_path}: {e}") from None
        metrics[key] = m
    for path, f in files[1:]:
        if sorted(f["states"]) != keys:
            raise CliError(f"{path}: holds metrics {sorted(f['states'])} but {first_path} holds {keys}")
        for key in keys:
            st = f["states"][key]
            try:
                metrics[key].merge(st)
            except (ValueError, KeyError, TypeError) as e:
                raise CliError(f"{path}: cannot merge with {first_path}: {e}") from None
    if len(set(sigs.values())) > 1:
        detail = "; ".join(f"{p}: {s}" for p, s in sigs.items())
        raise CliError(f"state files were made with different settings ({detail})")
    if args.config:
        s = load_config(args.config)
        for key, m in metrics.items():
            want = None
            if isinstance(m, RougeLForDuReader):
                want = RougeLForDuReader(alpha=s.bonus_alpha, beta=s.bonus_beta, gamma=s.rouge_gamma(),
                                         multi_ref=s.multi_ref)._config()
            elif isinstance(m, BLEUForDuReader):
                want = BLEUForDuReader(m.n_size, alpha=s.bonus_alpha, beta=s.bonus_beta)._config()
            if want is not None and want != m._config():
                raise CliError(f"the states' settings {m._config()} differ from {args.config}: {want}")
    result: Dict[str, float] = {}
    for m in metrics.values():
        if isinstance(m, RougeL):
            result["ROUGE-L"] = _pct(m.score())
    for m in metrics.values():
        if isinstance(m, BLEUForDuReader):
            result[f"BLEU-{m.n_size}"] = _pct(m.score())
    if sigs:
        signature = next(iter(sigs.values()))
    else:
        parts = []
        for m in metrics.values():
            cfg = m._config()
            parts.append(type(m).__name__ + ":" + ",".join(f"{k}={v}" for k, v in sorted(cfg.items())))
        signature = "|".join(["merged"] + parts + [f"v:{__version__}"])
    _print_result(result, args.format, signature, [f"merged {len(files)} state files"])
    return 0


# -------------------------------------------------------------------- score

def _read_lines(path: str) -> List[str]:
    if not os.path.isfile(path):
        raise CliError(f"{path}: no such file")
    try:
        with open(path, "rb") as f:
            data = f.read()
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise CliError(f"{path}:{line}: not UTF-8 text") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def _tokenizer(name: str, norm: str):
    strip = (lambda t: "".join(t.split())) if norm == "nows" else (lambda t: t)
    if name == "char":
        return strip
    if name == "whitespace":
        return str.split
    try:
        import jieba  # optional: only this tokenizer needs it
    except ImportError:
        raise CliError("--tokenize jieba needs the optional 'jieba' package "
                       "(pip install 'paddle-rougel[jieba]')") from None
    import logging

    jieba.setLogLevel(logging.WARNING)
    return lambda t: [w for w in jieba.lcut(strip(t)) if w.strip()]


def cmd_score(args) -> int:
    s = _settings(args, gamma=args.gamma, alpha=args.alpha, tokenize=args.tokenize,
                  normalize=args.normalize, multi_ref=args.multi_ref)
    norm = "none" if s.tokenize == "whitespace" else s.normalize
    hyps = _read_lines(args.hyp)
    refsets = [_read_lines(p) for p in args.ref]
    for p, r in zip(args.ref, refsets):
        if len(r) != len(hyps):
            raise CliError(f"{p} has {len(r)} lines but {args.hyp} has {len(hyps)} "
                           "(files must be line-aligned)")
    tok = _tokenizer(s.tokenize, norm)
    n = len(hyps)
    if s.alpha is None:
        f_of = lambda p, r: scoring.f_gamma(p, r, s.gamma)  # noqa: E731
    elif s.alpha < 0:
        f_of = lambda p, r: scoring.f_t2t(p, r)  # noqa: E731
    else:
        f_of = lambda p, r: scoring.f_alpha(p, r, s.alpha)  # noqa: E731
    sums = np.zeros(3)
    bar = Progress(n, "scoring", min_total=2 * _BATCH)
    for lo in range(0, n, _BATCH):
        hi = min(lo + _BATCH, n)
        cands = [tok(h) for h in hyps[lo:hi]]
        ref_lists = [[tok(rs[i]) for rs in refsets] for i in range(lo, hi)]
        res = engine.lcs_batch(cands, ref_lists)
        p, r = scoring.precision_recall(res.lcs, np.repeat(res.cand_len, res.ref_count), res.ref_len)
        pi, ri, fi = scoring.reduce_refs(p, r, res.offsets, s.multi_ref, f_of)
        sums += [pi.sum(), ri.sum(), fi.sum()]
        bar.update(hi - lo)
    bar.close()
    P, R, F = (sums / n).tolist() if n else (0.0, 0.0, 0.0)
    signature = s.signature("rougeL", tokenize=s.tokenize).replace(f"norm:{s.normalize}", f"norm:{norm}")
    if args.format == "json":
        print(json.dumps({"precision": P, "recall": R, "f": F, "n": n}))
        print(signature, file=sys.stderr)
    else:
        print("metric   P       R       F       n")
        print(f"ROUGE-L  {P:.4f}  {R:.4f}  {F:.4f}  {n}")
        print(signature)
    return 0


# ------------------------------------------------------------------- parser

def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=PROG, description="Fast exact ROUGE-L (and the DuReader contest score).")
    ap.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    d = sub.add_parser("dureader", help="DuReader contest score: ROUGE-L and BLEU-4 with bonus")
    d.add_argument("--pred_file", "--pred-file", required=True, help="predictions (JSON lines or .zip)")
    d.add_argument("--ref_file", "--ref-file", required=True, help="references (JSON lines or .zip)")
    d.add_argument("--alpha", type=float, default=None, help="yes/no bonus weight (default 1.0)")
    d.add_argument("--beta", type=float, default=None, help="entity bonus weight (default 1.0)")
    d.add_argument("--config", help="YAML config file or preset name (dureader, paddlenlp, ...)")
    d.add_argument("--per-instance", "--per_instance", dest="per_instance", metavar="FILE",
                   help="write one JSON line per question: id, type, ROUGE-L P, R, F and the "
                        "weighted bonus (the largest over its references)")
    d.add_argument("--save-state", "--save_state", dest="save_state", metavar="FILE",
                   help="write both metrics' state (for `merge`)")
    d.add_argument("--format", choices=("json", "table"), default="json")
    d.set_defaults(func=cmd_dureader)

    sc = sub.add_parser("score", help="ROUGE-L of line-aligned hypothesis/reference text files")
    sc.add_argument("--hyp", required=True, help="hypotheses, one per line")
    sc.add_argument("--ref", required=True, action="append",
                    help="references, one per line; repeat for several reference sets")
    sc.add_argument("--tokenize", choices=("char", "whitespace", "jieba"), default=None,
                    help="tokens: characters (default), whitespace-separated words, or jieba words")
    sc.add_argument("--normalize", choices=("nows", "none"), default=None,
                    help="nows (default): drop whitespace before char/jieba tokenization")
    sc.add_argument("--gamma", type=float, default=None, help="F recall weight (default 1.2)")
    sc.add_argument("--alpha", type=float, default=None,
                    help="instead of gamma: 1/F = alpha/P + (1-alpha)/R; negative = tensor2tensor")
    sc.add_argument("--multi-ref", "--multi_ref", dest="multi_ref", choices=("max_pr", "best", "avg"),
                    default=None, help="how references combine (default max_pr)")
    sc.add_argument("--config", help="YAML config file or preset name")
    sc.add_argument("--format", choices=("json", "table"), default="table")
    sc.set_defaults(func=cmd_score)

    m = sub.add_parser("merge", help="combine state files into the score of all their data")
    m.add_argument("state_files", nargs="+", metavar="STATE_FILE")
    m.add_argument("--config", help="check the states were made with this config")
    m.add_argument("--format", choices=("json", "table"), default="json")
    m.set_defaults(func=cmd_merge)
    return ap


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # usage errors (2), --help / --version (0)
        return int(e.code or 0)
    if args.command == "score" and args.gamma is not None and args.alpha is not None:
        _err("give --gamma or --alpha, not both")
        return 2
    try:
        return args.func(args)
    except (CliError, InputError, ConfigError) as e:
        _err(str(e))
    except (ValueError, TypeError) as e:  # a metric rejected an input: still one line
        _err(str(e))
    except OSError as e:
        _err(f"{e.filename or ''}: {e.strerror or e}")
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
