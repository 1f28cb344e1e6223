/*
 * paddle_rougel._lcs: the module's common part (array and argument helpers shared by the
 * bindings, the method table and PyInit).  The bindings, by what they bind:
 *
 *   module_lcs.c    lcs_batch, lcs_pairs, lcs_matrix, score_matrix, str_tuple, simd levels
 *   module_words.c  lcs_words (words read from str in C) and the word reader's test hooks
 *   module_lsum.c   ROUGE-Lsum: lsum_batch, lsum_text, lsum_text_snapshot
 *   module_stats.c  resample_sums, ngram_matches (BLEU), rouge_n
 *   module_join.c   lcs_index_pairs, join_candidates (the similarity join)
 *   module_common.h what they share (helpers prefixed mod_, entry points py_)
 *
 * The code they call:
 *
 *   tokens.c        Python batches -> token-id arrays (tokens_snapshot.c: pass 1, snapshot)
 *   lcs_step.h      the bit-parallel LCS step every kernel below runs (scalar, carry, go-left, lanes)
 *   lcs_kernel.c    exact bit-parallel LCS (pure C)
 *   ngram_kernel.c  BLEU clipped n-gram matches (pure C)
 *   rougen_kernel.c ROUGE-N n-gram overlap of every pair (pure C)
 *   lsum_kernel.c   ROUGE-Lsum union LCS with rouge-score's backtrack (pure C)
 *   lsum_text.c     ROUGE-Lsum's text readers (ASCII words, characters) for lsum_kernel.c (pure C)
 *   partition.c     instances split over threads by cost
 *   stats_kernel.c  bootstrap / randomization resampled sums (pure C)
 *   words_kernel.c  sentence-level words read from str data, LCS per instance (pure C;
 *                   words_read.h the reader, words_masks.h the AVX-512 mask reader)
 *   matrix_kernel.c all-pairs LCS of queries against choices (pure C)
 *   pairs_kernel.c  character-level (str, str) pairs without per-pair overhead (pure C)
 *   pairs_simd.c    the vector lanes of short independent pairs (pure C, runtime dispatch)
 *   join_kernel.c   similarity-join candidates: prefix index, positional bound (pure C)
 *
 * The GIL is held while tokens are read; the kernels run without it (lcs_pairs keeps it
 * for a batch of a few ms of work: PAIRS_GIL_COST).
 * Results are bytearrays (numpy views of them are writable).
 */
#include "module_common.h"

#include <stdlib.h>
#include <string.h>

#include "lsum_kernel.h"
#include "pairs_simd.h"
#include "partition.h"
#include "words_simd.h"

/* One block of scratch memory kept from call to call (at most SCRATCH_KEEP bytes) for the
 * temporaries of a batch: freshly malloc'ed, a batch's few MB would be mapped, faulted in and
 * unmapped by malloc on every call (about 0.8 ms of a 20,000-pair lcs_words call).  Taken
 * and given back by an atomic flag: a call that finds it taken (another thread's, its
 * kernel running without the GIL) allocates its own. */
#define SCRATCH_KEEP ((size_t)64 << 20)


static void *scratch_block;
static size_t scratch_cap;
static int scratch_taken;

/* need bytes (zeroed when zero) at s->p, or NULL with MemoryError. */
void *mod_scratch_take(Scratch *s, size_t need, int zero) {
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

void mod_scratch_give(Scratch *s) {
    if (s->cached) __atomic_store_n(&scratch_taken, 0, __ATOMIC_RELEASE);
    else free(s->p);
    s->p = NULL;
    s->cached = 0;
}

/* The next n items of size elt from *at (8-byte aligned pieces of a scratch block). */
void *mod_carve(char **at, size_t n, size_t elt) {
    void *p = *at;
    *at += (n * elt + 7) & ~(size_t)7;
    return p;
}

/* A bytearray of n native int64 and its data, not initialised (the caller writes every entry). */
PyObject *mod_int64_array_raw(Py_ssize_t n, int64_t **data) {
    PyObject *a = PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    if (a) *data = (int64_t *)PyByteArray_AS_STRING(a);
    return a;
}

/* The same, zero-filled. */
PyObject *mod_int64_array(Py_ssize_t n, int64_t **data) {
    PyObject *a = mod_int64_array_raw(n, data);
    if (a) memset(*data, 0, (size_t)n * sizeof(int64_t));
    return a;
}

/* Run fn over the batch's instances without the GIL. */
int mod_run_kernel(const double *cost, Py_ssize_t N, int threads, range_fn fn, void *ctx) {
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
void mod_split_lengths(Py_ssize_t N, const int64_t *inst, const int64_t *len, const int64_t *off, int64_t *cl,
                          int64_t *rl, int64_t *rc) {
    for (Py_ssize_t i = 0, m = 0; i < N; i++) {
        cl[i] = text_len(len, off, inst[i]);
        if (rc) rc[i] = inst[i + 1] - inst[i] - 1;
        for (int64_t t = inst[i] + 1; t < inst[i + 1]; t++) rl[m++] = text_len(len, off, t);
    }
}

/* cand_len [N], ref_len [T-N], ref_count [N] of a read batch. */
PyObject *mod_lengths(const TokenBatch *b) {
    int64_t *cl = NULL, *rl = NULL, *rc = NULL;
    PyObject *a = mod_int64_array(b->N, &cl), *r = mod_int64_array(b->T - b->N, &rl), *c = mod_int64_array(b->N, &rc);
    if (!a || !r || !c) { Py_XDECREF(a); Py_XDECREF(r); Py_XDECREF(c); return NULL; }
    mod_split_lengths(b->N, b->inst_start, NULL, b->text_off, cl, rl, rc);
    return Py_BuildValue("(NNN)", a, r, c);
}

/* A malloc'ed cost array of n (+1 spare) entries, or NULL with MemoryError. */
double *mod_new_costs(Py_ssize_t n) {
    double *cost = (double *)malloc(((size_t)n + 1) * sizeof(double));
    if (!cost) PyErr_NoMemory();
    return cost;
}

/* simd as lcs_batch and lcs_pairs take it: -1 or a level this CPU runs; else 0 with a
 * ValueError naming fn. */
int mod_simd_ok(const char *fn, int simd) {
    if (simd <= pairs_simd_level() && simd >= -1) return 1;
    PyErr_Format(PyExc_ValueError, "%s: simd=%d is not -1 or a level this CPU runs (0..%d)", fn, simd,
                 pairs_simd_level());
    return 0;
}

/* A sequence of n copies of one (a new reference, which this takes; NULL passes its error on). */
PyObject *mod_repeat_steal(PyObject *one, Py_ssize_t n) {
    PyObject *all = one ? PySequence_Repeat(one, n) : NULL;
    Py_XDECREF(one);
    return all;
}

/* A sequence of ints >= 0 as a malloc'ed int64 array of n (+1 spare) entries, or NULL. */
int64_t *mod_read_counts(PyObject *seq_in, Py_ssize_t *n, const char *what) {
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

/* orders: a sequence of ints >= 1 (the caller checks they are distinct), as int64 [K]. */
int64_t *mod_read_orders(PyObject *orders_in, int *K) {
    Py_ssize_t n = 0;
    int64_t *orders = mod_read_counts(orders_in, &n, "orders");
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


/* Both exact lists or tuples of the same length: the batches the str paths take. */
int mod_same_length_lists(PyObject *a, PyObject *b) {
    return mod_list_or_tuple(a) && mod_list_or_tuple(b) && PySequence_Fast_GET_SIZE(a) == PySequence_Fast_GET_SIZE(b);
}

/* The references of N instances whose candidates cands[i] are exact str and whose references
 * refs[i] are non-empty lists or tuples of exact str (one_ref: an exact str), counted; -1
 * when an item does not fit.  No Python code runs. */
Py_ssize_t mod_str_refs_total(PyObject **cands, PyObject **refs, Py_ssize_t N, int one_ref) {
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < N; i++) {
        if (!PyUnicode_CheckExact(cands[i])) return -1;
        if (!one_ref && (!mod_list_or_tuple(refs[i]) || PySequence_Fast_GET_SIZE(refs[i]) == 0)) return -1;
        PyObject **items = mod_refs_of(refs, i, one_ref);
        const Py_ssize_t k = mod_nrefs_of(refs, i, one_ref);
        for (Py_ssize_t j = 0; j < k; j++)
            if (!PyUnicode_CheckExact(items[j])) return -1;
        total += k;
    }
    return total;
}


static PyMethodDef methods[] = {
    {"lcs_pairs", (PyCFunction)(void (*)(void))py_lcs_pairs, METH_VARARGS | METH_KEYWORDS, py_lcs_pairs_doc},
    {"score_matrix", (PyCFunction)(void (*)(void))py_score_matrix, METH_VARARGS | METH_KEYWORDS, py_score_matrix_doc},
    {"str_tuple", py_str_tuple, METH_O,
     "str_tuple(items) -> tuple or None: items as a tuple when every one is an exact str, else None."},
    {"simd_level", py_simd_level, METH_NOARGS, "simd_level() -> int: 1 when this CPU runs the AVX2 lanes, else 0."},
    {"words_simd_level", py_words_simd_level, METH_NOARGS,
     "words_simd_level() -> int: 1 when lcs_words and lsum_text read 1-byte texts by AVX-512, else 0."},
    {"word_fingerprints", py_word_fingerprints, METH_VARARGS,
     "word_fingerprints(text, mode=1) -> list: the 16-bit fingerprints lcs_words' mask reader gives\n"
     "the words of an ASCII text (folded) where words_simd_level() is 1 (tests: words sharing one)."},
    {"pairs_simd_level", py_pairs_simd_level, METH_NOARGS,
     "pairs_simd_level() -> int: the lanes lcs_pairs runs here: 2 AVX-512, 1 AVX2, 0 portable."},
    {"lcs_matrix", (PyCFunction)(void (*)(void))py_lcs_matrix, METH_VARARGS | METH_KEYWORDS, py_lcs_matrix_doc},
    {"join_candidates", py_join_candidates, METH_VARARGS, py_join_candidates_doc},
    {"lcs_index_pairs", py_lcs_index_pairs, METH_VARARGS, py_lcs_index_pairs_doc},
    {"word_ids", py_word_ids, METH_VARARGS, py_word_ids_doc},
    {"lcs_words", (PyCFunction)(void (*)(void))py_lcs_words, METH_VARARGS | METH_KEYWORDS, py_lcs_words_doc},
    {"rouge_n", (PyCFunction)(void (*)(void))py_rouge_n, METH_VARARGS | METH_KEYWORDS, py_rouge_n_doc},
    {"lcs_batch", (PyCFunction)(void (*)(void))py_lcs_batch, METH_VARARGS | METH_KEYWORDS, py_lcs_batch_doc},
    {"ngram_matches", (PyCFunction)(void (*)(void))py_ngram_matches, METH_VARARGS | METH_KEYWORDS,
     py_ngram_matches_doc},
    {"resample_sums", (PyCFunction)(void (*)(void))py_resample_sums, METH_VARARGS | METH_KEYWORDS,
     py_resample_sums_doc},
    {"lsum_batch", (PyCFunction)(void (*)(void))py_lsum_batch, METH_VARARGS | METH_KEYWORDS, py_lsum_batch_doc},
    {"lsum_text", (PyCFunction)(void (*)(void))py_lsum_text, METH_VARARGS | METH_KEYWORDS, py_lsum_text_doc},
    {"lsum_text_snapshot", (PyCFunction)(void (*)(void))py_lsum_text_snapshot, METH_VARARGS | METH_KEYWORDS,
     py_lsum_text_snapshot_doc},
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
