"""``paddle-rougel rouge155`` against ROUGE-1.5.5.pl itself (the peer): 3,000 evaluations.

Run by path::

    python benchmarks/bench_rouge155.py                 # 3,000 evaluations, the paper flags
    python benchmarks/bench_rouge155.py --n 300 --quick # smoke run

Workload (seeded, written to a temporary folder as the script reads it: SPL files and one XML
config): each evaluation one system summary of 3-4 sentences and 2-4 reference summaries of
2-4 sentences, 8-20 words a sentence drawn (Zipf) from a list of English words with inflected
forms, capitals, hyphens, digits and punctuation.  Flags: ``-c 95 -r 1000 -n 4 -w 1.2 -2 4 -U
-m -a`` (ROUGE-1..4, L, W-1.2, S4, SU4, bootstrap intervals).  The port's printed output must
equal the script's byte for byte (exit 1 otherwise); exit 2 when it is not >= 50x faster (in
wall or in CPU time: both are printed, since a shared machine stretches the wall times).
The WordNet DB is built in the temporary copy of the data folder by the script's own
buildExeptionDB.pl (tests/rouge155_oracle.py's builder).
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import rouge155_oracle as oracle  # noqa: E402  (the tests' oracle plumbing: perl, the DB)

WORDS = ("the of and to in a is that for it as was with be by on not he this are or his from at "
         "which but have an they you were her she there been one all we their has would when if "
         "government company market children women people years days says said saying reported "
         "reports agreement agreements argument arguments environmental economy economic running "
         "ran runs went goes going better best mice data analysis analyses officials official "
         "president presidents minister ministers police killed attack attacks state-of-the-art "
         "u.s. 2004 1.5 million billion percent increase increased increasing decision decisions "
         "national international security military forces leaders leading led country countries "
         "city cities world news using used uses accidental accidentally happily happiness").split()


def _sentence(rng, weights) -> str:
    words = rng.choices(WORDS, weights, k=rng.randrange(8, 21))
    words = [w.capitalize() if rng.random() < 0.08 else w for w in words]
    words[0] = words[0].capitalize()
    return " ".join(w + ("," if rng.random() < 0.06 else "") for w in words) + "."


def write_workload(root: str, n: int, seed: int) -> str:
    rng = random.Random(seed)
    weights = [1.0 / (k + 1) for k in range(len(WORDS))]
    os.makedirs(os.path.join(root, "s"))
    evals = []
    for i in range(n):
        peer = [_sentence(rng, weights) for _ in range(rng.randrange(3, 5))]
        with open(os.path.join(root, "s", f"p{i}"), "w") as f:
            f.write("\n".join(peer) + "\n")
        models = ""
        for j in range(rng.randrange(2, 5)):
            ref = [_sentence(rng, weights) for _ in range(rng.randrange(2, 5))]
            with open(os.path.join(root, "s", f"m{i}_{j}"), "w") as f:
                f.write("\n".join(ref) + "\n")
            models += f'<M ID="{j}">m{i}_{j}</M>'
        evals.append(f'<EVAL ID="{i + 1}"><PEER-ROOT>{root}/s</PEER-ROOT><MODEL-ROOT>{root}/s</MODEL-ROOT>'
                     f'<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT><PEERS><P ID="sys">p{i}</P></PEERS>'
                     f'<MODELS>{models}</MODELS></EVAL>')
    path = os.path.join(root, "config.xml")
    with open(path, "w") as f:
        f.write('<ROUGE_EVAL version="1.5.5">\n' + "\n".join(evals) + "\n</ROUGE_EVAL>\n")
    return path


def _child_cpu() -> float:
    """CPU seconds (user + sys) of the finished child processes so far."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one timed run of the port")
    ap.add_argument("--flags", default="-c 95 -r 1000 -n 4 -w 1.2 -2 4 -U -m -a")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        data = oracle.build_data(os.path.join(tmp, "data-build"))
        config = write_workload(os.path.join(tmp, "w"), args.n, args.seed)
        cmd = ["-e", data] + args.flags.split() + [config]
        c0, t0 = _child_cpu(), time.perf_counter()
        rc, want, err = oracle.run_script(cmd)
        t_perl, c_perl = time.perf_counter() - t0, _child_cpu() - c0
        if rc != 0:
            print("ROUGE-1.5.5.pl failed:", err, file=sys.stderr)
            return 1
        best, cpu, got = float("inf"), float("inf"), b""
        for _ in range(1 if args.quick else args.repeat):
            c0, t0 = _child_cpu(), time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "paddle_rougel", "rouge155"] + cmd, capture_output=True)
            best, cpu = min(best, time.perf_counter() - t0), min(cpu, _child_cpu() - c0)
            got = proc.stdout
    print(f"{args.n:,} evaluations, flags {args.flags}")
    print("                              wall        CPU (user + sys)")
    print(f"ROUGE-1.5.5.pl (perl)        {t_perl:8.2f} s  {c_perl:8.2f} s")
    print(f"paddle-rougel rouge155       {best:8.2f} s  {cpu:8.2f} s   {t_perl / best:6.1f}x wall, "
          f"{c_perl / cpu:6.1f}x CPU  (whole process, best of {1 if args.quick else args.repeat})")
    if got != want:
        print(f"MISMATCH: the outputs differ ({len(want)} vs {len(got)} bytes)")
        return 1
    lines = want.count(b"\n")
    print(f"Output identical to the script's ({lines} lines).")
    if not args.quick and max(t_perl / best, c_perl / cpu) < 50:
        print("TARGET MISSED: >= 50x the script (wall or CPU time: the machine may be shared)")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
