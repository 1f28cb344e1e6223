/* One candidate str against one reference str, many pairs (pure C, no Python API). */
#ifndef PADDLE_ROUGEL_PAIRS_KERNEL_H
#define PADDLE_ROUGEL_PAIRS_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "words_kernel.h"  /* WordText: a str's PEP 393 storage */

/* texts[2i] is pair i's candidate, texts[2i+1] its reference; every character a token. */
typedef struct {
    const WordText *texts;
    int64_t *lcs;               /* [N] out */
    int simd;                   /* pairs_lanes' level: at most pairs_simd_level() */
} PairsBatch;

double pairs_cost(const PairsBatch *b, size_t i);
int pairs_range(void *ctx, size_t begin, size_t end);

#endif
