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
    int simd;                   /* > 0: pairs_lanes' level for short pairs (every id below 0x10000); 0: none */
} LcsBatch;

/* Per-thread scratch of lcs_local (zero-initialise; lcs_scratch_free when done). */
typedef struct {
    uint64_t *mw;              /* masks of the current word, by local id */
    uint8_t *carry;            /* one per reference position */
    size_t mw_cap, carry_cap;
} LcsScratch;

/* LCS of candidate a[0..n) against nrefs references concatenated in b (reference r has
 * ref_len[r] tokens); ids are local: 1..k for the candidate's tokens, 0 for a token the
 * candidate lacks.  out[r] = LCS with reference r.  Returns 0, or -1 when out of memory. */
int lcs_local(LcsScratch *s, const uint32_t *a, int64_t n, uint32_t k, const uint32_t *b,
              const int64_t *ref_len, int64_t nrefs, int64_t *out);
void lcs_scratch_free(LcsScratch *s);

/* Estimated work of instance i (for run_partitioned). */
double lcs_cost(const LcsBatch *b, size_t i);

/* Fill b->lcs for instances [begin, end); a range_fn (ctx = LcsBatch *).
 * Returns 0, or -1 when out of memory. */
int lcs_range(void *ctx, size_t begin, size_t end);

#endif
