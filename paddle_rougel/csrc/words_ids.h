/* words_kernel.c's local word ids: the instance's open-addressing table (map_reserve,
 * map_slot), the candidate's and the references' ids (cand_id, ref_id) and their AVX-512
 * lanes (cand_ids_v, ref_ids_v).
 * Part of words_kernel.c's translation unit, included there only: its functions are static
 * (inline where they were), so the compiler sees the one unit it saw before the split and
 * inlines the hot paths as before.
 */
#ifndef PADDLE_ROUGEL_WORDS_IDS_H
#define PADDLE_ROUGEL_WORDS_IDS_H

/* Room for need keys at load <= 1/8 (a reference word's first probe decides it, mostly). */
static int map_reserve(WWork *w, size_t need) {
    size_t cap = 64;
    while (cap < 8 * need) cap *= 2;
    if (cap <= w->mcap) return 0;
    free(w->map);
    w->map = (Slot *)calloc(cap, sizeof(Slot));
    w->gen = 0;
    w->mcap = w->map ? cap : 0;
    return w->map ? 0 : -1;
}

/* The local id of word x (index xi in w->w); absent: 0, or with add a new id ++*k. */
static inline int slot_is(const WWork *w, const Slot *s, const Word *x, int fold) {
    return s->key == x->key && s->key2 == x->key2 && s->tag == word_tag(x) &&
           (x->exact || word_eq(&w->w[s->rep], x, fold));
}

/* The slot of word x: its own, or the empty one where it would go. */
static size_t map_slot(const WWork *w, const Word *x, int fold) {
    const size_t mask = w->mcap - 1;
    size_t h = (size_t)x->hash & mask;
    while (w->map[h].stamp == w->gen && !slot_is(w, &w->map[h], x, fold)) h = (h + 1) & mask;
    return h;
}

/* The local id of candidate word xi (index in w->w), a new one (++*k) when it is new. */
static inline uint32_t cand_id(WWork *w, size_t xi, int fold, uint32_t *k) {
    const Word *x = &w->w[xi];
    Slot *S = &w->map[(size_t)x->hash & (w->mcap - 1)];  /* the first probe inline: mostly decides */
    if (S->stamp == w->gen) {
        if (x->exact & (S->key == x->key) & (S->key2 == x->key2) & (S->tag == word_tag(x))) return S->id;
        S = &w->map[map_slot(w, x, fold)];
    }
    if (S->stamp != w->gen) {
        S->stamp = w->gen;
        S->key = x->key;
        S->key2 = x->key2;
        S->tag = word_tag(x);
        S->rep = (uint32_t)xi;
        S->id = ++*k;
    }
    return S->id;
}

/* A reference word's id (0: not in the candidate): the first probe without a branch on
 * its outcome (an exact word found there, or an empty slot: the common cases). */
static inline __attribute__((always_inline)) uint32_t ref_id(const WWork *w, const Word *x, int fold) {
    const Slot *s = &w->map[(size_t)x->hash & (w->mcap - 1)];
    const int used = s->stamp == w->gen;
    const int same = used & (s->key == x->key) & (s->key2 == x->key2) & (s->tag == word_tag(x));
    if (__builtin_expect((used & !same) | (same & !x->exact), 0)) {
        s = &w->map[map_slot(w, x, fold)];
        return s->stamp == w->gen ? s->id : 0;
    }
    return same ? s->id : 0;
}

#ifdef WORDS_X86
/* The ids of a 1-byte text's words (len < WORDS_V_MAX) as references (ref_id) at ids: eight
 * words a step, each looked up at its first probe by gathers; a lane that needs more (a used
 * slot of another word, or a word over 16 bytes) by ref_id.  Returns how many, or -1. */
WORDS_AVX512 static int64_t ref_ids_v(WWork *w, const WordsBatch *b, const WordText *t, uint32_t *ids) {
    int64_t ns;
    const int32_t *S = bounds_v(w, b, t, &ns);
    if (!S) return -1;
    const int32_t *E = bounds_ends(S, t);
    const uint8_t *low = w->low;
    const char *mp = (const char *)w->map;
    const __m512i hmask = _mm512_set1_epi64((long long)(w->mcap - 1)), lo32 = _mm512_set1_epi64(0xFFFFFFFFll),
                  gen = _mm512_set1_epi64((long long)w->gen), zero = _mm512_setzero_si512(),
                  sixteen = _mm512_set1_epi64(16);
    for (int64_t j = 0; j < ns; j += 8) {
        const int64_t cnt = ns - j < 8 ? ns - j : 8;
        const __mmask8 live = (__mmask8)((1u << cnt) - 1);
        const Keys8 K = keys8_v(low, S + j, E + j, live);
        const __m512i off = _mm512_slli_epi64(_mm512_and_si512(K.h, hmask), 5);  /* sizeof(Slot) == 32 */
        const __m512i sk = _mm512_mask_i64gather_epi64(zero, live, off, (const void *)(mp + offsetof(Slot, key)), 1);
        const __m512i sk2 = _mm512_mask_i64gather_epi64(zero, live, off, (const void *)(mp + offsetof(Slot, key2)), 1);
        const __m512i sid = _mm512_mask_i64gather_epi64(zero, live, off, (const void *)(mp + offsetof(Slot, stamp)), 1);
        const __m512i stag = _mm512_mask_i64gather_epi64(zero, live, off, (const void *)(mp + offsetof(Slot, rep)), 1);
        const __mmask8 used = _mm512_mask_cmpeq_epi64_mask(live, _mm512_and_si512(sid, lo32), gen);
        const __mmask8 same = used & _mm512_cmpeq_epi64_mask(sk, K.c) & _mm512_cmpeq_epi64_mask(sk2, K.d) &
                              _mm512_cmpeq_epi64_mask(_mm512_srli_epi64(stag, 32), K.n);
        const __mmask8 easy = _mm512_cmple_epi64_mask(K.n, sixteen) & (same | (__mmask8)~used);
        _mm256_mask_storeu_epi32((void *)(ids + j), live, _mm512_cvtepi64_epi32(_mm512_maskz_srli_epi64(same, sid, 32)));
        for (unsigned hard = live & ~easy; hard; hard &= hard - 1) {
            const int l = __builtin_ctz(hard);
            Word x;
            x.t = t;
            x.start = S[j + l];
            x.len = E[j + l] - S[j + l] + 1;
            word_bytes(low + x.start, x.len, &x);
            ids[j + l] = ref_id(w, &x, b->fold);
        }
    }
    return ns;
}

/* The ids of the ns words of a 1-byte text found by bounds_v (S: its starts; w->low its
 * folded copy still) as cand_id gives them, the words being w->w[base ..] (only those over
 * 16 bytes are written there: the table's representatives that word_eq reads); the keys by
 * the lanes, the table step per word. */
WORDS_AVX512 static int cand_ids_v(WWork *w, const WordText *t, const int32_t *S, int64_t ns, size_t base,
                                   uint32_t *ids, int fold, uint32_t *k) {
    const int32_t *E = bounds_ends(S, t);
    const uint8_t *low = w->low;
    /* the keys first (keys_v) */
    const size_t room = (size_t)ns + 8;
    if (grow((void **)&w->keys, &w->keys_cap, 4 * room, sizeof(uint64_t)) < 0) return -1;
    uint64_t *C = w->keys, *D = C + room, *H = D + room, *N = H + room;
    keys_v(low, S, E, ns, C, D, H, N);
    const size_t mask = w->mcap - 1;
    const uint32_t gen = w->gen;
    for (int64_t j = 0; j < ns; j++) {
        const size_t xi = base + (size_t)j;
        __builtin_prefetch(&w->map[(size_t)H[j + 8 < ns ? j + 8 : j] & mask]);
        if (__builtin_expect(N[j] > 16, 0)) {
            Word *x = &w->w[xi];
            x->t = t;
            x->start = S[j];
            x->len = (int64_t)N[j];
            word_bytes(low + x->start, x->len, x);
            ids[j] = cand_id(w, xi, fold, k);
            continue;
        }
        Slot *s = &w->map[(size_t)H[j] & mask];  /* the first probe inline: mostly decides */
        if (s->stamp == gen) {
            if ((s->key == C[j]) & (s->key2 == D[j]) & (s->tag == (uint32_t)N[j])) {
                ids[j] = s->id;
                continue;
            }
            size_t h = (size_t)H[j] & mask;
            while (w->map[h].stamp == gen &&
                   !((w->map[h].key == C[j]) & (w->map[h].key2 == D[j]) & (w->map[h].tag == (uint32_t)N[j])))
                h = (h + 1) & mask;
            s = &w->map[h];
        }
        if (s->stamp != gen) {
            s->stamp = gen;
            s->key = C[j];
            s->key2 = D[j];
            s->tag = (uint32_t)N[j];
            s->rep = (uint32_t)xi;
            s->id = ++*k;
        }
        ids[j] = s->id;
    }
    return 0;
}
#endif

#endif
