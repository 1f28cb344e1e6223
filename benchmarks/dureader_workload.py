"""A seeded, DuReader-like ROUGE-L workload (character-level Chinese).

Use it by path (site-packages holds an unrelated top-level ``benchmarks``
package, so never ``import benchmarks.dureader_workload``)::

    import importlib.util, pathlib
    spec = importlib.util.spec_from_file_location(
        "dureader_workload", pathlib.Path("benchmarks/dureader_workload.py"))
    wl = importlib.util.module_from_spec(spec); spec.loader.exec_module(wl)
    cands, ref_lists = wl.make_workload(n=10_000, seed=0)

or, from a script in this directory, ``sys.path.insert(0, <this dir>)`` then
``import dureader_workload``.

Shape of the data (all Python ``str``; one character = one token):

* ``n`` questions (default 10,000), each with 1-5 references;
* characters are CJK unified ideographs (U+4E00..U+9FFF) drawn from a
  Zipf-like distribution (exponent ~1.1) over ``vocab`` (default 3,000)
  characters, so frequent characters repeat as in real text;
* reference lengths are log-normal, median ~120 characters, capped at 600
  (at least 2);
* the candidate is a mutated copy of one reference: each character is
  dropped (8%), substituted (8%) or followed by an inserted character (5%),
  and the copy is sometimes truncated or cut from the front (answer spans).

The text is only ideographs (no punctuation, no spaces), so character-level
tokenisers that drop punctuation (e.g. rouge-score-rs's CharacterTokenizer)
see exactly the same tokens as ``list(text)``.
"""
from __future__ import annotations

import bisect
import itertools
import math
import random
from typing import List, Tuple

__all__ = ["make_workload", "cell_count"]

CJK_BASE = 0x4E00
CJK_SPAN = 0x9FFF - 0x4E00 + 1


def _alphabet(rng: random.Random, vocab: int) -> List[str]:
    codes = rng.sample(range(CJK_SPAN), vocab)
    return [chr(CJK_BASE + c) for c in codes]


def _zipf_cdf(vocab: int, s: float) -> List[float]:
    weights = [1.0 / (k ** s) for k in range(1, vocab + 1)]
    return list(itertools.accumulate(weights))


def make_workload(n: int = 10_000, seed: int = 0, vocab: int = 3000, median_len: int = 120,
                  max_len: int = 600, sigma: float = 0.6) -> Tuple[List[str], List[List[str]]]:
    """Return ``(cands, ref_lists)``: n candidate strings and n lists of 1-5 reference strings."""
    rng = random.Random(seed)
    chars = _alphabet(rng, vocab)
    cdf = _zipf_cdf(vocab, 1.1)
    total = cdf[-1]

    def text(length: int) -> str:
        return "".join(chars[bisect.bisect_left(cdf, rng.random() * total)] for _ in range(length))

    def ref_len() -> int:
        return max(2, min(max_len, int(round(rng.lognormvariate(math.log(median_len), sigma)))))

    cands, ref_lists = [], []
    for _ in range(n):
        refs = [text(ref_len()) for _ in range(rng.randint(1, 5))]
        src = rng.choice(refs)
        out = []
        for ch in src:
            u = rng.random()
            if u < 0.08:
                pass  # drop
            elif u < 0.16:
                out.append(text(1))  # substitute
            else:
                out.append(ch)
            if rng.random() < 0.05:
                out.append(text(1))  # insert
        cand = "".join(out)
        u = rng.random()
        if u < 0.15:
            cand = cand[: max(1, int(len(cand) * rng.uniform(0.3, 0.9)))]
        elif u < 0.25:
            cand = cand[int(len(cand) * rng.uniform(0.1, 0.5)):]
        cands.append(cand)
        ref_lists.append(refs)
    return cands, ref_lists


def cell_count(cands, ref_lists) -> int:
    """DP cells of the workload: sum over (cand, ref) pairs of len(cand) * len(ref)."""
    return sum(len(c) * len(r) for c, refs in zip(cands, ref_lists) for r in refs)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Print summary statistics of the seeded DuReader-like "
                                 "workload (the benchmarks import make_workload from this file).")
    ap.add_argument("-n", type=int, default=1000, help="questions (default 1000)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = ap.parse_args()
    c, r = make_workload(args.n, args.seed)
    lens = sorted(len(x) for refs in r for x in refs)
    print(f"{len(c)} questions, {len(lens)} references, median ref len {lens[len(lens) // 2]}, "
          f"max {lens[-1]}, distinct chars {len(set(''.join(c)))}, cells {cell_count(c, r):,}")
