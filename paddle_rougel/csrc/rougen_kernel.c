/*
 * ROUGE-N overlap counts, every (candidate, reference) pair on its own (no max over
 * references: that is BLEU's ngram_kernel.c, whose table keeps one best count per
 * candidate n-gram over all sources and which has no distinct mode).
 *
 * Every n-gram gets a dense id per instance, order by order: the n-gram at position p is
 * the pair ((n-1)-gram id at p, token id at p+n-1), looked up in one open-addressing table
 * keyed by that pair as 64 bits, so two n-grams are equal iff their ids are (by induction:
 * no token comparisons, no hash collisions to resolve).  The candidate's n-grams come
 * first (ids 1..Gc); then each reference's:
 *   clipped: looked up only (0: not in the candidate, and then neither is any longer
 *       n-gram at that position); hits count each reference occurrence while its running
 *       count is within the candidate's count: sum of min(count_cand, count_ref).
 *   distinct: added (new ids above Gc), so each reference's distinct n-grams are counted by
 *       first occurrences; a hit is a first occurrence of an id <= Gc.
 * Orders 1 and 2 only take shortcuts: a candidate of at most 64 words bit masks (Clip12,
 * rougen_kernel.h), a larger one direct tables (clipped12, distinct12).
 * Unigram ids are the caller's local token ids (no table).
 */
#include "rougen_kernel.h"

#include <stdlib.h>
#include <string.h>

#include "bitops.h"
#include "tokmap.h"

struct RougeNSlot { uint64_t key; uint32_t val, stamp; };

void rougen_scratch_free(RougeNScratch *s) {
    free(s->gid); free(s->cnt); free(s->run); free(s->stamp); free(s->map); free(s->pair); free(s->cidx);
    memset(s, 0, sizeof(*s));
}

/* Room for ids 0..ids in cnt / run / stamp (new entries' stamps zeroed). */
static int ids_reserve(RougeNScratch *s, size_t ids) {
    if (ids + 1 <= s->cnt_cap) return 0;
    size_t cap = 256;
    while (cap < ids + 1) cap *= 2;
    free(s->cnt); free(s->run); free(s->stamp);
    s->cnt = (uint32_t *)malloc(cap * sizeof(uint32_t));
    s->run = (uint32_t *)malloc(cap * sizeof(uint32_t));
    s->stamp = (uint32_t *)calloc(cap, sizeof(uint32_t));
    s->epoch = 0;
    s->cnt_cap = (s->cnt && s->run && s->stamp) ? cap : 0;
    return s->cnt_cap ? 0 : -1;
}

/* Room for need keys at load <= 1/2; every key forgotten (a new generation). */
static int map_reset(RougeNScratch *s, size_t need) {
    size_t cap = 64;
    while (cap < 2 * need) cap *= 2;
    if (cap > s->map_cap) {
        free(s->map);
        s->map = (struct RougeNSlot *)calloc(cap, sizeof(struct RougeNSlot));
        s->mgen = 0;
        s->map_cap = s->map ? cap : 0;
        if (!s->map) return -1;
    }
    if (++s->mgen == 0) { memset(s->map, 0, s->map_cap * sizeof(struct RougeNSlot)); s->mgen = 1; }
    return 0;
}

static inline size_t map_slot(const RougeNScratch *s, uint64_t key) {
    const size_t mask = s->map_cap - 1;
    const uint64_t h = (key ^ (key >> 29)) * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 32) & mask;
    while (s->map[i].stamp == s->mgen && s->map[i].key != key) i = (i + 1) & mask;
    return i;
}

/* The id of key, a new one (++*next) when it is absent. */
static inline uint32_t map_add(RougeNScratch *s, uint64_t key, uint32_t *next) {
    struct RougeNSlot *e = &s->map[map_slot(s, key)];
    if (e->stamp != s->mgen) { e->stamp = s->mgen; e->key = key; e->val = ++*next; }
    return e->val;
}

static inline uint32_t map_get(const RougeNScratch *s, uint64_t key) {
    const struct RougeNSlot *e = &s->map[map_slot(s, key)];
    return e->stamp == s->mgen ? e->val : 0;
}

static inline uint32_t next_epoch(RougeNScratch *s) {
    if (++s->epoch == 0) { memset(s->stamp, 0, s->cnt_cap * sizeof(uint32_t)); s->epoch = 1; }
    return s->epoch;
}

static inline int64_t grams(int64_t len, int64_t o) { return len >= o ? len - o + 1 : 0; }

/* Dummy unigram ids of clipped12: a reference word the candidate lacks (id 0) gets
 * k + 1 + (p mod SPREAD) instead, whose counts stay 0, so that runs of such words load and
 * store different slots (one slot would chain every store to the next load). */
#define SPREAD 8u

/* v, or dummy when v is 0, without a branch (the compilers' choice between a branch, which
 * mispredicts, and a flag trick such as sbb, whose false dependency on its own register
 * chains the iterations, is not theirs here). */
static inline size_t or_dummy(uint32_t v, size_t dummy) {
#if defined(__GNUC__) && defined(__x86_64__) && defined(__SSE2__)  /* -U__SSE2__: the portable build */
    size_t r = v;
    __asm__("testl %k0, %k0\n\tcmovzq %1, %0" : "+r"(r) : "r"(dummy) : "cc");
    return r;
#else
    return v ? (size_t)v : dummy;
#endif
}

/* ids of the order-o n-grams (o >= 2) from those of order o-1 (prev: the unigram ids a, b
 * when o == 2; else gid itself, updated in place); the candidate's are 1..*Gc (in: those of
 * order o-1).  Returns, clipped, whether some reference n-gram is in the candidate. */
/* Entries of the direct table: ((n-1)-gram id, token id) at id * (k + 1) + token. */
#define PAIR_TABLE (1u << 16)

/* next_order, clipped, when (P + 1) * (k + 1) <= PAIR_TABLE (P: the highest (n-1)-gram id):
 * the table is indexed by the pair, no hashing, no branch for a missing id (row and column 0
 * are never set: ids start at 1). */
static int next_order_direct(RougeNScratch *s, int64_t o, const uint32_t *a, int64_t n, uint32_t k,
                             const uint32_t *b, const int64_t *ref_len, int64_t nrefs, uint32_t *Gc) {
    if (!s->pair && !(s->pair = (uint32_t *)calloc(PAIR_TABLE, sizeof(uint32_t)))) return -1;
    if (grow((void **)&s->cidx, &s->cidx_cap, (size_t)n + 1, sizeof(uint32_t)) < 0) return -1;
    uint32_t *gid = s->gid, *pair = s->pair, *cidx = s->cidx, next = 0;
    const uint32_t W = k + 1, *pa = o == 2 ? a : gid, *pb = o == 2 ? b : gid + n;
    const int64_t nc = grams(n, o);
    for (int64_t p = 0; p < nc; p++) {
        const uint32_t at = pa[p] * W + a[p + o - 1];
        uint32_t v = pair[at];
        if (!v) pair[at] = v = ++next;
        cidx[p] = at;
        gid[p] = v;
    }
    *Gc = next;
    uint32_t any = 0;
    uint32_t *G = gid + n;
    for (int64_t r = 0; r < nrefs; r++) {
        const int64_t m = ref_len[r];
        for (int64_t p = 0; p + o <= m; p++) any |= G[p] = pair[pb[p] * W + b[p + o - 1]];
        b += m;
        pb += m;
        G += m;
    }
    for (int64_t p = 0; p < nc; p++) pair[cidx[p]] = 0;
    return any != 0;
}

/* next_order, distinct, when (A + 1) * (V + 1) <= PAIR_TABLE (A: the highest (n-1)-gram id
 * of candidate and references, V: the highest token id): the references' new n-grams are
 * added too (ids above Gc), in the same order as the map would number them; the slots set
 * are listed in cidx and cleared at the end.  *A becomes the highest n-gram id. */
static int next_order_direct_distinct(RougeNScratch *s, int64_t o, const uint32_t *a, int64_t n, uint32_t V,
                                      const uint32_t *b, const int64_t *ref_len, int64_t nrefs, int64_t total,
                                      uint32_t *Gc, uint32_t *A) {
    if (!s->pair && !(s->pair = (uint32_t *)calloc(PAIR_TABLE, sizeof(uint32_t)))) return -1;
    if (grow((void **)&s->cidx, &s->cidx_cap, (size_t)total + 1, sizeof(uint32_t)) < 0) return -1;
    uint32_t *restrict gid = s->gid, *restrict pair = s->pair, *restrict cidx = s->cidx, next = 0;
    const size_t W = (size_t)V + 1;
    const uint32_t *pa = o == 2 ? a : gid, *pb = o == 2 ? b : gid + n;
    for (int64_t p = 0; p + o <= n; p++) {
        const size_t at = pa[p] * W + a[p + o - 1];
        uint32_t v = pair[at];
        if (!v) { pair[at] = v = ++next; cidx[next - 1] = (uint32_t)at; }
        gid[p] = v;
    }
    *Gc = next;
    uint32_t *G = gid + n;
    for (int64_t r = 0; r < nrefs; r++) {
        const int64_t m = ref_len[r];
        for (int64_t p = 0; p + o <= m; p++) {
            const size_t at = pb[p] * W + b[p + o - 1];
            uint32_t v = pair[at];
            if (!v) { pair[at] = v = ++next; cidx[next - 1] = (uint32_t)at; }
            G[p] = v;
        }
        b += m;
        pb += m;
        G += m;
    }
    *A = next;
    for (uint32_t j = 0; j < next; j++) pair[cidx[j]] = 0;
    return 1;
}

static int next_order(RougeNScratch *s, int distinct, int64_t o, const uint32_t *a, int64_t n, uint32_t k,
                      uint32_t V, const uint32_t *b, const int64_t *ref_len, int64_t nrefs, int64_t total,
                      uint32_t *Gc, uint32_t *A) {
    if (!distinct && ((uint64_t)*Gc + 1) * ((uint64_t)k + 1) <= PAIR_TABLE)
        return next_order_direct(s, o, a, n, k, b, ref_len, nrefs, Gc);
    if (distinct && ((uint64_t)*A + 1) * ((uint64_t)V + 1) <= PAIR_TABLE)
        return next_order_direct_distinct(s, o, a, n, V, b, ref_len, nrefs, total, Gc, A);
    if (map_reset(s, (size_t)(distinct ? total : n)) < 0) return -1;
    uint32_t *gid = s->gid, next = 0;
    const uint32_t *pa = o == 2 ? a : gid, *pb = o == 2 ? b : gid + n;
    for (int64_t p = 0; p + o <= n; p++) gid[p] = map_add(s, (uint64_t)pa[p] << 32 | a[p + o - 1], &next);
    *Gc = next;
    int alive = 0;
    uint32_t *G = gid + n;
    for (int64_t r = 0; r < nrefs; r++) {
        const int64_t m = ref_len[r];
        if (distinct) {
            for (int64_t p = 0; p + o <= m; p++) G[p] = map_add(s, (uint64_t)pb[p] << 32 | b[p + o - 1], &next);
        } else {
            for (int64_t p = 0; p + o <= m; p++) {
                const uint32_t x = pb[p], y = b[p + o - 1];  /* 0: not in the candidate */
                G[p] = (x && y) ? map_get(s, (uint64_t)x << 32 | y) : 0;
                alive |= G[p] != 0;
            }
        }
        b += m;
        pb += m;
        G += m;
    }
    *A = next;
    return alive;
}

/* Clipped hits of each reference (ids gc: the candidate's, g: the references' one after
 * another): a reference occurrence is a hit while the candidate has occurrences left.  An id
 * 0 (not in the candidate) goes to one of SPREAD dummy slots Gc + 1.. by position, whose
 * counts stay 0 (one slot would chain every store to the next load over runs of them). */
static void clipped_hits(RougeNScratch *s, const uint32_t *gc, const uint32_t *g, int64_t n, uint32_t Gc,
                         const int64_t *ref_len, int64_t nrefs, int64_t o, int K, int64_t *hits,
                         int64_t *ref_grams) {
    uint32_t *restrict cnt = s->cnt, *restrict left = s->run;
    const size_t D = (size_t)Gc + 1, W = D + SPREAD;
    memset(cnt, 0, W * sizeof(uint32_t));
    for (int64_t p = 0; p + o <= n; p++) cnt[gc[p]]++;
    for (int64_t r = 0; r < nrefs; r++) {
        const int64_t m = ref_len[r];
        memcpy(left, cnt, W * sizeof(uint32_t));
        int64_t h = 0;
        for (int64_t p = 0; p + o <= m; p++) {
            const size_t at = or_dummy(g[p], D + ((size_t)p & (SPREAD - 1)));
            const uint32_t x = left[at], hit = x != 0;
            h += hit;
            left[at] = x - hit;
        }
        hits[r * K] = h;
        ref_grams[r * K] = grams(m, o);
        g += m;
    }
}

/* Distinct n-grams of each reference, and those the candidate has too (ids <= Gc). */
static void distinct_hits(RougeNScratch *s, const uint32_t *gc, const uint32_t *g, int64_t n, uint32_t Gc,
                          const int64_t *ref_len, int64_t nrefs, int64_t o, int K, int64_t *hits,
                          int64_t *ref_grams) {
    (void)gc;
    (void)n;
    for (int64_t r = 0; r < nrefs; r++) {
        const int64_t m = ref_len[r];
        const uint32_t e = next_epoch(s);
        int64_t h = 0, d = 0;
        for (int64_t p = 0; p + o <= m; p++)
            if (s->stamp[g[p]] != e) { s->stamp[g[p]] = e; d++; h += g[p] <= Gc; }
        hits[r * K] = h;
        ref_grams[r * K] = d;
        g += m;
    }
}

/* Clipped counts of orders 1 and 2 only, when (k + 1 + SPREAD)^2 <= PAIR_TABLE: one pass over
 * the candidate and one over each reference, no n-gram ids.  The candidate's counts live in
 * the tables themselves: L[w] for word w, pair[x * W + y] for the bigram (x, y); each
 * reference occurrence takes one off its slot unless it is 0 (a saturating decrement: no
 * branch, no running sum), so the hits are what was taken: the candidate's n-grams minus
 * what is left.  The candidate's bigram slots are listed (slot, their counts ccnt) to sum
 * what is left, restore them for the next reference and clear them at the end (every other
 * entry of pair stays 0). */
static inline __attribute__((always_inline)) int
clipped12_body(RougeNScratch *s, const RougeNSpec *spec, const uint32_t *a, int64_t n, uint32_t k,
               const uint32_t *b, const int64_t *ref_len, int64_t nrefs, int64_t *hits, int64_t *cand_grams,
               int64_t *ref_grams, const int one, const int two) {
    const size_t D = (size_t)k + 1, W = (size_t)k + 1 + SPREAD;
    const int K = spec->K;
    if (two && !s->pair && !(s->pair = (uint32_t *)calloc(PAIR_TABLE, sizeof(uint32_t)))) return -1;
    if ((two && grow((void **)&s->cidx, &s->cidx_cap, 2 * (size_t)n + 2, sizeof(uint32_t)) < 0) ||
        ids_reserve(s, W) < 0)
        return -1;
    uint32_t *restrict cnt = s->cnt, *restrict P = s->pair, *restrict slot = s->cidx, *restrict ccnt = slot + n + 1;
    if (one) {
        memset(cnt, 0, (size_t)W * sizeof(uint32_t));
        if (!two) for (int64_t p = 0; p < n; p++) cnt[a[p]]++;
        else if (n > 0) cnt[a[n - 1]]++;
    }
    uint32_t G2 = 0;  /* the candidate's distinct bigrams */
    if (two) {
        for (int64_t p = 0; p + 1 < n; p++) {
            const uint32_t at = a[p] * W + a[p + 1], x = P[at];
            if (one) cnt[a[p]]++;
            slot[G2] = at;
            G2 += x == 0;
            P[at] = x + 1;
        }
        if (nrefs > 1)
            for (uint32_t j = 0; j < G2; j++) ccnt[j] = P[slot[j]];
    }
    for (int64_t r = 0; r < nrefs; r++) {
        const int64_t m = ref_len[r];
        uint32_t *restrict L = cnt;  /* the last reference may use up the candidate's counts */
        if (one && r + 1 < nrefs) L = (uint32_t *)memcpy(s->run, cnt, (size_t)W * sizeof(uint32_t));
        if (m > 0) {
            size_t prev = or_dummy(b[0], D);
            if (one) {
                const uint32_t u = L[prev];
                L[prev] = u - (u != 0);
            }
            for (int64_t p = 1; p < m; p++) {
                const size_t cur = or_dummy(b[p], D + ((size_t)p & (SPREAD - 1)));
                if (one) {
                    const uint32_t x = L[cur];
                    L[cur] = x - (x != 0);
                }
                if (two) {
                    const size_t at = prev * W + cur;
                    const uint32_t y = P[at];
                    P[at] = y - (y != 0);
                }
                prev = cur;
            }
        }
        uint32_t left1 = 0;  /* at most n < 2^32 */
        uint64_t left2 = 0;
        if (one)
            for (size_t w = 0; w < W; w++) left1 += L[w];
        if (two) {
            if (r + 1 < nrefs)
                for (uint32_t j = 0; j < G2; j++) { left2 += P[slot[j]]; P[slot[j]] = ccnt[j]; }
            else
                for (uint32_t j = 0; j < G2; j++) { left2 += P[slot[j]]; P[slot[j]] = 0; }
        }
        for (int c = 0; c < K; c++) {
            const int64_t o = spec->orders[c];
            hits[r * K + c] = grams(n, o) - (int64_t)(o == 1 ? left1 : left2);
            ref_grams[r * K + c] = grams(m, o);
        }
        b += m;
    }
    if (two && nrefs == 0)
        for (uint32_t j = 0; j < G2; j++) P[slot[j]] = 0;
    for (int c = 0; c < K; c++) cand_grams[c] = grams(n, spec->orders[c]);
    return 0;
}

/* clipped12_body for the orders asked (1, 2 or both). */
static __attribute__((noinline)) int clipped12(RougeNScratch *s, const RougeNSpec *spec, const uint32_t *a,
                                               int64_t n, uint32_t k, const uint32_t *b, const int64_t *ref_len,
                                               int64_t nrefs, int64_t *hits, int64_t *cand_grams,
                                               int64_t *ref_grams) {
    int one, two;
    rougen_orders12(spec, &one, &two);
    if (one && two) return clipped12_body(s, spec, a, n, k, b, ref_len, nrefs, hits, cand_grams, ref_grams, 1, 1);
    if (one) return clipped12_body(s, spec, a, n, k, b, ref_len, nrefs, hits, cand_grams, ref_grams, 1, 0);
    return clipped12_body(s, spec, a, n, k, b, ref_len, nrefs, hits, cand_grams, ref_grams, 0, 1);
}

/* Orders 1 and 2 only (orders_low) and which of them (rougen_orders12): clipped12,
 * clipped12_masks, distinct12 and words_kernel.c's mask reader take no other. */
static int orders_low(const RougeNSpec *spec) {
    int low = 1;
    for (int c = 0; c < spec->K; c++) low &= spec->orders[c] <= 2;
    return low;
}

int rougen_low12(const RougeNSpec *spec) { return !spec->distinct && orders_low(spec); }

void rougen_orders12(const RougeNSpec *spec, int *one, int *two) {
    *one = *two = 0;
    for (int c = 0; c < spec->K; c++) {
        *one |= spec->orders[c] == 1;
        *two |= spec->orders[c] == 2;
    }
}

void clip12_put(const RougeNSpec *spec, const Clip12 *c, uint64_t valid, int64_t m, int64_t *hits,
                int64_t *ref_grams) {
    const int64_t h1 = popcount64(valid & ~c->free1), h2 = popcount64((valid >> 1) & ~c->free2);
    for (int k = 0; k < spec->K; k++) {
        const int64_t o = spec->orders[k];
        hits[k] = o == 1 ? h1 : h2;
        ref_grams[k] = grams(m, o);
    }
}

void clip12_cand_grams(const RougeNSpec *spec, int64_t n, int64_t *cand_grams) {
    for (int k = 0; k < spec->K; k++) cand_grams[k] = grams(n, spec->orders[k]);
}

/* Clipped counts of orders 1 and 2 of a candidate of at most 64 words (Clip12): M[w] the
 * candidate positions of word w (M[0] = 0: not in the candidate) are the reference words'
 * match masks.  No branch, no table to clear. */
static inline __attribute__((always_inline)) int
clipped12_masks_body(RougeNScratch *s, const RougeNSpec *spec, const uint32_t *a, int64_t n, uint32_t k,
                     const uint32_t *b, const int64_t *ref_len, int64_t nrefs, int64_t *hits, int64_t *cand_grams,
                     int64_t *ref_grams, const int one, const int two) {
    uint64_t *restrict M = s->bm;
    const int K = spec->K;
    for (uint32_t w = 0; w <= k; w++) M[w] = 0;
    for (int64_t p = 0; p < n; p++) M[a[p]] |= (uint64_t)1 << p;
    const uint64_t all1 = n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
    for (int64_t r = 0; r < nrefs; r++) {
        const int64_t m = ref_len[r];
        Clip12 C;
        clip12_start(&C, all1);
        for (int64_t p = 0; p < m; p++) clip12_step(&C, M[b[p]], one, two);
        clip12_put(spec, &C, all1, m, hits + r * K, ref_grams + r * K);
        b += m;
    }
    clip12_cand_grams(spec, n, cand_grams);
    return 0;
}

static __attribute__((noinline)) int clipped12_masks(RougeNScratch *s, const RougeNSpec *spec, const uint32_t *a,
                                                     int64_t n, uint32_t k, const uint32_t *b,
                                                     const int64_t *ref_len, int64_t nrefs, int64_t *hits,
                                                     int64_t *cand_grams, int64_t *ref_grams) {
    int one, two;
    rougen_orders12(spec, &one, &two);
    if (one && two)
        return clipped12_masks_body(s, spec, a, n, k, b, ref_len, nrefs, hits, cand_grams, ref_grams, 1, 1);
    if (one) return clipped12_masks_body(s, spec, a, n, k, b, ref_len, nrefs, hits, cand_grams, ref_grams, 1, 0);
    return clipped12_masks_body(s, spec, a, n, k, b, ref_len, nrefs, hits, cand_grams, ref_grams, 0, 1);
}

/* Distinct counts of orders 1 and 2 only, when (V + 1)^2 <= PAIR_TABLE (V: the highest word
 * id): one pass over the candidate and one over each reference, no n-gram ids, no hashing.
 * Words: a reference's first occurrences by stamp (an epoch per reference), a hit when the
 * id is the candidate's (<= k).  Bigrams (x, y) at pair[x * W + y]: bit 0 = the candidate
 * has it, the bits above = the last reference (r + 1) that had it; every entry the texts
 * touched is cleared at the end. */
static inline __attribute__((always_inline)) int
distinct12_body(RougeNScratch *s, const RougeNSpec *spec, const uint32_t *a, int64_t n, uint32_t k, uint32_t V,
                const uint32_t *b, const int64_t *ref_len, int64_t nrefs, int64_t *hits, int64_t *cand_grams,
                int64_t *ref_grams, const int one, const int two) {
    const size_t W = (size_t)V + 1;
    const int K = spec->K;
    if (two && !s->pair && !(s->pair = (uint32_t *)calloc(PAIR_TABLE, sizeof(uint32_t)))) return -1;
    uint32_t *restrict P = s->pair;
    uint32_t G2 = 0;  /* the candidate's distinct bigrams */
    if (two)
        for (int64_t p = 0; p + 1 < n; p++) {
            const size_t at = a[p] * W + a[p + 1];
            G2 += P[at] == 0;
            P[at] = 1;
        }
    const uint32_t *b0 = b;
    for (int64_t r = 0; r < nrefs; r++) {
        const int64_t m = ref_len[r];
        int64_t h1 = 0, d1 = 0, h2 = 0, d2 = 0;
        if (one) {
            uint32_t *restrict st = s->stamp;
            const uint32_t e = next_epoch(s);
            for (int64_t p = 0; p < m; p++) {
                const uint32_t v = b[p], fresh = st[v] != e;
                d1 += fresh;
                h1 += fresh & (v <= k);
                st[v] = e;
            }
        }
        if (two) {
            const uint32_t tag = (uint32_t)(r + 1) << 1;
            for (int64_t p = 0; p + 1 < m; p++) {
                const size_t at = b[p] * W + b[p + 1];
                const uint32_t x = P[at], fresh = (x & ~1u) != tag;
                d2 += fresh;
                h2 += fresh & x;
                P[at] = (x & 1u) | tag;
            }
        }
        for (int c = 0; c < K; c++) {
            const int one_c = spec->orders[c] == 1;
            hits[r * K + c] = one_c ? h1 : h2;
            ref_grams[r * K + c] = one_c ? d1 : d2;
        }
        b += m;
    }
    if (two) {
        for (int64_t p = 0; p + 1 < n; p++) P[a[p] * W + a[p + 1]] = 0;
        for (int64_t r = 0; r < nrefs; r++) {
            const int64_t m = ref_len[r];
            for (int64_t p = 0; p + 1 < m; p++) P[b0[p] * W + b0[p + 1]] = 0;
            b0 += m;
        }
    }
    for (int c = 0; c < K; c++) cand_grams[c] = spec->orders[c] == 1 ? (int64_t)k : (int64_t)G2;
    return 0;
}

/* distinct12_body for the orders asked (1, 2 or both). */
static __attribute__((noinline)) int distinct12(RougeNScratch *s, const RougeNSpec *spec, const uint32_t *a,
                                                int64_t n, uint32_t k, uint32_t V, const uint32_t *b,
                                                const int64_t *ref_len, int64_t nrefs, int64_t *hits,
                                                int64_t *cand_grams, int64_t *ref_grams) {
    int one, two;
    rougen_orders12(spec, &one, &two);
    if (one && two)
        return distinct12_body(s, spec, a, n, k, V, b, ref_len, nrefs, hits, cand_grams, ref_grams, 1, 1);
    if (one) return distinct12_body(s, spec, a, n, k, V, b, ref_len, nrefs, hits, cand_grams, ref_grams, 1, 0);
    return distinct12_body(s, spec, a, n, k, V, b, ref_len, nrefs, hits, cand_grams, ref_grams, 0, 1);
}

int rougen_local(RougeNScratch *s, const RougeNSpec *spec, const uint32_t *a, int64_t n, uint32_t k,
                 const uint32_t *b, const int64_t *ref_len, int64_t nrefs, int64_t *hits, int64_t *cand_grams,
                 int64_t *ref_grams) {
    const int K = spec->K, distinct = spec->distinct;
    int64_t total_b = 0, longest = n, top = 0;
    const int low = orders_low(spec);  /* clipped12(_masks) or distinct12 when their tables are small enough */
    if (low && !distinct && n <= 64)
        return clipped12_masks(s, spec, a, n, k, b, ref_len, nrefs, hits, cand_grams, ref_grams);
    if (low && !distinct && ((uint64_t)k + 1 + SPREAD) * ((uint64_t)k + 1 + SPREAD) <= PAIR_TABLE &&
        n <= (int64_t)UINT32_MAX)
        return clipped12(s, spec, a, n, k, b, ref_len, nrefs, hits, cand_grams, ref_grams);
    for (int64_t r = 0; r < nrefs; r++) {
        total_b += ref_len[r];
        if (ref_len[r] > longest) longest = ref_len[r];
    }
    for (int c = 0; c < K; c++)
        if (spec->orders[c] > top) top = spec->orders[c];
    if (top > longest) top = longest;  /* no n-gram of a higher order anywhere: all zeros */
    const int64_t total = n + total_b;
    uint32_t V = k;  /* the highest unigram id (clipped: k) */
    if (distinct)
        for (int64_t q = 0; q < total_b; q++)
            if (b[q] > V) V = b[q];
    if (low && distinct && ((uint64_t)V + 1) * ((uint64_t)V + 1) <= PAIR_TABLE && nrefs < (1 << 30))
        return ids_reserve(s, V) < 0 ? -1 : distinct12(s, spec, a, n, k, V, b, ref_len, nrefs, hits, cand_grams,
                                                        ref_grams);
    if (grow((void **)&s->gid, &s->gid_cap, (size_t)total + 1, sizeof(uint32_t)) < 0 ||
        ids_reserve(s, (size_t)(total > (int64_t)V ? total : (int64_t)V) + SPREAD) < 0)  /* + clipped_hits' dummies */
        return -1;
    uint32_t Gc = k;   /* the candidate's distinct n-grams: ids 1..Gc */
    uint32_t A = V;    /* distinct: the highest n-gram id, candidate and references */
    int alive = 1;     /* clipped: does some reference n-gram of this order occur in the candidate? */
    for (int64_t o = 1; o <= top; o++) {
        if (o > 1 && (alive || distinct)) {
            alive = next_order(s, distinct, o, a, n, k, V, b, ref_len, nrefs, total, &Gc, &A);
            if (alive < 0) return -1;
        }
        for (int c = 0; c < K; c++) {
            if (spec->orders[c] != o) continue;
            cand_grams[c] = distinct ? (int64_t)(n >= o ? Gc : 0) : grams(n, o);
            if (!distinct && !alive) {  /* nothing matches: hits stay 0 */
                for (int64_t r = 0; r < nrefs; r++) ref_grams[r * K + c] = grams(ref_len[r], o);
                continue;
            }
            /* unigram ids: the tokens' own */
            (distinct ? distinct_hits : clipped_hits)(s, o == 1 ? a : s->gid, o == 1 ? b : s->gid + n, n, Gc,
                                                      ref_len, nrefs, o, K, hits + c, ref_grams + c);
        }
    }
    return 0;
}

/* ------------------------------------------------------------ token-id batches */

typedef struct {
    TokMap map;
    uint32_t *ids;
    int64_t *ref_len;
    size_t ids_cap, rl_cap;
    RougeNScratch s;
} RWork;

static int rougen_instance(RWork *w, const RougeNBatch *b, size_t i) {
    const int64_t t0 = b->inst_start[i], t1 = b->inst_start[i + 1], nrefs = t1 - t0 - 1;
    const int64_t base = b->text_off[t0], n = b->text_off[t0 + 1] - base, total = b->text_off[t1] - base;
    const int distinct = b->spec.distinct;
    if (grow((void **)&w->ids, &w->ids_cap, (size_t)total + 1, sizeof(uint32_t)) < 0 ||
        grow((void **)&w->ref_len, &w->rl_cap, (size_t)nrefs + 1, sizeof(int64_t)) < 0 ||
        tokmap_reserve(&w->map, (size_t)(distinct ? total : n)) < 0)
        return -1;
    tokmap_clear(&w->map);
    const tok_t *T = b->toks + base;
    uint32_t k = 0;
    for (int64_t p = 0; p < n; p++) w->ids[p] = tokmap_add(&w->map, T[p], &k);
    const uint32_t cand_k = k;
    for (int64_t p = n; p < total; p++)
        w->ids[p] = distinct ? tokmap_add(&w->map, T[p], &k) : tokmap_get(&w->map, T[p]);
    for (int64_t r = 0; r < nrefs; r++) w->ref_len[r] = b->text_off[t0 + 2 + r] - b->text_off[t0 + 1 + r];
    const size_t K = (size_t)b->spec.K, pair0 = (size_t)(t0 - (int64_t)i);  /* pairs before instance i */
    return rougen_local(&w->s, &b->spec, w->ids, n, cand_k, w->ids + n, w->ref_len, nrefs,
                        b->out.hits + pair0 * K, b->out.cand_grams + i * K, b->out.ref_grams + pair0 * K);
}

double rougen_cost(const RougeNBatch *b, size_t i) {
    const int64_t t0 = b->inst_start[i], t1 = b->inst_start[i + 1];
    return (double)(b->text_off[t1] - b->text_off[t0] + 1) * (double)b->spec.K;
}

int rougen_range(void *ctx, size_t begin, size_t end) {
    const RougeNBatch *b = (const RougeNBatch *)ctx;
    RWork w;
    memset(&w, 0, sizeof(w));
    int rc = 0;
    for (size_t i = begin; i < end && rc == 0; i++) rc = rougen_instance(&w, b, i);
    tokmap_free(&w.map);
    free(w.ids); free(w.ref_len);
    rougen_scratch_free(&w.s);
    return rc;
}
