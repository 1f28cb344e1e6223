"""DuReader contest scoring: the ``paddle-rougel dureader`` CLI vs the official logic.

Run by path (never ``import benchmarks``: site-packages holds an unrelated
package of that name)::

    python benchmarks/bench_dureader.py              # 20,000 questions
    python benchmarks/bench_dureader.py --quick      # smoke test, a few seconds

A seeded 20,000-question contest (pred.jsonl / ref.jsonl) is written to a
temporary directory: answers from ``dureader_workload.py`` (char-level
Chinese, median ~100 characters, 1-5 references; the prediction is a mutated
copy of one reference), about a third YES_NO (labels per answer), a quarter
ENTITY (entities cut from the answers), the rest DESCRIPTION, plus missing
and unexpected predictions, questions without reference answers and stray
whitespace (removed by the contest's normalisation).

Rows, in one run:

* the whole CLI process, ``python -m paddle_rougel dureader ...`` (interpreter
  start, reading, ROUGE-L and BLEU-4; the CLI process does not import paddle),
  best of --repeat;
* the official logic (the contest's ``calc_metrics`` loop on paddlenlp's
  ``RougeLForDuReader`` + ``BLEUForDuReader``) over the same parsed data,
  timed on a seeded random subsample of questions and extrapolated by
  question count (its file parsing is not counted: that favours it).

Checks (non-zero exit on a mismatch): the CLI's JSON on the subsample files
equals the official logic's, and the in-process metrics equal it to 1e-12.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import dureader_workload  # noqa: E402  (sibling file, unique name)

LABELS = ["Yes", "No", "Depends"]


def make_contest(n: int, seed: int):
    """Reference and prediction rows of a seeded DuReader-like contest."""
    cands, ref_lists = dureader_workload.make_workload(n=n, seed=seed, median_len=100)
    rng = random.Random(seed + 1)
    refs, preds = [], []
    for i, (cand, answers) in enumerate(zip(cands, ref_lists)):
        qid = 100000 + i
        u = rng.random()
        qtype = "YES_NO" if u < 0.33 else "ENTITY" if u < 0.58 else "DESCRIPTION"
        answers = list(answers)
        if rng.random() < 0.05:  # stray whitespace: the contest's normalisation removes it
            j = rng.randrange(len(answers[0]) + 1)
            answers[0] = answers[0][:j] + " \t" + answers[0][j:]
        if rng.random() < 0.005:
            answers = []  # no reference answer: the question is skipped
        yesno = [rng.choice(LABELS) for _ in answers] if qtype == "YES_NO" else []
        ents = []
        for a in answers:
            es = []
            if qtype == "ENTITY" and len(a) > 4:
                for _ in range(rng.randint(0, 2)):
                    k = rng.randrange(len(a) - 3)
                    es.append(a[k:k + rng.randint(2, 4)])
            ents.append(es)
        refs.append({"question_id": qid, "question_type": qtype, "answers": answers,
                     "yesno_answers": yesno, "entity_answers": ents, "source": "search"})
        if rng.random() < 0.01:
            continue  # missing prediction
        preds.append({"question_id": qid, "answers": [cand],
                      "yesno_answers": [rng.choice(LABELS)] if qtype == "YES_NO" and rng.random() < 0.9 else []})
    for j in range(max(1, n // 200)):  # predictions for questions not in the reference file
        preds.append({"question_id": 900000 + j, "answers": ["无关的答案"], "yesno_answers": []})
    return preds, refs


def write_jsonl(path: str, rows) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def official_instances(preds, refs):
    """The contest's read_file + calc_metrics, up to the add_inst calls."""
    def normalize(s):
        return ["".join(c for c in ss if len(c.strip()) != 0) for ss in s]

    pred_result = {p["question_id"]: {"answers": normalize(p["answers"]),
                                      "yesno_answers": p.get("yesno_answers", [])} for p in preds}
    out = []
    for r in refs:
        results = {"answers": normalize(r["answers"]), "yesno_answers": r["yesno_answers"],
                   "question_type": r["question_type"],
                   "entity_answers": [normalize(e) for e in r["entity_answers"]]}
        cand_result = pred_result.get(r["question_id"], {})
        pred_answers = cand_result.get("answers", [])
        pred_answers = "" if not pred_answers else pred_answers[0]
        pred_yn_label, ref_entities = None, None
        if not results["answers"]:
            continue
        if results["question_type"] == "ENTITY":
            ref_entities = set(itertools.chain(*results.get("entity_answers", [[]]))) or None
        if results["question_type"] == "YES_NO":
            cy = cand_result.get("yesno_answers", [])
            pred_yn_label = None if len(cy) == 0 else cy[0]
        out.append((pred_answers, results["answers"],
                    dict(yn_label=pred_yn_label, yn_ref=results["yesno_answers"], entity_ref=ref_entities)))
    return out


def run_official(insts):
    from paddlenlp.metrics import BLEUForDuReader, RougeLForDuReader

    bleu, rouge = BLEUForDuReader(alpha=1.0, beta=1.0), RougeLForDuReader(alpha=1.0, beta=1.0)
    t0 = time.perf_counter()
    for cand, answers, kw in insts:
        bleu.add_inst(cand, answers, **kw)
        rouge.add_inst(cand, answers, **kw)
    dt = time.perf_counter() - t0
    return rouge.score(), bleu.score(), dt


def run_cli(pred, ref, *extra):
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "paddle_rougel", "dureader", "--pred_file", pred,
                        "--ref_file", ref, *extra], capture_output=True, text=True, env=env, cwd=ROOT)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"CLI failed ({p.returncode}): {p.stderr[-2000:]}")
    return json.loads(p.stdout), dt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20000, help="questions (default 20,000)")
    ap.add_argument("--sample", type=int, default=300, help="questions for the official logic (default 300)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="CLI runs, best taken (default 3)")
    ap.add_argument("--quick", action="store_true", help="smoke test: 400 questions, sample 30, 1 run")
    args = ap.parse_args()
    if args.quick:
        args.n, args.sample, args.repeat = 400, 30, 1

    import paddle_rougel
    from paddle_rougel import BLEUForDuReader, RougeLForDuReader

    preds, refs = make_contest(args.n, args.seed)
    with tempfile.TemporaryDirectory(prefix="bench_dureader_") as tmp:
        pred_f, ref_f = os.path.join(tmp, "pred.jsonl"), os.path.join(tmp, "ref.jsonl")
        write_jsonl(pred_f, preds)
        write_jsonl(ref_f, refs)
        all_insts = official_instances(preds, refs)
        n_scored = len(all_insts)
        chars = sum(len(c) + sum(map(len, a)) for c, a, _ in all_insts)

        # the official logic on a seeded subsample (written out as files for the CLI check too)
        rng = random.Random(args.seed + 2)
        keep = set(rng.sample(range(len(refs)), min(args.sample, len(refs))))
        sub_refs = [r for i, r in enumerate(refs) if i in keep]
        sub_ids = {r["question_id"] for r in sub_refs}
        sub_preds = [p for p in preds if p["question_id"] in sub_ids]
        sub_insts = official_instances(sub_preds, sub_refs)
        o_rouge, o_bleu, o_dt = run_official(sub_insts)
        official_total = o_dt * n_scored / max(len(sub_insts), 1)

        # checks: the CLI and the in-process metrics on the subsample
        sp, sr = os.path.join(tmp, "sub_pred.jsonl"), os.path.join(tmp, "sub_ref.jsonl")
        write_jsonl(sp, sub_preds)
        write_jsonl(sr, sub_refs)
        cli_sub, _ = run_cli(sp, sr)
        want = {"ROUGE-L": round(o_rouge * 100, 2), "BLEU-4": round(o_bleu * 100, 2)}
        ok = cli_sub == want
        r, b = RougeLForDuReader(), BLEUForDuReader()
        cols = list(zip(*[(c, a, kw["yn_label"], kw["yn_ref"], kw["entity_ref"]) for c, a, kw in sub_insts]))
        r.add_batch(*cols)
        b.add_batch(*cols)
        ok = ok and abs(r.score() - o_rouge) <= 1e-12 and abs(b.score() - o_bleu) <= 1e-12

        # the whole CLI process on all the data
        times = []
        for _ in range(args.repeat):
            result, dt = run_cli(pred_f, ref_f)
            times.append(dt)
        cli_dt = min(times)
        # the same run with 95% bootstrap intervals (1,000 resamples) on both scores
        ci_times = []
        for _ in range(args.repeat):
            ci_result, dt = run_cli(pred_f, ref_f, "--confidence")
            ci_times.append(dt)
        ci_dt = min(ci_times)
        ok = ok and {k: v["score"] for k, v in ci_result.items()} == result
        # start-up as the CLI does it (host-only: no paddle), and paddle's import for scale
        startup = {}
        for what, code in (("cli", "import paddle_rougel.cli"),
                           ("paddle", "import paddle")):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                           env=dict(os.environ, PYTHONWARNINGS="ignore"))
            startup[what] = time.perf_counter() - t0

    ratio = official_total / cli_dt
    print(f"paddle-rougel {paddle_rougel.__version__}, python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs (shared: other processes may be running)")
    print(f"{args.n:,} questions ({n_scored:,} scored, {chars:,} characters); "
          f"official logic timed on {len(sub_insts)} questions and extrapolated\n")
    print("| implementation | questions | time (s) | questions/s | speed-up |")
    print("|---|---:|---:|---:|---:|")
    print(f"| official logic: paddlenlp RougeLForDuReader + BLEUForDuReader loop (extrapolated) "
          f"| {n_scored:,} | {official_total:.1f} | {n_scored / official_total:,.0f} | 1x |")
    print(f"| `python -m paddle_rougel dureader` (whole process, best of {args.repeat}) "
          f"| {n_scored:,} | {cli_dt:.2f} | {n_scored / cli_dt:,.0f} | {ratio:,.0f}x |")
    print(f"| the same with `--confidence` (1,000 bootstrap resamples, both scores) "
          f"| {n_scored:,} | {ci_dt:.2f} | {n_scored / ci_dt:,.0f} | {official_total / ci_dt:,.0f}x |")
    print(f"| of which: interpreter start + loading the CLI | | {startup['cli']:.2f} | | |")
    print(f"| (not paid by the CLI: interpreter start + `import paddle`) | | {startup['paddle']:.2f} | | |")
    print()
    print(f"CLI result: {json.dumps(result)}")
    print(f"speed-up {ratio:,.0f}x (target >= 300x: {'met' if ratio >= 300 else 'NOT met'})")
    print(f"--confidence costs {ci_dt / cli_dt:.2f}x the run without it "
          f"(target <= 2x: {'met' if ci_dt <= 2 * cli_dt else 'NOT met'})")
    if not ok:
        print(f"MISMATCH on the subsample: CLI {cli_sub}, official {want}, "
              f"in-process ROUGE-L {r.score()!r} vs {o_rouge!r}, BLEU {b.score()!r} vs {o_bleu!r}")
        return 1
    print("All score checks passed.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
