/* tokens.c's pass 1, the snapshot (tokens_snapshot.c), as pass 2 (tokens.c) reads it.  Internal
 * to the token reader: see tokens.h for the interface and tokens.c for the two passes. */
#ifndef PADDLE_ROUGEL_TOKENS_SNAPSHOT_H
#define PADDLE_ROUGEL_TOKENS_SNAPSHOT_H

#include "tokens.h"

enum { TEXT_STR, TEXT_ITEMS, TEXT_INTS };

typedef struct {
    int kind;
    int is_signed;          /* TEXT_INTS */
    PyObject *str;          /* TEXT_STR: owned */
    int64_t off, len;       /* TEXT_ITEMS: items[off ..]; TEXT_INTS: raw[off ..] */
    Py_ssize_t inst, ref;   /* names in errors (ref < 0: the candidate) */
} Text;

typedef struct {
    Text *texts;
    size_t n, cap;
    PyObject **items;       /* owned references to the tokens of TEXT_ITEMS texts */
    size_t items_len, items_cap;
    uint64_t *raw;          /* TEXT_INTS values (two's complement when signed) */
    size_t raw_len, raw_cap;
    PyObject **list;        /* scratch: owned references to one reference list's texts */
    size_t list_cap;
    int all_str;
    int all_ints;           /* every text TEXT_INTS */
} Snapshot;

/* Pass 1: every container of the batch snapshotted into s (zeroed by the caller), and b's
 * N, T and inst_start.  0, or -1 with an exception (TypeError / ValueError naming the
 * instance and reference, or the user's own).  tokens_snapshot_free in both cases. */
int tokens_snapshot_batch(Snapshot *s, TokenBatch *b, PyObject *cands_in, PyObject *lists_in, int kind);
void tokens_snapshot_free(Snapshot *s);

/* type(obj).__name__, as the Python fallback says it; "instance 3, candidate" /
 * "instance 3, reference 1" (a new str, or NULL). */
const char *tokens_type_name(PyObject *obj);
PyObject *tokens_where(Py_ssize_t inst, Py_ssize_t ref);

#endif
