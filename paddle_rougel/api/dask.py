"""The similarity join and de-duplication over a Dask cluster (``pip install paddle-rougel[dask]``).

``paddle_rougel.dask.similarity_join`` and ``paddle_rougel.dask.deduplicate`` take the same
arguments and return the same arrays, bit for bit, as :func:`paddle_rougel.similarity_join`
and :func:`paddle_rougel.deduplicate`, with the work spread over the workers of the active
``dask.distributed.Client`` (or the one passed as ``client=``):

* the client reads and tokenizes the texts once (one vocabulary, one element order: what makes
  the bounds the same everywhere) and scatters them, with the prefix index, to every worker;
* the candidate search and the exact verification run as one task per partition of the left
  side (``partitions``, default four per worker thread);
* ``deduplicate``'s greedy pass is sequential by definition: the tasks return every pair
  (item, earlier item) with F above the threshold and each item's best against the pool; the
  client resolves them in order (memory: those pairs), and under ``best="exact"`` the kept
  items' exact best is spread over the workers again (rows of kept items per task).

Texts may be Python sequences or ``dask.bag`` objects (computed, in order, on the client).
Each task runs the C kernel on ``threads`` threads (default 1; the kernel releases the GIL):
start workers with ``--nworkers`` processes x ``--nthreads`` threads = the cores of a node.
A worker lost mid-run has its tasks re-run by Dask (the scattered inputs are replicated on
every worker); when tasks keep failing, the call raises the task's error: never a partial
result.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..engine import candidates as cand
from ..core import scoring
from .dedup import Dedup, exact_rows, prepare, resolve
from .join import Join, check_threshold, encode_sides, settings_of, verify

__all__ = ["similarity_join", "deduplicate"]


def _client(client):
    try:
        from distributed import default_client
    except ImportError as e:  # pragma: no cover - the extra is not installed
        raise ImportError("paddle_rougel.dask needs dask.distributed: pip install 'paddle-rougel[dask]'") from e
    if client is not None:
        return client
    try:
        return default_client()
    except ValueError:
        raise RuntimeError("paddle_rougel.dask: no active dask.distributed Client; create one "
                           "(Client(scheduler_address) or Client(LocalCluster(...))) or pass client=") from None


def _texts(x: Any, what: str) -> Any:
    """A dask.bag (anything with .compute()) computed to a list, in order; else as given."""
    if x is not None and hasattr(x, "compute") and hasattr(x, "npartitions"):
        return list(x.compute())
    return x


def _ranges(n: int, client, partitions: Optional[int], triangle: bool = False) -> list:
    """Row ranges, one a task; ``triangle``: row x's work grows with x (pairs with earlier
    rows), so the cuts are n sqrt(k / K): about the same work each."""
    if partitions is None:
        partitions = 4 * max(1, sum(client.nthreads().values()))
    k = max(1, min(int(partitions), n))
    cuts = (n * np.sqrt(np.linspace(0, 1, k + 1)) if triangle else np.linspace(0, n, k + 1)).astype(int)
    cuts[-1] = n
    return [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]


def _join_task(lt, rt, indexes, plens, lo, hi, t, a, order, block, threads, want):
    """Pairs of left texts lo:hi with F >= t (want "ge") or > t (want "gt"), verified."""
    out = []
    for xs, ys in cand.candidate_pairs(lt, plens, lo, hi, indexes, rt, t, a, order, block, threads):
        f = verify(lt, rt, xs, ys, a, threads)
        ok = f >= t if want == "ge" else f > t
        out.append((xs[ok], ys[ok], f[ok]))
    return _cat(out)


def _pool_max_task(lt, rt, indexes, plens, lo, hi, t, a, block, threads):
    """Per item lo:hi, its best F over the verified pool candidates (0.0 with none)."""
    best = np.zeros(hi - lo, dtype=np.float64)
    for xs, ys in cand.candidate_pairs(lt, plens, lo, hi, indexes, rt, t, a, 0, block, threads):
        np.maximum.at(best, xs - lo, verify(lt, rt, xs, ys, a, threads))
    return best


def _cat(parts: list) -> tuple:
    if not parts:
        z = np.zeros(0, dtype=np.int64)
        return z, z.copy(), np.zeros(0, dtype=np.float64)
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))


def _submit(client, fn, ranges, *shared, **kw) -> list:
    """fn(*shared, lo, hi, **kw) per range on the cluster: the futures, in range order."""
    return [client.submit(fn, *shared, lo, hi, pure=False, **kw) for lo, hi in ranges]


def _run(client, fn, ranges, *shared, **kw) -> list:
    """fn(*shared, lo, hi, **kw) per range on the cluster, results in range order."""
    return client.gather(_submit(client, fn, ranges, *shared, **kw))


def similarity_join(left: Sequence, right: Optional[Sequence] = None, threshold: float = 0.7, *,
                    alpha: Optional[float] = None, gamma: Optional[float] = None, tokenize: Any = "char",
                    normalize: str = "none", lowercase: Optional[bool] = None, stem: bool = False,
                    threads: Optional[int] = 1, block: int = 2_000_000, progress=None, client=None,
                    partitions: Optional[int] = None) -> Join:
    """:func:`paddle_rougel.similarity_join` over the Dask cluster (the same result)."""
    client = _client(client)
    left, right = _texts(left, "left"), _texts(right, "right")
    a = scoring.weighting(gamma, alpha, default_alpha=0.5).as_alpha()
    t = check_threshold(threshold)
    if t <= 0:  # every pair: nothing to prune, nothing to spread
        from .join import similarity_join as local

        return local(left, right, t, alpha=alpha, gamma=gamma, tokenize=tokenize, normalize=normalize,
                     lowercase=lowercase, stem=stem, threads=threads, block=block)
    tok = settings_of(tokenize, normalize, lowercase, stem, list(left[:64]) if isinstance(left, (list, tuple)) else [])
    el, er = encode_sides(left, right, tok)
    passes = cand.two_windows(el.lens, er.lens, t, a)
    n_elems = int(max(el.elems.max(initial=-1), er.elems.max(initial=-1))) + 1
    indexes = cand.window_indexes(er, passes.right, n_elems)
    shared = client.scatter([el, er, indexes, passes.left], broadcast=True, hash=False)
    parts = _run(client, _join_task, _ranges(len(el.lens), client, partitions), *shared, t=t, a=a,
                 order=1 if right is None else 0, block=block, threads=threads, want="ge")
    if progress is not None:
        progress(len(el.lens))
    return Join(*_cat(parts))


def deduplicate(items: Sequence, pool: Sequence = (), threshold: float = 0.7,
                alpha: Optional[float] = None, *, gamma: Optional[float] = None, tokenize: Any = "char",
                normalize: str = "none", lowercase: Optional[bool] = None, stem: bool = False,
                threads: Optional[int] = 1, best: str = "dropped", progress=None, client=None,
                partitions: Optional[int] = None, block: int = 2_000_000) -> Dedup:
    """:func:`paddle_rougel.deduplicate` over the Dask cluster (the same kept items and best)."""
    client = _client(client)
    items, pool = _texts(items, "items"), _texts(pool, "pool")
    a, t, I, P = prepare(items, pool, threshold, alpha, gamma, best, (tokenize, normalize, lowercase, stem))
    n = len(I.lens)
    out = np.zeros(n, dtype=np.float64)
    kept = np.zeros(n, dtype=bool)
    if n and t >= 0:
        probe = cand.two_windows(I.lens, np.concatenate([P.lens, I.lens]), t, a).left
        n_elems = int(max(I.elems.max(initial=-1), P.elems.max(initial=-1))) + 1
        own = cand.window_indexes(I, cand.two_windows(I.lens, I.lens, t, a).right, n_elems)
        s_i, s_own, s_probe = client.scatter([I, own, probe], broadcast=True, hash=False)
        inner = _submit(client, _join_task, _ranges(n, client, partitions, triangle=True), s_i, s_i, s_own,
                        s_probe, t=t, a=a, order=-1, block=block, threads=threads, want="gt")
        bmax = np.zeros(n, dtype=np.float64)
        if len(P.lens):
            pool_ix = cand.window_indexes(P, cand.two_windows(I.lens, P.lens, t, a).right, n_elems)
            s_p, s_pi = client.scatter([P, pool_ix], broadcast=True, hash=False)
            bmax = np.concatenate(_run(client, _pool_max_task, _ranges(n, client, partitions), s_i, s_p, s_pi,
                                       s_probe, t=t, a=a, block=block, threads=threads))
        inner = client.gather(inner)
        resolve(0, n, bmax, [_cat(inner)], t, out, kept)
        if progress is not None:
            progress(n)
    rows = np.arange(n) if t < 0 else np.flatnonzero(kept)
    if t < 0 or best == "exact":
        s_i, s_p, s_rows = client.scatter([I, P, rows], broadcast=True, hash=False)
        parts = _run(client, exact_rows, _ranges(len(rows), client, partitions), s_i, s_p, s_rows,
                     a=a, threads=threads, kept_cols=t >= 0)
        if len(rows):
            out[rows] = np.concatenate(parts)
    else:
        out[kept] = np.nan
    return Dedup(np.flatnonzero(kept).astype(np.int64), out)
