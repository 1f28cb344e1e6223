/* BLEU's clipped n-gram matches.  For instance i and k = 1..n:
 *   match[i][k-1] = sum over distinct k-grams g of cand_i of
 *                   min(count of g in cand_i, max over sources s of count of g in s)
 * and, with a prefix p_i, the same with the max over the first p_i sources.
 * Only the candidate's k-grams are stored (a table of at most len(cand)
 * entries, generation-stamped), so sources are streamed through lookups.
 * A position whose (k-1)-gram matched nothing is dropped ("alive" = 0) for
 * every longer order. */
#include "ngram_kernel.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const tok_t *at;     /* first token of the k-gram in the candidate */
    uint64_t hash;
    uint32_t cand;       /* occurrences in the candidate */
    uint32_t best, best_pre;
    uint32_t run;        /* occurrences in the current source */
    uint32_t run_src;    /* source id the run belongs to (+1) */
    uint32_t stamp;
} GramSlot;

typedef struct {
    GramSlot *tab;
    size_t tab_cap, mask, scratch_cap;
    uint32_t gen;
    uint64_t *hash;      /* running k-gram hash of every position of the instance */
    uint8_t *alive;      /* can the k-gram at this position still match? */
    uint32_t *slot;      /* candidate position -> table slot */
} GramWork;

static inline uint64_t gram_step(uint64_t h, tok_t t) {
    /* hash of a k-gram = fold of its tokens: h(k+1) = step(h(k), next token) */
    h ^= t + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static inline int gram_eq(const tok_t *a, const tok_t *b, int k) {
    for (int i = 0; i < k; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* Table for a candidate of clen tokens, scratch for `total` positions. */
static int gram_reserve(GramWork *w, int64_t clen, int64_t total) {
    size_t cap = 64;
    while (cap < 2 * (size_t)clen) cap *= 2;
    if (cap > w->tab_cap) {
        free(w->tab);
        w->tab = (GramSlot *)calloc(cap, sizeof(GramSlot));
        w->tab_cap = w->tab ? cap : 0;
        w->gen = 0;
    }
    if ((size_t)total > w->scratch_cap) {
        w->scratch_cap = (size_t)total * 2;
        free(w->hash); free(w->alive); free(w->slot);
        w->hash = (uint64_t *)malloc(w->scratch_cap * sizeof(uint64_t));
        w->alive = (uint8_t *)malloc(w->scratch_cap);
        w->slot = (uint32_t *)malloc(w->scratch_cap * sizeof(uint32_t));
    }
    if (!w->tab || !w->hash || !w->alive || !w->slot) { w->scratch_cap = 0; return -1; }
    w->mask = cap - 1;
    memset(w->hash, 0, (size_t)total * sizeof(uint64_t));
    memset(w->alive, 1, (size_t)total);
    return 0;
}

/* Slot of the k-gram at T + p (its hash extended by one token first). */
static inline size_t gram_find(GramWork *w, const tok_t *T, int64_t p, int k) {
    const uint64_t h = w->hash[p] = gram_step(w->hash[p], T[p + k - 1]);
    size_t s = (size_t)h & w->mask;
    while (w->tab[s].stamp == w->gen && (w->tab[s].hash != h || !gram_eq(w->tab[s].at, T + p, k)))
        s = (s + 1) & w->mask;
    return s;
}

/* Insert the candidate's live k-grams; returns 0 when none is left. */
static int add_candidate(GramWork *w, const tok_t *T, int64_t clen, int k) {
    if (++w->gen == 0) { memset(w->tab, 0, w->tab_cap * sizeof(GramSlot)); w->gen = 1; }
    int any = 0;
    for (int64_t p = 0; p + k <= clen; p++) {
        if (!w->alive[p]) continue;
        const size_t s = gram_find(w, T, p, k);
        if (w->tab[s].stamp != w->gen) {
            GramSlot z = {T + p, w->hash[p], 0, 0, 0, 0, 0, w->gen};
            w->tab[s] = z;
        }
        w->tab[s].cand++;
        w->slot[p] = (uint32_t)s;
        any = 1;
    }
    return any;
}

/* Stream one source [s0, s1) through the table: per-gram max occurrence counts. */
static void add_source(GramWork *w, const tok_t *T, int64_t s0, int64_t s1, int k, uint32_t sid, int in_pre) {
    for (int64_t p = s0; p + k <= s1; p++) {
        if (!w->alive[p]) continue;
        const size_t s = gram_find(w, T, p, k);
        if (w->tab[s].stamp != w->gen) { w->alive[p] = 0; continue; }  /* no longer gram can match */
        GramSlot *e = &w->tab[s];
        if (e->run_src != sid) { e->run_src = sid; e->run = 0; }
        e->run++;
        if (e->run > e->best) e->best = e->run;
        if (in_pre && e->run > e->best_pre) e->best_pre = e->run;
    }
}

/* Clipped sums over the distinct candidate k-grams (all sources, prefix). */
static void tally(GramWork *w, int64_t clen, int k, int64_t *m, int64_t *mp) {
    *m = *mp = 0;
    for (int64_t p = 0; p + k <= clen; p++) {
        if (!w->alive[p]) continue;
        GramSlot *e = &w->tab[w->slot[p]];
        if (e->best == 0) { w->alive[p] = 0; continue; }
        if (e->cand) {  /* count each distinct k-gram once */
            *m += e->cand < e->best ? e->cand : e->best;
            *mp += e->cand < e->best_pre ? e->cand : e->best_pre;
            e->cand = 0;
        }
    }
}

static int gram_instance(GramWork *w, const GramBatch *b, size_t i) {
    const int64_t t0 = b->inst_start[i], t1 = b->inst_start[i + 1];
    const int64_t base = b->text_off[t0];
    const int64_t clen = b->text_off[t0 + 1] - base, total = b->text_off[t1] - base;
    const int64_t ns = t1 - t0 - 1, npre = b->npre ? b->npre[i] : ns;
    if (clen == 0 || ns == 0) return 0;
    if (gram_reserve(w, clen, total) < 0) return -1;
    const tok_t *T = b->toks + base;
    for (int k = 1; k <= b->n && k <= clen; k++) {
        if (!add_candidate(w, T, clen, k)) break;
        for (int64_t j = 0; j < ns; j++)
            add_source(w, T, b->text_off[t0 + 1 + j] - base, b->text_off[t0 + 2 + j] - base, k,
                       (uint32_t)j + 1, j < npre);
        int64_t m, mp;
        tally(w, clen, k, &m, &mp);
        b->out[i * (size_t)b->n + (size_t)(k - 1)] = m;
        if (b->npre) b->out[(b->N + i) * (size_t)b->n + (size_t)(k - 1)] = mp;
    }
    return 0;
}

int ngram_range(void *ctx, size_t begin, size_t end) {
    const GramBatch *b = (const GramBatch *)ctx;
    GramWork w;
    memset(&w, 0, sizeof(w));
    int rc = 0;
    for (size_t i = begin; i < end && rc == 0; i++) rc = gram_instance(&w, b, i);
    free(w.tab); free(w.hash); free(w.alive); free(w.slot);
    return rc;
}
