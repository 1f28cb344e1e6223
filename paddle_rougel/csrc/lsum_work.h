/* The ROUGE-Lsum kernel's per-thread work and its one-instance core (lsum_kernel.c), shared
 * with the text readers (lsum_text.c), which tokenize an instance into this form and call
 * lsum_instance_core.  Internal to the two files. */
#ifndef PADDLE_ROUGEL_LSUM_WORK_H
#define PADDLE_ROUGEL_LSUM_WORK_H

#include <stddef.h>
#include <stdint.h>

#include "tokmap.h"

typedef struct {
    TokMap map;          /* token -> local id */
    uint32_t *ids;       /* local ids of the instance's tokens */
    uint64_t *mw;        /* match masks of one candidate word, by local id (sentences over 64 tokens) */
    uint64_t *gm;        /* match masks of a group of LANES sentences: gm[id * LANES + lane] */
    uint64_t *rows;      /* rows of the current group */
    uint64_t *tab;       /* rows (or checkpoints and a block) of a candidate sentence over 64 tokens */
    size_t scratch;      /* tab's limit in bytes (the thread's share of the call's budget) */
    uint8_t *carry;      /* per reference row, multi-word candidates */
    uint8_t *mark;       /* union: per row of rid (a reference token the candidate has) */
    uint32_t *cnt, *used;
    uint32_t *rid;       /* the reference tokens the candidate has, in order: their ids */
    int64_t *rsent;      /* where each reference sentence starts in rid */
    int64_t *dsent;      /* where each reference document starts among the reference sentences */
    size_t ids_cap, mw_cap, gm_cap, rows_cap, tab_cap, carry_cap, mark_cap, cnt_cap, used_cap, rid_cap,
        rsent_cap, dsent_cap;
} LsumWork;

void lsum_work_free(LsumWork *w);

/* Between instances w->used, w->mark and w->mw are all zero (whoever sets an
 * entry clears it), so an instance pays for its own tokens, not for a memset
 * of the buffers; they grow zeroed. */
int lsum_grow_zeroed(void **p, size_t *cap, size_t need, size_t elt);

/* The candidate: its tokens' local ids ids[] (1..k, counts w->cnt[1..k]), sentence c
 * ids[cso[c] - base .. cso[c + 1] - base), c < ncs.  The references: only their tokens
 * the candidate has, as rows w->rid[...], reference sentence r rows w->rsent[r] ..
 * w->rsent[r + 1], reference d sentences rdoc[d] .. rdoc[d + 1] (rdoc[0] = 0). */
typedef struct {
    const uint32_t *ids;
    const int64_t *cso;
    int64_t base, ncs;
    size_t k;
    int64_t nrs;          /* reference sentences */
    const int64_t *rdoc;  /* [nd + 1] */
    int64_t nd;
} LsumPrepared;

/* hits[d]: the clipped union-LCS hits of reference d.  Returns 0, or -1 when out of memory. */
int lsum_instance_core(LsumWork *w, const LsumPrepared *P, int64_t *hits);

#endif
