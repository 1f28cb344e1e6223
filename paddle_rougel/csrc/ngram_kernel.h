/* BLEU clipped n-gram matches over token-id arrays (pure C, no Python API). */
#ifndef PADDLE_ROUGEL_NGRAM_KERNEL_H
#define PADDLE_ROUGEL_NGRAM_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "tok.h"

/* Same layout as LcsBatch: instance i owns texts inst_start[i] ..
 * inst_start[i+1]-1 (its candidate, then its sources). */
typedef struct {
    const tok_t *toks;
    const int64_t *text_off;    /* [T+1] */
    const int64_t *inst_start;  /* [N+1] */
    const int64_t *npre;        /* [N] sources counted in the prefix block, or NULL */
    size_t N;
    int n;                      /* highest order */
    int64_t *out;               /* [Q, N, n], zero-filled; Q = 2 iff npre */
} GramBatch;

/* Fill b->out for instances [begin, end); a range_fn (ctx = GramBatch *). */
int ngram_range(void *ctx, size_t begin, size_t end);

#endif
