/* paddle_rougel._lcs, the words binding: lcs_words (sentence-level words read from str in C,
 * ROUGE-L and ROUGE-N counts) and the word reader's hooks (words_simd_level,
 * word_fingerprints).  The common part: module.c. */
#include "module_common.h"

#include <stdlib.h>
#include <string.h>

#include "partition.h"
#include "rougen_kernel.h"
#include "words_kernel.h"
#include "words_simd.h"

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
            mod_text_of(o, x);
        }
        R->cost[i] = words_texts_cost(R->texts, 2 * (int64_t)i, 2 * (int64_t)i + 2);
    }
    if (deferred) __atomic_store_n(&R->deferred, 1, __ATOMIC_RELAXED);
    return 0;
}

MOD_DOC(py_lcs_words_doc,
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

PyObject *py_lcs_words(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "ref_lists", "mode", "fold", "threads", "one_ref", "orders", "distinct", "lcs",
                             "simd", NULL};
    PyObject *cands, *lists, *result = NULL, *lcs = NULL, *cl_o = NULL, *rl_o = NULL, *rc_o = NULL;
    PyObject *orders_in = Py_None, *h_o = NULL, *cg_o = NULL, *rg_o = NULL;
    int mode, fold = 0, threads = 1, one_ref = 0, distinct = 0, with_lcs = 1, simd = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOi|pipOppi", kwlist, &cands, &lists, &mode, &fold, &threads,
                                     &one_ref, &orders_in, &distinct, &with_lcs, &simd))
        return NULL;
    if (!mod_simd_ok("lcs_words", simd)) return NULL;
    if (mode != WORDS_SPLIT && mode != WORDS_ALNUM) {
        PyErr_SetString(PyExc_ValueError, "lcs_words: mode must be 0 (split) or 1 (rouge_score)");
        return NULL;
    }
    if (mode == WORDS_ALNUM) fold = 1;
    if (!mod_same_length_lists(cands, lists)) Py_RETURN_NONE;
    RougeNSpec spec = {NULL, 0, distinct};
    if (orders_in != Py_None && !(spec.orders = mod_read_orders(orders_in, &spec.K))) return NULL;
    const Py_ssize_t N = PySequence_Fast_GET_SIZE(cands);
    PyObject **ci = PySequence_Fast_ITEMS(cands), **li = PySequence_Fast_ITEMS(lists);
    /* Two tuples of one str reference each (the batches compute() and the metrics make):
     * their items are read on every thread (pair_read_range); else one pass here. */
    const int pairs = one_ref && PyTuple_CheckExact(cands) && PyTuple_CheckExact(lists);
    Py_ssize_t T = pairs ? N : mod_str_refs_total(ci, li, N, one_ref);  /* types first: no Python code runs until the copy */
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
    char *at = (char *)mod_scratch_take(&tmp, 8 * ((nt * sizeof(WordText) + 7) / 8 + nt + 2 * ni), 0);
    PyObject **objs = NULL;
    WordText *texts = NULL;
    int64_t *inst = NULL;
    double *cost = NULL;
    if (!at) goto done;
    objs = (PyObject **)mod_carve(&at, nt, sizeof(PyObject *));
    texts = (WordText *)mod_carve(&at, nt, sizeof(WordText));
    inst = (int64_t *)mod_carve(&at, ni, sizeof(int64_t));
    cost = (double *)mod_carve(&at, ni, sizeof(double));
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
            PyObject **items = mod_refs_of(li, i, one_ref);
            const Py_ssize_t k = mod_nrefs_of(li, i, one_ref);
            for (Py_ssize_t j = -1; j < k; j++, t++) {
                PyObject *o = j < 0 ? ci[i] : items[j];
                if (owned) Py_INCREF(o);
                objs[t] = o;
                texts[t].data = NULL;
#if PY_VERSION_HEX < 0x030C0000
                if (PyUnicode_READY(o) < 0) continue;  /* (the pass after reports it) */
#endif
                if (fold && !PyUnicode_IS_ASCII(o)) continue;
                mod_text_of(o, &texts[t]);
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
        mod_text_of(objs[t], &texts[t]);
    }
    /* the results, not initialised: each thread zeroes and fills its instances' entries
     * (words_range), so their pages are first touched in parallel */
    int64_t *out, *cl, *rl, *rc;
    if (!(lcs = mod_int64_array_raw(T - N, &out)) || !(cl_o = mod_int64_array_raw(N, &cl)) ||
        !(rl_o = mod_int64_array_raw(T - N, &rl)) || !(rc_o = mod_int64_array_raw(N, &rc)))
        goto done;
    WordsBatch W = {texts, inst, mode, fold, py_is_space, with_lcs ? out : NULL, cl, rl, rc, NULL, {NULL, NULL, NULL},
                    simd == 0, with_lcs ? NULL : out};
    if (spec.orders) {
        W.ngram = &spec;
        if (!(h_o = mod_int64_array_raw((T - N) * spec.K, &W.ngram_out.hits)) ||
            !(cg_o = mod_int64_array_raw(N * spec.K, &W.ngram_out.cand_grams)) ||
            !(rg_o = mod_int64_array_raw((T - N) * spec.K, &W.ngram_out.ref_grams)))
            goto done;
    }
    if (deferred)  /* (pair_read_range gave the costs of texts it read) */
        for (Py_ssize_t i = 0; i < N; i++) cost[i] = words_cost(&W, (size_t)i);
    if (mod_run_kernel(cost, N, threads, words_range, &W) < 0) goto done;
    result = spec.orders ? PyTuple_Pack(7, lcs, cl_o, rl_o, rc_o, h_o, cg_o, rg_o) : PyTuple_Pack(4, lcs, cl_o, rl_o, rc_o);
done:
    if (objs && owned)
        for (Py_ssize_t t = 0; t < T; t++) Py_XDECREF(objs[t]);
    mod_scratch_give(&tmp);
    free((void *)spec.orders);
    Py_XDECREF(lcs); Py_XDECREF(cl_o); Py_XDECREF(rl_o); Py_XDECREF(rc_o);
    Py_XDECREF(h_o); Py_XDECREF(cg_o); Py_XDECREF(rg_o);
    return result;
}

PyObject *py_words_simd_level(PyObject *self, PyObject *noargs) {
    return PyLong_FromLong(words_simd_available());
}

PyObject *py_word_fingerprints(PyObject *self, PyObject *args) {
    PyObject *text;
    int mode = WORDS_ALNUM;
    if (!PyArg_ParseTuple(args, "U|i", &text, &mode)) return NULL;
    if (!PyUnicode_IS_ASCII(text) || (mode != WORDS_SPLIT && mode != WORDS_ALNUM)) {
        PyErr_SetString(PyExc_ValueError, "word_fingerprints: an ASCII str and mode 0 or 1");
        return NULL;
    }
    WordText t;
    mod_text_of(text, &t);
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
