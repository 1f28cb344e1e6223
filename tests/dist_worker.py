"""One rank of the distributed-evaluation test (run by tests/test_distributed.py).

Started with ``python -m paddle.distributed.launch --nproc_per_node 2``; every
rank builds the same seeded data set, scores only its own (uneven) shard with
``sync_dist=True``, and writes, per metric and per sharding, the global figure
it got, the single-process figure over all data, and its local-only figure.
"""
import json
import os
import random
import sys


def make_data(n, seed):
    rng = random.Random(seed)
    alphabet = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动"
    rows = []
    for i in range(n):
        refs = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
                for _ in range(rng.randint(1, 4))]
        base = refs[0]
        cand = "".join(c for c in base if rng.random() > 0.3) + "".join(
            rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        kind = rng.choice(["YES_NO", "ENTITY", "DESCRIPTION"])
        yn_label = yn_ref = entity = None
        if kind == "YES_NO":
            yn_label = rng.choice(["Yes", "No", "Depends"])
            yn_ref = [rng.choice(["Yes", "No", "Depends"]) for _ in refs]
        elif kind == "ENTITY":
            entity = [r[:3] for r in refs if r] or None
        rows.append((cand, refs, yn_label, yn_ref, entity))
    return rows


def metrics(sync):
    """name -> (fresh metric, how to add one row)."""
    from paddle_rougel import RougeL

    out = {
        "rougel_max_pr": (RougeL(sync_dist=sync, keep_instances=True), lambda m, r: m.add_inst(r[0], r[1])),
        "rougel_best_g1": (RougeL(gamma=1.0, multi_ref="best", sync_dist=sync),
                           lambda m, r: m.add_inst(r[0], r[1])),
    }
    try:
        from paddle_rougel import BLEUForDuReader, RougeLForDuReader
    except ImportError:  # the DuReader metrics are required once they exist
        return out
    out["rougel_dureader"] = (RougeLForDuReader(sync_dist=sync), lambda m, r: m.add_inst(*r))
    out["bleu_dureader"] = (BLEUForDuReader(sync_dist=sync, keep_instances=True), lambda m, r: m.add_inst(*r))
    from paddle_rougel import RougeN

    out["rouge2"] = (RougeN(n=2, sync_dist=sync, keep_instances=True), lambda m, r: m.add_inst(r[0], r[1]))
    out["rouge1_distinct_best"] = (RougeN(n=1, distinct=True, gamma=1.0, multi_ref="best", sync_dist=sync),
                                   lambda m, r: m.add_inst(r[0], r[1]))
    return out


def main(out_dir):
    import paddle.distributed as dist

    dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    data = make_data(300, seed=7)
    shardings = {
        # uneven: rank 0 gets 250 rows, rank 1 gets 50
        "uneven": [data[:250], data[250:]],
        # rank 1 has no data at all
        "empty_rank": [data, []],
    }
    result = {"rank": rank, "world": world, "cases": {}}
    for case, shards in shardings.items():
        mine = shards[rank]
        for name, (m, add) in metrics(sync=True).items():
            single, _ = metrics(sync=False)[name]
            local, _ = metrics(sync=False)[name]
            for row in data:
                add(single, row)
            for row in mine:
                add(m, row)
                add(local, row)
            first = m.accumulate()
            second = m.accumulate()  # a second sync must not double count
            ci = None
            if getattr(m.accumulator, "keep_instances", False):  # rows gathered in rank order
                ci = [list(m.confidence_interval(resamples=200, seed=3)[:3]),
                      list(single.confidence_interval(resamples=200, seed=3)[:3])]
            result["cases"][f"{case}/{name}"] = {
                "global": first, "again": second, "ci": ci,
                "single": single.accumulate(), "local": local.accumulate(),
                "count_after": int(getattr(m, "count", -1)),
                "local_count": len(mine),
            }
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main(sys.argv[1])
