/* paddle_rougel._lcs: what the binding files (module*.c) share.  Internal to the extension:
 * helpers are prefixed mod_, entry points py_ (each family file defines its entry points and
 * their docstrings; module.c's method table lists them). */
#ifndef PADDLE_ROUGEL_MODULE_COMMON_H
#define PADDLE_ROUGEL_MODULE_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "partition.h"
#include "tokens.h"
#include "words_kernel.h"

/* A docstring shared with module.c's method table (PyDoc_STRVAR, not static). */
#define MOD_DOC(name, str) const char name[] = PyDoc_STR(str)

/* ------------------------------------------------------------ helpers (module.c) */

/* A block of temporaries for a call: the kept scratch block when free, else its own. */
typedef struct {
    void *p;
    int cached;  /* p is the kept block */
} Scratch;

/* need bytes (zeroed when zero) at s->p, or NULL with MemoryError; mod_scratch_give returns it. */
void *mod_scratch_take(Scratch *s, size_t need, int zero);
void mod_scratch_give(Scratch *s);
/* The next n items of size elt from *at (8-byte aligned pieces of a scratch block). */
void *mod_carve(char **at, size_t n, size_t elt);

/* A bytearray of n native int64 and its data: not initialised (_raw), or zero-filled. */
PyObject *mod_int64_array_raw(Py_ssize_t n, int64_t **data);
PyObject *mod_int64_array(Py_ssize_t n, int64_t **data);
/* Run fn over the batch's instances without the GIL (-1 with MemoryError). */
int mod_run_kernel(const double *cost, Py_ssize_t N, int threads, range_fn fn, void *ctx);
/* The lengths of N instances laid out one after another (see module.c). */
void mod_split_lengths(Py_ssize_t N, const int64_t *inst, const int64_t *len, const int64_t *off, int64_t *cl,
                       int64_t *rl, int64_t *rc);
/* cand_len [N], ref_len [T-N], ref_count [N] of a read batch. */
PyObject *mod_lengths(const TokenBatch *b);
/* A malloc'ed cost array of n (+1 spare) entries, or NULL with MemoryError. */
double *mod_new_costs(Py_ssize_t n);
/* simd as lcs_batch and lcs_pairs take it: 1 when valid, else 0 with a ValueError naming fn. */
int mod_simd_ok(const char *fn, int simd);
/* A sequence of n copies of one (a new reference, which this takes). */
PyObject *mod_repeat_steal(PyObject *one, Py_ssize_t n);
/* A sequence of ints >= 0 as a malloc'ed int64 array of n (+1 spare) entries, or NULL. */
int64_t *mod_read_counts(PyObject *seq_in, Py_ssize_t *n, const char *what);
/* ROUGE-N orders: ints >= 1, as int64 [K], or NULL with an exception. */
int64_t *mod_read_orders(PyObject *orders_in, int *K);
/* Both exact lists or tuples of the same length: the batches the str paths take. */
int mod_same_length_lists(PyObject *a, PyObject *b);
/* The references of N instances of exact str (see module.c), counted; -1 when an item does not fit. */
Py_ssize_t mod_str_refs_total(PyObject **cands, PyObject **refs, Py_ssize_t N, int one_ref);

/* Instance i's references: the list or tuple refs[i], or (one_ref) the str refs[i] itself. */
static inline int mod_list_or_tuple(PyObject *o) { return PyList_CheckExact(o) || PyTuple_CheckExact(o); }

static inline PyObject **mod_refs_of(PyObject **refs, Py_ssize_t i, int one_ref) {
    return one_ref ? &refs[i] : PySequence_Fast_ITEMS(refs[i]);
}

static inline Py_ssize_t mod_nrefs_of(PyObject **refs, Py_ssize_t i, int one_ref) {
    return one_ref ? 1 : PySequence_Fast_GET_SIZE(refs[i]);
}

/* The PEP 393 storage of a ready str. */
static inline void mod_text_of(PyObject *o, WordText *x) {
    x->data = PyUnicode_DATA(o);
    x->len = PyUnicode_GET_LENGTH(o);
    x->kind = (int)PyUnicode_KIND(o);
}

/* ------------------------------------------------------------ entry points */

/* module_lcs.c */
extern const char py_lcs_batch_doc[], py_lcs_pairs_doc[], py_lcs_matrix_doc[], py_score_matrix_doc[];
PyObject *py_lcs_batch(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_lcs_pairs(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_lcs_matrix(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_score_matrix(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_str_tuple(PyObject *self, PyObject *items);
PyObject *py_simd_level(PyObject *self, PyObject *noargs);
PyObject *py_pairs_simd_level(PyObject *self, PyObject *noargs);

/* module_words.c */
extern const char py_lcs_words_doc[];
PyObject *py_lcs_words(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_words_simd_level(PyObject *self, PyObject *noargs);
PyObject *py_word_fingerprints(PyObject *self, PyObject *args);

/* module_lsum.c */
extern const char py_lsum_batch_doc[], py_lsum_text_doc[], py_lsum_text_snapshot_doc[];
PyObject *py_lsum_batch(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_lsum_text(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_lsum_text_snapshot(PyObject *self, PyObject *args, PyObject *kw);

/* module_stats.c */
extern const char py_resample_sums_doc[], py_ngram_matches_doc[], py_rouge_n_doc[];
PyObject *py_resample_sums(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_ngram_matches(PyObject *self, PyObject *args, PyObject *kw);
PyObject *py_rouge_n(PyObject *self, PyObject *args, PyObject *kw);

/* module_join.c */
extern const char py_lcs_index_pairs_doc[], py_join_candidates_doc[], py_word_ids_doc[];
PyObject *py_lcs_index_pairs(PyObject *self, PyObject *args);
PyObject *py_join_candidates(PyObject *self, PyObject *args);
PyObject *py_word_ids(PyObject *self, PyObject *args);

#endif
