/*
 * ROUGE-Lsum as rouge-score 0.1.2 computes it (_summary_level_lcs):
 *
 *   for every reference sentence r: the union, over the candidate sentences c,
 *   of the positions in r of ONE LCS of (r, c), the one rouge-score's
 *   _backtrack_norec reads out; hits = sum over token types t of
 *   min(union tokens of type t over all reference sentences, count of t in the
 *   candidate)  (its token-count clipping; the reference count never binds).
 *
 * The LCS table of a sentence pair is Hyyro's bit-parallel recurrence with the
 * candidate sentence as the bit side: after reference token i, bit j-1 of row
 * V_i is 1 iff t[i][j] == t[i][j-1], and the carry out of bit j-1 of the row's
 * addition is t[i][j] - t[i-1][j].  Per row we keep their AND, the cells where
 * rouge-score's _backtrack_norec moves left when there is no match (t[i][j-1]
 * > t[i-1][j]); it otherwise moves up, and diagonally at a match.  So the walk
 * reads out exactly its LCS, and ties (which change the union) resolve as
 * there.  Memory: one pair's rows at a time, LANES words a row for sentences
 * scored together; a candidate sentence over 64 tokens takes len(r) *
 * ceil(len(c)/64) words, unless that is over the thread's share of the
 * call's budget (b->scratch): then the rows are checkpointed (every k-th,
 * k = ceil(sqrt(len(r)))) and a block of k rows is recomputed during the
 * walk back, from its checkpoint, only up to the walk's column: (len(r)/k + k)
 * * ceil(len(c)/64) words, the same walk, at most one more forward pass.
 *
 * Speed, in the order it matters on summaries (about 20 words a sentence):
 * candidate sentences of up to 64 tokens are scored four at a time (lanes);
 * reference rows whose token the candidate lacks are skipped (they change
 * nothing).
 *
 * This file: the kernel on token ids (lsum_batch), and the core of one instance
 * that lsum_text.c's text readers (lsum_text) call too (lsum_work.h).  The step
 * and its go-left cells are lcs_step.h's.
 */
#include "lsum_kernel.h"

#include <stdlib.h>
#include <string.h>

#include "bitops.h"
#include "lcs_step.h"
#include "lsum_work.h"
#include "tokmap.h"

/* Candidate sentences of up to 64 tokens are scored LANES at a time against a
 * reference sentence: lane l is one candidate sentence, and each step does the
 * same work on every lane, so the chains overlap (the walk back is a chain of
 * dependent steps; alone it leaves most of the CPU idle). */
#define LANES 4

typedef LsumWork Work;
typedef LsumPrepared Prepared;

void lsum_work_free(Work *w) {
    tokmap_free(&w->map); free(w->ids); free(w->mw); free(w->gm); free(w->rows); free(w->tab); free(w->carry);
    free(w->mark); free(w->cnt); free(w->used); free(w->rid); free(w->rsent); free(w->dsent);
}

static inline uint64_t low_bits(int64_t j) { return j >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << j) - 1); }

/* Index of the highest set bit of x != 0. */
static inline int top_bit(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return 63 - __builtin_clzll(x);
#else
    int b = 0;
    while (x >>= 1) b++;
    return b;
#endif
}

/* ------------------------------------------------------------- the pairs */

/* A reference sentence is given by the tokens the candidate has (rows: ids
 * rid[0..m)): a row whose token is in no candidate sentence changes nothing,
 * neither the recurrence (no match: the row stays) nor the walk back (no
 * go-left cell: it goes straight up).  Marks are per row. */

/* The forward pass of group_pair: rows[i * LANES + l] = M | ~go_left (the
 * cells where the walk leaves row i), the steps' go-left cells lane by lane. */
static void group_rows(const uint64_t *gm, const uint32_t *rid, int64_t m, uint64_t *rows) {
#if defined(__SSE2__) && defined(LCS_STEP_VECTORS) && LANES == 4
    /* two lanes a register (SSE2), two registers: four independent chains */
    lcs_v2 V0 = {~(uint64_t)0, ~(uint64_t)0}, V1 = V0;
    for (int64_t i = 0; i < m; i++) {
        const uint64_t *M = gm + (size_t)rid[i] * LANES;
        lcs_v2 M0, M1, G0, G1;
        memcpy(&M0, M, sizeof(M0));
        memcpy(&M1, M + 2, sizeof(M1));
        LCS_STEP_LEFT_VEC(lcs_v2, V0, M0, G0);
        LCS_STEP_LEFT_VEC(lcs_v2, V1, M1, G1);
        const lcs_v2 A0 = M0 | ~G0, A1 = M1 | ~G1;
        memcpy(rows + i * LANES, &A0, sizeof(A0));
        memcpy(rows + i * LANES + 2, &A1, sizeof(A1));
    }
#else
    uint64_t V[LANES];
    for (int l = 0; l < LANES; l++) V[l] = ~(uint64_t)0;
    for (int64_t i = 0; i < m; i++) {
        const uint64_t *M = gm + (size_t)rid[i] * LANES;
        for (int l = 0; l < LANES; l++) {
            uint64_t go_left;
            V[l] = lcs_step_left(V[l], M[l], &go_left);
            rows[i * LANES + l] = M[l] | ~go_left;
        }
    }
#endif
}

/* LANES candidate sentences (lane l: n[l] <= 64 tokens, masks in w->gm; n[l] = 0
 * for an unused lane) against one reference sentence of m rows.  Back, per
 * row: from column j the path moves left through the cells that do not stop,
 * and at the first that does it goes diagonally at a match (a mark) and up
 * otherwise.  The column is kept as J, the bits below it.  The walk needs no
 * count of the LCS left: once none is left (t[i][j] = 0), no cell below row i
 * and left of j matches, so no mark can follow. */
static void group_pair(Work *w, const int64_t *n, const uint32_t *rid, int64_t m, uint8_t *mark) {
    const uint64_t *gm = w->gm, *rows = w->rows;
    uint64_t J[LANES];
    group_rows(gm, rid, m, w->rows);
    for (int l = 0; l < LANES; l++) J[l] = low_bits(n[l]);
    for (int64_t i = m - 1; i >= 0; i--) {
        const uint64_t *M = gm + (size_t)rid[i] * LANES, *A = rows + i * LANES;
        uint64_t hits = 0;
        for (int l = 0; l < LANES; l++) {
            /* T: the top stop cell left of j (| 1: defined when there is none; then no
             * match is left of j either) */
            const uint64_t T = (uint64_t)1 << top_bit((A[l] & J[l]) | 1);
            hits |= T & M[l] & J[l];  /* no branch: unpredictable */
            J[l] &= (T - 1) | (T & ~M[l]);  /* diagonal: left of the match; up: up to it */
        }
        mark[i] |= (uint8_t)(hits != 0);
    }
}

/* ceil(sqrt(m)), m >= 1: the block of checkpointed rows. */
static int64_t block_rows(int64_t m) {
    int64_t k = 1;
    while (k * k < m) k *= 2;  /* k >= sqrt(m); then down by halving steps */
    for (int64_t step = k / 2; step > 0; step /= 2)
        if ((k - step) * (k - step) >= m) k -= step;
    return k;
}

size_t lsum_pair_scratch(int64_t n, int64_t m) {
    if (n <= 64 || m <= 0) return 0;
    const int64_t k = block_rows(m), nb = (m + k - 1) / k;
    return (size_t)(nb - 1 + k) * (size_t)((n + 63) / 64) * sizeof(uint64_t);
}

/* w->tab with room for `words` words: only ever the size asked (not a doubling), and
 * the old one freed first (its contents are not needed): the budget is what is held. */
static int tab_reserve(Work *w, size_t words) {
    if (words <= w->tab_cap) return 0;
    free(w->tab);
    w->tab = (uint64_t *)malloc(words * sizeof(uint64_t));
    w->tab_cap = w->tab ? words : 0;
    return w->tab ? 0 : -1;
}

/* Rows [i0, i1) of a long pair, words [0, Q): out[(i - i0) * Q + q] the go-left
 * cells of row i, from V (word q before row i0) given by vbefore (NULL: all ones,
 * row 0); forward[q] gets word q after row i1 - 1 when not NULL.  Word by word,
 * one carry per row (w->carry[i - i0]); returns the LCS when i0 = 0 and i1 = m. */
static int64_t long_rows(Work *w, const uint32_t *a, int64_t n, const uint32_t *rid, int64_t i0, int64_t i1,
                         int64_t Q, const uint64_t *vbefore, uint64_t *out, int64_t W_out, uint64_t *forward) {
    uint64_t *mw = w->mw;
    int64_t lcs = 0;
    memset(w->carry, 0, (size_t)(i1 - i0));
    for (int64_t q = 0; q < Q; q++) {
        const int64_t p0 = q * 64, p1 = p0 + 64 < n ? p0 + 64 : n;
        for (int64_t p = p0; p < p1; p++) mw[a[p]] |= (uint64_t)1 << (p - p0);
        uint64_t V = vbefore ? vbefore[q] : ~(uint64_t)0;
        const uint32_t *r = rid + i0;
        if (out) {
            for (int64_t j = 0; j < i1 - i0; j++)
                V = lcs_step_carry_left(V, mw[r[j]], &w->carry[j], &out[j * W_out + q]);
        } else {
            for (int64_t j = 0; j < i1 - i0; j++) V = lcs_step_carry(V, mw[r[j]], &w->carry[j]);
        }
        if (forward) forward[q] = V;
        lcs += popcount64(~V & low_bits(p1 - p0));
        for (int64_t p = p0; p < p1; p++) mw[a[p]] = 0;
    }
    return lcs;
}

/* A candidate sentence a[0..n) of more than 64 tokens against one reference
 * sentence: word by word, one carry per row, then rouge-score's backtrack one
 * cell at a time.  Rows checkpointed when the table is over w->scratch (see the
 * top); returns 0, or -1 when out of memory. */
static int long_pair(Work *w, const uint32_t *a, int64_t n, const uint32_t *rid, int64_t m, uint8_t *mark) {
    const int64_t W = (n + 63) / 64;
    if ((size_t)m * (size_t)W <= w->scratch / sizeof(uint64_t)) {  /* the whole table */
        if (tab_reserve(w, (size_t)m * (size_t)W) < 0) return -1;
        const uint64_t *rows = w->tab;
        int64_t cur = long_rows(w, a, n, rid, 0, m, W, NULL, w->tab, W, NULL);
        int64_t i = m, j = n;
        while (cur > 0) {
            if (rid[i - 1] == a[j - 1]) {
                mark[i - 1] = 1;
                i--; j--; cur--;
            } else if ((rows[(i - 1) * W + ((j - 1) >> 6)] >> ((j - 1) & 63)) & 1) {
                j--;
            } else {
                i--;
            }
        }
        return 0;
    }
    /* checkpoints: ck[(b - 1) * W ..] = the row before block b (rows [b * k, b * k + k)), b >= 1 */
    const int64_t k = block_rows(m), nb = (m + k - 1) / k;
    if (tab_reserve(w, (size_t)(nb - 1 + k) * (size_t)W) < 0) return -1;
    uint64_t *ck = w->tab, *blk = w->tab + (nb - 1) * W;
    /* the forward pass block by block (each block's rows word by word: the same cells) */
    int64_t cur = 0;
    for (int64_t b = 0; b < nb; b++) {
        const int64_t i0 = b * k, i1 = i0 + k < m ? i0 + k : m;
        uint64_t *after = b + 1 < nb ? ck + b * W : blk;  /* the last block's end: the LCS row */
        long_rows(w, a, n, rid, i0, i1, W, b ? ck + (b - 1) * W : NULL, NULL, W, after);
    }
    for (int64_t q = 0; q < W; q++) cur += popcount64(~blk[q] & low_bits(n - q * 64 < 64 ? n - q * 64 : 64));
    /* the walk: block b's rows recomputed (words below the column only) when it enters it */
    int64_t i = m, j = n, b = nb, Q = 0, i0 = 0;
    while (cur > 0) {
        if ((i - 1) / k != b) {
            b = (i - 1) / k;
            i0 = b * k;
            Q = (j + 63) / 64;
            long_rows(w, a, n, rid, i0, i0 + k < m ? i0 + k : m, Q, b ? ck + (b - 1) * W : NULL, blk, Q, NULL);
        }
        if (rid[i - 1] == a[j - 1]) {
            mark[i - 1] = 1;
            i--; j--; cur--;
        } else if ((blk[(i - 1 - i0) * Q + ((j - 1) >> 6)] >> ((j - 1) & 63)) & 1) {
            j--;
        } else {
            i--;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ one instance */

int lsum_grow_zeroed(void **p, size_t *cap, size_t need, size_t elt) {
    const size_t old = *cap;
    if (grow(p, cap, need, elt) < 0) return -1;
    if (*cap > old) memset((char *)*p + old * elt, 0, (*cap - old) * elt);
    return 0;
}

/* Clipped hits of the rows rid[c0 .. c1) (one reference document) from their
 * union marks; leaves used[] and mark[] zero. */
static int64_t doc_hits(Work *w, int64_t c0, int64_t c1) {
    const uint32_t *rid = w->rid;
    int64_t h = 0;
    for (int64_t q = c0; q < c1; q++) {
        const uint32_t id = rid[q];
        const uint32_t ok = w->mark[q] & (w->used[id] < w->cnt[id]);  /* branchless */
        w->used[id] += ok;
        h += ok;
        w->mark[q] = 0;
    }
    for (int64_t q = c0; q < c1; q++) w->used[rid[q]] = 0;
    return h;
}

/* The candidate sentences grp[0..g) (each 1..64 tokens) against every reference sentence. */
static void run_group(Work *w, const Prepared *P, const int64_t *grp, int g) {
    int64_t n[LANES];
    memset(w->gm, 0, (P->k + 1) * LANES * sizeof(uint64_t));  /* cheaper than clearing token by token */
    for (int l = 0; l < LANES; l++) {
        n[l] = l < g ? P->cso[grp[l] + 1] - P->cso[grp[l]] : 0;
        const uint32_t *a = P->ids + (l < g ? P->cso[grp[l]] - P->base : 0);
        for (int64_t p = 0; p < n[l]; p++) w->gm[(size_t)a[p] * LANES + l] |= (uint64_t)1 << p;
    }
    for (int64_t r = 0; r < P->nrs; r++) {
        const int64_t c0 = w->rsent[r], c1 = w->rsent[r + 1];
        if (c1 > c0) group_pair(w, n, w->rid + c0, c1 - c0, w->mark + c0);
    }
}

int lsum_instance_core(Work *w, const Prepared *P, int64_t *hits) {
    const int64_t *cso = P->cso;
    int64_t max_ref = 0, max_words = 1;
    for (int64_t r = 0; r < P->nrs; r++)
        if (w->rsent[r + 1] - w->rsent[r] > max_ref) max_ref = w->rsent[r + 1] - w->rsent[r];
    for (int64_t c = 0; c < P->ncs; c++)
        if ((cso[c + 1] - cso[c] + 63) / 64 > max_words) max_words = (cso[c + 1] - cso[c] + 63) / 64;
    if (grow((void **)&w->gm, &w->gm_cap, (P->k + 1) * LANES, sizeof(uint64_t)) < 0) return -1;
    if (grow((void **)&w->rows, &w->rows_cap, (size_t)max_ref * LANES + 1, sizeof(uint64_t)) < 0) return -1;
    if (lsum_grow_zeroed((void **)&w->used, &w->used_cap, P->k + 1, sizeof(uint32_t)) < 0) return -1;
    if (max_words > 1) {
        if (lsum_grow_zeroed((void **)&w->mw, &w->mw_cap, P->k + 1, sizeof(uint64_t)) < 0) return -1;
        if (grow((void **)&w->carry, &w->carry_cap, (size_t)max_ref + 1, 1) < 0) return -1;
    }
    int64_t grp[LANES];
    int g = 0;
    for (int64_t c = 0; c < P->ncs; c++) {
        const int64_t n = cso[c + 1] - cso[c];
        if (n > 64) {
            for (int64_t r = 0; r < P->nrs; r++) {
                const int64_t c0 = w->rsent[r], c1 = w->rsent[r + 1];
                if (c1 > c0 && long_pair(w, P->ids + cso[c] - P->base, n, w->rid + c0, c1 - c0, w->mark + c0) < 0)
                    return -1;
            }
        } else if (n > 0) {
            grp[g++] = c;
            if (g == LANES) { run_group(w, P, grp, g); g = 0; }
        }
    }
    if (g) run_group(w, P, grp, g);
    for (int64_t d = 0; d < P->nd; d++)
        hits[d] = doc_hits(w, w->rsent[P->rdoc[d]], w->rsent[P->rdoc[d + 1]]);
    return 0;
}

/* ------------------------------------------------------ token-id batches */

/* w->ids for toks[0 .. total): the candidate's [0 .. n) get 1..k, the rest
 * their candidate id or 0.  Returns k, or -1. */
static int64_t local_ids(Work *w, const tok_t *toks, int64_t n, int64_t total) {
    if (tokmap_reserve(&w->map, (size_t)n) < 0) return -1;
    if (grow((void **)&w->ids, &w->ids_cap, (size_t)total + 1, sizeof(uint32_t)) < 0) return -1;
    tokmap_clear(&w->map);
    uint32_t k = 0;
    for (int64_t p = 0; p < n; p++) w->ids[p] = tokmap_add(&w->map, toks[p], &k);
    for (int64_t p = n; p < total; p++) w->ids[p] = tokmap_get(&w->map, toks[p]);
    return k;
}

static int lsum_instance(Work *w, const LsumBatch *b, size_t i) {
    const int64_t d0 = b->inst_doc[i], d1 = b->inst_doc[i + 1];
    const int64_t *so = b->sent_off, *ds = b->doc_sent;
    const int64_t base = so[ds[d0]];
    const int64_t n = so[ds[d0 + 1]] - base;
    const int64_t total = so[ds[d1]] - base;
    int64_t *hits = b->hits + (d0 - (int64_t)i);  /* references before instance i: d0 - i */
    if (n == 0 || total == n) {
        for (int64_t d = d0 + 1; d < d1; d++) hits[d - d0 - 1] = 0;
        return 0;
    }
    const int64_t k = local_ids(w, b->toks + base, n, total);
    if (k < 0) return -1;
    const int64_t r0 = ds[d0 + 1], r1 = ds[d1];  /* the reference sentences */
    if (grow((void **)&w->cnt, &w->cnt_cap, (size_t)k + 1, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->rid, &w->rid_cap, (size_t)(total - n) + 1, sizeof(uint32_t)) < 0) return -1;
    if (lsum_grow_zeroed((void **)&w->mark, &w->mark_cap, (size_t)(total - n) + 1, 1) < 0) return -1;
    if (grow((void **)&w->rsent, &w->rsent_cap, (size_t)(r1 - r0) + 1, sizeof(int64_t)) < 0) return -1;
    if (grow((void **)&w->dsent, &w->dsent_cap, (size_t)(d1 - d0), sizeof(int64_t)) < 0) return -1;
    memset(w->cnt, 0, ((size_t)k + 1) * sizeof(uint32_t));
    for (int64_t p = 0; p < n; p++) w->cnt[w->ids[p]]++;
    /* the reference rows that can match, sentence by sentence */
    int64_t nr = 0;
    for (int64_t r = r0; r < r1; r++) {
        w->rsent[r - r0] = nr;
        for (int64_t q = so[r] - base; q < so[r + 1] - base; q++) {
            w->rid[nr] = w->ids[q];
            nr += w->ids[q] != 0;
        }
    }
    w->rsent[r1 - r0] = nr;
    for (int64_t d = d0 + 1; d <= d1; d++) w->dsent[d - d0 - 1] = ds[d] - r0;
    const Prepared P = {w->ids, so + ds[d0], base, ds[d0 + 1] - ds[d0], (size_t)k, r1 - r0, w->dsent, d1 - d0 - 1};
    return lsum_instance_core(w, &P, hits);
}

void lsum_need(const LsumBatch *b, size_t i, LsumNeed *out) {
    const int64_t d0 = b->inst_doc[i], d1 = b->inst_doc[i + 1];
    const int64_t *so = b->sent_off, *ds = b->doc_sent;
    memset(out, 0, sizeof(*out));
    for (int64_t s = ds[d0]; s < ds[d0 + 1]; s++)
        if (so[s + 1] - so[s] > out->n) { out->n = so[s + 1] - so[s]; out->cand_sent = s - ds[d0]; }
    if (out->n <= 64) return;
    for (int64_t d = d0 + 1; d < d1; d++)
        for (int64_t s = ds[d]; s < ds[d + 1]; s++)
            if (so[s + 1] - so[s] > out->m) { out->m = so[s + 1] - so[s]; out->ref = d - d0 - 1; out->ref_sent = s - ds[d]; }
    out->need = lsum_pair_scratch(out->n, out->m);
}

double lsum_cost(const LsumBatch *b, size_t i) {
    const int64_t d0 = b->inst_doc[i], d1 = b->inst_doc[i + 1];
    const int64_t *so = b->sent_off, *ds = b->doc_sent;
    const double cand = (double)(so[ds[d0 + 1]] - so[ds[d0]]);
    const double sents = (double)(ds[d0 + 1] - ds[d0]);
    const double refs = (double)(so[ds[d1]] - so[ds[d0 + 1]]);
    return (sents + cand / 64 + 1) * (refs + 1);
}

int lsum_range(void *ctx, size_t begin, size_t end) {
    const LsumBatch *b = (const LsumBatch *)ctx;
    Work w;
    memset(&w, 0, sizeof(w));
    w.scratch = b->scratch;
    int rc = 0;
    for (size_t i = begin; i < end && rc == 0; i++) rc = lsum_instance(&w, b, i);
    lsum_work_free(&w);
    return rc;
}
