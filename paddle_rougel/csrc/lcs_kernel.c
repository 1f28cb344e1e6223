/*
 * Hyyro's bit-vector LCS (Allison-Dix / Crochemore et al. family): lcs_step.h's step,
 * with the candidate as the bit side.
 *
 * Memory per instance is O(n + sum(len(ref))): the candidate is processed one
 * 64-position word at a time ("word-major"), with one carry bit per reference
 * position kept between words.  Masks exist only for the 64 positions of the
 * current word, so a 100k x 100k pair needs ~1 MB, never an n x m table.
 *
 * Token ids are remapped per instance to a dense 1..k range over the
 * candidate's alphabet (0 = "not in the candidate": an all-zero mask).
 *
 * With vector lanes (b->simd > 0: every id of the batch below 0x10000), an instance whose
 * candidate has at most 64 tokens and whose references at most PAIRS_LANE_STEPS instead
 * sends each (candidate, reference) pair to the lanes of pairs_simd.c, PAIRS_LANES pairs
 * at a time (the masks by vector compares: no remapping, no table).
 */
#include "lcs_kernel.h"

#include <stdlib.h>
#include <string.h>

#include "bitops.h"
#include "lcs_step.h"
#include "pairs_simd.h"
#include "tokmap.h"

typedef struct {
    TokMap map;                /* token -> local id */
    uint32_t *a_ids;           /* candidate local ids */
    uint32_t *b_ids;           /* all references' local ids, concatenated */
    size_t a_cap, b_cap;
    LcsScratch s;
} Work;

static void work_free(Work *w) {
    tokmap_free(&w->map);
    free(w->a_ids); free(w->b_ids);
    lcs_scratch_free(&w->s);
}

void lcs_scratch_free(LcsScratch *s) {
    free(s->mw); free(s->carry);
    memset(s, 0, sizeof(*s));
}

/* a_ids / b_ids for one instance; returns the alphabet size k, or -1. */
static int64_t local_ids(Work *w, const tok_t *a, int64_t n, const tok_t *b, int64_t total_b) {
    if (tokmap_reserve(&w->map, (size_t)n) < 0) return -1;
    if (grow((void **)&w->a_ids, &w->a_cap, (size_t)n, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->b_ids, &w->b_cap, (size_t)total_b, sizeof(uint32_t)) < 0) return -1;
    tokmap_clear(&w->map);
    uint32_t k = 0;
    for (int64_t p = 0; p < n; p++) w->a_ids[p] = tokmap_add(&w->map, a[p], &k);
    for (int64_t q = 0; q < total_b; q++) w->b_ids[q] = tokmap_get(&w->map, b[q]);
    return k;
}

/* Candidate of at most 64 tokens: one word, no carries between words. */
static void lcs_one_word(uint64_t *mw, const uint32_t *A, int64_t n, const uint32_t *B,
                         const int64_t *ref_len, int64_t nrefs, int64_t *out) {
    for (int64_t p = 0; p < n; p++) mw[A[p]] |= (uint64_t)1 << p;
    const uint64_t valid = (n == 64) ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
    for (int64_t r = 0; r < nrefs; r++) {
        uint64_t V = ~(uint64_t)0;
        const int64_t m = ref_len[r];
        for (int64_t j = 0; j < m; j++) V = lcs_step(V, mw[B[j]]);
        B += m;
        out[r] = popcount64(~V & valid);
    }
}

/* Longer candidates: word by word, each reference position keeps its carry. */
static void lcs_words(uint64_t *mw, uint8_t *carry, const uint32_t *A, int64_t n, const uint32_t *B0,
                      const int64_t *ref_len, int64_t nrefs, int64_t total_b, int64_t *out) {
    memset(carry, 0, (size_t)total_b);
    for (int64_t r = 0; r < nrefs; r++) out[r] = 0;
    for (int64_t p0 = 0; p0 < n; p0 += 64) {
        const int64_t p1 = (p0 + 64 < n) ? p0 + 64 : n;
        for (int64_t p = p0; p < p1; p++) mw[A[p]] |= (uint64_t)1 << (p - p0);
        const int64_t nb = p1 - p0;
        const uint64_t valid = (nb == 64) ? ~(uint64_t)0 : (((uint64_t)1 << nb) - 1);
        const uint32_t *B = B0;
        uint8_t *C = carry;
        for (int64_t r = 0; r < nrefs; r++) {
            uint64_t V = ~(uint64_t)0;
            const int64_t m = ref_len[r];
            for (int64_t j = 0; j < m; j++) V = lcs_step_carry(V, mw[B[j]], &C[j]);
            B += m;
            C += m;
            out[r] += popcount64(~V & valid);
        }
        for (int64_t p = p0; p < p1; p++) mw[A[p]] = 0;
    }
}

static int lcs_instance(Work *w, const LcsBatch *b, size_t i, int64_t *ref_len) {
    const int64_t t0 = b->inst_start[i], t1 = b->inst_start[i + 1];
    const int64_t nrefs = t1 - t0 - 1;
    const int64_t n = b->text_off[t0 + 1] - b->text_off[t0];
    const int64_t total_b = b->text_off[t1] - b->text_off[t0 + 1];
    int64_t *out = b->lcs + (t0 - (int64_t)i);  /* references before instance i: t0 - i */
    for (int64_t r = 0; r < nrefs; r++) ref_len[r] = b->text_off[t0 + 2 + r] - b->text_off[t0 + 1 + r];
    if (n == 0 || total_b == 0) {
        for (int64_t r = 0; r < nrefs; r++) out[r] = 0;
        return 0;
    }
    const int64_t k = local_ids(w, b->toks + b->text_off[t0], n, b->toks + b->text_off[t0 + 1], total_b);
    if (k < 0) return -1;
    return lcs_local(&w->s, w->a_ids, n, (uint32_t)k, w->b_ids, ref_len, nrefs, out);
}

int lcs_local(LcsScratch *s, const uint32_t *a, int64_t n, uint32_t k, const uint32_t *b,
              const int64_t *ref_len, int64_t nrefs, int64_t *out) {
    int64_t total_b = 0;
    for (int64_t r = 0; r < nrefs; r++) total_b += ref_len[r];
    if (n == 0 || total_b == 0) {
        for (int64_t r = 0; r < nrefs; r++) out[r] = 0;
        return 0;
    }
    if (grow((void **)&s->mw, &s->mw_cap, (size_t)k + 1, sizeof(uint64_t)) < 0) return -1;
    memset(s->mw, 0, ((size_t)k + 1) * sizeof(uint64_t));
    if (n <= 64) {
        lcs_one_word(s->mw, a, n, b, ref_len, nrefs, out);
        return 0;
    }
    if (grow((void **)&s->carry, &s->carry_cap, (size_t)total_b, 1) < 0) return -1;
    lcs_words(s->mw, s->carry, a, n, b, ref_len, nrefs, total_b, out);
    return 0;
}

double lcs_cost(const LcsBatch *b, size_t i) {
    const int64_t t0 = b->inst_start[i], t1 = b->inst_start[i + 1];
    const int64_t words = (b->text_off[t0 + 1] - b->text_off[t0] + 63) / 64 + 1;
    double c = 0;
    for (int64_t t = t0 + 1; t < t1; t++) c += (double)words * (double)(b->text_off[t + 1] - b->text_off[t] + 1);
    return c;
}

typedef struct {
    const tok_t *a, *r;
    int64_t n, m;
    int64_t *out;
} Lane;

/* Pairs ln[0 .. g) through the lanes (candidates of 1..64 tokens, references of
 * 1..PAIRS_LANE_STEPS); ms: PAIRS_LANE_STEPS * PAIRS_LANES masks, 64-byte aligned. */
static void lane_group(const LcsBatch *b, uint64_t *ms, const Lane *ln, int g) {
    int64_t steps = 0;
    for (int l = 0; l < g; l++)
        if (ln[l].m > steps) steps = ln[l].m;
    memset(ms, 0, (size_t)steps * PAIRS_LANES * sizeof(uint64_t));
    for (int l = 0; l < g; l++)
        pairs_fill(b->simd, ln[l].a, ln[l].n, (int)sizeof(tok_t), ln[l].r, ln[l].m, (int)sizeof(tok_t), ms + l,
                   PAIRS_LANES);
    uint64_t V[PAIRS_LANES];
    pairs_lanes(b->simd, ms, steps, V);
    for (int l = 0; l < g; l++) {
        const uint64_t valid = ln[l].n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << ln[l].n) - 1);
        *ln[l].out = popcount64(~V[l] & valid);
    }
}

/* 1 when instance i goes to the lanes: a candidate of 1..64 tokens, references of at most
 * PAIRS_LANE_STEPS. */
static int lane_instance(const LcsBatch *b, size_t i) {
    if (b->simd <= 0) return 0;
    const int64_t t0 = b->inst_start[i], t1 = b->inst_start[i + 1];
    const int64_t n = b->text_off[t0 + 1] - b->text_off[t0];
    if (n < 1 || n > 64) return 0;
    for (int64_t t = t0 + 1; t < t1; t++)
        if (b->text_off[t + 1] - b->text_off[t] > PAIRS_LANE_STEPS) return 0;
    return 1;
}

int lcs_range(void *ctx, size_t begin, size_t end) {
    const LcsBatch *b = (const LcsBatch *)ctx;
    Work w;
    memset(&w, 0, sizeof(w));
    int64_t *ref_len = NULL;
    size_t ref_cap = 0;
    void *ms = NULL;
    if (b->simd > 0 && posix_memalign(&ms, 64, PAIRS_LANE_STEPS * PAIRS_LANES * sizeof(uint64_t)) != 0) return -1;
    Lane ln[PAIRS_LANES];
    int g = 0;
    int rc = 0;
    for (size_t i = begin; i < end && rc == 0; i++) {
        if (lane_instance(b, i)) {
            const int64_t t0 = b->inst_start[i], t1 = b->inst_start[i + 1];
            const tok_t *a = b->toks + b->text_off[t0];
            const int64_t n = b->text_off[t0 + 1] - b->text_off[t0];
            int64_t *out = b->lcs + (t0 - (int64_t)i);  /* references before instance i: t0 - i */
            for (int64_t t = t0 + 1; t < t1; t++, out++) {
                const int64_t m = b->text_off[t + 1] - b->text_off[t];
                if (m == 0) { *out = 0; continue; }
                ln[g++] = (Lane){a, b->toks + b->text_off[t], n, m, out};
                if (g == PAIRS_LANES) { lane_group(b, (uint64_t *)ms, ln, g); g = 0; }
            }
            continue;
        }
        size_t nrefs = (size_t)(b->inst_start[i + 1] - b->inst_start[i] - 1);
        if (grow((void **)&ref_len, &ref_cap, nrefs + 1, sizeof(int64_t)) < 0) rc = -1;
        else rc = lcs_instance(&w, b, i, ref_len);
    }
    if (g && rc == 0) lane_group(b, (uint64_t *)ms, ln, g);
    free(ms);
    free(ref_len);
    work_free(&w);
    return rc;
}
