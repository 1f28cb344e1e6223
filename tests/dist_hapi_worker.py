"""One rank of the hapi multi-process test (run by tests/test_distributed.py).

Every rank builds the same seeded model (examples/hapi_seq2seq.py) and calls
``Model.evaluate``; hapi shards the data set over the ranks and all-gathers
outputs and labels before ``metric.compute``. Each rank writes the score hapi
reported and the single-process host-path score of the whole data set.
"""
import json
import os
import sys

from model_helpers import hapi_example  # this folder is on sys.path


def main(out_dir, n_eval):
    import paddle
    import paddle.distributed as dist

    from paddle_rougel import RougeL

    dist.init_parallel_env()
    ex = hapi_example()
    model, metric, _, _ = ex.build(seed=5)  # sync_dist=False: the setting for hapi
    dev = ex.SyntheticPairs(n_eval, seed=11)
    got = model.evaluate(dev, batch_size=16, verbose=0)["rouge-l"]

    # the same figure by hand, in this process alone, over the whole data set
    model.network.eval()
    with paddle.no_grad():
        pred = model.network(paddle.to_tensor(dev.src)).argmax(axis=-1).numpy()
    host = RougeL()
    cands, refs = [], []
    for i in range(len(dev)):
        n = int(dev.mask[i].sum())  # masks are prefixes
        cands.append([t for t in pred[i, :n].tolist() if t != ex.PAD])
        refs.append([[t for t in dev.tgt[i, :n].tolist() if t != ex.PAD]])
    host.add_batch(cands, refs)
    with open(os.path.join(out_dir, f"hapi_rank{dist.get_rank()}.json"), "w") as f:
        json.dump({"hapi": got, "host": host.accumulate()}, f)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
