/*
 * Character-level pairs (rouge_l on strs, one reference each): per-instance overhead cut.
 *
 * A candidate of up to 64 characters puts its match masks straight into a table keyed
 * by code point, which the reference's characters read; the candidate's own characters
 * clear it afterwards, so a pair costs its characters, never the table's size.  There is
 * no id remapping, no copy of the texts and no allocation per pair.
 *
 * Short pairs go PAIRS_LANES at a time (pairs_simd.c): each pair's reference is turned into
 * its masks, lane-interleaved, through a direct-mapped table of KEYED_SLOTS slots (slot
 * c mod KEYED_SLOTS holds c's key and mask: one probe, no branch); then one vector loop
 * runs the recurrence of all the lanes.  A candidate with two characters in one slot, or
 * a reference longer than LANE_STEPS, takes the one-pair path instead (a direct array
 * below 256 and a small open-addressing table above).  Longer candidates take the general
 * path (local ids, then lcs_local's multi-word recurrence).
 */
#include "pairs_kernel.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bitops.h"
#include "lcs_kernel.h"
#include "lcs_step.h"
#include "pairs_simd.h"
#include "tokmap.h"

#define WIDE_SLOTS 256  /* >= 4 x 64: load <= 1/4 */
#define KEYED_SLOTS 4096 /* a power of two; a run of 4096 consecutive code points never collides */
#define LANE_STEPS PAIRS_LANE_STEPS

typedef struct {
    /* not zeroed at allocation: ms is written before it is read; kkey and kmask are zeroed
     * on first use (keyed_ready), which the vector levels seldom need */
    uint64_t ms[LANE_STEPS * PAIRS_LANES] __attribute__((aligned(64)));  /* a group's masks */
    uint32_t kkey[KEYED_SLOTS];     /* code point + 1 (0: empty) */
    uint64_t kmask[KEYED_SLOTS];    /* 0 where kkey is 0 */
    int keyed_ready;                /* from here on: zeroed at allocation */
    uint64_t low[256];              /* code points < 256 */
    uint32_t wkey[WIDE_SLOTS];      /* other code points (0: empty; 0 itself is a low one) */
    uint64_t wmask[WIDE_SLOTS];
    /* long candidates */
    TokMap map;
    uint32_t *ids;
    size_t ids_cap;
    LcsScratch s;
} PWork;

static inline uint32_t cp_at(const WordText *t, int64_t i) {
    if (t->kind == 1) return ((const uint8_t *)t->data)[i];
    if (t->kind == 2) return ((const uint16_t *)t->data)[i];
    return ((const uint32_t *)t->data)[i];
}

static inline size_t wide_hash(uint32_t c) { return (size_t)((c * 0x9E3779B1u) >> 24) & (WIDE_SLOTS - 1); }

/* The slot of wide code point c: its own, or the empty one where it would go. */
static size_t wide_probe(const PWork *w, uint32_t c) {
    size_t h = wide_hash(c);
    while (w->wkey[h] && w->wkey[h] != c) h = (h + 1) & (WIDE_SLOTS - 1);
    return h;
}

/* The candidate's mask of c (0: not in it); the first probe decides without a branch on its
 * outcome (c there, or an empty slot), a collision takes the loop. */
static inline uint64_t mask_of(const PWork *w, uint32_t c) {
    if (c < 256) return w->low[c];
    size_t h = wide_hash(c);
    const uint32_t k = w->wkey[h];
    if (__builtin_expect(k != c && k != 0, 0)) {
        h = wide_probe(w, c);
        return w->wkey[h] ? w->wmask[h] : 0;
    }
    return k ? w->wmask[h] : 0;
}

/* The reference's stream through the candidate's masks; the kind a compile-time constant. */
#define STREAM(T)                                                                             \
    do {                                                                                      \
        const T *d = (const T *)r->data;                                                      \
        for (int64_t j = 0; j < m; j++) V = lcs_step(V, mask_of(w, d[j]));                  \
    } while (0)

static int64_t short_pair(PWork *w, const WordText *a, const WordText *r) {
    const int64_t n = a->len, m = r->len;
    uint32_t used[64];  /* what the candidate set, to clear it: low code points, then wide slots */
    int nlow = 0, nwide = 0;
    for (int64_t p = 0; p < n; p++) {
        const uint32_t c = cp_at(a, p);
        const uint64_t bit = (uint64_t)1 << p;
        if (c < 256) {
            if (!w->low[c]) used[nlow++] = c;
            w->low[c] |= bit;
            continue;
        }
        size_t h = wide_hash(c);
        if (w->wkey[h] != c) {
            if (w->wkey[h]) h = wide_probe(w, c);
            if (!w->wkey[h]) { w->wkey[h] = c; w->wmask[h] = 0; used[63 - nwide++] = (uint32_t)h; }
        }
        w->wmask[h] |= bit;
    }
    uint64_t V = ~(uint64_t)0;
    if (r->kind == 1) STREAM(uint8_t);
    else if (r->kind == 2) STREAM(uint16_t);
    else STREAM(uint32_t);
    for (int u = 0; u < nlow; u++) w->low[used[u]] = 0;  /* (nlow + nwide <= n <= 64) */
    for (int u = 0; u < nwide; u++) w->wkey[used[63 - u]] = 0;
    const uint64_t valid = n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
    return popcount64(~V & valid);
}

static int long_pair(PWork *w, const WordText *a, const WordText *r, int64_t *out) {
    const int64_t n = a->len, m = r->len;
    if (tokmap_reserve(&w->map, (size_t)n) < 0 ||
        grow((void **)&w->ids, &w->ids_cap, (size_t)(n + m) + 1, sizeof(uint32_t)) < 0)
        return -1;
    tokmap_clear(&w->map);
    uint32_t k = 0;
    for (int64_t p = 0; p < n; p++) w->ids[p] = tokmap_add(&w->map, cp_at(a, p), &k);
    for (int64_t q = 0; q < m; q++) w->ids[n + q] = tokmap_get(&w->map, cp_at(r, q));
    return lcs_local(&w->s, w->ids, n, k, w->ids + n, &m, 1, out);
}

/* The candidate's masks into the keyed table; 1 when two of its characters share a slot
 * (the table is then as the caller must clear it: keyed_clear). */
#define KEYED_SET(T)                                                                          \
    do {                                                                                      \
        const T *d = (const T *)a->data;                                                      \
        for (int64_t p = 0; p < a->len; p++) {                                                \
            const uint32_t c = d[p], s = c & (KEYED_SLOTS - 1);                               \
            if (w->kkey[s] != c + 1) {                                                        \
                if (w->kkey[s]) return 1;                                                     \
                w->kkey[s] = c + 1;                                                           \
            }                                                                                 \
            w->kmask[s] |= (uint64_t)1 << p;                                                  \
        }                                                                                     \
        return 0;                                                                             \
    } while (0)

static int keyed_set(PWork *w, const WordText *a) {
    if (a->kind == 1) KEYED_SET(uint8_t);
    if (a->kind == 2) KEYED_SET(uint16_t);
    KEYED_SET(uint32_t);
}

#define KEYED_CLEAR(T)                                                                        \
    do {                                                                                      \
        const T *d = (const T *)a->data;                                                      \
        for (int64_t p = 0; p < a->len; p++) {                                                \
            const uint32_t s = (uint32_t)d[p] & (KEYED_SLOTS - 1);                            \
            w->kkey[s] = 0;                                                                   \
            w->kmask[s] = 0;                                                                  \
        }                                                                                     \
    } while (0)

static void keyed_clear(PWork *w, const WordText *a) {
    if (a->kind == 1) KEYED_CLEAR(uint8_t);
    else if (a->kind == 2) KEYED_CLEAR(uint16_t);
    else KEYED_CLEAR(uint32_t);
}

/* The reference's masks into lane l of w->ms (the rest of the lane is already zero). */
#define KEYED_STREAM(T)                                                                       \
    do {                                                                                      \
        const T *d = (const T *)r->data;                                                      \
        uint64_t *o = w->ms + l;                                                              \
        for (int64_t j = 0; j < r->len; j++) {                                                \
            const uint32_t c = d[j], s = c & (KEYED_SLOTS - 1);                               \
            o[j * PAIRS_LANES] = w->kkey[s] == c + 1 ? w->kmask[s] : 0;                       \
        }                                                                                     \
    } while (0)

/* Pairs idx[0 .. g) (g <= PAIRS_LANES, candidates of 1..64 characters, references of
 * 1..LANE_STEPS) in the lanes; a candidate whose characters collide takes short_pair. */
static void lane_group(PWork *w, const PairsBatch *b, const size_t *idx, int g) {
    int64_t steps = 0;
    for (int l = 0; l < g; l++)
        if (b->texts[2 * idx[l] + 1].len > steps) steps = b->texts[2 * idx[l] + 1].len;
    memset(w->ms, 0, (size_t)steps * PAIRS_LANES * sizeof(uint64_t));
    unsigned alone = 0;  /* lanes whose pair goes through short_pair */
    for (int l = 0; l < g; l++) {
        const WordText *a = &b->texts[2 * idx[l]], *r = &b->texts[2 * idx[l] + 1];
        if (a->kind <= 2 && r->kind <= 2 &&  /* (kind 4: code points over 16 bits) */
            pairs_fill(b->simd, a->data, a->len, a->kind, r->data, r->len, r->kind, w->ms + l, PAIRS_LANES))
            continue;
        if (!w->keyed_ready) {
            memset(w->kkey, 0, sizeof(w->kkey));
            memset(w->kmask, 0, sizeof(w->kmask));
            w->keyed_ready = 1;
        }
        if (keyed_set(w, a)) alone |= 1u << l;
        else if (r->kind == 1) KEYED_STREAM(uint8_t);
        else if (r->kind == 2) KEYED_STREAM(uint16_t);
        else KEYED_STREAM(uint32_t);
        keyed_clear(w, a);
    }
    uint64_t V[PAIRS_LANES];
    pairs_lanes(b->simd, w->ms, steps, V);
    for (int l = 0; l < g; l++) {
        const WordText *a = &b->texts[2 * idx[l]], *r = &b->texts[2 * idx[l] + 1];
        if (alone >> l & 1) { b->lcs[idx[l]] = short_pair(w, a, r); continue; }
        const int64_t n = a->len;
        const uint64_t valid = n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
        b->lcs[idx[l]] = popcount64(~V[l] & valid);
    }
}

double pairs_cost(const PairsBatch *b, size_t i) {
    const WordText *a = &b->texts[2 * i], *r = &b->texts[2 * i + 1];
    return (double)(a->len + r->len + 8) * (double)((a->len + 63) / 64 + 1);
}

int pairs_range(void *ctx, size_t begin, size_t end) {
    const PairsBatch *b = (const PairsBatch *)ctx;
    void *mem = NULL;
    if (posix_memalign(&mem, 64, sizeof(PWork)) != 0) return -1;
    PWork *w = (PWork *)mem;
    memset(&w->keyed_ready, 0, sizeof(PWork) - offsetof(PWork, keyed_ready));
    int rc = 0, g = 0;
    size_t idx[PAIRS_LANES];
    for (size_t i = begin; i < end && rc == 0; i++) {
        const WordText *a = &b->texts[2 * i], *r = &b->texts[2 * i + 1];
        if (i + 4 < end) {  /* the texts are scattered over the heap: fetch the next ones ahead */
            __builtin_prefetch(b->texts[2 * i + 8].data);
            __builtin_prefetch(b->texts[2 * i + 9].data);
        }
        if (a->len == 0 || r->len == 0) b->lcs[i] = 0;
        else if (a->len > 64) rc = long_pair(w, a, r, &b->lcs[i]);
        else if (r->len > LANE_STEPS) b->lcs[i] = short_pair(w, a, r);
        else {
            idx[g++] = i;
            if (g == PAIRS_LANES) { lane_group(w, b, idx, g); g = 0; }
        }
    }
    if (g && rc == 0) lane_group(w, b, idx, g);
    tokmap_free(&w->map);
    free(w->ids);
    lcs_scratch_free(&w->s);
    free(w);
    return rc;
}
