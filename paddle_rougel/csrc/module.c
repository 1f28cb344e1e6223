/*
 * paddle_rougel._lcs: argument parsing and glue.
 *
 *   tokens.c        Python batches -> token-id arrays (snapshot, interning)
 *   lcs_step.h      the bit-parallel LCS step every kernel below runs (scalar, carry, go-left, lanes)
 *   lcs_kernel.c    exact bit-parallel LCS (pure C)
 *   ngram_kernel.c  BLEU clipped n-gram matches (pure C)
 *   rougen_kernel.c ROUGE-N n-gram overlap of every pair (pure C)
 *   lsum_kernel.c   ROUGE-Lsum union LCS with rouge-score's backtrack (pure C)
 *   lsum_text.c     ROUGE-Lsum's text readers (ASCII words, characters) for lsum_kernel.c (pure C)
 *   partition.c     instances split over threads by cost
 *   stats_kernel.c  bootstrap / randomization resampled sums (pure C)
 *   words_kernel.c  sentence-level words read from str data, LCS per instance (pure C)
 *   matrix_kernel.c all-pairs LCS of queries against choices (pure C)
 *   pairs_kernel.c  character-level (str, str) pairs without per-pair overhead (pure C)
 *   pairs_simd.c    the vector lanes of short independent pairs (pure C, runtime dispatch)
 *   join_kernel.c   similarity-join candidates: prefix index, positional bound (pure C)
 *
 * The GIL is held while tokens are read; the kernels run without it (lcs_pairs keeps it
 * for a batch of a few ms of work: PAIRS_GIL_COST).
 * Results are bytearrays (numpy views of them are writable).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "join_kernel.h"
#include "lcs_kernel.h"
#include "lsum_kernel.h"
#include "matrix_kernel.h"
#include "ngram_kernel.h"
#include "pairs_kernel.h"
#include "pairs_simd.h"
#include "partition.h"
#include "rougen_kernel.h"
#include "stats_kernel.h"
#include "tokens.h"
#include "tokmap.h"
#include "words_kernel.h"
#include "words_simd.h"

/* lcs_pairs keeps the GIL for a batch of at most this pairs_cost (about 4 ms of work on
 * one AVX-512 core, 15 on the portable lanes; CPython's switch interval is 5 ms). */
#define PAIRS_GIL_COST 1e7

/* One block of scratch memory kept from call to call (at most SCRATCH_KEEP bytes) for the
 * temporaries of a batch: freshly malloc'ed, a batch's few MB would be mapped, faulted in and
 * unmapped by malloc on every call (about 0.8 ms of a 20,000-pair lcs_words call).  Taken
 * and given back by an atomic flag: a call that finds it taken (another thread's, its
 * kernel running without the GIL) allocates its own. */
#define SCRATCH_KEEP ((size_t)64 << 20)

typedef struct {
    void *p;
    int cached;  /* p is the kept block */
} Scratch;

static void *scratch_block;
static size_t scratch_cap;
static int scratch_taken;

/* need bytes (zeroed when zero) at s->p, or NULL with MemoryError. */
static void *scratch_take(Scratch *s, size_t need, int zero) {
    s->p = NULL;
    s->cached = 0;
    if (need <= SCRATCH_KEEP && !__atomic_exchange_n(&scratch_taken, 1, __ATOMIC_ACQUIRE)) {
        if (scratch_cap < need) {
            free(scratch_block);
            scratch_cap = need + need / 4;
            if (!(scratch_block = malloc(scratch_cap))) scratch_cap = 0;
        }
        if (scratch_block) {
            s->p = scratch_block;
            s->cached = 1;
            if (zero) memset(s->p, 0, need);
            return s->p;
        }
        __atomic_store_n(&scratch_taken, 0, __ATOMIC_RELEASE);
    }
    if (!(s->p = zero ? calloc(need, 1) : malloc(need))) PyErr_NoMemory();
    return s->p;
}

static void scratch_give(Scratch *s) {
    if (s->cached) __atomic_store_n(&scratch_taken, 0, __ATOMIC_RELEASE);
    else free(s->p);
    s->p = NULL;
    s->cached = 0;
}

/* The next n items of size elt from *at (8-byte aligned pieces of a scratch block). */
static void *carve(char **at, size_t n, size_t elt) {
    void *p = *at;
    *at += (n * elt + 7) & ~(size_t)7;
    return p;
}

/* A bytearray of n native int64 and its data, not initialised (the caller writes every entry). */
static PyObject *int64_array_raw(Py_ssize_t n, int64_t **data) {
    PyObject *a = PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    if (a) *data = (int64_t *)PyByteArray_AS_STRING(a);
    return a;
}

/* The same, zero-filled. */
static PyObject *int64_array(Py_ssize_t n, int64_t **data) {
    PyObject *a = int64_array_raw(n, data);
    if (a) memset(*data, 0, (size_t)n * sizeof(int64_t));
    return a;
}

/* Run fn over the batch's instances without the GIL. */
static int run_kernel(const double *cost, Py_ssize_t N, int threads, range_fn fn, void *ctx) {
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_partitioned(cost, (size_t)N, threads, fn, ctx);
    Py_END_ALLOW_THREADS
    if (rc < 0) PyErr_NoMemory();
    return rc;
}

/* Text t's length: len[t], or off[t + 1] - off[t] when len is NULL. */
static inline int64_t text_len(const int64_t *len, const int64_t *off, int64_t t) {
    return len ? len[t] : off[t + 1] - off[t];
}

/* The lengths of N instances laid out one after another (instance i owns texts inst[i] ..
 * inst[i+1]-1, its candidate first): cl [N] the candidates', rl the references' in order,
 * rc [N] (unless NULL) the references per instance.  Text lengths as text_len. */
static void split_lengths(Py_ssize_t N, const int64_t *inst, const int64_t *len, const int64_t *off, int64_t *cl,
                          int64_t *rl, int64_t *rc) {
    for (Py_ssize_t i = 0, m = 0; i < N; i++) {
        cl[i] = text_len(len, off, inst[i]);
        if (rc) rc[i] = inst[i + 1] - inst[i] - 1;
        for (int64_t t = inst[i] + 1; t < inst[i + 1]; t++) rl[m++] = text_len(len, off, t);
    }
}

/* cand_len [N], ref_len [T-N], ref_count [N] of a read batch. */
static PyObject *lengths(const TokenBatch *b) {
    int64_t *cl = NULL, *rl = NULL, *rc = NULL;
    PyObject *a = int64_array(b->N, &cl), *r = int64_array(b->T - b->N, &rl), *c = int64_array(b->N, &rc);
    if (!a || !r || !c) { Py_XDECREF(a); Py_XDECREF(r); Py_XDECREF(c); return NULL; }
    split_lengths(b->N, b->inst_start, NULL, b->text_off, cl, rl, rc);
    return Py_BuildValue("(NNN)", a, r, c);
}

/* A malloc'ed cost array of n (+1 spare) entries, or NULL with MemoryError. */
static double *new_costs(Py_ssize_t n) {
    double *cost = (double *)malloc(((size_t)n + 1) * sizeof(double));
    if (!cost) PyErr_NoMemory();
    return cost;
}

/* simd as lcs_batch and lcs_pairs take it: -1 or a level this CPU runs; else 0 with a
 * ValueError naming fn. */
static int simd_ok(const char *fn, int simd) {
    if (simd <= pairs_simd_level() && simd >= -1) return 1;
    PyErr_Format(PyExc_ValueError, "%s: simd=%d is not -1 or a level this CPU runs (0..%d)", fn, simd,
                 pairs_simd_level());
    return 0;
}

/* A sequence of n copies of one (a new reference, which this takes; NULL passes its error on). */
static PyObject *repeat_steal(PyObject *one, Py_ssize_t n) {
    PyObject *all = one ? PySequence_Repeat(one, n) : NULL;
    Py_XDECREF(one);
    return all;
}

PyDoc_STRVAR(lcs_batch_doc,
"lcs_batch(cands, ref_lists, threads=1, simd=-1) -> (lcs, cand_len, ref_len, ref_count)\n\n"
"cands: N token sequences; ref_lists: N non-empty lists of token sequences.\n"
"Returns four bytearrays of native int64: LCS of every (candidate, reference)\n"
"pair in order [M], candidate lengths [N], reference lengths [M] and\n"
"references per instance [N].  Tokens: see paddle_rougel.engine.  simd: the lanes\n"
"of short pairs, as lcs_pairs (0: none).");

static PyObject *lcs_batch(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "ref_lists", "threads", "simd", NULL};
    PyObject *cands, *refs, *lcs = NULL, *lens = NULL, *result = NULL;
    int threads = 1, simd = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|ii", kwlist, &cands, &refs, &threads, &simd)) return NULL;
    if (!simd_ok("lcs_batch", simd)) return NULL;
    TokenBatch b;
    memset(&b, 0, sizeof(b));
    double *cost = NULL;
    if (batch_read(&b, cands, refs, LISTS_OF_REFERENCES) < 0) goto done;
    LcsBatch L = {b.toks, b.text_off, b.inst_start, NULL, 0};
    if (simd != 0) {  /* the lanes compare 16-bit ids */
        tok_t most = 0;
        for (int64_t p = 0; p < b.text_off[b.T]; p++) most = b.toks[p] > most ? b.toks[p] : most;
        if (most < 0x10000) L.simd = simd < 0 ? pairs_simd_level() : simd;
    }
    if (!(lcs = int64_array(b.T - b.N, &L.lcs))) goto done;
    if (!(cost = new_costs(b.N))) goto done;
    for (Py_ssize_t i = 0; i < b.N; i++) cost[i] = lcs_cost(&L, (size_t)i);
    if (run_kernel(cost, b.N, threads, lcs_range, &L) < 0) goto done;
    if (!(lens = lengths(&b))) goto done;
    result = Py_BuildValue("(OOOO)", lcs, PyTuple_GET_ITEM(lens, 0), PyTuple_GET_ITEM(lens, 1),
                           PyTuple_GET_ITEM(lens, 2));
done:
    Py_XDECREF(lcs);
    Py_XDECREF(lens);
    free(cost);
    batch_free(&b);
    return result;
}

PyDoc_STRVAR(ngram_matches_doc,
"ngram_matches(cands, source_lists, n, prefix=None, threads=1) -> bytearray\n\n"
"Clipped n-gram matches (BLEU) of each candidate against its sources, for\n"
"k = 1..n.  Returns native int64 [Q, N, n] (Q = 2 with prefix, the second\n"
"block using only the first prefix[i] sources of instance i).  Source lists\n"
"may be empty.  Tokens as lcs_batch.");

/* prefix[i] (negative = 0) for every instance, or NULL with an exception. */
static int64_t *read_prefix(PyObject *prefix_in, Py_ssize_t N) {
    PyObject *prefix = PySequence_Tuple(prefix_in);
    if (!prefix) return NULL;
    int64_t *npre = NULL;
    if (PyTuple_GET_SIZE(prefix) != N) {
        PyErr_SetString(PyExc_ValueError, "prefix must have one entry per candidate");
    } else if (!(npre = (int64_t *)malloc(((size_t)N + 1) * sizeof(int64_t)))) {
        PyErr_NoMemory();
    } else {
        for (Py_ssize_t i = 0; i < N; i++) {
            Py_ssize_t v = PyLong_AsSsize_t(PyTuple_GET_ITEM(prefix, i));
            if (v == -1 && PyErr_Occurred()) { free(npre); npre = NULL; break; }
            npre[i] = v < 0 ? 0 : v;
        }
    }
    Py_DECREF(prefix);
    return npre;
}

static PyObject *ngram_matches(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "source_lists", "n", "prefix", "threads", NULL};
    PyObject *cands, *srcs, *prefix = Py_None, *out = NULL;
    int n, threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOi|Oi", kwlist, &cands, &srcs, &n, &prefix, &threads))
        return NULL;
    if (n < 1) { PyErr_SetString(PyExc_ValueError, "n must be >= 1"); return NULL; }
    TokenBatch b;
    memset(&b, 0, sizeof(b));
    GramBatch G;
    memset(&G, 0, sizeof(G));
    double *cost = NULL;
    if (batch_read(&b, cands, srcs, LISTS_OF_SOURCES) < 0) goto fail;
    if (prefix != Py_None && !(G.npre = read_prefix(prefix, b.N))) goto fail;
    G.toks = b.toks; G.text_off = b.text_off; G.inst_start = b.inst_start;
    G.N = (size_t)b.N; G.n = n;
    if (!(out = int64_array((G.npre ? 2 : 1) * b.N * (Py_ssize_t)n, &G.out))) goto fail;
    if (!(cost = new_costs(b.N))) goto fail;
    for (Py_ssize_t i = 0; i < b.N; i++)  /* every token is looked up once per order */
        cost[i] = (double)(b.text_off[b.inst_start[i + 1]] - b.text_off[b.inst_start[i]]) * n;
    if (run_kernel(cost, b.N, threads, ngram_range, &G) < 0) goto fail;
    goto done;
fail:
    Py_CLEAR(out);
done:
    free(cost);
    free((void *)G.npre);
    batch_free(&b);
    return out;
}

PyDoc_STRVAR(resample_sums_doc,
"resample_sums(columns, n, k, resamples, seed, mode, threads=1) -> bytearray\n\n"
"columns: a C-contiguous buffer of n * k float64, column-major [k, n] (n < 2**32).\n"
"mode 0 (bootstrap): out[r, c] = sum over i of count_r[i] * columns[c, i];\n"
"mode 1 (randomization, k even): the first k/2 columns of system A, then B's,\n"
"instance i's rows exchanged in trial r when its swap bit is 1.  For the tests:\n"
"mode 2 is mode 0 counting in 32 bits throughout; + 4 skips the SIMD draw loop\n"
"(same numbers either way).  Returns native float64\n"
"[resamples, k]; the generator and the summation order are documented in\n"
"paddle_rougel/stats.py (the numpy fallback is bit-identical).");

static PyObject *resample_sums(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"columns", "n", "k", "resamples", "seed", "mode", "threads", NULL};
    Py_buffer view;
    Py_ssize_t n, k, R;
    unsigned long long seed;
    int mode, threads = 1;
    PyObject *out = NULL;
    double *cost = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*nnnKi|i", kwlist, &view, &n, &k, &R, &seed, &mode,
                                     &threads))
        return NULL;
    const int simd = !(mode & STATS_NO_SIMD) && stats_simd_available();
    mode &= ~STATS_NO_SIMD;
    if (n < 1 || (uint64_t)n > UINT32_MAX || k < 1 || R < 0 ||
        (mode != STATS_BOOTSTRAP && mode != STATS_RANDOMIZE && mode != STATS_BOOTSTRAP_WIDE) ||
        (mode == STATS_RANDOMIZE && k % 2) || k > PY_SSIZE_T_MAX / 8 / n || view.len != n * k * 8 ||
        (R > 0 && k > PY_SSIZE_T_MAX / 8 / R)) {
        PyErr_SetString(PyExc_ValueError, "resample_sums: bad shape, mode or buffer size");
        goto done;
    }
    if (!(out = PyByteArray_FromStringAndSize(NULL, R * k * (Py_ssize_t)sizeof(double)))) goto done;
    ResampleJob J = {(const double *)view.buf, (size_t)n, (size_t)k, (uint64_t)seed, mode, simd,
                     (double *)PyByteArray_AS_STRING(out)};
    if (!(cost = new_costs(R))) { Py_CLEAR(out); goto done; }
    for (Py_ssize_t r = 0; r < R; r++) cost[r] = (double)n * (double)k;
    if (run_kernel(cost, R, threads, stats_range, &J) < 0) Py_CLEAR(out);
done:
    free(cost);
    PyBuffer_Release(&view);
    return out;
}

/* ------------------------------------------------------------ ROUGE-Lsum */

PyDoc_STRVAR(lsum_batch_doc,
"lsum_batch(sentence_lists, doc_sizes, ref_count, threads=1, scratch=256 MiB, base=0) -> (hits, doc_len)\n\n"
"sentence_lists[i]: the sentences of instance i, its candidate's then each\n"
"reference's (texts as lcs_batch); doc_sizes: sentences per document, the\n"
"candidate first, instance by instance [D]; ref_count: references per\n"
"instance [N].  Returns bytearrays of native int64: rouge-score's clipped\n"
"union-LCS hits of every reference [D-N] and the tokens of every document [D].\n"
"scratch: bytes of LCS table for the call, shared by its threads (see\n"
"lsum_kernel.h); a pair that cannot fit raises ValueError naming instance\n"
"base + i.");

/* The threads for a ROUGE-Lsum batch, and in *share each one's bytes of LCS table: the
 * budget is the call's, split between the threads; as many threads as asked while each
 * has room for the largest pair (lsum_pair_scratch), fewer otherwise.  A pair that does
 * not fit in the whole budget: ValueError naming the first such instance (base + i),
 * before any work.  need(b, i, share, out) is lsum_text_need, or lsum_need. */
static int lsum_threads(const void *b, Py_ssize_t N, int threads, Py_ssize_t budget_in, Py_ssize_t base,
                        void (*need)(const void *, size_t, size_t, LsumNeed *), size_t *share) {
    if (budget_in <= 0) {
        PyErr_SetString(PyExc_ValueError, "scratch must be > 0 bytes");
        return -1;
    }
    const size_t budget = (size_t)budget_in;
    if (threads > PARTITION_MAX_THREADS) threads = PARTITION_MAX_THREADS;
    if (threads < 1) threads = 1;
    size_t most = 0;
    for (Py_ssize_t i = 0; i < N; i++) {
        LsumNeed x;
        need(b, (size_t)i, budget / (size_t)threads, &x);
        if (x.need > budget) {
            PyErr_Format(PyExc_ValueError,
                         "instance %zd: candidate sentence %lld (%lld tokens) against reference %lld, sentence "
                         "%lld (%lld tokens): ROUGE-Lsum needs %zu bytes of LCS scratch, over the limit of %zu "
                         "(paddle_rougel.lsum.SCRATCH_BYTES); split these sentences",
                         base + i, (long long)x.cand_sent, (long long)x.n, (long long)x.ref,
                         (long long)x.ref_sent, (long long)x.m, x.need, budget);
            return -1;
        }
        if (x.need > most) most = x.need;
    }
    while (threads > 1 && budget / (size_t)threads < most) threads--;
    *share = budget / (size_t)threads;
    return threads;
}

static void token_need(const void *b, size_t i, size_t share, LsumNeed *out) {
    (void)share;
    lsum_need((const LsumBatch *)b, i, out);
}

static void text_need(const void *b, size_t i, size_t share, LsumNeed *out) {
    lsum_text_need((const LsumTextBatch *)b, i, share, out);
}

/* A sequence of ints >= 0 as a malloc'ed int64 array of n (+1 spare) entries, or NULL. */
static int64_t *read_counts(PyObject *seq_in, Py_ssize_t *n, const char *what) {
    PyObject *seq = PySequence_Tuple(seq_in);
    if (!seq) return NULL;
    *n = PyTuple_GET_SIZE(seq);
    int64_t *out = (int64_t *)malloc(((size_t)*n + 1) * sizeof(int64_t));
    if (!out) PyErr_NoMemory();
    for (Py_ssize_t i = 0; out && i < *n; i++) {
        const long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) { free(out); out = NULL; break; }
        if (v < 0) {
            PyErr_Format(PyExc_ValueError, "%s must be >= 0", what);
            free(out); out = NULL; break;
        }
        out[i] = v;
    }
    Py_DECREF(seq);
    return out;
}

/* ------------------------------------------------------------ ROUGE-N */

/* orders: a sequence of ints >= 1 (the caller checks they are distinct), as int64 [K]. */
static int64_t *read_orders(PyObject *orders_in, int *K) {
    Py_ssize_t n = 0;
    int64_t *orders = read_counts(orders_in, &n, "orders");
    if (!orders) return NULL;
    for (Py_ssize_t c = 0; c < n; c++)
        if (orders[c] < 1) n = 0;
    if (n < 1 || n > 1 << 20) {
        PyErr_SetString(PyExc_ValueError, "orders must be 1 to 2**20 ints >= 1");
        free(orders);
        return NULL;
    }
    *K = (int)n;
    return orders;
}

PyDoc_STRVAR(rouge_n_doc,
"rouge_n(cands, ref_lists, orders, distinct=False, threads=1) -> (hits, cand_grams, ref_grams, ref_count)\n\n"
"ROUGE-N n-gram overlap of every (candidate, reference) pair, for each order in\n"
"orders (distinct ints >= 1; column k is orders[k]).  Texts and errors as lcs_batch.\n"
"Returns bytearrays of native int64: hits [M, K] (clipped: sum of min(count_cand,\n"
"count_ref) over the n-grams; distinct: common distinct n-grams), cand_grams [N, K],\n"
"ref_grams [M, K] (clipped: len - n + 1 or 0; distinct: the distinct n-grams) and\n"
"ref_count [N].");

static PyObject *rouge_n(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "ref_lists", "orders", "distinct", "threads", NULL};
    PyObject *cands, *refs, *orders_in, *h_o = NULL, *cg_o = NULL, *rg_o = NULL, *lens = NULL, *result = NULL;
    int distinct = 0, threads = 1, K = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|pi", kwlist, &cands, &refs, &orders_in, &distinct, &threads))
        return NULL;
    int64_t *orders = read_orders(orders_in, &K);
    if (!orders) return NULL;
    TokenBatch b;
    memset(&b, 0, sizeof(b));
    double *cost = NULL;
    RougeNBatch R;
    memset(&R, 0, sizeof(R));
    if (batch_read(&b, cands, refs, LISTS_OF_REFERENCES) < 0) goto done;
    R.toks = b.toks; R.text_off = b.text_off; R.inst_start = b.inst_start;
    R.spec.orders = orders; R.spec.K = K; R.spec.distinct = distinct;
    if (!(h_o = int64_array((b.T - b.N) * K, &R.out.hits)) || !(cg_o = int64_array(b.N * K, &R.out.cand_grams)) ||
        !(rg_o = int64_array((b.T - b.N) * K, &R.out.ref_grams)))
        goto done;
    if (!(cost = new_costs(b.N))) goto done;
    for (Py_ssize_t i = 0; i < b.N; i++) cost[i] = rougen_cost(&R, (size_t)i);
    if (run_kernel(cost, b.N, threads, rougen_range, &R) < 0) goto done;
    if (!(lens = lengths(&b))) goto done;
    result = PyTuple_Pack(4, h_o, cg_o, rg_o, PyTuple_GET_ITEM(lens, 2));
done:
    Py_XDECREF(h_o); Py_XDECREF(cg_o); Py_XDECREF(rg_o); Py_XDECREF(lens);
    free(cost);
    free(orders);
    batch_free(&b);
    return result;
}

/* sent_off / doc_sent / inst_doc of a read batch whose text 0 of each instance is a placeholder. */
static int lsum_layout(const TokenBatch *b, const int64_t *sizes, Py_ssize_t D, const int64_t *refs,
                       int64_t *sent_off, int64_t *doc_sent, int64_t *inst_doc) {
    Py_ssize_t s = 0, d = 0;
    for (Py_ssize_t i = 0; i < b->N; i++) {
        for (int64_t t = b->inst_start[i] + 1; t < b->inst_start[i + 1]; t++) sent_off[s++] = b->text_off[t];
        inst_doc[i] = d;
        int64_t have = 0;
        for (int64_t r = 0; r <= refs[i] && d < D; r++) have += sizes[d++];
        if (d - inst_doc[i] != refs[i] + 1 || have != b->inst_start[i + 1] - b->inst_start[i] - 1) {
            PyErr_Format(PyExc_ValueError, "instance %zd: doc_sizes / ref_count do not match its sentences", i);
            return -1;
        }
    }
    if (d != D) { PyErr_SetString(PyExc_ValueError, "doc_sizes has more entries than documents"); return -1; }
    sent_off[s] = b->text_off[b->T];
    inst_doc[b->N] = d;
    doc_sent[0] = 0;
    for (Py_ssize_t k = 0; k < D; k++) doc_sent[k + 1] = doc_sent[k] + sizes[k];
    return 0;
}

static PyObject *lsum_batch(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"sentence_lists", "doc_sizes", "ref_count", "threads", "scratch", "base", NULL};
    PyObject *lists, *sizes_in, *refs_in, *hits = NULL, *dlen = NULL, *result = NULL, *blanks = NULL;
    int threads = 1;
    Py_ssize_t scratch = (Py_ssize_t)LSUM_DEFAULT_SCRATCH, base = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|inn", kwlist, &lists, &sizes_in, &refs_in, &threads,
                                     &scratch, &base))
        return NULL;
    TokenBatch b;
    memset(&b, 0, sizeof(b));
    Py_ssize_t D = 0, N = 0;
    int64_t *sizes = NULL, *refs = NULL, *so = NULL, *ds = NULL, *id = NULL, *dl;
    double *cost = NULL;
    if (!(sizes = read_counts(sizes_in, &D, "doc_sizes")) || !(refs = read_counts(refs_in, &N, "ref_count"))) goto done;
    blanks = repeat_steal(Py_BuildValue("(s)", ""), N);  /* "" placeholders: all-str batches keep code points */
    if (!blanks || batch_read(&b, blanks, lists, LISTS_OF_SOURCES) < 0) goto done;
    so = (int64_t *)malloc(((size_t)(b.T - b.N) + 1) * sizeof(int64_t));
    ds = (int64_t *)malloc(((size_t)D + 1) * sizeof(int64_t));
    id = (int64_t *)malloc(((size_t)N + 1) * sizeof(int64_t));
    cost = (double *)malloc(((size_t)N + 1) * sizeof(double));
    if (!so || !ds || !id || !cost) { PyErr_NoMemory(); goto done; }
    if (lsum_layout(&b, sizes, D, refs, so, ds, id) < 0) goto done;
    LsumBatch L = {b.toks, so, ds, id, NULL, 0};
    if ((threads = lsum_threads(&L, N, threads, scratch, base, token_need, &L.scratch)) < 0) goto done;
    if (!(hits = int64_array(D - N, &L.hits)) || !(dlen = int64_array(D, &dl))) goto done;
    for (Py_ssize_t d = 0; d < D; d++) dl[d] = so[ds[d + 1]] - so[ds[d]];
    for (Py_ssize_t i = 0; i < N; i++) cost[i] = lsum_cost(&L, (size_t)i);
    if (run_kernel(cost, N, threads, lsum_range, &L) < 0) goto done;
    result = Py_BuildValue("(OO)", hits, dlen);
done:
    Py_XDECREF(hits); Py_XDECREF(dlen); Py_XDECREF(blanks);
    free(sizes); free(refs); free(so); free(ds); free(id); free(cost);
    batch_free(&b);
    return result;
}

PyDoc_STRVAR(lsum_text_snapshot_doc,
"lsum_text_snapshot(cands, refs, one_ref=False) -> (cands, flat, offsets) or None\n\n"
"cands: a list or tuple of str; refs: per candidate a non-empty list or tuple of\n"
"str (with one_ref: a str, its only reference).  None unless every item has those\n"
"exact types; else a tuple of the candidates, a tuple of every reference in order,\n"
"and int64 offsets [N+1] (a bytearray): candidate i's references are\n"
"flat[offsets[i]:offsets[i+1]].");

static int list_or_tuple(PyObject *o) { return PyList_CheckExact(o) || PyTuple_CheckExact(o); }

/* Both exact lists or tuples of the same length: the batches the str paths take. */
static int same_length_lists(PyObject *a, PyObject *b) {
    return list_or_tuple(a) && list_or_tuple(b) && PySequence_Fast_GET_SIZE(a) == PySequence_Fast_GET_SIZE(b);
}

/* Instance i's references: the list or tuple refs[i], or (one_ref) the str refs[i] itself. */
static inline PyObject **refs_of(PyObject **refs, Py_ssize_t i, int one_ref) {
    return one_ref ? &refs[i] : PySequence_Fast_ITEMS(refs[i]);
}

static inline Py_ssize_t nrefs_of(PyObject **refs, Py_ssize_t i, int one_ref) {
    return one_ref ? 1 : PySequence_Fast_GET_SIZE(refs[i]);
}

/* The references of N instances whose candidates cands[i] are exact str and whose references
 * refs[i] are non-empty lists or tuples of exact str (one_ref: an exact str), counted; -1
 * when an item does not fit.  No Python code runs. */
static Py_ssize_t str_refs_total(PyObject **cands, PyObject **refs, Py_ssize_t N, int one_ref) {
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < N; i++) {
        if (!PyUnicode_CheckExact(cands[i])) return -1;
        if (!one_ref && (!list_or_tuple(refs[i]) || PySequence_Fast_GET_SIZE(refs[i]) == 0)) return -1;
        PyObject **items = refs_of(refs, i, one_ref);
        const Py_ssize_t k = nrefs_of(refs, i, one_ref);
        for (Py_ssize_t j = 0; j < k; j++)
            if (!PyUnicode_CheckExact(items[j])) return -1;
        total += k;
    }
    return total;
}

/* The PEP 393 storage of a ready str. */
static void text_of(PyObject *o, WordText *x) {
    x->data = PyUnicode_DATA(o);
    x->len = PyUnicode_GET_LENGTH(o);
    x->kind = (int)PyUnicode_KIND(o);
}

/* The snapshot, or Py_None (a new reference) when the types do not fit.  No Python
 * code runs here, so a list cannot change between the count and the copy. */
static PyObject *flat_snapshot(PyObject *cands_in, PyObject *refs_in, int one_ref) {
    if (!same_length_lists(cands_in, refs_in)) Py_RETURN_NONE;
    const Py_ssize_t N = PySequence_Fast_GET_SIZE(refs_in);
    PyObject **ci = PySequence_Fast_ITEMS(cands_in), **ri = PySequence_Fast_ITEMS(refs_in);
    const Py_ssize_t total = str_refs_total(ci, ri, N, one_ref);
    if (total < 0) Py_RETURN_NONE;
    int64_t *off;
    PyObject *cands = PySequence_Tuple(cands_in), *flat = PyTuple_New(total), *offsets = int64_array(N + 1, &off);
    PyObject *result = NULL;
    if (!cands || !flat || !offsets) goto done;
    Py_ssize_t t = 0;
    for (Py_ssize_t i = 0; i < N; i++) {
        off[i] = t;
        const Py_ssize_t k = nrefs_of(ri, i, one_ref);
        PyObject **items = refs_of(ri, i, one_ref);
        for (Py_ssize_t j = 0; j < k; j++) {
            Py_INCREF(items[j]);
            PyTuple_SET_ITEM(flat, t++, items[j]);
        }
    }
    off[N] = t;
    result = PyTuple_Pack(3, cands, flat, offsets);
done:
    Py_XDECREF(cands); Py_XDECREF(flat); Py_XDECREF(offsets);
    return result;
}

static PyObject *lsum_text_snapshot(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "refs", "one_ref", NULL};
    PyObject *cands, *refs;
    int one_ref = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|p", kwlist, &cands, &refs, &one_ref)) return NULL;
    return flat_snapshot(cands, refs, one_ref);
}

PyDoc_STRVAR(lsum_text_doc,
"lsum_text(cands, flat, offsets, threads=1, chars=False, scratch=256 MiB, base=0, simd=-1)\n"
"    -> (hits, cand_len, ref_len) or None\n\n"
"ROUGE-Lsum text handling in C: sentences end at '\\n'; the tokens are\n"
"rouge-score's (the lowercased runs of [A-Za-z0-9]) or, with chars, every\n"
"character but '\\n'.  cands, flat, offsets: as lsum_text_snapshot returns them\n"
"(offsets=None: flat is a list of reference lists, snapshotted here).  None\n"
"(nothing computed) unless every text is a str (an ASCII str without chars).\n"
"hits and ref_len per (candidate, reference) pair, cand_len per candidate:\n"
"int64 bytearrays.  scratch, base: as lsum_batch.  simd: as lcs_words (0: the portable\n"
"ASCII reader even where the AVX-512 one runs; the same results).");

static PyObject *lsum_text(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "flat", "offsets", "threads", "chars", "scratch", "base", "simd", NULL};
    PyObject *cands, *flat, *offsets_in = Py_None, *snap = NULL, *result = NULL;
    PyObject *hits = NULL, *cand_len = NULL, *ref_len = NULL;
    int threads = 1, char_mode = 0, simd = -1;
    Py_ssize_t scratch = (Py_ssize_t)LSUM_DEFAULT_SCRATCH, base = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|Oipnni", kwlist, &cands, &flat, &offsets_in, &threads, &char_mode,
                                     &scratch, &base, &simd))
        return NULL;
    if (!simd_ok("lsum_text", simd)) return NULL;
    Py_buffer ob = {0};
    const int64_t *off;
    int64_t *inst = NULL, *len = NULL, *doc_len = NULL;
    const char **chars = NULL;
    uint8_t *kind = NULL;
    double *cost = NULL;
    if (offsets_in == Py_None) {
        if (!(snap = flat_snapshot(cands, flat, 0))) return NULL;
        if (snap == Py_None) return snap;
        cands = PyTuple_GET_ITEM(snap, 0);
        flat = PyTuple_GET_ITEM(snap, 1);
        offsets_in = PyTuple_GET_ITEM(snap, 2);
    }
    if (!PyTuple_CheckExact(cands) || !PyTuple_CheckExact(flat)) {
        PyErr_SetString(PyExc_TypeError, "lsum_text: cands and flat must be tuples (see lsum_text_snapshot)");
        goto done;
    }
    if (PyObject_GetBuffer(offsets_in, &ob, PyBUF_SIMPLE) < 0) goto done;
    const Py_ssize_t N = PyTuple_GET_SIZE(cands), R = PyTuple_GET_SIZE(flat);
    off = (const int64_t *)ob.buf;
    /* the offsets are read with no check upstream: every candidate has a reference, all in flat */
    int ok = ob.len == (N + 1) * (Py_ssize_t)sizeof(int64_t) && off[0] == 0 && off[N] == R;
    for (Py_ssize_t i = 0; ok && i < N; i++) ok = off[i + 1] > off[i];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "lsum_text: offsets must be int64 [N+1] from 0 to len(flat), increasing");
        goto done;
    }
    /* texts in kernel order, instance by instance: the candidate, then its references.  The
     * tuples (held by the caller or snap) keep every str alive while the GIL is released. */
    const Py_ssize_t T = N + R;
    inst = (int64_t *)malloc(((size_t)N + 1) * sizeof(int64_t));
    len = (int64_t *)malloc(((size_t)T + 1) * sizeof(int64_t));
    doc_len = (int64_t *)malloc(((size_t)T + 1) * sizeof(int64_t));
    chars = (const char **)malloc(((size_t)T + 1) * sizeof(char *));
    cost = (double *)malloc(((size_t)N + 1) * sizeof(double));
    kind = (uint8_t *)malloc((size_t)T + 1);
    if (!inst || !len || !doc_len || !chars || !cost || !kind) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0, t = 0; i < N; i++) {
        inst[i] = t;
        for (Py_ssize_t j = off[i] - 1; j < off[i + 1]; j++, t++) {
            PyObject *x = j < off[i] ? PyTuple_GET_ITEM(cands, i) : PyTuple_GET_ITEM(flat, j);
#if PY_VERSION_HEX < 0x030C0000
            if (PyUnicode_CheckExact(x) && PyUnicode_READY(x) < 0) goto done;  /* a legacy str: its storage */
#endif
            if (!PyUnicode_CheckExact(x) || (!char_mode && !PyUnicode_IS_ASCII(x))) {  /* not for this path */
                result = Py_None;
                Py_INCREF(result);
                goto done;
            }
            chars[t] = (const char *)PyUnicode_DATA(x);
            len[t] = PyUnicode_GET_LENGTH(x);
            kind[t] = (uint8_t)PyUnicode_KIND(x);  /* 1, 2 or 4 bytes a character */
        }
    }
    inst[N] = T;
    int64_t *hp, *cl, *rl;
    if (!(hits = int64_array(R, &hp)) || !(cand_len = int64_array(N, &cl)) || !(ref_len = int64_array(R, &rl)))
        goto done;
    LsumTextBatch L = {chars, len, inst, hp, doc_len, char_mode ? kind : NULL, 0, simd == 0};
    if ((threads = lsum_threads(&L, N, threads, scratch, base, text_need, &L.scratch)) < 0) goto done;
    for (Py_ssize_t i = 0; i < N; i++) cost[i] = lsum_text_cost(&L, (size_t)i);
    if (run_kernel(cost, N, threads, lsum_text_range, &L) < 0) goto done;
    split_lengths(N, inst, doc_len, NULL, cl, rl, NULL);
    result = PyTuple_Pack(3, hits, cand_len, ref_len);
done:
    if (ob.obj) PyBuffer_Release(&ob);
    free(inst); free(len); free(doc_len); free(chars); free(cost); free(kind);
    Py_XDECREF(hits); Py_XDECREF(cand_len); Py_XDECREF(ref_len); Py_XDECREF(snap);
    return result;
}

/* ------------------------------------------------------------ words from str */

/* lcs_words' read of two tuples of str, candidate i and its one reference, on every thread
 * (run_even) while the calling thread holds the GIL: tuples cannot change and keep their
 * items alive, and nothing here touches a reference count or runs Python code.  Texts that
 * need Python (a non-ASCII text to lowercase; a legacy str not ready) are left with no data
 * (deferred) for the calling thread; bad: an item that is not an exact str. */
typedef struct {
    PyObject **cands, **refs;
    int fold;
    PyObject **objs;
    WordText *texts;
    int64_t *inst;
    double *cost;
    int bad, deferred;
} PairRead;

#define PAIR_READ_MIN 4096  /* pairs a thread of the read takes at least (a thread start: tens of us) */

static int pair_read_range(void *ctx, size_t begin, size_t end) {
    PairRead *R = (PairRead *)ctx;
    int deferred = 0;
    for (size_t i = begin; i < end; i++) {
        if (i + 32 < end) {  /* the strs are scattered over the heap: fetched ahead */
            __builtin_prefetch(R->cands[i + 32]);
            __builtin_prefetch(R->refs[i + 32]);
        }
        R->inst[i] = 2 * (int64_t)i;
        for (size_t side = 0; side < 2; side++) {
            PyObject *o = side ? R->refs[i] : R->cands[i];
            WordText *x = &R->texts[2 * i + side];
            R->objs[2 * i + side] = o;
            x->data = NULL;
            x->len = 0;
            if (!PyUnicode_CheckExact(o)) {
                __atomic_store_n(&R->bad, 1, __ATOMIC_RELAXED);
                return 0;
            }
#if PY_VERSION_HEX < 0x030C0000
            if (!PyUnicode_IS_READY(o)) {
                deferred = 1;
                continue;
            }
#endif
            if (R->fold && !PyUnicode_IS_ASCII(o)) {
                deferred = 1;
                continue;
            }
            text_of(o, x);
        }
        R->cost[i] = words_texts_cost(R->texts, 2 * (int64_t)i, 2 * (int64_t)i + 2);
    }
    if (deferred) __atomic_store_n(&R->deferred, 1, __ATOMIC_RELAXED);
    return 0;
}

PyDoc_STRVAR(lcs_words_doc,
"lcs_words(cands, ref_lists, mode, fold=False, threads=1, one_ref=False, orders=None, distinct=False,\n"
"          lcs=True, simd=-1) -> (lcs, cand_len, ref_len, ref_count[, hits, cand_grams, ref_grams]) or None\n\n"
"lcs_batch on the words of str texts, read in C: mode 0 is str.split(), mode 1\n"
"rouge-score's tokenizer (lowercase, runs of [a-z0-9]; fold is then implied).\n"
"fold: compare lowercased (str.lower() first; whitespace mode with lowercase).\n"
"cands: a list or tuple of str; ref_lists: per candidate a non-empty list or\n"
"tuple of str (one_ref: a str, its only reference).  None (nothing computed)\n"
"unless every item has those exact types.\n"
"Lengths count words.  orders: also the ROUGE-N counts of the same words, as\n"
"rouge_n(..., orders, distinct) returns them; lcs=False: no LCS (lcs all 0).\n"
"simd: 0 the portable reader, else (-1 or a level this CPU runs) the AVX-512 one\n"
"where the CPU has it; the same results either way.");

static int py_is_space(uint32_t c) { return Py_UNICODE_ISSPACE((Py_UCS4)c); }

static PyObject *lcs_words(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "ref_lists", "mode", "fold", "threads", "one_ref", "orders", "distinct", "lcs",
                             "simd", NULL};
    PyObject *cands, *lists, *result = NULL, *lcs = NULL, *cl_o = NULL, *rl_o = NULL, *rc_o = NULL;
    PyObject *orders_in = Py_None, *h_o = NULL, *cg_o = NULL, *rg_o = NULL;
    int mode, fold = 0, threads = 1, one_ref = 0, distinct = 0, with_lcs = 1, simd = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOi|pipOppi", kwlist, &cands, &lists, &mode, &fold, &threads,
                                     &one_ref, &orders_in, &distinct, &with_lcs, &simd))
        return NULL;
    if (!simd_ok("lcs_words", simd)) return NULL;
    if (mode != WORDS_SPLIT && mode != WORDS_ALNUM) {
        PyErr_SetString(PyExc_ValueError, "lcs_words: mode must be 0 (split) or 1 (rouge_score)");
        return NULL;
    }
    if (mode == WORDS_ALNUM) fold = 1;
    if (!same_length_lists(cands, lists)) Py_RETURN_NONE;
    RougeNSpec spec = {NULL, 0, distinct};
    if (orders_in != Py_None && !(spec.orders = read_orders(orders_in, &spec.K))) return NULL;
    const Py_ssize_t N = PySequence_Fast_GET_SIZE(cands);
    PyObject **ci = PySequence_Fast_ITEMS(cands), **li = PySequence_Fast_ITEMS(lists);
    /* Two tuples of one str reference each (the batches compute() and the metrics make):
     * their items are read on every thread (pair_read_range); else one pass here. */
    const int pairs = one_ref && PyTuple_CheckExact(cands) && PyTuple_CheckExact(lists);
    Py_ssize_t T = pairs ? N : str_refs_total(ci, li, N, one_ref);  /* types first: no Python code runs until the copy */
    if (T < 0) {
        free((void *)spec.orders);
        Py_RETURN_NONE;
    }
    T += N;
    /* The strs need a reference each (owned) unless every container is a tuple: then the
     * call's arguments keep them alive, whatever Python code runs or other threads do while
     * the kernel reads them (no Py_INCREF / Py_DECREF of every scattered object). */
    int owned = !(PyTuple_CheckExact(cands) && PyTuple_CheckExact(lists));
    for (Py_ssize_t i = 0; i < N && !owned && !one_ref; i++) owned = !PyTuple_CheckExact(li[i]);
    /* the temporaries, in one scratch block (every entry is written before it is read) */
    const size_t nt = (size_t)T + 1, ni = (size_t)N + 1;
    Scratch tmp;
    char *at = (char *)scratch_take(&tmp, 8 * ((nt * sizeof(WordText) + 7) / 8 + nt + 2 * ni), 0);
    PyObject **objs = NULL;
    WordText *texts = NULL;
    int64_t *inst = NULL;
    double *cost = NULL;
    if (!at) goto done;
    objs = (PyObject **)carve(&at, nt, sizeof(PyObject *));
    texts = (WordText *)carve(&at, nt, sizeof(WordText));
    inst = (int64_t *)carve(&at, ni, sizeof(int64_t));
    cost = (double *)carve(&at, ni, sizeof(double));
    int deferred = 1;  /* texts the pass with Python code must finish (lowercase, legacy str) */
    if (pairs) {
        PairRead R = {ci, li, fold, objs, texts, inst, cost, 0, 0};
        run_even((size_t)N, threads, PAIR_READ_MIN, pair_read_range, &R);  /* (cannot fail) */
        if (R.bad) {
            result = Py_None;
            Py_INCREF(result);
            goto done;
        }
        deferred = R.deferred;
    } else {
        /* one pass over the scattered str objects (each a cache miss: fetched ahead): the
         * objects, the candidate first (owned references unless the tuples hold them), and
         * their storage.  No Python code runs in it (a finalizer could change the lists):
         * texts to lowercase wait for the pass after. */
        for (Py_ssize_t i = 0, t = 0; i < N; i++) {
            inst[i] = t;
            if (i + 16 < N) {
                __builtin_prefetch(ci[i + 16], 1);
                if (one_ref) __builtin_prefetch(li[i + 16], 1);
            }
            PyObject **items = refs_of(li, i, one_ref);
            const Py_ssize_t k = nrefs_of(li, i, one_ref);
            for (Py_ssize_t j = -1; j < k; j++, t++) {
                PyObject *o = j < 0 ? ci[i] : items[j];
                if (owned) Py_INCREF(o);
                objs[t] = o;
                texts[t].data = NULL;
#if PY_VERSION_HEX < 0x030C0000
                if (PyUnicode_READY(o) < 0) continue;  /* (the pass after reports it) */
#endif
                if (fold && !PyUnicode_IS_ASCII(o)) continue;
                text_of(o, &texts[t]);
            }
        }
    }
    inst[N] = T;
    for (Py_ssize_t t = 0; t < T && deferred; t++) {
        if (texts[t].data) continue;
        if (!owned) {  /* str.lower() below replaces objects: own them all from here (rare) */
            for (Py_ssize_t u = 0; u < T; u++) Py_INCREF(objs[u]);
            owned = 1;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(objs[t]) < 0) goto done;
#endif
        if (fold && !PyUnicode_IS_ASCII(objs[t])) {  /* str.lower(): exactly Python's lowercase */
            PyObject *low = PyObject_CallMethod(objs[t], "lower", NULL);
            if (!low) goto done;
            Py_SETREF(objs[t], low);
#if PY_VERSION_HEX < 0x030C0000
            if (PyUnicode_READY(objs[t]) < 0) goto done;
#endif
        }
        text_of(objs[t], &texts[t]);
    }
    /* the results, not initialised: each thread zeroes and fills its instances' entries
     * (words_range), so their pages are first touched in parallel */
    int64_t *out, *cl, *rl, *rc;
    if (!(lcs = int64_array_raw(T - N, &out)) || !(cl_o = int64_array_raw(N, &cl)) ||
        !(rl_o = int64_array_raw(T - N, &rl)) || !(rc_o = int64_array_raw(N, &rc)))
        goto done;
    WordsBatch W = {texts, inst, mode, fold, py_is_space, with_lcs ? out : NULL, cl, rl, rc, NULL, {NULL, NULL, NULL},
                    simd == 0, with_lcs ? NULL : out};
    if (spec.orders) {
        W.ngram = &spec;
        if (!(h_o = int64_array_raw((T - N) * spec.K, &W.ngram_out.hits)) ||
            !(cg_o = int64_array_raw(N * spec.K, &W.ngram_out.cand_grams)) ||
            !(rg_o = int64_array_raw((T - N) * spec.K, &W.ngram_out.ref_grams)))
            goto done;
    }
    if (deferred)  /* (pair_read_range gave the costs of texts it read) */
        for (Py_ssize_t i = 0; i < N; i++) cost[i] = words_cost(&W, (size_t)i);
    if (run_kernel(cost, N, threads, words_range, &W) < 0) goto done;
    result = spec.orders ? PyTuple_Pack(7, lcs, cl_o, rl_o, rc_o, h_o, cg_o, rg_o) : PyTuple_Pack(4, lcs, cl_o, rl_o, rc_o);
done:
    if (objs && owned)
        for (Py_ssize_t t = 0; t < T; t++) Py_XDECREF(objs[t]);
    scratch_give(&tmp);
    free((void *)spec.orders);
    Py_XDECREF(lcs); Py_XDECREF(cl_o); Py_XDECREF(rl_o); Py_XDECREF(rc_o);
    Py_XDECREF(h_o); Py_XDECREF(cg_o); Py_XDECREF(rg_o);
    return result;
}

/* ------------------------------------------------------------ str pairs */

PyDoc_STRVAR(lcs_pairs_doc,
"lcs_pairs(cands, refs, threads=1, simd=-1) -> (lcs, cand_len, ref_len) or None\n\n"
"The LCS of cands[i] and refs[i], every character a token: native int64\n"
"bytearrays [N].  None (nothing computed) unless both are lists or tuples of\n"
"exact str of the same length.  simd: the lanes of short pairs: -1 the best this\n"
"CPU runs, 0 portable, 1 AVX2, 2 AVX-512 (tests; an error where the CPU lacks it).");

static PyObject *lcs_pairs(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "refs", "threads", "simd", NULL};
    PyObject *cands, *refs, *lcs = NULL, *cl_o = NULL, *rl_o = NULL, *result = NULL;
    int threads = 1, simd = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|ii", kwlist, &cands, &refs, &threads, &simd)) return NULL;
    if (!simd_ok("lcs_pairs", simd)) return NULL;
    if (!same_length_lists(cands, refs)) Py_RETURN_NONE;
    const Py_ssize_t N = PySequence_Fast_GET_SIZE(cands);
    PyObject **ci = PySequence_Fast_ITEMS(cands), **ri = PySequence_Fast_ITEMS(refs);
    WordText *texts = (WordText *)malloc(((size_t)2 * N + 1) * sizeof(WordText));
    double *cost = (double *)malloc(((size_t)N + 1) * sizeof(double));
    PyObject **objs = NULL;  /* the references taken by a batch that releases the GIL */
    Py_ssize_t owned = 0;
    if (!texts || !cost) { PyErr_NoMemory(); goto done; }
    int64_t *out, *cl, *rl;
    if (!(lcs = int64_array(N, &out)) || !(cl_o = int64_array(N, &cl)) || !(rl_o = int64_array(N, &rl))) goto done;
    PairsBatch P = {texts, out, simd < 0 ? pairs_simd_level() : simd};
    double total = 0;
    /* one pass over the scattered str objects (each a cache miss: fetched ahead): their types,
     * storage, lengths and costs.  No Python code runs from here to the kernel's end, so the
     * lists stay as they are while the GIL is held. */
    for (Py_ssize_t i = 0; i < N; i++) {
        if (i + 16 < N) {
            __builtin_prefetch(ci[i + 16]);
            __builtin_prefetch(ri[i + 16]);
        }
        for (int side = 0; side < 2; side++) {
            PyObject *o = side ? ri[i] : ci[i];
            if (!PyUnicode_CheckExact(o)) { Py_CLEAR(lcs); result = Py_None; Py_INCREF(result); goto done; }
#if PY_VERSION_HEX < 0x030C0000
            if (PyUnicode_READY(o) < 0) goto done;  /* (no Python code: a legacy str's storage) */
#endif
            text_of(o, &texts[2 * i + side]);
        }
        cl[i] = texts[2 * i].len;
        rl[i] = texts[2 * i + 1].len;
        cost[i] = pairs_cost(&P, (size_t)i);
        total += cost[i];
    }
    if (total <= PAIRS_GIL_COST) {
        /* A small batch (about the interpreter's switch interval of work, or less) keeps the
         * GIL: no thread can change the lists meanwhile, so no references are taken (each
         * would dirty, then revisit, an object the kernel has long left). */
        if (run_partitioned(cost, (size_t)N, threads, pairs_range, &P) < 0) { PyErr_NoMemory(); goto done; }
    } else {
        /* owned references: the lists may change once the GIL is released */
        if (!(objs = (PyObject **)malloc(((size_t)2 * N + 1) * sizeof(PyObject *)))) { PyErr_NoMemory(); goto done; }
        for (; owned < 2 * N; owned++) {
            objs[owned] = owned & 1 ? ri[owned / 2] : ci[owned / 2];
            Py_INCREF(objs[owned]);
        }
        if (run_kernel(cost, N, threads, pairs_range, &P) < 0) goto done;
    }
    result = PyTuple_Pack(3, lcs, cl_o, rl_o);
done:
    for (Py_ssize_t t = 0; t < owned; t++) Py_DECREF(objs[t]);
    free(objs); free(texts); free(cost);
    Py_XDECREF(lcs); Py_XDECREF(cl_o); Py_XDECREF(rl_o);
    return result;
}

PyDoc_STRVAR(lcs_index_pairs_doc,
"lcs_index_pairs(left, right, xs, ys, threads=1) -> lcs or None\n\n"
"The LCS of left[xs[i]] and right[ys[i]] (xs, ys: native int64 buffers of equal length),\n"
"every character a token, as lcs_pairs computes it: a native int64 bytearray.  None\n"
"(nothing computed) unless left and right are lists or tuples of exact str; an index out\n"
"of range is a ValueError.");

static PyObject *lcs_index_pairs(PyObject *self, PyObject *args) {
    PyObject *left, *right, *lcs = NULL, *result = NULL, **objs = NULL;
    Py_buffer xb = {0}, yb = {0};
    int threads = 1;
    Py_ssize_t owned = 0;
    WordText *texts = NULL;
    double *cost = NULL;
    if (!PyArg_ParseTuple(args, "OOy*y*|i", &left, &right, &xb, &yb, &threads)) return NULL;
    if (!list_or_tuple(left) || !list_or_tuple(right)) { result = Py_None; Py_INCREF(result); goto done; }
    if (xb.len != yb.len || xb.len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "lcs_index_pairs: xs and ys must be int64 buffers of one length");
        goto done;
    }
    const Py_ssize_t N = xb.len / (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t NL = PySequence_Fast_GET_SIZE(left), NR = PySequence_Fast_GET_SIZE(right);
    const int64_t *xs = (const int64_t *)xb.buf, *ys = (const int64_t *)yb.buf;
    PyObject **li = PySequence_Fast_ITEMS(left), **ri = PySequence_Fast_ITEMS(right);
    for (Py_ssize_t i = 0; i < N; i++)
        if (xs[i] < 0 || xs[i] >= NL || ys[i] < 0 || ys[i] >= NR) {
            PyErr_Format(PyExc_ValueError, "lcs_index_pairs: pair %zd indexes out of range", i);
            goto done;
        }
    for (int side = 0; side < 2; side++) {  /* every text read must be an exact str */
        PyObject **items = side ? ri : li;
        const Py_ssize_t n = side ? NR : NL;
        for (Py_ssize_t k = 0; k < n; k++) {
            if (!PyUnicode_CheckExact(items[k])) { result = Py_None; Py_INCREF(result); goto done; }
#if PY_VERSION_HEX < 0x030C0000
            if (PyUnicode_READY(items[k]) < 0) goto done;
#endif
        }
    }
    texts = (WordText *)malloc(((size_t)2 * N + 1) * sizeof(WordText));
    cost = (double *)malloc(((size_t)N + 1) * sizeof(double));
    int64_t *out;
    if (!texts || !cost) { PyErr_NoMemory(); goto done; }
    if (!(lcs = int64_array(N, &out))) goto done;
    PairsBatch P = {texts, out, pairs_simd_level()};
    for (Py_ssize_t i = 0; i < N; i++) {
        text_of(li[xs[i]], &texts[2 * i]);
        text_of(ri[ys[i]], &texts[2 * i + 1]);
        cost[i] = pairs_cost(&P, (size_t)i);
    }
    /* the lists may change once the GIL is released: the two lists' references are held */
    if (!(objs = (PyObject **)malloc(((size_t)NL + NR + 1) * sizeof(PyObject *)))) { PyErr_NoMemory(); goto done; }
    for (; owned < NL + NR; owned++) {
        objs[owned] = owned < NL ? li[owned] : ri[owned - NL];
        Py_INCREF(objs[owned]);
    }
    if (run_kernel(cost, N, threads, pairs_range, &P) < 0) goto done;
    result = lcs;
    Py_INCREF(result);
done:
    for (Py_ssize_t t = 0; t < owned; t++) Py_DECREF(objs[t]);
    free(objs); free(texts); free(cost);
    Py_XDECREF(lcs);
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    return result;
}

/* ------------------------------------------------------------ all pairs */

PyDoc_STRVAR(lcs_matrix_doc,
"lcs_matrix(texts, Q, threads=1, simd=-1) -> (lcs, lengths)\n\n"
"texts: the Q queries followed by the C choices (token sequences, read as\n"
"lcs_batch reads them).  lcs: native int32 [Q, C], the LCS of every (query,\n"
"choice) pair; lengths: native int64 [Q + C].  simd: -1 the best this CPU runs,\n"
"0 the portable lanes (tests), 1 AVX2 (an error where the CPU lacks it).");

static PyObject *lcs_matrix(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"texts", "Q", "threads", "simd", NULL};
    PyObject *texts, *empties = NULL, *lcs = NULL, *lens = NULL, *result = NULL;
    Py_ssize_t Q;
    int threads = 1, simd = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "On|ii", kwlist, &texts, &Q, &threads, &simd)) return NULL;
    TokenBatch b;
    memset(&b, 0, sizeof(b));
    TokMap map;
    memset(&map, 0, sizeof(map));
    uint32_t *dense = NULL;
    int64_t *qidx = NULL, *item = NULL;
    double *cost = NULL;
    const Py_ssize_t N = PyObject_Length(texts);
    if (N < 0) return NULL;
    if (Q < 0 || Q > N) { PyErr_SetString(PyExc_ValueError, "lcs_matrix: Q out of range"); return NULL; }
    if (simd == 1 && !matrix_simd_available()) {
        PyErr_SetString(PyExc_RuntimeError, "lcs_matrix: this CPU has no AVX2");
        return NULL;
    }
    const Py_ssize_t C = N - Q;
    if (Q > 0 && C > PY_SSIZE_T_MAX / 4 / Q) { PyErr_NoMemory(); return NULL; }
    empties = repeat_steal(Py_BuildValue("(())"), N);  /* each text an instance of its own with no sources */
    if (!empties || batch_read(&b, texts, empties, LISTS_OF_SOURCES) < 0) goto done;
    const int64_t total = b.text_off[b.T];
    if (!(dense = (uint32_t *)malloc(((size_t)total + 1) * sizeof(uint32_t))) ||
        tokmap_reserve(&map, (size_t)total) < 0) { PyErr_NoMemory(); goto done; }
    tokmap_clear(&map);
    uint32_t V = 0;
    for (int64_t p = 0; p < total; p++) dense[p] = tokmap_add(&map, b.toks[p], &V);
    lcs = PyByteArray_FromStringAndSize(NULL, Q * C * (Py_ssize_t)sizeof(int32_t));
    int64_t *lp;
    if (!lcs || !(lens = int64_array(N, &lp))) goto done;
    for (Py_ssize_t t = 0; t < N; t++) lp[t] = b.text_off[t + 1] - b.text_off[t];
    if (!(qidx = (int64_t *)malloc(((size_t)Q + 1) * sizeof(int64_t))) ||
        !(item = (int64_t *)malloc(((size_t)Q + 2) * sizeof(int64_t))) ||
        !(cost = (double *)malloc(((size_t)Q + 1) * sizeof(double)))) { PyErr_NoMemory(); goto done; }
    const int64_t K = matrix_items(b.text_off, Q, qidx, item);
    MatrixJob J = {dense, b.text_off, b.text_off + Q, (int64_t)C, V, qidx, item,
                   simd < 0 ? matrix_simd_available() : simd, (int32_t *)PyByteArray_AS_STRING(lcs)};
    for (int64_t k = 0; k < K; k++) cost[k] = matrix_cost(&J, (size_t)k);
    if (C > 0 && run_kernel(cost, (Py_ssize_t)K, threads, matrix_range, &J) < 0) goto done;
    result = PyTuple_Pack(2, lcs, lens);
done:
    Py_XDECREF(empties); Py_XDECREF(lcs); Py_XDECREF(lens);
    free(dense); free(qidx); free(item); free(cost);
    tokmap_free(&map);
    batch_free(&b);
    return result;
}

PyDoc_STRVAR(score_matrix_doc,
"score_matrix(lcs, lengths, Q, alpha, with_pr=False, threads=1, f64=False) -> (f,) or (f, p, r)\n\n"
"lcs, lengths: as lcs_matrix returns them.  F (P, R) of every cell as native float32\n"
"[Q, C] bytearrays, each the float64 value paddle_rougel.scoring computes, rounded once\n"
"(alpha < 0: tensor2tensor's F).  f64: (f,) as native float64, not rounded.");

static PyObject *score_matrix(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"lcs", "lengths", "Q", "alpha", "with_pr", "threads", "f64", NULL};
    Py_buffer lb = {0}, nb = {0};
    Py_ssize_t Q;
    double alpha;
    int with_pr = 0, threads = 1, f64 = 0;
    PyObject *fo = NULL, *po = NULL, *ro = NULL, *result = NULL;
    double *cost = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "y*y*nd|pip", kwlist, &lb, &nb, &Q, &alpha, &with_pr, &threads, &f64))
        return NULL;
    const Py_ssize_t N = nb.len / (Py_ssize_t)sizeof(int64_t), C = N - Q;
    if (Q < 0 || C < 0 || nb.len % (Py_ssize_t)sizeof(int64_t) || (Q > 0 && C > PY_SSIZE_T_MAX / 4 / Q) ||
        lb.len != Q * C * (Py_ssize_t)sizeof(int32_t)) {
        PyErr_SetString(PyExc_ValueError, "score_matrix: buffer sizes do not match Q");
        goto done;
    }
    if (f64) with_pr = 0;
    if (f64 && Q > 0 && C > PY_SSIZE_T_MAX / 8 / Q) { PyErr_NoMemory(); goto done; }
    const Py_ssize_t bytes = Q * C * (Py_ssize_t)(f64 ? sizeof(double) : sizeof(float));
    if (!(fo = PyByteArray_FromStringAndSize(NULL, bytes))) goto done;
    if (with_pr && (!(po = PyByteArray_FromStringAndSize(NULL, bytes)) ||
                    !(ro = PyByteArray_FromStringAndSize(NULL, bytes)))) goto done;
    if (!(cost = new_costs(Q))) goto done;
    for (Py_ssize_t q = 0; q < Q; q++) cost[q] = (double)C;
    const int64_t *lens = (const int64_t *)nb.buf;
    ScoreJob S = {(const int32_t *)lb.buf, lens, lens + Q, (int64_t)C, alpha,
                  f64 ? NULL : (float *)PyByteArray_AS_STRING(fo),
                  po ? (float *)PyByteArray_AS_STRING(po) : NULL, ro ? (float *)PyByteArray_AS_STRING(ro) : NULL,
                  f64 ? (double *)PyByteArray_AS_STRING(fo) : NULL};
    if (run_kernel(cost, Q, threads, score_rows, &S) < 0) goto done;
    result = with_pr ? PyTuple_Pack(3, fo, po, ro) : PyTuple_Pack(1, fo);
done:
    Py_XDECREF(fo); Py_XDECREF(po); Py_XDECREF(ro);
    free(cost);
    PyBuffer_Release(&lb);
    PyBuffer_Release(&nb);
    return result;
}

/* ------------------------------------------------------------ similarity join */

PyDoc_STRVAR(join_candidates_doc,
"join_candidates(elems, ptr, plen, llen, indptr, recs, rpos, rlen, lo, hi, t, alpha, order,\n"
"                max_pairs) -> (xs, ys, next)\n\n"
"int64 buffers as paddle_rougel.candidates builds them (join_kernel.h).  The candidate\n"
"pairs of the left texts lo.. (until max_pairs or hi), as native int64 bytearrays, each\n"
"left text's right ids ascending; next: the left text to probe next.  The buffers are\n"
"checked (offsets monotone, ids in range) before the index is read.");

static int join_bufs_ok(Py_buffer *b, Py_ssize_t lo, Py_ssize_t hi) {
    for (int i = 0; i < 8; i++)
        if (b[i].len % (Py_ssize_t)sizeof(int64_t)) return 0;
    const int64_t *elems = b[0].buf, *ptr = b[1].buf, *plen = b[2].buf, *indptr = b[4].buf,
                  *recs = b[5].buf, *rpos = b[6].buf, *rlen = b[7].buf;
    const Py_ssize_t ne = b[0].len / 8, nl = b[1].len / 8 - 1, E = b[4].len / 8 - 1,
                     nk = b[5].len / 8, nr = b[7].len / 8;
    if (nl < 0 || E < 0 || b[2].len / 8 != nl || b[3].len / 8 != nl || b[6].len / 8 != nk) return 0;
    if (lo < 0 || hi < lo || hi > nl || ptr[0] != 0 || ptr[nl] > ne || indptr[0] != 0 || indptr[E] != nk)
        return 0;
    for (Py_ssize_t x = 0; x < nl; x++)
        if (ptr[x + 1] < ptr[x] || plen[x] < 0 || plen[x] > ptr[x + 1] - ptr[x]) return 0;
    for (Py_ssize_t e = 0; e < E; e++)
        if (indptr[e + 1] < indptr[e]) return 0;
    for (Py_ssize_t k = 0; k < ne; k++)
        if (elems[k] < 0 || elems[k] >= E) return 0;
    for (Py_ssize_t k = 0; k < nk; k++)
        if (recs[k] < 0 || recs[k] >= nr || rpos[k] < 0 || rpos[k] >= rlen[recs[k]]) return 0;
    return 1;
}

static PyObject *join_candidates_py(PyObject *self, PyObject *args) {
    Py_buffer b[8];
    memset(b, 0, sizeof(b));
    Py_ssize_t lo, hi, max_pairs;
    double t, alpha;
    int order;
    PyObject *xo = NULL, *yo = NULL, *result = NULL;
    int64_t *xs = NULL, *ys = NULL, n = 0, cap = 0, next;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*nnddin", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6],
                          &b[7], &lo, &hi, &t, &alpha, &order, &max_pairs))
        goto done;
    if (!join_bufs_ok(b, lo, hi) || !(t >= 0) || !isfinite(t) || !isfinite(alpha) || alpha > 1) {
        PyErr_SetString(PyExc_ValueError, "join_candidates: inconsistent index buffers or settings");
        goto done;
    }
    JoinIndex J = {b[0].buf, b[1].buf, b[2].buf, b[3].buf, b[4].buf, b[5].buf, b[6].buf, b[7].buf,
                   (int64_t)(b[7].len / 8), t, alpha, order};
    Py_BEGIN_ALLOW_THREADS
    next = join_candidates(&J, lo, hi, max_pairs, &xs, &ys, &n, &cap);
    Py_END_ALLOW_THREADS
    if (next < 0) { PyErr_NoMemory(); goto done; }
    if (!(xo = PyByteArray_FromStringAndSize((const char *)xs, (Py_ssize_t)(n * 8))) ||
        !(yo = PyByteArray_FromStringAndSize((const char *)ys, (Py_ssize_t)(n * 8)))) goto done;
    result = Py_BuildValue("(OOL)", xo, yo, (long long)next);
done:
    for (int i = 0; i < 8; i++)
        if (b[i].obj) PyBuffer_Release(&b[i]);
    free(xs); free(ys);
    Py_XDECREF(xo); Py_XDECREF(yo);
    return result;
}

/* str_tuple(items): items as a tuple (the same tuple when given one) when every item is an
 * exact str, else None: the type check of a batch of texts at C speed (the Python fallback,
 * inputs.str_tuple, does the same with set(map(type, ...))). */
static PyObject *str_tuple(PyObject *self, PyObject *items) {
    PyObject *t = PySequence_Tuple(items);
    if (!t) return NULL;
    const Py_ssize_t n = PyTuple_GET_SIZE(t);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(t, i))) { Py_DECREF(t); Py_RETURN_NONE; }
    return t;
}

static PyObject *simd_level(PyObject *self, PyObject *noargs) {
    return PyLong_FromLong(matrix_simd_available());
}

static PyObject *py_words_simd_level(PyObject *self, PyObject *noargs) {
    return PyLong_FromLong(words_simd_available());
}

static PyObject *py_word_fingerprints(PyObject *self, PyObject *args) {
    PyObject *text;
    int mode = WORDS_ALNUM;
    if (!PyArg_ParseTuple(args, "U|i", &text, &mode)) return NULL;
    if (!PyUnicode_IS_ASCII(text) || (mode != WORDS_SPLIT && mode != WORDS_ALNUM)) {
        PyErr_SetString(PyExc_ValueError, "word_fingerprints: an ASCII str and mode 0 or 1");
        return NULL;
    }
    WordText t;
    text_of(text, &t);
    const int64_t cap = t.len / 2 + 2;
    uint16_t *out = (uint16_t *)malloc((size_t)cap * sizeof(uint16_t));
    if (!out) return PyErr_NoMemory();
    WordsBatch W = {&t, NULL, mode, 1, py_is_space, NULL, NULL, NULL, NULL, NULL, {NULL, NULL, NULL}, 0, NULL};
    const int64_t n = words_fingerprints(&W, &t, out, cap);
    PyObject *res = NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_RuntimeError, "word_fingerprints: no AVX-512 word reader on this CPU");
    } else if ((res = PyList_New((Py_ssize_t)n))) {
        for (int64_t i = 0; i < n; i++) PyList_SET_ITEM(res, (Py_ssize_t)i, PyLong_FromLong(out[i]));
    }
    free(out);
    return res;
}

static PyObject *py_pairs_simd_level(PyObject *self, PyObject *noargs) {
    return PyLong_FromLong(pairs_simd_level());
}

static PyMethodDef methods[] = {
    {"lcs_pairs", (PyCFunction)(void (*)(void))lcs_pairs, METH_VARARGS | METH_KEYWORDS, lcs_pairs_doc},
    {"score_matrix", (PyCFunction)(void (*)(void))score_matrix, METH_VARARGS | METH_KEYWORDS, score_matrix_doc},
    {"str_tuple", str_tuple, METH_O,
     "str_tuple(items) -> tuple or None: items as a tuple when every one is an exact str, else None."},
    {"simd_level", simd_level, METH_NOARGS, "simd_level() -> int: 1 when this CPU runs the AVX2 lanes, else 0."},
    {"words_simd_level", py_words_simd_level, METH_NOARGS,
     "words_simd_level() -> int: 1 when lcs_words and lsum_text read 1-byte texts by AVX-512, else 0."},
    {"word_fingerprints", py_word_fingerprints, METH_VARARGS,
     "word_fingerprints(text, mode=1) -> list: the 16-bit fingerprints lcs_words' mask reader gives\n"
     "the words of an ASCII text (folded) where words_simd_level() is 1 (tests: words sharing one)."},
    {"pairs_simd_level", py_pairs_simd_level, METH_NOARGS,
     "pairs_simd_level() -> int: the lanes lcs_pairs runs here: 2 AVX-512, 1 AVX2, 0 portable."},
    {"lcs_matrix", (PyCFunction)(void (*)(void))lcs_matrix, METH_VARARGS | METH_KEYWORDS, lcs_matrix_doc},
    {"join_candidates", join_candidates_py, METH_VARARGS, join_candidates_doc},
    {"lcs_index_pairs", lcs_index_pairs, METH_VARARGS, lcs_index_pairs_doc},
    {"lcs_words", (PyCFunction)(void (*)(void))lcs_words, METH_VARARGS | METH_KEYWORDS, lcs_words_doc},
    {"rouge_n", (PyCFunction)(void (*)(void))rouge_n, METH_VARARGS | METH_KEYWORDS, rouge_n_doc},
    {"lcs_batch", (PyCFunction)(void (*)(void))lcs_batch, METH_VARARGS | METH_KEYWORDS, lcs_batch_doc},
    {"ngram_matches", (PyCFunction)(void (*)(void))ngram_matches, METH_VARARGS | METH_KEYWORDS,
     ngram_matches_doc},
    {"resample_sums", (PyCFunction)(void (*)(void))resample_sums, METH_VARARGS | METH_KEYWORDS,
     resample_sums_doc},
    {"lsum_batch", (PyCFunction)(void (*)(void))lsum_batch, METH_VARARGS | METH_KEYWORDS, lsum_batch_doc},
    {"lsum_text", (PyCFunction)(void (*)(void))lsum_text, METH_VARARGS | METH_KEYWORDS, lsum_text_doc},
    {"lsum_text_snapshot", (PyCFunction)(void (*)(void))lsum_text_snapshot, METH_VARARGS | METH_KEYWORDS,
     lsum_text_snapshot_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, "_lcs", "Exact LCS (bit-parallel) and BLEU n-gram matching kernels (C).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__lcs(void) {
    PyObject *m = PyModule_Create(&moddef);
    if (m && PyModule_AddIntConstant(m, "LSUM_SCRATCH", (long)LSUM_DEFAULT_SCRATCH) < 0) Py_CLEAR(m);
    /* the most threads run_partitioned uses (engine.default_threads caps PADDLE_ROUGEL_THREADS to it) */
    if (m && PyModule_AddIntConstant(m, "MAX_THREADS", PARTITION_MAX_THREADS) < 0) Py_CLEAR(m);
    /* the AVX-512 text readers are compiled in (x86-64 with gcc/clang and SSE2; not the portable build) */
#ifdef WORDS_X86
    if (m && PyModule_AddIntConstant(m, "WORDS_SIMD_BUILT", 1) < 0) Py_CLEAR(m);
#else
    if (m && PyModule_AddIntConstant(m, "WORDS_SIMD_BUILT", 0) < 0) Py_CLEAR(m);
#endif
    return m;
}
