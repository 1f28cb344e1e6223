/* paddle_rougel._lcs, the statistics and n-gram bindings: resample_sums (bootstrap and
 * randomization sums), ngram_matches (BLEU's clipped matches) and rouge_n.  The common part:
 * module.c. */
#include "module_common.h"

#include <stdlib.h>
#include <string.h>

#include "ngram_kernel.h"
#include "rougen_kernel.h"
#include "stats_kernel.h"

MOD_DOC(py_ngram_matches_doc,
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

PyObject *py_ngram_matches(PyObject *self, PyObject *args, PyObject *kw) {
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
    if (!(out = mod_int64_array((G.npre ? 2 : 1) * b.N * (Py_ssize_t)n, &G.out))) goto fail;
    if (!(cost = mod_new_costs(b.N))) goto fail;
    for (Py_ssize_t i = 0; i < b.N; i++)  /* every token is looked up once per order */
        cost[i] = (double)(b.text_off[b.inst_start[i + 1]] - b.text_off[b.inst_start[i]]) * n;
    if (mod_run_kernel(cost, b.N, threads, ngram_range, &G) < 0) goto fail;
    goto done;
fail:
    Py_CLEAR(out);
done:
    free(cost);
    free((void *)G.npre);
    batch_free(&b);
    return out;
}

MOD_DOC(py_resample_sums_doc,
"resample_sums(columns, n, k, resamples, seed, mode, threads=1) -> bytearray\n\n"
"columns: a C-contiguous buffer of n * k float64, column-major [k, n] (n < 2**32).\n"
"mode 0 (bootstrap): out[r, c] = sum over i of count_r[i] * columns[c, i];\n"
"mode 1 (randomization, k even): the first k/2 columns of system A, then B's,\n"
"instance i's rows exchanged in trial r when its swap bit is 1.  For the tests:\n"
"mode 2 is mode 0 counting in 32 bits throughout; + 4 skips the SIMD draw loop\n"
"(same numbers either way).  Returns native float64\n"
"[resamples, k]; the generator and the summation order are documented in\n"
"paddle_rougel/stats.py (the numpy fallback is bit-identical).");

PyObject *py_resample_sums(PyObject *self, PyObject *args, PyObject *kw) {
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
    if (!(cost = mod_new_costs(R))) { Py_CLEAR(out); goto done; }
    for (Py_ssize_t r = 0; r < R; r++) cost[r] = (double)n * (double)k;
    if (mod_run_kernel(cost, R, threads, stats_range, &J) < 0) Py_CLEAR(out);
done:
    free(cost);
    PyBuffer_Release(&view);
    return out;
}

MOD_DOC(py_rouge_n_doc,
"rouge_n(cands, ref_lists, orders, distinct=False, threads=1) -> (hits, cand_grams, ref_grams, ref_count)\n\n"
"ROUGE-N n-gram overlap of every (candidate, reference) pair, for each order in\n"
"orders (distinct ints >= 1; column k is orders[k]).  Texts and errors as lcs_batch.\n"
"Returns bytearrays of native int64: hits [M, K] (clipped: sum of min(count_cand,\n"
"count_ref) over the n-grams; distinct: common distinct n-grams), cand_grams [N, K],\n"
"ref_grams [M, K] (clipped: len - n + 1 or 0; distinct: the distinct n-grams) and\n"
"ref_count [N].");

PyObject *py_rouge_n(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "ref_lists", "orders", "distinct", "threads", NULL};
    PyObject *cands, *refs, *orders_in, *h_o = NULL, *cg_o = NULL, *rg_o = NULL, *lens = NULL, *result = NULL;
    int distinct = 0, threads = 1, K = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|pi", kwlist, &cands, &refs, &orders_in, &distinct, &threads))
        return NULL;
    int64_t *orders = mod_read_orders(orders_in, &K);
    if (!orders) return NULL;
    TokenBatch b;
    memset(&b, 0, sizeof(b));
    double *cost = NULL;
    RougeNBatch R;
    memset(&R, 0, sizeof(R));
    if (batch_read(&b, cands, refs, LISTS_OF_REFERENCES) < 0) goto done;
    R.toks = b.toks; R.text_off = b.text_off; R.inst_start = b.inst_start;
    R.spec.orders = orders; R.spec.K = K; R.spec.distinct = distinct;
    if (!(h_o = mod_int64_array((b.T - b.N) * K, &R.out.hits)) || !(cg_o = mod_int64_array(b.N * K, &R.out.cand_grams)) ||
        !(rg_o = mod_int64_array((b.T - b.N) * K, &R.out.ref_grams)))
        goto done;
    if (!(cost = mod_new_costs(b.N))) goto done;
    for (Py_ssize_t i = 0; i < b.N; i++) cost[i] = rougen_cost(&R, (size_t)i);
    if (mod_run_kernel(cost, b.N, threads, rougen_range, &R) < 0) goto done;
    if (!(lens = mod_lengths(&b))) goto done;
    result = PyTuple_Pack(4, h_o, cg_o, rg_o, PyTuple_GET_ITEM(lens, 2));
done:
    Py_XDECREF(h_o); Py_XDECREF(cg_o); Py_XDECREF(rg_o); Py_XDECREF(lens);
    free(cost);
    free(orders);
    batch_free(&b);
    return result;
}
