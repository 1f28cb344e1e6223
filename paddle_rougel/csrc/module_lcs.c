/* paddle_rougel._lcs, the LCS bindings: lcs_batch (token sequences), lcs_pairs ((str, str)
 * pairs), lcs_matrix and score_matrix (all pairs), str_tuple and the SIMD-level queries.
 * The common part: module.c. */
#include "module_common.h"

#include <stdlib.h>
#include <string.h>

#include "lcs_kernel.h"
#include "matrix_kernel.h"
#include "pairs_kernel.h"
#include "pairs_simd.h"
#include "partition.h"
#include "tokmap.h"


/* lcs_pairs keeps the GIL for a batch of at most this pairs_cost (about 4 ms of work on
 * one AVX-512 core, 15 on the portable lanes; CPython's switch interval is 5 ms). */
#define PAIRS_GIL_COST 1e7

MOD_DOC(py_lcs_batch_doc,
"lcs_batch(cands, ref_lists, threads=1, simd=-1) -> (lcs, cand_len, ref_len, ref_count)\n\n"
"cands: N token sequences; ref_lists: N non-empty lists of token sequences.\n"
"Returns four bytearrays of native int64: LCS of every (candidate, reference)\n"
"pair in order [M], candidate lengths [N], reference lengths [M] and\n"
"references per instance [N].  Tokens: see paddle_rougel.engine.  simd: the lanes\n"
"of short pairs, as lcs_pairs (0: none).");

PyObject *py_lcs_batch(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "ref_lists", "threads", "simd", NULL};
    PyObject *cands, *refs, *lcs = NULL, *lens = NULL, *result = NULL;
    int threads = 1, simd = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|ii", kwlist, &cands, &refs, &threads, &simd)) return NULL;
    if (!mod_simd_ok("lcs_batch", simd)) return NULL;
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
    if (!(lcs = mod_int64_array(b.T - b.N, &L.lcs))) goto done;
    if (!(cost = mod_new_costs(b.N))) goto done;
    for (Py_ssize_t i = 0; i < b.N; i++) cost[i] = lcs_cost(&L, (size_t)i);
    if (mod_run_kernel(cost, b.N, threads, lcs_range, &L) < 0) goto done;
    if (!(lens = mod_lengths(&b))) goto done;
    result = Py_BuildValue("(OOOO)", lcs, PyTuple_GET_ITEM(lens, 0), PyTuple_GET_ITEM(lens, 1),
                           PyTuple_GET_ITEM(lens, 2));
done:
    Py_XDECREF(lcs);
    Py_XDECREF(lens);
    free(cost);
    batch_free(&b);
    return result;
}

MOD_DOC(py_lcs_pairs_doc,
"lcs_pairs(cands, refs, threads=1, simd=-1) -> (lcs, cand_len, ref_len) or None\n\n"
"The LCS of cands[i] and refs[i], every character a token: native int64\n"
"bytearrays [N].  None (nothing computed) unless both are lists or tuples of\n"
"exact str of the same length.  simd: the lanes of short pairs: -1 the best this\n"
"CPU runs, 0 portable, 1 AVX2, 2 AVX-512 (tests; an error where the CPU lacks it).");

PyObject *py_lcs_pairs(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "refs", "threads", "simd", NULL};
    PyObject *cands, *refs, *lcs = NULL, *cl_o = NULL, *rl_o = NULL, *result = NULL;
    int threads = 1, simd = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|ii", kwlist, &cands, &refs, &threads, &simd)) return NULL;
    if (!mod_simd_ok("lcs_pairs", simd)) return NULL;
    if (!mod_same_length_lists(cands, refs)) Py_RETURN_NONE;
    const Py_ssize_t N = PySequence_Fast_GET_SIZE(cands);
    PyObject **ci = PySequence_Fast_ITEMS(cands), **ri = PySequence_Fast_ITEMS(refs);
    WordText *texts = (WordText *)malloc(((size_t)2 * N + 1) * sizeof(WordText));
    double *cost = (double *)malloc(((size_t)N + 1) * sizeof(double));
    PyObject **objs = NULL;  /* the references taken by a batch that releases the GIL */
    Py_ssize_t owned = 0;
    if (!texts || !cost) { PyErr_NoMemory(); goto done; }
    int64_t *out, *cl, *rl;
    if (!(lcs = mod_int64_array(N, &out)) || !(cl_o = mod_int64_array(N, &cl)) || !(rl_o = mod_int64_array(N, &rl))) goto done;
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
            mod_text_of(o, &texts[2 * i + side]);
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
        if (mod_run_kernel(cost, N, threads, pairs_range, &P) < 0) goto done;
    }
    result = PyTuple_Pack(3, lcs, cl_o, rl_o);
done:
    for (Py_ssize_t t = 0; t < owned; t++) Py_DECREF(objs[t]);
    free(objs); free(texts); free(cost);
    Py_XDECREF(lcs); Py_XDECREF(cl_o); Py_XDECREF(rl_o);
    return result;
}

/* ------------------------------------------------------------ all pairs */

MOD_DOC(py_lcs_matrix_doc,
"lcs_matrix(texts, Q, threads=1, simd=-1) -> (lcs, lengths)\n\n"
"texts: the Q queries followed by the C choices (token sequences, read as\n"
"lcs_batch reads them).  lcs: native int32 [Q, C], the LCS of every (query,\n"
"choice) pair; lengths: native int64 [Q + C].  simd: -1 the best this CPU runs,\n"
"0 the portable lanes (tests), 1 AVX2 (an error where the CPU lacks it).");

PyObject *py_lcs_matrix(PyObject *self, PyObject *args, PyObject *kw) {
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
    empties = mod_repeat_steal(Py_BuildValue("(())"), N);  /* each text an instance of its own with no sources */
    if (!empties || batch_read(&b, texts, empties, LISTS_OF_SOURCES) < 0) goto done;
    const int64_t total = b.text_off[b.T];
    if (!(dense = (uint32_t *)malloc(((size_t)total + 1) * sizeof(uint32_t))) ||
        tokmap_reserve(&map, (size_t)total) < 0) { PyErr_NoMemory(); goto done; }
    tokmap_clear(&map);
    uint32_t V = 0;
    for (int64_t p = 0; p < total; p++) dense[p] = tokmap_add(&map, b.toks[p], &V);
    lcs = PyByteArray_FromStringAndSize(NULL, Q * C * (Py_ssize_t)sizeof(int32_t));
    int64_t *lp;
    if (!lcs || !(lens = mod_int64_array(N, &lp))) goto done;
    for (Py_ssize_t t = 0; t < N; t++) lp[t] = b.text_off[t + 1] - b.text_off[t];
    if (!(qidx = (int64_t *)malloc(((size_t)Q + 1) * sizeof(int64_t))) ||
        !(item = (int64_t *)malloc(((size_t)Q + 2) * sizeof(int64_t))) ||
        !(cost = (double *)malloc(((size_t)Q + 1) * sizeof(double)))) { PyErr_NoMemory(); goto done; }
    const int64_t K = matrix_items(b.text_off, Q, qidx, item);
    MatrixJob J = {dense, b.text_off, b.text_off + Q, (int64_t)C, V, qidx, item,
                   simd < 0 ? matrix_simd_available() : simd, (int32_t *)PyByteArray_AS_STRING(lcs)};
    for (int64_t k = 0; k < K; k++) cost[k] = matrix_cost(&J, (size_t)k);
    if (C > 0 && mod_run_kernel(cost, (Py_ssize_t)K, threads, matrix_range, &J) < 0) goto done;
    result = PyTuple_Pack(2, lcs, lens);
done:
    Py_XDECREF(empties); Py_XDECREF(lcs); Py_XDECREF(lens);
    free(dense); free(qidx); free(item); free(cost);
    tokmap_free(&map);
    batch_free(&b);
    return result;
}

MOD_DOC(py_score_matrix_doc,
"score_matrix(lcs, lengths, Q, alpha, with_pr=False, threads=1, f64=False) -> (f,) or (f, p, r)\n\n"
"lcs, lengths: as lcs_matrix returns them.  F (P, R) of every cell as native float32\n"
"[Q, C] bytearrays, each the float64 value paddle_rougel.scoring computes, rounded once\n"
"(alpha < 0: tensor2tensor's F).  f64: (f,) as native float64, not rounded.");

PyObject *py_score_matrix(PyObject *self, PyObject *args, PyObject *kw) {
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
    if (!(cost = mod_new_costs(Q))) goto done;
    for (Py_ssize_t q = 0; q < Q; q++) cost[q] = (double)C;
    const int64_t *lens = (const int64_t *)nb.buf;
    ScoreJob S = {(const int32_t *)lb.buf, lens, lens + Q, (int64_t)C, alpha,
                  f64 ? NULL : (float *)PyByteArray_AS_STRING(fo),
                  po ? (float *)PyByteArray_AS_STRING(po) : NULL, ro ? (float *)PyByteArray_AS_STRING(ro) : NULL,
                  f64 ? (double *)PyByteArray_AS_STRING(fo) : NULL};
    if (mod_run_kernel(cost, Q, threads, score_rows, &S) < 0) goto done;
    result = with_pr ? PyTuple_Pack(3, fo, po, ro) : PyTuple_Pack(1, fo);
done:
    Py_XDECREF(fo); Py_XDECREF(po); Py_XDECREF(ro);
    free(cost);
    PyBuffer_Release(&lb);
    PyBuffer_Release(&nb);
    return result;
}

/* str_tuple(items): items as a tuple (the same tuple when given one) when every item is an
 * exact str, else None: the type check of a batch of texts at C speed (the Python fallback,
 * inputs.str_tuple, does the same with set(map(type, ...))). */
PyObject *py_str_tuple(PyObject *self, PyObject *items) {
    PyObject *t = PySequence_Tuple(items);
    if (!t) return NULL;
    const Py_ssize_t n = PyTuple_GET_SIZE(t);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(t, i))) { Py_DECREF(t); Py_RETURN_NONE; }
    return t;
}

PyObject *py_simd_level(PyObject *self, PyObject *noargs) {
    return PyLong_FromLong(matrix_simd_available());
}

PyObject *py_pairs_simd_level(PyObject *self, PyObject *noargs) {
    return PyLong_FromLong(pairs_simd_level());
}
