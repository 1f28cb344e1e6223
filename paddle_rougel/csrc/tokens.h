/* Reading Python batches into token-id arrays (the only part that runs user code). */
#ifndef PADDLE_ROUGEL_TOKENS_H
#define PADDLE_ROUGEL_TOKENS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "tok.h"

/* N instances, T texts: instance i owns texts inst_start[i] .. inst_start[i+1]-1,
 * its candidate first; text t is toks[text_off[t] .. text_off[t+1]). */
typedef struct {
    Py_ssize_t N, T;
    int64_t *inst_start;  /* [N+1] */
    int64_t *text_off;    /* [T+1] */
    tok_t *toks;
} TokenBatch;

enum {
    LISTS_OF_REFERENCES,  /* lcs_batch: non-empty lists; None / str / bytes rejected */
    LISTS_OF_SOURCES,     /* ngram_matches: any iterable, may be empty */
};

/* Read cands[i] and the texts of lists[i] for every i into b (zeroed by the
 * caller).  Every container is snapshotted (owned references) before any
 * token's __hash__ / __eq__ runs, so the result is that of the inputs as
 * given, whatever user code does meanwhile.  Returns 0, or -1 with an
 * exception set (TypeError / ValueError naming the instance and reference,
 * or the user's own exception).  Call batch_free in both cases. */
int batch_read(TokenBatch *b, PyObject *cands, PyObject *lists, int kind);
void batch_free(TokenBatch *b);

#endif
