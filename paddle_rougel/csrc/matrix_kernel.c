/*
 * All-pairs LCS (rouge_l_matrix): queries against a pool of choices.
 *
 * Queries of up to 64 tokens go MATRIX_LANES at a time through every choice: lane l of
 * the state vector is query l's bit-vector V, and the match masks of a choice token
 * for all lanes are one vector PM[id] (rapidfuzz's layout for its cdist), so each
 * choice token costs one load and a handful of vector operations for four pairs.
 * Ids are global (dense over the whole matrix); a per-thread table loc[id] gives the
 * group's local row of PM (0: a token no query of the group has, an all-zero row), so
 * PM stays small (at most 4 * 64 + 1 rows) and is set and cleared by the group's own
 * tokens only.  Longer queries: the multi-word recurrence, one pair at a time.
 *
 * The lane code is written once with GCC vector extensions and compiled twice: for
 * AVX2 (with popcnt) and for the baseline; matrix_simd_available picks at run time.
 */
#include "matrix_kernel.h"

#include <stdlib.h>
#include <string.h>

#include "bitops.h"
#include "lcs_step.h"
#include "tokmap.h"

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define MATRIX_X86 1
#endif

typedef lcs_v4 v4u;  /* lcs_step.h's 4 lanes */

int64_t matrix_items(const int64_t *q_off, int64_t Q, int64_t *qidx, int64_t *item) {
    int64_t k = 0, at = 0, in_group = 0;
    item[0] = 0;
    for (int64_t q = 0; q < Q; q++) {  /* short queries first, in order, MATRIX_LANES an item */
        if (q_off[q + 1] - q_off[q] > 64) continue;
        qidx[at++] = q;
        if (++in_group == MATRIX_LANES) { item[++k] = at; in_group = 0; }
    }
    if (in_group) item[++k] = at;
    for (int64_t q = 0; q < Q; q++) {  /* then each long query alone */
        if (q_off[q + 1] - q_off[q] <= 64) continue;
        qidx[at++] = q;
        item[++k] = at;
    }
    return k;
}

double matrix_cost(const MatrixJob *j, size_t k) {
    const int64_t total_c = j->c_off[j->C];
    const int64_t a = j->item[k], b = j->item[k + 1];
    if (b - a > 1 || j->q_off[j->qidx[a] + 1] - j->q_off[j->qidx[a]] <= 64)
        return (double)(total_c + j->C) * (j->simd ? 1.0 : 2.0);
    const int64_t n = j->q_off[j->qidx[a] + 1] - j->q_off[j->qidx[a]];
    return (double)(total_c + j->C) * (double)((n + 63) / 64) * MATRIX_LANES;
}

typedef struct {
    uint32_t *loc;      /* [V + 1]: id -> local row (0: none) */
    v4u *pm;            /* [4 * 64 + 1] rows of lane masks */
    uint64_t *mw;       /* long queries: masks by local row, one 64-token block after another */
    uint8_t *carry;     /* long queries: one carry per choice position */
    size_t mw_cap, carry_cap;
} MWork;

/* One group's lanes against every choice, two choices at a time (two independent chains
 * of the recurrence in flight); the same source for both targets. */
#define STEP(V, id)                                                                          \
    do {                                                                                     \
        const v4u M_ = pm[loc[(id)]];                                                        \
        LCS_STEP_VEC(V, M_);                                                                 \
    } while (0)
#define LANES_BODY(POPCOUNT)                                                                 \
    {                                                                                        \
        const v4u ones = {~0ull, ~0ull, ~0ull, ~0ull};                                       \
        int64_t c = 0;                                                                       \
        for (; c + 1 < j->C; c += 2) {                                                       \
            const uint32_t *t0 = j->toks + j->c_off[c], *e0 = j->toks + j->c_off[c + 1];     \
            const uint32_t *t1 = e0, *e1 = j->toks + j->c_off[c + 2];                        \
            v4u V0 = ones, V1 = ones;                                                        \
            for (; t0 < e0 && t1 < e1; t0++, t1++) {                                         \
                STEP(V0, *t0);                                                               \
                STEP(V1, *t1);                                                               \
            }                                                                                \
            for (; t0 < e0; t0++) STEP(V0, *t0);                                             \
            for (; t1 < e1; t1++) STEP(V1, *t1);                                             \
            for (int l = 0; l < lanes; l++) {                                                \
                out[l][c] = (int32_t)POPCOUNT(~V0[l] & valid[l]);                            \
                out[l][c + 1] = (int32_t)POPCOUNT(~V1[l] & valid[l]);                        \
            }                                                                                \
        }                                                                                    \
        for (; c < j->C; c++) {                                                              \
            const uint32_t *t = j->toks + j->c_off[c], *e = j->toks + j->c_off[c + 1];       \
            v4u V = ones;                                                                    \
            for (; t < e; t++) STEP(V, *t);                                                  \
            for (int l = 0; l < lanes; l++) out[l][c] = (int32_t)POPCOUNT(~V[l] & valid[l]);  \
        }                                                                                    \
    }

#ifdef MATRIX_X86
__attribute__((target("avx2,popcnt"))) static void lanes_avx2(const MatrixJob *j, const v4u *pm, const uint32_t *loc,
                                                               int lanes, const uint64_t *valid, int32_t **out)
LANES_BODY(__builtin_popcountll)
#endif

static void lanes_portable(const MatrixJob *j, const v4u *pm, const uint32_t *loc, int lanes, const uint64_t *valid,
                           int32_t **out)
LANES_BODY(popcount64)

int matrix_simd_available(void) {
#ifdef MATRIX_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
#else
    return 0;
#endif
}

static void group(const MatrixJob *j, MWork *w, const int64_t *qs, int lanes) {
    uint32_t rows = 0;
    uint64_t valid[MATRIX_LANES] = {0};
    int32_t *out[MATRIX_LANES];
    memset(w->pm, 0, sizeof(v4u));  /* row 0: no query has the token */
    for (int l = 0; l < lanes; l++) {
        const int64_t q = qs[l], n = j->q_off[q + 1] - j->q_off[q];
        const uint32_t *a = j->toks + j->q_off[q];
        out[l] = j->lcs + q * j->C;
        valid[l] = n == 64 ? ~0ull : (((uint64_t)1 << n) - 1);
        for (int64_t p = 0; p < n; p++) {
            if (!w->loc[a[p]]) {
                w->loc[a[p]] = ++rows;
                memset(&w->pm[rows], 0, sizeof(v4u));
            }
            w->pm[w->loc[a[p]]][l] |= (uint64_t)1 << p;
        }
    }
#ifdef MATRIX_X86
    if (j->simd) lanes_avx2(j, w->pm, w->loc, lanes, valid, out);
    else
#endif
        lanes_portable(j, w->pm, w->loc, lanes, valid, out);
    for (int l = 0; l < lanes; l++) {  /* clear what the group set */
        const int64_t q = qs[l];
        for (int64_t p = j->q_off[q]; p < j->q_off[q + 1]; p++) w->loc[j->toks[p]] = 0;
    }
}

/* A query over 64 tokens against every choice: block by block (64 query positions), each
 * choice position keeping the carry out of the block before (as lcs_kernel.c's lcs_words). */
static int long_query(const MatrixJob *j, MWork *w, int64_t q) {
    const int64_t n = j->q_off[q + 1] - j->q_off[q], nb = (n + 63) / 64;
    const uint32_t *a = j->toks + j->q_off[q];
    uint32_t rows = 0;
    for (int64_t p = 0; p < n; p++)
        if (!w->loc[a[p]]) w->loc[a[p]] = ++rows;
    int64_t longest = 0;
    for (int64_t c = 0; c < j->C; c++)
        if (j->c_off[c + 1] - j->c_off[c] > longest) longest = j->c_off[c + 1] - j->c_off[c];
    if (grow((void **)&w->mw, &w->mw_cap, ((size_t)rows + 1) * (size_t)nb, sizeof(uint64_t)) < 0 ||
        grow((void **)&w->carry, &w->carry_cap, (size_t)longest + 1, 1) < 0) {
        for (int64_t p = 0; p < n; p++) w->loc[a[p]] = 0;
        return -1;
    }
    uint64_t *mw = w->mw;  /* block b's masks: mw[b * (rows + 1) .. ), by local row */
    const size_t stride = (size_t)rows + 1;
    memset(mw, 0, stride * (size_t)nb * sizeof(uint64_t));
    for (int64_t p = 0; p < n; p++) mw[(size_t)(p / 64) * stride + w->loc[a[p]]] |= (uint64_t)1 << (p % 64);
    int32_t *out = j->lcs + q * j->C;
    for (int64_t c = 0; c < j->C; c++) {
        const uint32_t *t = j->toks + j->c_off[c];
        const int64_t m = j->c_off[c + 1] - j->c_off[c];
        uint8_t *carry = w->carry;
        memset(carry, 0, (size_t)m);
        int64_t z = 0;
        for (int64_t b = 0; b < nb; b++) {
            const uint64_t *M = mw + (size_t)b * stride;
            uint64_t V = ~0ull;
            for (int64_t i = 0; i < m; i++) V = lcs_step_carry(V, M[w->loc[t[i]]], &carry[i]);
            const int64_t bits = b == nb - 1 ? n - 64 * b : 64;
            z += popcount64(~V & (bits == 64 ? ~0ull : (((uint64_t)1 << bits) - 1)));
        }
        out[c] = (int32_t)z;
    }
    for (int64_t p = 0; p < n; p++) w->loc[a[p]] = 0;
    return 0;
}

int matrix_range(void *ctx, size_t begin, size_t end) {
    const MatrixJob *j = (const MatrixJob *)ctx;
    MWork w;
    memset(&w, 0, sizeof(w));
    w.loc = (uint32_t *)calloc((size_t)j->V + 1, sizeof(uint32_t));
    void *pm = NULL;
    if (posix_memalign(&pm, 32, (MATRIX_LANES * 64 + 1) * sizeof(v4u)) == 0) w.pm = (v4u *)pm;
    int rc = (w.loc && w.pm) ? 0 : -1;
    for (size_t k = begin; k < end && rc == 0; k++) {
        const int64_t a = j->item[k], b = j->item[k + 1];
        const int64_t q = j->qidx[a];
        if (b - a == 1 && j->q_off[q + 1] - j->q_off[q] > 64) rc = long_query(j, &w, q);
        else group(j, &w, j->qidx + a, (int)(b - a));
    }
    free(w.loc); free(w.pm); free(w.mw); free(w.carry);
    return rc;
}

/* The operations and their order are numpy's in scoring.py (built with -ffp-contract=off:
 * no fused multiply-add), so every value is the float64 the Python path computes. */
int score_rows(void *ctx, size_t begin, size_t end) {
    const ScoreJob *S = (const ScoreJob *)ctx;
    const double a = S->alpha;
    for (size_t q = begin; q < end; q++) {
        const double pd = (double)S->qlen[q];
        const int32_t *row = S->lcs + (int64_t)q * S->C;
        float *fo = S->f64 ? NULL : S->f + (int64_t)q * S->C;
        for (int64_t c = 0; c < S->C; c++) {
            const double l = (double)row[c], rd = (double)S->clen[c];
            const double p = pd > 0 ? l / pd : 0.0, r = rd > 0 ? l / rd : 0.0;
            double f;
            if (a < 0) {  /* f_t2t */
                const double beta = p / (r + 1e-12), b2 = beta * beta;
                f = ((1 + b2) * r * p) / (r + b2 * p + 1e-12);
            } else {      /* f_alpha */
                f = (p != 0 && r != 0) ? (p * r) / (a * r + (1 - a) * p) : 0.0;
            }
            if (S->f64) { S->f64[(int64_t)q * S->C + c] = f; continue; }
            fo[c] = (float)f;
            if (S->p) {
                S->p[(int64_t)q * S->C + c] = (float)p;
                S->r[(int64_t)q * S->C + c] = (float)r;
            }
        }
    }
    return 0;
}
