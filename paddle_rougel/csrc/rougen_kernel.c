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
 * Unigram ids are the caller's local token ids (no table).
 */
#include "rougen_kernel.h"

#include <stdlib.h>
#include <string.h>

#include "tokmap.h"

void rougen_scratch_free(RougeNScratch *s) {
    free(s->gid); free(s->cnt); free(s->run); free(s->stamp);
    free(s->keys); free(s->vals); free(s->mstamp);
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
        free(s->keys); free(s->vals); free(s->mstamp);
        s->keys = (uint64_t *)malloc(cap * sizeof(uint64_t));
        s->vals = (uint32_t *)malloc(cap * sizeof(uint32_t));
        s->mstamp = (uint32_t *)calloc(cap, sizeof(uint32_t));
        s->mgen = 0;
        s->map_cap = (s->keys && s->vals && s->mstamp) ? cap : 0;
        if (!s->map_cap) return -1;
    }
    if (++s->mgen == 0) { memset(s->mstamp, 0, s->map_cap * sizeof(uint32_t)); s->mgen = 1; }
    return 0;
}

static inline size_t map_slot(const RougeNScratch *s, uint64_t key) {
    const size_t mask = s->map_cap - 1;
    uint64_t h = (key ^ (key >> 31)) * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(h >> 32) & mask;
    while (s->mstamp[i] == s->mgen && s->keys[i] != key) i = (i + 1) & mask;
    return i;
}

/* The id of key, a new one (++*next) when it is absent. */
static inline uint32_t map_add(RougeNScratch *s, uint64_t key, uint32_t *next) {
    const size_t i = map_slot(s, key);
    if (s->mstamp[i] != s->mgen) { s->mstamp[i] = s->mgen; s->keys[i] = key; s->vals[i] = ++*next; }
    return s->vals[i];
}

static inline uint32_t map_get(const RougeNScratch *s, uint64_t key) {
    const size_t i = map_slot(s, key);
    return s->mstamp[i] == s->mgen ? s->vals[i] : 0;
}

static inline uint32_t next_epoch(RougeNScratch *s) {
    if (++s->epoch == 0) { memset(s->stamp, 0, s->cnt_cap * sizeof(uint32_t)); s->epoch = 1; }
    return s->epoch;
}

static inline int64_t grams(int64_t len, int64_t o) { return len >= o ? len - o + 1 : 0; }

int rougen_local(RougeNScratch *s, const RougeNSpec *spec, const uint32_t *a, int64_t n, uint32_t k,
                 const uint32_t *b, const int64_t *ref_len, int64_t nrefs, int64_t *hits, int64_t *cand_grams,
                 int64_t *ref_grams) {
    const int K = spec->K, distinct = spec->distinct;
    int64_t total_b = 0, longest = n, top = 0;
    for (int64_t r = 0; r < nrefs; r++) {
        total_b += ref_len[r];
        if (ref_len[r] > longest) longest = ref_len[r];
    }
    for (int c = 0; c < K; c++)
        if (spec->orders[c] > top) top = spec->orders[c];
    if (top > longest) top = longest;  /* no n-gram of a higher order anywhere: all zeros */
    const int64_t total = n + total_b;
    uint32_t V = k;  /* the highest unigram id */
    for (int64_t q = 0; q < total_b; q++)
        if (b[q] > V) V = b[q];
    if (grow((void **)&s->gid, &s->gid_cap, (size_t)total + 1, sizeof(uint32_t)) < 0 ||
        ids_reserve(s, (size_t)(total > (int64_t)V ? total : (int64_t)V)) < 0)
        return -1;
    uint32_t *gid = s->gid;
    memcpy(gid, a, (size_t)n * sizeof(uint32_t));
    for (int64_t q = 0; q < total_b; q++)  /* clipped: any id above k is a token the candidate lacks */
        gid[n + q] = (distinct || b[q] <= k) ? b[q] : 0;
    uint32_t Gc = k;   /* the candidate's distinct n-grams: ids 1..Gc */
    int alive = 1;     /* clipped: does some reference n-gram of this order occur in the candidate? */
    for (int64_t o = 1; o <= top; o++) {
        if (o > 1 && (alive || distinct)) {
            if (map_reset(s, (size_t)(distinct ? total : n)) < 0) return -1;
            uint32_t next = 0;
            for (int64_t p = 0; p + o <= n; p++)
                gid[p] = map_add(s, (uint64_t)gid[p] << 32 | a[p + o - 1], &next);
            Gc = next;
            alive = 0;
            const uint32_t *B = b;
            uint32_t *G = gid + n;
            for (int64_t r = 0; r < nrefs; r++) {
                const int64_t m = ref_len[r];
                for (int64_t p = 0; p + o <= m; p++) {
                    const uint64_t key = (uint64_t)G[p] << 32 | B[p + o - 1];
                    if (distinct) {
                        G[p] = map_add(s, key, &next);
                    } else if (G[p]) {
                        G[p] = map_get(s, key);
                        alive |= G[p] != 0;
                    }
                }
                B += m;
                G += m;
            }
        }
        for (int c = 0; c < K; c++) {
            if (spec->orders[c] != o) continue;
            cand_grams[c] = distinct ? (int64_t)(n >= o ? Gc : 0) : grams(n, o);
            if (!distinct && !alive) {  /* nothing matches: hits stay 0 */
                for (int64_t r = 0; r < nrefs; r++) ref_grams[r * K + c] = grams(ref_len[r], o);
                continue;
            }
            if (!distinct) {
                for (uint32_t g = 0; g <= Gc; g++) s->cnt[g] = 0;
                for (int64_t p = 0; p + o <= n; p++) s->cnt[gid[p]]++;
            }
            const uint32_t *G = gid + n;
            for (int64_t r = 0; r < nrefs; r++) {
                const int64_t m = ref_len[r];
                const uint32_t e = next_epoch(s);
                int64_t h = 0, d = 0;
                if (distinct) {
                    for (int64_t p = 0; p + o <= m; p++) {
                        const uint32_t g = G[p];
                        if (s->stamp[g] != e) { s->stamp[g] = e; d++; h += g <= Gc; }
                    }
                } else {
                    for (int64_t p = 0; p + o <= m; p++) {
                        const uint32_t g = G[p];
                        if (!g) continue;
                        if (s->stamp[g] != e) { s->stamp[g] = e; s->run[g] = 0; }
                        h += ++s->run[g] <= s->cnt[g];
                    }
                    d = grams(m, o);
                }
                hits[r * K + c] = h;
                ref_grams[r * K + c] = d;
                G += m;
            }
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
