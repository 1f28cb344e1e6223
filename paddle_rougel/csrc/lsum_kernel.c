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
 * nothing); the text path tokenizes 64 bytes at a time into bitmaps and gives
 * words their ids without a branch between a new word and a seen one.
 */
#include "lsum_kernel.h"

#include <stdlib.h>
#include <string.h>

#include "bitops.h"
#include "tokmap.h"

/* Candidate sentences of up to 64 tokens are scored LANES at a time against a
 * reference sentence: lane l is one candidate sentence, and each step does the
 * same work on every lane, so the chains overlap (the walk back is a chain of
 * dependent steps; alone it leaves most of the CPU idle). */
#define LANES 4

/* The text path reads 64 bytes at a time, and 16 from each word start: the last
 * bytes of a text are read from a zero-padded copy of at most 80 of them. */
#define TAIL 96

typedef struct { uint64_t k1, k2; uint32_t stamp, id; } Slot;  /* a candidate word (text path) */
typedef struct { const char *p; uint32_t len; } Long;           /* where word `id` is, by id */

typedef struct {
    TokMap map;          /* token -> local id (token path) */
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
    /* text path: the end of one text, zero-padded; where its words start and end; the candidate's words */
    char tail[TAIL];
    uint32_t *starts, *ends;
    Slot *words;
    Long *longs;
    uint32_t wgen;
    int wshift;
    size_t wcap;
    int64_t *soff, *dsent;
    size_t ids_cap, mw_cap, gm_cap, rows_cap, tab_cap, carry_cap, mark_cap, cnt_cap, used_cap, rid_cap,
        rsent_cap, starts_cap, ends_cap, longs_cap, soff_cap, dsent_cap;
} Work;

static void work_free(Work *w) {
    tokmap_free(&w->map); free(w->ids); free(w->mw); free(w->gm); free(w->rows); free(w->tab); free(w->carry);
    free(w->mark); free(w->cnt); free(w->used); free(w->rid); free(w->rsent);
    free(w->starts); free(w->ends); free(w->words); free(w->longs); free(w->soff); free(w->dsent);
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

/* Index of the lowest set bit of x != 0. */
static inline int low_bit(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int b = 0;
    while (!(x & 1)) { x >>= 1; b++; }
    return b;
#endif
}

/* ------------------------------------------------------------- the pairs */

/* A reference sentence is given by the tokens the candidate has (rows: ids
 * rid[0..m)): a row whose token is in no candidate sentence changes nothing,
 * neither the recurrence (no match: the row stays) nor the walk back (no
 * go-left cell: it goes straight up).  Marks are per row. */

/* One row step of the recurrence on word V with match mask M (and carry-in c
 * for multi-word rows).  Returns the new row; *go_left gets the cells where
 * rouge-score's backtrack moves left when there is no match: t[i][j-1] ==
 * t[i][j] (bit j-1 of the new row) and t[i-1][j] == t[i][j] - 1, which is the
 * carry out of bit j-1 of V + (V & M) (the vertical difference). */
static inline uint64_t row_step(uint64_t V, uint64_t M, uint8_t *c, uint64_t *go_left) {
    const uint64_t U = V & M;
    const uint64_t S = c ? add_carry64(V, U, c) : V + U;
    const uint64_t carry_out = U | (V & ~U & ~S);  /* majority(V, U, carry in); U is inside V */
    const uint64_t next = S | (V & ~M);
    *go_left = next & carry_out;
    return next;
}

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The forward pass of group_pair: rows[i * LANES + l] = M | ~go_left (the
 * cells where the walk leaves row i), lane by lane as row_step. */
static void group_rows(const uint64_t *gm, const uint32_t *rid, int64_t m, uint64_t *rows) {
#if defined(__SSE2__) && LANES == 4
    const __m128i ones = _mm_set1_epi32(-1);
    __m128i V0 = ones, V1 = ones;
    for (int64_t i = 0; i < m; i++) {
        const __m128i *M = (const __m128i *)(gm + (size_t)rid[i] * LANES);
        const __m128i M0 = _mm_loadu_si128(M), M1 = _mm_loadu_si128(M + 1);
        const __m128i U0 = _mm_and_si128(V0, M0), U1 = _mm_and_si128(V1, M1);
        const __m128i S0 = _mm_add_epi64(V0, U0), S1 = _mm_add_epi64(V1, U1);
        const __m128i N0 = _mm_or_si128(S0, _mm_andnot_si128(M0, V0));
        const __m128i N1 = _mm_or_si128(S1, _mm_andnot_si128(M1, V1));
        const __m128i C0 = _mm_or_si128(U0, _mm_andnot_si128(S0, _mm_andnot_si128(U0, V0)));
        const __m128i C1 = _mm_or_si128(U1, _mm_andnot_si128(S1, _mm_andnot_si128(U1, V1)));
        _mm_storeu_si128((__m128i *)(rows + i * LANES), _mm_or_si128(M0, _mm_xor_si128(_mm_and_si128(N0, C0), ones)));
        _mm_storeu_si128((__m128i *)(rows + i * LANES) + 1,
                         _mm_or_si128(M1, _mm_xor_si128(_mm_and_si128(N1, C1), ones)));
        V0 = N0;
        V1 = N1;
    }
#else
    uint64_t V[LANES];
    for (int l = 0; l < LANES; l++) V[l] = ~(uint64_t)0;
    for (int64_t i = 0; i < m; i++) {
        const uint64_t *M = gm + (size_t)rid[i] * LANES;
        for (int l = 0; l < LANES; l++) {
            uint64_t go_left;
            V[l] = row_step(V[l], M[l], NULL, &go_left);
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
            for (int64_t j = 0; j < i1 - i0; j++) V = row_step(V, mw[r[j]], &w->carry[j], &out[j * W_out + q]);
        } else {
            uint64_t go_left;
            for (int64_t j = 0; j < i1 - i0; j++) V = row_step(V, mw[r[j]], &w->carry[j], &go_left);
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

/* Between instances w->used, w->mark and w->mw are all zero (whoever sets an
 * entry clears it), so an instance pays for its own tokens, not for a memset
 * of the buffers; they grow zeroed. */
static int grow_zeroed(void **p, size_t *cap, size_t need, size_t elt) {
    const size_t old = *cap;
    if (grow(p, cap, need, elt) < 0) return -1;
    if (*cap > old) memset((char *)*p + old * elt, 0, (*cap - old) * elt);
    return 0;
}

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
} Prepared;

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

/* hits[d]: the clipped union-LCS hits of reference d. */
static int instance_core(Work *w, const Prepared *P, int64_t *hits) {
    const int64_t *cso = P->cso;
    int64_t max_ref = 0, max_words = 1;
    for (int64_t r = 0; r < P->nrs; r++)
        if (w->rsent[r + 1] - w->rsent[r] > max_ref) max_ref = w->rsent[r + 1] - w->rsent[r];
    for (int64_t c = 0; c < P->ncs; c++)
        if ((cso[c + 1] - cso[c] + 63) / 64 > max_words) max_words = (cso[c + 1] - cso[c] + 63) / 64;
    if (grow((void **)&w->gm, &w->gm_cap, (P->k + 1) * LANES, sizeof(uint64_t)) < 0) return -1;
    if (grow((void **)&w->rows, &w->rows_cap, (size_t)max_ref * LANES + 1, sizeof(uint64_t)) < 0) return -1;
    if (grow_zeroed((void **)&w->used, &w->used_cap, P->k + 1, sizeof(uint32_t)) < 0) return -1;
    if (max_words > 1) {
        if (grow_zeroed((void **)&w->mw, &w->mw_cap, P->k + 1, sizeof(uint64_t)) < 0) return -1;
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
    if (grow_zeroed((void **)&w->mark, &w->mark_cap, (size_t)(total - n) + 1, 1) < 0) return -1;
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
    return instance_core(w, &P, hits);
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
    work_free(&w);
    return rc;
}

/* ------------------------------------------------------------ ASCII text */

/* Word-at-a-time (8 bytes) on a padded copy of the text: byte k of a word is
 * text byte q + k; every byte of an ASCII text is < 0x80. */
#define B8(x) ((uint64_t)(x) * 0x0101010101010101ull)

static inline uint64_t load8(const char *p) {
    uint64_t x;
    memcpy(&x, p, 8);  /* a fixed size: one load */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

/* 0x80 in each byte of x (bytes < 0x80) that lies in [lo, hi], 0 elsewhere. */
static inline uint64_t bytes_in(uint64_t x, unsigned lo, unsigned hi) {
    return (x + B8(0x80 - lo)) & ~(x + B8(0x7F - hi)) & B8(0x80);
}

/* Bit k set iff byte k of t (0x80 or 0 per byte) is set: gathers bit 8k + 7 to bit k. */
static inline unsigned gather8(uint64_t t) { return (unsigned)(((t >> 7) * 0x0102040810204080ull) >> 56); }

/* Bit k set iff byte k of x is in [A-Za-z0-9], rouge-score's token characters
 * (for them, c | 0x20 is the lowercase). */
static inline unsigned alnum_bits8(uint64_t x) {
    return gather8(bytes_in(x, '0', '9') | bytes_in(x | B8(0x20), 'a', 'z'));
}

/* BELOW[k]: the bytes below byte k (k in 0..8) of a word. */
static const uint64_t BELOW[9] = {0, 0xFFull, 0xFFFFull, 0xFFFFFFull, 0xFFFFFFFFull, 0xFFFFFFFFFFull,
                                  0xFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFull, ~(uint64_t)0};

/* Bit k set iff byte k of the 64 bytes at p is in [A-Za-z0-9]; *nl: iff it is '\n'. */
#if defined(__SSE2__)
static inline uint64_t block_bits(const char *p, uint64_t *nl) {
    uint64_t out = 0, n = 0;
    for (int e = 0; e < 4; e++) {
        const __m128i x = _mm_loadu_si128((const __m128i *)(p + 16 * e));
        /* c - lo + (-128) < -128 + span, signed: c in [lo, lo + span) */
        const __m128i low = _mm_or_si128(x, _mm_set1_epi8(0x20));
        const __m128i a = _mm_cmplt_epi8(_mm_add_epi8(low, _mm_set1_epi8((char)(0x80 - 'a'))),
                                         _mm_set1_epi8((char)(0x80 + 26)));
        const __m128i d = _mm_cmplt_epi8(_mm_add_epi8(x, _mm_set1_epi8((char)(0x80 - '0'))),
                                         _mm_set1_epi8((char)(0x80 + 10)));
        out |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(a, d)) << (16 * e);
        n |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))) << (16 * e);
    }
    *nl = n;
    return out;
}
#else
static inline uint64_t block_bits(const char *p, uint64_t *nl) {
    uint64_t out = 0, n = 0;
    for (int e = 0; e < 8; e++) {
        const uint64_t x = load8(p + 8 * e);
        out |= (uint64_t)alnum_bits8(x) << (8 * e);
        n |= (uint64_t)gather8(bytes_in(x, '\n', '\n')) << (8 * e);
    }
    *nl = n;
    return out;
}
#endif

/* Appends base + the index of every set bit of bits to out (in order), returns
 * how many.  Writes up to 16 entries whatever the count (out needs that room):
 * the common counts take no unpredictable branch. */
static inline int64_t flatten(uint64_t bits, uint32_t base, uint32_t *out) {
    const int cnt = popcount64_words(bits);  /* per 64 bytes: no library call */
    for (int k = 0; k < 8; k++) {
        out[k] = base + (uint32_t)low_bit(bits | ((uint64_t)1 << 63));  /* past the last: any value */
        bits &= bits - 1;
    }
    if (cnt > 8) {
        for (int k = 8; k < 16; k++) {
            out[k] = base + (uint32_t)low_bit(bits | ((uint64_t)1 << 63));
            bits &= bits - 1;
        }
        for (int k = 16; k < cnt; k++) {
            out[k] = base + (uint32_t)low_bit(bits);
            bits &= bits - 1;
        }
    }
    return cnt;
}

/* Room for the words of a candidate of `need` tokens (load <= 1/8: a word is found at its first
 * slot, with no branch to mispredict) and a new generation. */
static int words_reserve(Work *w, size_t need) {
    if (grow((void **)&w->longs, &w->longs_cap, need + 1, sizeof(*w->longs)) < 0) return -1;
    size_t cap = 256;
    int shift = 56;
    while (cap < 8 * need) { cap *= 2; shift--; }
    if (cap > w->wcap) {
        free(w->words);
        w->words = (Slot *)calloc(cap, sizeof(*w->words));
        w->wgen = 0;
        if (!w->words) { w->wcap = 0; return -1; }
        w->wcap = cap;
        w->wshift = shift;
    }
    if (++w->wgen == 0) { memset(w->words, 0, w->wcap * sizeof(*w->words)); w->wgen = 1; }
    return 0;
}

/* Words are compared case-insensitively by (k1, k2): k1 the first 8 bytes,
 * lowercased, zero bytes after a shorter word; k2 the next 8 so, or, past 16
 * bytes, a hash of the rest with the top bit set, then checked byte by byte. */
static uint64_t long_key(const char *p, int64_t len) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (int64_t q = 8; q < len; q++) h = (h ^ (uint64_t)((unsigned char)p[q] | 0x20)) * 0x100000001B3ull;
    return h | ((uint64_t)1 << 63);
}

static int long_same(const Long *o, const char *p, int64_t len) {
    if (o->len != len) return 0;
    for (int64_t q = 8; q < len; q++)
        if (((unsigned char)o->p[q] | 0x20) != ((unsigned char)p[q] | 0x20)) return 0;
    return 1;
}

/* The slot of word (k1, k2): its own, or the empty one where it goes.  Probing
 * on is rare (the table is at most 1/8 full), so it is out of the fast path. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static Slot *word_probe(const Work *w, size_t s, uint64_t k1, uint64_t k2, const char *p, int64_t len) {
    const size_t mask = w->wcap - 1;
    for (;; s = (s + 1) & mask) {
        Slot *x = &w->words[s];
        if (x->stamp != w->wgen) return x;
        if (x->k1 == k1 && x->k2 == k2 && (!(k2 >> 63) || long_same(&w->longs[x->id], p, len))) return x;
    }
}

static inline Slot *word_slot_of(const Work *w, uint64_t k1, uint64_t k2, const char *p, int64_t len) {
    const size_t s = (size_t)(((k1 ^ (k2 * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull) >> w->wshift);
    Slot *x = &w->words[s];
    /* the common cases, an empty slot or the word itself (16 bytes or fewer), take no branch */
    const uint64_t fast = (uint64_t)(x->stamp != w->wgen) | (((x->k1 ^ k1) | (x->k2 ^ k2)) == 0 && !(k2 >> 63));
    return fast ? x : word_probe(w, s, k1, k2, p, len);
}

/* Id of a candidate word (1, 2, ... in order of first occurrence); p, len: where
 * it is in the caller's text, kept for the long-word check. */
static inline uint32_t word_add(Work *w, uint64_t k1, uint64_t k2, const char *p, int64_t len, uint32_t *k) {
    Slot *x = word_slot_of(w, k1, k2, p, len);
    const uint32_t fresh = x->stamp != w->wgen, keep = fresh - 1;  /* keep: all ones for a seen word */
    const uint32_t id = ((*k + 1) & ~keep) | (x->id & keep);     /* new or seen without a branch */
    *k += fresh;
    w->cnt[id] = (w->cnt[id] & keep) + 1;  /* the candidate's count of the word */
    x->stamp = w->wgen; x->k1 = k1; x->k2 = k2; x->id = id;
    if (k2 >> 63) { w->longs[id].p = p; w->longs[id].len = (uint32_t)len; }  /* only long words need it */
    return id;
}

/* Id of a reference word in the candidate, or 0. */
static inline uint32_t word_find(const Work *w, uint64_t k1, uint64_t k2, const char *p, int64_t len) {
    const Slot *x = word_slot_of(w, k1, k2, p, len);
    return x->id & ((uint32_t)(x->stamp != w->wgen) - 1);
}

/* One text, tokenized: in passes, the bitmaps of token bytes and newlines, 64
 * bytes at a time; where words start and end (and, at each newline, how many
 * words came before: a sentence end, to w->soff); then each word's id.  The
 * candidate (add) appends its words' ids to w->ids and counts them in w->cnt;
 * a reference appends the ids of its words the candidate has to w->rid (*nr
 * of them so far) and where each of its sentences starts there to w->rsent
 * (sentence s at index s - ncs).  Returns the text's tokens, or -1 when out of
 * memory. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline int64_t tokenize_text(Work *w, const char *c, int64_t len, int add, int64_t *ntok, int64_t *nsent,
                                    uint32_t *k, int64_t *nr, int64_t ncs) {
    const int64_t nw = (len + 63) / 64;  /* bitmap words */
    const size_t most = (size_t)len / 2 + 1 + 16;  /* words, and room for flatten's extra entries */
    if (grow((void **)&w->starts, &w->starts_cap, most, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->ends, &w->ends_cap, most, sizeof(uint32_t)) < 0) return -1;
    uint32_t *S = w->starts, *E = w->ends;
    /* bytes from tb on are read from the copy: the last block, and words within 16 of the end */
    int64_t tb = len - 16 < (nw - 1) * 64 ? len - 16 : (nw - 1) * 64;
    if (tb < 0) tb = 0;
    memset(w->tail, 0, TAIL);  /* zero bytes: no token character */
    memcpy(w->tail, c + tb, (size_t)(len - tb));  /* len - tb <= 80; every read ends before 80 */
    int64_t *soff = w->soff;
    const int64_t nt0 = *ntok, ns0 = *nsent;
    int64_t ns = ns0, nws = 0, nwe = 0, last = 0;  /* words started, ended; words before the last sentence end */
    uint64_t carry = 0;
    for (int64_t q = 0; q <= nw; q++) {
        uint64_t nl = 0;
        const uint64_t b = q == nw ? 0 : block_bits(64 * q + 64 <= len ? c + 64 * q : w->tail + (64 * q - tb), &nl);
        const uint64_t starts = b & ~((b << 1) | carry), ends = ~b & ((b << 1) | carry);
        carry = b >> 63;
        while (nl) {  /* a newline: the words before it end a sentence (if any since the last) */
            const int64_t before = nws + popcount64_words(starts & (((uint64_t)1 << low_bit(nl)) - 1));
            if (before > last) { soff[++ns] = nt0 + before; last = before; }
            nl &= nl - 1;
        }
        nws += flatten(starts, (uint32_t)(64 * q), S + nws);
        nwe += flatten(ends, (uint32_t)(64 * q), E + nwe);
    }
    if (nws > last) soff[++ns] = nt0 + nws;
    /* ids; nwe == nws (zero bytes follow the text) */
    uint32_t *ids = w->ids + nt0, *rid = w->rid, kk = *k;
    int64_t r = *nr;
    for (int64_t i = 0; i < nws; i++) {
        const int64_t s = S[i], wl = (int64_t)E[i] - s;
        const char *p = s + 16 <= len ? c + s : w->tail + (s - tb);
        const uint64_t k1 = (load8(p) | B8(0x20)) & BELOW[wl < 8 ? wl : 8];
        uint64_t k2 = (load8(p + 8) | B8(0x20)) & BELOW[wl < 8 ? 0 : wl < 16 ? wl - 8 : 8];
        if (wl > 16) k2 = long_key(c + s, wl);
        if (add) {
            ids[i] = word_add(w, k1, k2, c + s, wl, &kk);
        } else {
            const uint32_t id = word_find(w, k1, k2, c + s, wl);
            rid[r] = id;
            S[i] = (uint32_t)(r - *nr);  /* S[i] is read: now the rows before word i */
            r += id != 0;  /* no branch: unpredictable */
        }
    }
    if (!add) {
        S[nws] = (uint32_t)(r - *nr);
        for (int64_t t = ns0; t < ns; t++) w->rsent[t - ncs] = *nr + S[soff[t] - nt0];
        w->rsent[ns - ncs] = r;
    }
    *ntok = nt0 + nws; *nsent = ns; *k = kk; *nr = r;
    return nws;
}

static int lsum_text_instance(Work *w, const LsumTextBatch *b, size_t i) {
    const int64_t t0 = b->inst_text[i], t1 = b->inst_text[i + 1];
    int64_t bytes = 0;
    for (int64_t t = t0; t < t1; t++) bytes += b->len[t];
    /* a text of L bytes has at most (L + 1) / 2 tokens, and a kept sentence has a token */
    const size_t max_tok = (size_t)bytes / 2 + (size_t)(t1 - t0) + 2;
    const size_t max_cand = (size_t)b->len[t0] / 2 + 2;
    if (grow((void **)&w->ids, &w->ids_cap, max_tok, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->soff, &w->soff_cap, max_tok + 1, sizeof(int64_t)) < 0) return -1;
    if (grow((void **)&w->rid, &w->rid_cap, max_tok, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->rsent, &w->rsent_cap, max_tok + 1, sizeof(int64_t)) < 0) return -1;
    if (grow_zeroed((void **)&w->mark, &w->mark_cap, max_tok, 1) < 0) return -1;
    if (grow((void **)&w->cnt, &w->cnt_cap, max_cand, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->dsent, &w->dsent_cap, (size_t)(t1 - t0) + 1, sizeof(int64_t)) < 0) return -1;
    if (words_reserve(w, max_cand) < 0) return -1;
    int64_t ntok = 0, nsent = 0, nr = 0, ncs = 0;
    uint32_t k = 0;
    w->soff[0] = 0;
    w->rsent[0] = 0;
    for (int64_t t = t0; t < t1; t++) {
        w->dsent[t - t0] = nsent;
        const int64_t got = t == t0 ? tokenize_text(w, b->chars[t], b->len[t], 1, &ntok, &nsent, &k, &nr, 0)
                                    : tokenize_text(w, b->chars[t], b->len[t], 0, &ntok, &nsent, &k, &nr, ncs);
        if (got < 0) return -1;
        b->doc_len[t] = got;
        if (t == t0) ncs = nsent;
    }
    w->dsent[t1 - t0] = nsent;
    int64_t *hits = b->hits + (t0 - (int64_t)i);
    if (nr == 0) {  /* no reference word is in the candidate (or either side is empty) */
        for (int64_t t = t0 + 1; t < t1; t++) hits[t - t0 - 1] = 0;
        return 0;
    }
    for (int64_t t = 1; t <= t1 - t0; t++) w->dsent[t] -= ncs;  /* the references' sentences from 0 */
    const Prepared P = {w->ids, w->soff, 0, ncs, k, nsent - ncs, w->dsent + 1, t1 - t0 - 1};
    return instance_core(w, &P, hits);
}

/* Character q of text t (char mode). */
static inline tok_t text_char(const LsumTextBatch *b, int64_t t, int64_t q) {
    const char *c = b->chars[t];
    switch (b->kind[t]) {
    case 1: return ((const uint8_t *)c)[q];
    case 2: return ((const uint16_t *)(const void *)c)[q];
    default: return ((const uint32_t *)(const void *)c)[q];
    }
}

/* Char mode: every character but '\n' a token, a sentence ends at '\n'.  The
 * candidate's characters get local ids 1..k (counted in w->cnt); a reference's
 * characters the candidate has become rows, as in tokenize_text. */
static int char_instance(Work *w, const LsumTextBatch *b, size_t i) {
    const int64_t t0 = b->inst_text[i], t1 = b->inst_text[i + 1];
    int64_t chars = 0;
    for (int64_t t = t0; t < t1; t++) chars += b->len[t];
    const size_t nc = (size_t)b->len[t0];
    /* sentences: at most one per character and one more per text */
    const size_t max_sent = (size_t)chars + (size_t)(t1 - t0) + 1;
    if (tokmap_reserve(&w->map, nc + 1) < 0) return -1;
    if (grow((void **)&w->ids, &w->ids_cap, nc + 1, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->soff, &w->soff_cap, nc + 2, sizeof(int64_t)) < 0) return -1;
    if (grow((void **)&w->rid, &w->rid_cap, (size_t)chars + 1, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->rsent, &w->rsent_cap, max_sent, sizeof(int64_t)) < 0) return -1;
    if (grow_zeroed((void **)&w->mark, &w->mark_cap, (size_t)chars + 1, 1) < 0) return -1;
    if (grow((void **)&w->cnt, &w->cnt_cap, nc + 2, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->dsent, &w->dsent_cap, (size_t)(t1 - t0) + 1, sizeof(int64_t)) < 0) return -1;
    tokmap_clear(&w->map);
    /* the candidate */
    uint32_t k = 0;
    int64_t n = 0, ncs = 0;
    w->soff[0] = 0;
    for (int64_t q = 0; q < (int64_t)nc; q++) {
        const tok_t c = text_char(b, t0, q);
        if (c == '\n') {
            if (n > w->soff[ncs]) w->soff[++ncs] = n;
            continue;
        }
        const uint32_t seen = k, id = tokmap_add(&w->map, c, &k);
        if (k != seen) w->cnt[id] = 0;  /* a new character */
        w->cnt[id]++;
        w->ids[n++] = id;
    }
    if (n > w->soff[ncs]) w->soff[++ncs] = n;
    b->doc_len[t0] = n;
    /* the references */
    int64_t nr = 0, ns = 0;
    for (int64_t t = t0 + 1; t < t1; t++) {
        w->dsent[t - t0 - 1] = ns;
        int64_t m = 0;
        w->rsent[ns] = nr;
        for (int64_t q = 0; q < b->len[t]; q++) {
            const tok_t c = text_char(b, t, q);
            if (c == '\n') {
                if (nr > w->rsent[ns]) w->rsent[++ns] = nr;  /* a sentence with rows */
                continue;
            }
            m++;
            const uint32_t id = tokmap_get(&w->map, c);
            w->rid[nr] = id;
            nr += id != 0;
        }
        if (nr > w->rsent[ns]) w->rsent[++ns] = nr;
        b->doc_len[t] = m;
    }
    w->dsent[t1 - t0 - 1] = ns;
    int64_t *hits = b->hits + (t0 - (int64_t)i);
    if (nr == 0) {  /* no reference character is in the candidate (or either side is empty) */
        for (int64_t t = t0 + 1; t < t1; t++) hits[t - t0 - 1] = 0;
        return 0;
    }
    const Prepared P = {w->ids, w->soff, 0, ncs, k, ns, w->dsent, t1 - t0 - 1};
    return instance_core(w, &P, hits);
}

/* At most the tokens of text t: a character each (char mode), or a word of one
 * byte or more between separators. */
static int64_t text_token_bound(const LsumTextBatch *b, int64_t t) {
    return b->kind ? b->len[t] : (b->len[t] + 1) / 2;
}

static inline int ascii_alnum(tok_t c) {
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* The most tokens of a sentence (a non-empty line) of text t, and its index among them. */
static int64_t text_longest_sentence(const LsumTextBatch *b, int64_t t, int64_t *index) {
    int64_t best = 0, cur = 0, line_len = 0, sent = 0;
    tok_t prev = '\n';
    *index = 0;
    for (int64_t q = 0; q <= b->len[t]; q++) {
        const tok_t c = q < b->len[t] ? (b->kind ? text_char(b, t, q) : (tok_t)(unsigned char)b->chars[t][q]) : '\n';
        if (c == '\n') {
            if (cur > best) { best = cur; *index = sent; }
            sent += line_len > 0;
            cur = line_len = 0;
        } else {
            line_len++;
            cur += b->kind ? 1 : (ascii_alnum(c) && !ascii_alnum(prev));
        }
        prev = c;
    }
    return best;
}

void lsum_text_need(const LsumTextBatch *b, size_t i, size_t share, LsumNeed *out) {
    const int64_t t0 = b->inst_text[i], t1 = b->inst_text[i + 1];
    memset(out, 0, sizeof(*out));
    int64_t n = text_token_bound(b, t0), m = 0;
    if (n <= 64) return;
    for (int64_t t = t0 + 1; t < t1; t++)
        if (text_token_bound(b, t) > m) m = text_token_bound(b, t);
    /* a bound from the lengths (the whole table's size bounds the checkpointed one): the common case ends here */
    out->need = (size_t)m * (size_t)((n + 63) / 64) * sizeof(uint64_t);
    if (out->need <= share) return;
    int64_t idx;
    out->n = text_longest_sentence(b, t0, &idx);
    out->cand_sent = idx;
    out->need = 0;
    if (out->n <= 64) return;
    for (int64_t t = t0 + 1; t < t1; t++) {
        const int64_t x = text_longest_sentence(b, t, &idx);
        if (x > out->m) { out->m = x; out->ref = t - t0 - 1; out->ref_sent = idx; }
    }
    out->need = lsum_pair_scratch(out->n, out->m);
}

double lsum_text_cost(const LsumTextBatch *b, size_t i) {
    const int64_t t0 = b->inst_text[i], t1 = b->inst_text[i + 1];
    double refs = 0;
    for (int64_t t = t0 + 1; t < t1; t++) refs += (double)b->len[t];
    if (b->kind) return ((double)b->len[t0] / 64 + 4) * (refs + 1);  /* a token per character */
    return ((double)b->len[t0] / 64 + 4) * (refs / 6 + 1);  /* ~6 bytes per word */
}

/* The texts of instance i towards the cache (they are read from memory, scattered). */
static void prefetch_instance(const LsumTextBatch *b, size_t i) {
#if defined(__GNUC__) || defined(__clang__)
    for (int64_t t = b->inst_text[i]; t < b->inst_text[i + 1]; t++)
        for (int64_t q = 0; q < b->len[t]; q += 64) __builtin_prefetch(b->chars[t] + q);
#else
    (void)b; (void)i;
#endif
}

int lsum_text_range(void *ctx, size_t begin, size_t end) {
    const LsumTextBatch *b = (const LsumTextBatch *)ctx;
    Work w;
    memset(&w, 0, sizeof(w));
    w.scratch = b->scratch;
    int rc = 0;
    for (size_t i = begin; i < end && rc == 0; i++) {
        if (i + 1 < end && !b->kind) prefetch_instance(b, i + 1);
        rc = b->kind ? char_instance(&w, b, i) : lsum_text_instance(&w, b, i);
    }
    work_free(&w);
    return rc;
}
