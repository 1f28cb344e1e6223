"""Data-parallel evaluation with a hand-written loop: one global ROUGE-L on every rank.

Run on two CPU processes (gloo) or on GPUs (NCCL) unchanged:

    python -m paddle.distributed.launch --nproc_per_node 2 --log_dir /tmp/paddle_rougel_log \
        examples/distributed_eval.py

The launcher shows only rank 0's output on the terminal:

    rank 0/2: rouge-l = 0.782651 over 3 local instances

and writes each rank's output to ``workerlog.<rank>`` in ``--log_dir`` (``./log`` by
default; outside the repository it cannot be left in the work tree), so rank 1's line,
``rank 1/2: rouge-l = 0.782651 over 2 local instances``, is in ``workerlog.1``.

Each rank scores only its own shard; ``sync_dist=True`` makes ``accumulate()``
all-reduce the metric state, so every rank prints the same, global figure.
It also runs as a single process (``python examples/distributed_eval.py``).
"""
import paddle.distributed as dist

from paddle_rougel import RougeL

DATA = [  # (candidate, references): stands in for a real evaluation set
    ("今天天气很好", ["今天天气不错", "天气很好"]),
    ("北京是中国的首都", ["中国的首都是北京"]),
    ("他明天去上海", ["他后天去上海", "明天他要去上海"]),
    ("这个问题没有答案", ["这个问题有答案"]),
    ("我喜欢读书", ["我爱读书"]),
]


def main():
    if dist.get_world_size() > 1:
        dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    metric = RougeL(sync_dist=True)
    for cand, refs in DATA[rank::world]:  # this rank's shard
        metric.add_inst(cand, refs)
    print(f"rank {rank}/{world}: {metric.name()} = {metric.accumulate():.6f} "
          f"over {int(metric.count)} local instances", flush=True)


if __name__ == "__main__":
    main()
