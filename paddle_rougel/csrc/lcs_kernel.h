/* Exact bit-parallel LCS over token-id arrays (pure C, no Python API). */
#ifndef PADDLE_ROUGEL_LCS_KERNEL_H
#define PADDLE_ROUGEL_LCS_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "tok.h"

/* A batch of N instances over T texts: instance i owns texts
 * inst_start[i] .. inst_start[i+1]-1, its candidate first, then its
 * references; text t is toks[text_off[t] .. text_off[t+1]). */
typedef struct {
    const tok_t *toks;
    const int64_t *text_off;    /* [T+1] */
    const int64_t *inst_start;  /* [N+1] */
    int64_t *lcs;               /* [T-N] out: LCS of each reference, in order */
} LcsBatch;

/* Estimated work of instance i (for run_partitioned). */
double lcs_cost(const LcsBatch *b, size_t i);

/* Fill b->lcs for instances [begin, end); a range_fn (ctx = LcsBatch *).
 * Returns 0, or -1 when out of memory. */
int lcs_range(void *ctx, size_t begin, size_t end);

#endif
