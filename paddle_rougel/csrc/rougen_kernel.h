/* ROUGE-N n-gram overlap counts of every (candidate, reference) pair (pure C, no Python API). */
#ifndef PADDLE_ROUGEL_ROUGEN_KERNEL_H
#define PADDLE_ROUGEL_ROUGEN_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "tok.h"

/* What to count: the orders (distinct, >= 1, in the caller's order: column k of every
 * output is orders[k]) and how.
 *   clipped (distinct = 0): hits = sum over n-grams g of min(count in cand, count in ref);
 *       cand / ref grams = max(0, len - n + 1)  (rouge-score's _score_ngrams, ROUGE-1.5.5)
 *   distinct (distinct = 1): n-grams as sets: hits = |cand set & ref set|, cand / ref grams
 *       = the sets' sizes  (rouge-chinese's exclusive mode) */
typedef struct {
    const int64_t *orders;      /* [K] */
    int K;
    int distinct;
} RougeNSpec;

/* Outputs, flat over the batch: hits and ref_grams per (instance, reference) pair [M, K],
 * cand_grams per instance [N, K]; zero-filled by the caller. */
typedef struct {
    int64_t *hits, *cand_grams, *ref_grams;
} RougeNOut;

/* Clipped ROUGE-1/2 counts of one (candidate, reference) pair from the reference words'
 * match masks (bit p: the candidate's word p is this word), for a candidate of at most 64
 * words.  A reference word takes the lowest free candidate position of its own (free1), a
 * bigram (x, y) the lowest free start p with x at p and y at p + 1 (free2: prev & cur >> 1),
 * so each n-gram's hits are min(its count in the candidate, in the reference); the hits are
 * the positions taken.  The one home of this count: rougen_kernel.c's clipped12_masks and
 * words_kernel.c's mask reader. */
typedef struct { uint64_t free1, free2, prev; } Clip12;

static inline void clip12_start(Clip12 *c, uint64_t valid) {
    c->free1 = valid;
    c->free2 = valid >> 1;
    c->prev = 0;
}

static inline __attribute__((always_inline)) void clip12_step(Clip12 *c, uint64_t cur, const int one, const int two) {
    if (one) {
        const uint64_t x = c->free1 & cur;
        c->free1 ^= x & (0 - x);
    }
    if (two) {
        const uint64_t y = c->free2 & c->prev & (cur >> 1);
        c->free2 ^= y & (0 - y);
        c->prev = cur;
    }
}

/* Whether spec asks for clipped orders among 1 and 2 only; which of them. */
int rougen_low12(const RougeNSpec *spec);
void rougen_orders12(const RougeNSpec *spec, int *one, int *two);
/* A pair's row of hits and of ref_grams from its Clip12 (the candidate's positions valid; a
 * reference of m words), and a candidate's cand_grams (n words). */
void clip12_put(const RougeNSpec *spec, const Clip12 *c, uint64_t valid, int64_t m, int64_t *hits,
                int64_t *ref_grams);
void clip12_cand_grams(const RougeNSpec *spec, int64_t n, int64_t *cand_grams);

/* Per-thread scratch of rougen_local (zero-initialise; rougen_scratch_free when done). */
typedef struct {
    uint32_t *gid;              /* the n-gram id at each position (candidate, then references) */
    uint32_t *cnt, *run, *stamp;/* by n-gram id: count in the candidate, left in / seen in a reference */
    struct RougeNSlot *map;     /* ((n-1)-gram id, last token id) -> n-gram id: open addressing */
    uint32_t *pair, *cidx;      /* the same as a direct table when small (all 0 between uses) */
    size_t gid_cap, cnt_cap, map_cap, cidx_cap;
    uint32_t epoch, mgen;
    uint64_t bm[65];            /* clipped12_masks: each word's positions in a candidate of <= 64 words */
} RougeNScratch;

/* The counts of one instance, from local token ids: the candidate's a[0..n) are 1..k (k its
 * distinct tokens), the references' (concatenated in b, reference r has ref_len[r] tokens)
 * 0..V: with spec->distinct every token has an id (V >= k), else the ids are at most k and
 * 0 stands for any token the candidate lacks.  Writes hits[r * K + c] and ref_grams[r * K + c] of reference r and
 * cand_grams[c].  Returns 0, or -1 when out of memory. */
int rougen_local(RougeNScratch *s, const RougeNSpec *spec, const uint32_t *a, int64_t n, uint32_t k,
                 const uint32_t *b, const int64_t *ref_len, int64_t nrefs, int64_t *hits, int64_t *cand_grams,
                 int64_t *ref_grams);
void rougen_scratch_free(RougeNScratch *s);

/* A batch of token ids read by tokens.c (layout of LcsBatch). */
typedef struct {
    const tok_t *toks;
    const int64_t *text_off;    /* [T+1] */
    const int64_t *inst_start;  /* [N+1] */
    RougeNSpec spec;
    RougeNOut out;
} RougeNBatch;

/* Estimated work of instance i (for run_partitioned). */
double rougen_cost(const RougeNBatch *b, size_t i);

/* Fill b->out for instances [begin, end); a range_fn (ctx = RougeNBatch *).  0, or -1 when out of memory. */
int rougen_range(void *ctx, size_t begin, size_t end);

#endif
