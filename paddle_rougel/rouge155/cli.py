"""``paddle-rougel rouge155``: ROUGE-1.5.5.pl's command line, printing what it prints.

The script's flags as its ``getopts('ahHb:c:de:f:l:mMn:p:st:r:2:3:w:uUvxz:')`` takes them, its
XML config (or ``-z FORMAT`` file list) and system id; stdout byte for byte as the script's
(tests/test_rouge155_cli.py runs both).  The data folder (``-e DIR``, else ``$ROUGE_EVAL_HOME``
/ ``$RED_EVAL_HOME``, else the current directory, as the script) must hold
``smart_common_words.txt`` and ``WordNet-2.0.exc.db`` as for the script; the DB is read by its
key count: a DB with keys means the exception table of ``DIR/WordNet-2.0-Exceptions/*.exc``
(the pinned name order, :mod:`paddle_rougel.rouge155.stem`), an empty one the Porter stemmer
alone.  ``--wordnet exc|empty`` (before the script's flags) chooses without a DB.

Not supported: ``-3`` (Basic Elements) and ``-v`` (debug output); both are refused.
"""
from __future__ import annotations

import os
import sys
from functools import cmp_to_key
from typing import Dict, List, Optional

from . import bootstrap
from .config import db_key_count, getopts, perl_num, read_evals, read_file_list
from .evaluate import Evaluator, Options, f5
from .stem import EXC_DIR, exception_table
from .text import ScriptError

__all__ = ["main", "run"]

USAGE = "Usage: paddle-rougel rouge155 [--wordnet exc|empty] [ROUGE-1.5.5.pl options] <config> [<systemID>]\n"


def _num_str(x) -> str:
    """Perl's stringification of a number (``%.15g`` for a float, digits for an int)."""
    if isinstance(x, str):
        return x
    if isinstance(x, float):
        if x.is_integer() and abs(x) < 1e15:
            return str(int(x))
        return "%.15g" % x
    return str(x)


def _as_float(v) -> float:
    """A figure's value as Perl's arithmetic reads it (a ``%7.5f`` string: float() itself)."""
    try:
        return float(v)
    except ValueError:
        return float(perl_num(v))


def _by_eval_id(a: str, b: str) -> int:
    import re
    ma, mb = re.match(r"[0-9]+", a), re.match(r"[0-9]+", b)
    if ma and mb:
        x, y = int(ma.group()), int(mb.group())
        return (x > y) - (x < y)
    return (a > b) - (a < b)


class Run:
    """One run of the script: options, evaluations, output."""

    def __init__(self, opts: Dict[str, str], evals: dict, ids: List[str], out):
        self.opts, self.evals, self.ids, self.out = opts, evals, ids, out
        self.conf_str = opts.get("c", "95")
        self.conf = perl_num(self.conf_str)
        self.resamples = int(perl_num(opts["r"])) if "r" in opts else 1000
        t = opts.get("t")
        t = None if t is None else perl_num(t)
        self.avg = t if t in (1, 2) else None
        self.known_missing = set()
        self.seen = set()   # model files found (the script checks each again; they do not go away)
        self.jobs: Dict[str, list] = {}   # peer -> its evaluations, from its first pass

    def write(self, s: str) -> None:
        try:
            self.out.write(s.encode("latin-1"))
        except UnicodeEncodeError:
            self.out.write(s.encode("utf-8"))

    def scores(self, ev: Evaluator, metric, peer: str) -> Dict[str, list]:
        out: Dict[str, list] = {}
        jobs = self.jobs.get(peer)
        if jobs is None:   # the first pass: checks and warnings in the script's order
            jobs = []
            for job in self._first_pass(peer):
                jobs.append(job)
                self._one(out, metric, *job)
            self.jobs[peer] = jobs
            return out
        for job in jobs:
            self._one(out, metric, *job)
        return out

    def _one(self, out: Dict[str, list], metric, key: str, peer_path: str, models: List[str], fmt) -> None:
        res = metric(peer_path, models, fmt)
        if key not in out:
            out[key] = [res[2], res[4], res[5]] if self.avg is None else [res[0], res[3], res[1]]

    def _first_pass(self, peer: str):
        """(key, peer file, model files, format) of each evaluation of ``peer``, warning about
        missing peers and dying on missing models as the script's first pass does."""
        z = "z" in self.opts
        for e in self.ids:
            rec = self.evals[e]
            ps = rec.get("Ps", {})
            if peer not in ps:
                if (e, peer) not in self.known_missing:
                    sys.stderr.write(f"*ROUGE Warning: test instance for peer {peer} does not exist for evaluation {e}\n")
                    self.known_missing.add((e, peer))
                continue
            peer_path = ps[peer] if z else f"{rec.get('PR', '')}/{ps[peer]}"
            root = rec.get("MR", "")
            models = []
            for mid in rec.get("MIDList", []):
                mp = rec["Ms"].get(mid, "") if z else f"{root}/{rec['Ms'].get(mid, '')}"
                if mp not in self.seen and not os.path.exists(mp):
                    raise ScriptError(f"Cannot find model summary: {mp}\n", 2)   # $! of the -e test
                self.seen.add(mp)
                models.append(mp)
            yield f"{e}.{peer}", peer_path, models, rec.get("IF")

    def print_results(self, peer: str, tag: str, scores: Dict[str, list], alpha: float) -> None:
        w = self.write
        keys = sorted(scores)
        w("---------------------------------------------\n")
        if self.avg != 2:
            rows = [[_as_float(v) for v in scores[k]] for k in keys]
            stats = bootstrap.averages(rows, self.resamples, self.conf, self.avg == 1, alpha)
            for name, (mean, lo, hi) in zip("RPF", stats):
                w(f"{peer} {tag} Average_{name}: {f5(mean)} ({self.conf_str}%-conf.int. {f5(lo)} - {f5(hi)})\n")
        else:
            tot = [0, 0, 0]
            for k in keys:
                for c in range(3):
                    tot[c] += scores[k][c]
            w(f"{peer} {tag} M_count: {int(tot[0])} P_count: {int(tot[1])} H_count: {int(tot[2])}\n")
        if "d" in self.opts:
            w(".............................................\n")
            for k in sorted(keys, key=cmp_to_key(_by_eval_id)):
                r, p, f = (_num_str(v) for v in scores[k])
                w(f"{peer} {tag} Eval {k} R:{r} P:{p} F:{f}\n")


def _setup(opts: Dict[str, str], wordnet: Optional[str]) -> Options:
    if "e" in opts:
        home = opts["e"]
    elif "ROUGE_EVAL_HOME" in os.environ:
        home = os.environ["ROUGE_EVAL_HOME"]
    elif "RED_EVAL_HOME" in os.environ:
        home = os.environ["RED_EVAL_HOME"]
    else:
        home = ""
    stop_path = f"{home}/smart_common_words.txt" if home or "e" in opts else "smart_common_words.txt"
    db_path = f"{home}/WordNet-2.0.exc.db" if home or "e" in opts else "WordNet-2.0.exc.db"
    if "l" in opts and "b" in opts:
        raise ScriptError("Please specify length limit in words or bytes but not both.\n")
    if "c" in opts and not 0 <= perl_num(opts["c"]) <= 100:
        raise ScriptError("Confidence interval should be within 0 and 100. Use option -h for more details.\n")
    if "w" in opts and not perl_num(opts["w"]) > 0:
        raise ScriptError("ROUGE-W weight factor must greater than 0.\n")
    alpha = perl_num(opts.get("p", 0.5))
    if not 0 <= alpha <= 1:
        raise ScriptError("Relative importance of ROUGE recall and precision has to be between 0 and 1 inclusively.\n")
    try:
        with open(stop_path, "rb") as f:
            lines = f.read().decode("latin-1").split("\n")
    except OSError:
        raise ScriptError(f"Cannot open {stop_path}\n", 2) from None
    stop = {x: 1 for x in (lines[:-1] if lines[-1] == "" else lines)}
    if wordnet is None:
        if not os.path.exists(db_path):
            raise ScriptError(f"Cannot open exception db file for reading: {db_path}\n", 2)
        keys = db_key_count(db_path)
        if keys is None:
            raise ScriptError(f"Cannot open exception db file for reading: {db_path}\n")
        wordnet = "exc" if keys > 0 else "empty"
    table: Dict[str, str] = {}
    if wordnet == "exc" and ("m" in opts or "M" in opts):
        table = exception_table(os.path.join(home or ".", EXC_DIR))
    return Options(alpha=alpha, mode=opts.get("f", "A"),
                   length_limit=int(perl_num(opts["l"])) if "l" in opts else 0,
                   byte_limit=int(perl_num(opts["b"])) if "b" in opts and "l" not in opts else 0,
                   stopwords=stop if "s" in opts else {}, table=table, stem_now="m" in opts,
                   model_stem="M" in opts, weight=perl_num(opts["w"]) if "w" in opts else 1.2,
                   skip=perl_num(opts["2"]) if "2" in opts else -1, unigrams="u" in opts)


def run(argv: List[str], out, wordnet: Optional[str] = None) -> int:
    """The script on ``argv`` (its own arguments), printing to the binary stream ``out``."""
    opts, args, warns = getopts(argv)
    for msg in warns:
        sys.stderr.write(msg + "\n")
    if "H" in opts or "h" in opts or not args:
        raise ScriptError(USAGE)
    if "3" in opts or "v" in opts:
        raise ScriptError("-3 (Basic Elements) and -v (debug output) are not supported by paddle-rougel rouge155\n")
    if "z" in opts:
        opts.pop("a", None)
        system_id = args[1] if len(args) > 1 else "X"
    elif len(args) == 1 and "a" not in opts:
        raise ScriptError("Please specify a system ID to evaluate or use option '-a' to evaluate all systems. "
                          "For more information, use option '-h'.\n")
    else:
        system_id = args[1] if len(args) >= 2 else None
    o = _setup(opts, wordnet)
    if "z" in opts:
        evals, ids, peer_ids = read_file_list(args[0], opts["z"], system_id)
        peers = [system_id]
    else:
        evals, ids, peer_ids = read_evals(args[0])
        peers = sorted(peer_ids) if "a" in opts else [system_id]
    r = Run(opts, evals, ids, out)
    ev = Evaluator(o)
    for peer in peers:
        if "n" in opts:
            k = 1
            while k <= perl_num(opts["n"]):
                r.print_results(peer, f"ROUGE-{k}", r.scores(ev, lambda p, m, f, k=k: ev.ngram(p, m, f, k), peer), o.alpha)
                k += 1
        if "x" not in opts:
            r.print_results(peer, "ROUGE-L", r.scores(ev, lambda p, m, f: ev.lcs(p, m, f, False), peer), o.alpha)
        if "w" in opts:
            r.print_results(peer, f"ROUGE-W-{opts['w']}", r.scores(ev, lambda p, m, f: ev.lcs(p, m, f, True), peer),
                            o.alpha)
        if "2" in opts:
            _skip_passes(r, ev, o, opts, peer)
    return 0


def _skip_passes(r: Run, ev: Evaluator, o: Options, opts: Dict[str, str], peer: str) -> None:
    sd = opts["2"]
    star = "*" if not o.skip >= 0 else sd

    def one(unigrams: bool) -> Dict[str, list]:
        o.unigrams = unigrams
        try:
            return r.scores(ev, ev.skip_bigram, peer)
        finally:
            o.unigrams = "u" in opts
    first = one("u" in opts)
    if "u" in opts:
        r.print_results(peer, f"ROUGE-SU{star}", first, o.alpha)
        return
    r.print_results(peer, f"ROUGE-S{star}", first, o.alpha)
    if "U" in opts:
        r.print_results(peer, f"ROUGE-SU{star}", one(True), o.alpha)


def main(argv: List[str], out=None) -> int:
    """``paddle-rougel rouge155 ARGS``: 0, or 255 with the script's message when it would die
    (``out``: a binary stream for stdout)."""
    wordnet = None
    if argv and argv[0].startswith("--wordnet"):
        if argv[0] == "--wordnet" and len(argv) > 1:
            wordnet, argv = argv[1], argv[2:]
        else:
            wordnet, argv = argv[0].partition("=")[2], argv[1:]
        if wordnet not in ("exc", "empty"):
            sys.stderr.write(f"--wordnet must be exc or empty, got {wordnet!r}\n")
            return 2
    out = sys.stdout.buffer if out is None else out
    try:
        return run(argv, out, wordnet)
    except ScriptError as e:
        out.flush()
        sys.stderr.write(str(e))
        return e.status
    finally:
        out.flush()
