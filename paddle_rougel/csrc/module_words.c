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

/* One lcs_words call, from its read (words_read) through its run (words_run) to its pack. */
typedef struct {
    PyObject **ci, **li;        /* the candidates, the reference lists (or strs: one_ref) */
    Py_ssize_t N, T;            /* instances, texts */
    int mode, fold, threads, one_ref, with_lcs, simd;
    int owned;                  /* objs holds a reference to each str (released at the end) */
    int deferred;               /* texts the pass with Python code must finish (lowercase, legacy str) */
    RougeNSpec spec;
    Scratch tmp;                /* the temporaries, in one scratch block (every entry is written before it is read) */
    PyObject **objs;
    WordText *texts;
    int64_t *inst;
    double *cost;
    PyObject *out[7];           /* lcs, cand_len, ref_len, ref_count[, hits, cand_grams, ref_grams] */
} WordsCall;

/* one pass over the scattered str objects (each a cache miss: fetched ahead): the
 * objects, the candidate first (owned references unless the tuples hold them), and
 * their storage.  No Python code runs in it (a finalizer could change the lists):
 * texts to lowercase wait for the pass after. */
static void words_read_pass(WordsCall *c) {
    PyObject **ci = c->ci, **li = c->li;
    const int one_ref = c->one_ref, owned = c->owned, fold = c->fold;
    for (Py_ssize_t i = 0, t = 0; i < c->N; i++) {
        c->inst[i] = t;
        if (i + 16 < c->N) {
            __builtin_prefetch(ci[i + 16], 1);
            if (one_ref) __builtin_prefetch(li[i + 16], 1);
        }
        PyObject **items = mod_refs_of(li, i, one_ref);
        const Py_ssize_t k = mod_nrefs_of(li, i, one_ref);
        for (Py_ssize_t j = -1; j < k; j++, t++) {
            PyObject *o = j < 0 ? ci[i] : items[j];
            if (owned) Py_INCREF(o);
            c->objs[t] = o;
            c->texts[t].data = NULL;
#if PY_VERSION_HEX < 0x030C0000
            if (PyUnicode_READY(o) < 0) continue;  /* (the pass after reports it) */
#endif
            if (fold && !PyUnicode_IS_ASCII(o)) continue;
            mod_text_of(o, &c->texts[t]);
        }
    }
}

/* The pass with Python code: the texts the read left (str.lower(), a legacy str's storage).
 * 0, or -1 with an exception. */
static int words_read_deferred(WordsCall *c) {
    for (Py_ssize_t t = 0; t < c->T && c->deferred; t++) {
        if (c->texts[t].data) continue;
        if (!c->owned) {  /* str.lower() below replaces objects: own them all from here (rare) */
            for (Py_ssize_t u = 0; u < c->T; u++) Py_INCREF(c->objs[u]);
            c->owned = 1;
        }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(c->objs[t]) < 0) return -1;
#endif
        if (c->fold && !PyUnicode_IS_ASCII(c->objs[t])) {  /* str.lower(): exactly Python's lowercase */
            PyObject *low = PyObject_CallMethod(c->objs[t], "lower", NULL);
            if (!low) return -1;
            Py_SETREF(c->objs[t], low);
#if PY_VERSION_HEX < 0x030C0000
            if (PyUnicode_READY(c->objs[t]) < 0) return -1;
#endif
        }
        mod_text_of(c->objs[t], &c->texts[t]);
    }
    return 0;
}

/* Read: the temporaries, then every text's storage (pairs: two tuples of one str reference
 * each, read on every thread by pair_read_range; else one pass here), then the deferred
 * texts.  0, 1 when an item is not an exact str (the result is None), or -1 with an exception. */
static int words_read(WordsCall *c, int pairs) {
    const size_t nt = (size_t)c->T + 1, ni = (size_t)c->N + 1;
    char *at = (char *)mod_scratch_take(&c->tmp, 8 * ((nt * sizeof(WordText) + 7) / 8 + nt + 2 * ni), 0);
    if (!at) return -1;
    c->objs = (PyObject **)mod_carve(&at, nt, sizeof(PyObject *));
    c->texts = (WordText *)mod_carve(&at, nt, sizeof(WordText));
    c->inst = (int64_t *)mod_carve(&at, ni, sizeof(int64_t));
    c->cost = (double *)mod_carve(&at, ni, sizeof(double));
    c->deferred = 1;
    if (pairs) {
        PairRead R = {c->ci, c->li, c->fold, c->objs, c->texts, c->inst, c->cost, 0, 0};
        run_even((size_t)c->N, c->threads, PAIR_READ_MIN, pair_read_range, &R);  /* (cannot fail) */
        if (R.bad) return 1;
        c->deferred = R.deferred;
    } else {
        words_read_pass(c);
    }
    c->inst[c->N] = c->T;
    return words_read_deferred(c);
}

/* Run: the results, not initialised (each thread zeroes and fills its instances' entries
 * (words_range), so their pages are first touched in parallel), then the kernel.  0, or -1
 * with an exception. */
static int words_run(WordsCall *c) {
    const Py_ssize_t N = c->N, T = c->T;
    int64_t *out, *cl, *rl, *rc;
    if (!(c->out[0] = mod_int64_array_raw(T - N, &out)) || !(c->out[1] = mod_int64_array_raw(N, &cl)) ||
        !(c->out[2] = mod_int64_array_raw(T - N, &rl)) || !(c->out[3] = mod_int64_array_raw(N, &rc)))
        return -1;
    WordsBatch W = {c->texts, c->inst, c->mode, c->fold, py_is_space, c->with_lcs ? out : NULL, cl, rl, rc, NULL,
                    {NULL, NULL, NULL}, c->simd == 0, c->with_lcs ? NULL : out};
    if (c->spec.orders) {
        W.ngram = &c->spec;
        if (!(c->out[4] = mod_int64_array_raw((T - N) * c->spec.K, &W.ngram_out.hits)) ||
            !(c->out[5] = mod_int64_array_raw(N * c->spec.K, &W.ngram_out.cand_grams)) ||
            !(c->out[6] = mod_int64_array_raw((T - N) * c->spec.K, &W.ngram_out.ref_grams)))
            return -1;
    }
    if (c->deferred)  /* (pair_read_range gave the costs of texts it read) */
        for (Py_ssize_t i = 0; i < N; i++) c->cost[i] = words_cost(&W, (size_t)i);
    return mod_run_kernel(c->cost, N, c->threads, words_range, &W);
}

/* Pack: rc 0 (read and run went through) the result tuple, 1 None, -1 NULL (the exception
 * set); then the call's resources released. */
static PyObject *words_pack(WordsCall *c, int rc) {
    PyObject *result = NULL, **o = c->out;
    if (rc == 1) {
        result = Py_None;
        Py_INCREF(result);
    } else if (rc == 0) {
        result = c->spec.orders ? PyTuple_Pack(7, o[0], o[1], o[2], o[3], o[4], o[5], o[6])
                                : PyTuple_Pack(4, o[0], o[1], o[2], o[3]);
    }
    if (c->objs && c->owned)
        for (Py_ssize_t t = 0; t < c->T; t++) Py_XDECREF(c->objs[t]);
    mod_scratch_give(&c->tmp);
    free((void *)c->spec.orders);
    for (int k = 0; k < 7; k++) Py_XDECREF(o[k]);
    return result;
}

PyObject *py_lcs_words(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "ref_lists", "mode", "fold", "threads", "one_ref", "orders", "distinct", "lcs",
                             "simd", NULL};
    PyObject *cands, *lists, *orders_in = Py_None;
    WordsCall c;
    memset(&c, 0, sizeof(c));
    int distinct = 0;
    c.threads = 1;
    c.with_lcs = 1;
    c.simd = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOi|pipOppi", kwlist, &cands, &lists, &c.mode, &c.fold, &c.threads,
                                     &c.one_ref, &orders_in, &distinct, &c.with_lcs, &c.simd))
        return NULL;
    if (!mod_simd_ok("lcs_words", c.simd)) return NULL;
    if (c.mode != WORDS_SPLIT && c.mode != WORDS_ALNUM) {
        PyErr_SetString(PyExc_ValueError, "lcs_words: mode must be 0 (split) or 1 (rouge_score)");
        return NULL;
    }
    if (c.mode == WORDS_ALNUM) c.fold = 1;
    if (!mod_same_length_lists(cands, lists)) Py_RETURN_NONE;
    c.spec.distinct = distinct;
    if (orders_in != Py_None && !(c.spec.orders = mod_read_orders(orders_in, &c.spec.K))) return NULL;
    const Py_ssize_t N = c.N = PySequence_Fast_GET_SIZE(cands);
    c.ci = PySequence_Fast_ITEMS(cands);
    c.li = PySequence_Fast_ITEMS(lists);
    /* Two tuples of one str reference each (the batches compute() and the metrics make):
     * their items are read on every thread (pair_read_range); else one pass here. */
    const int pairs = c.one_ref && PyTuple_CheckExact(cands) && PyTuple_CheckExact(lists);
    /* types first: no Python code runs until the copy */
    const Py_ssize_t T = pairs ? N : mod_str_refs_total(c.ci, c.li, N, c.one_ref);
    if (T < 0) {
        free((void *)c.spec.orders);
        Py_RETURN_NONE;
    }
    c.T = T + N;
    /* The strs need a reference each (owned) unless every container is a tuple: then the
     * call's arguments keep them alive, whatever Python code runs or other threads do while
     * the kernel reads them (no Py_INCREF / Py_DECREF of every scattered object). */
    c.owned = !(PyTuple_CheckExact(cands) && PyTuple_CheckExact(lists));
    for (Py_ssize_t i = 0; i < N && !c.owned && !c.one_ref; i++) c.owned = !PyTuple_CheckExact(c.li[i]);
    int rc = words_read(&c, pairs);
    if (rc == 0) rc = words_run(&c);
    return words_pack(&c, rc);
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
