/* words_kernel.c's mask reader (AVX-512): ROUGE-L and ROUGE-1/2 of a candidate of at most
 * 63 short words straight from each reference word's match mask (the comment below).
 * Part of words_kernel.c's translation unit, included there only: its functions are static
 * (inline where they were), so the compiler sees the one unit it saw before the split and
 * inlines the hot paths as before.
 */
#ifndef PADDLE_ROUGEL_WORDS_MASKS_H
#define PADDLE_ROUGEL_WORDS_MASKS_H

/* ---- the mask reader (AVX-512): ROUGE-L and ROUGE-1/2 of a candidate of at most 63 words of
 * at most 15 bytes, straight from each reference word's match mask ----
 * A word of at most 15 bytes is exactly (key, key2 | length << 56): key2's top byte is zero.
 * The candidate's 16-bit word fingerprints (fp16_v) fill one vector of 64 lanes.  A reference
 * word's fingerprint, broadcast and compared with them (two compares), gives the positions m
 * with its fingerprint.  When those are all one word (no other candidate word shares the
 * fingerprint: positions outside fmixed), m is the word's match mask if its first position
 * holds the word's key, and else the word is not in the candidate: one compare and one check
 * per reference word, no table, no ids, no branch.  A fingerprint that two candidate words
 * share (fmixed: about 9 candidates in 10,000 of 50 English words) is resolved by comparing
 * keys position by position (fp_exact), in a reference loop of its own (ref_masks_v). */
#ifdef WORDS_X86
WORDS_AVX512 static inline uint64_t fp_mask(__m512i v0, __m512i v1, uint16_t f) {
    const __m512i x = _mm512_set1_epi16((short)f);
    return (uint64_t)_mm512_cmpeq_epi16_mask(v0, x) | (uint64_t)_mm512_cmpeq_epi16_mask(v1, x) << 32;
}

/* The positions among m whose word is (key c, key2 | length << 56 d2). */
static __attribute__((noinline)) uint64_t fp_exact(const WWork *w, uint64_t m, uint64_t c, uint64_t d2) {
    uint64_t r = 0;
    for (; m; m &= m - 1) {
        const int l = __builtin_ctzll(m);
        if (w->fc[l] == c && w->fd[l] == d2) r |= (uint64_t)1 << l;
    }
    return r;
}

/* The mask reader's view of words 0 .. ns-1 of the text whose folded copy is low (bounds S,
 * E): key at C, key2 | length << 56 at D2 (0 for a word over 15 bytes, which no candidate
 * word's is: its top byte, the length, is at least 1), 16-bit fingerprint at F; each with
 * room for ns rounded up to 8.  Returns whether some word is over 15 bytes. */
WORDS_AVX512 static int mask_keys_v(const uint8_t *low, const int32_t *S, const int32_t *E, int64_t ns,
                                    uint64_t *C, uint64_t *D2, uint16_t *F) {
    __mmask8 longer = 0;
    for (int64_t j = 0; j < ns; j += 8) {
        const int64_t cnt = ns - j < 8 ? ns - j : 8;
        const __mmask8 live = (__mmask8)((1u << cnt) - 1);
        const Keys8 K = keys8_cdn_v(low, S + j, E + j, live);
        const __mmask8 fits = _mm512_cmple_epu64_mask(K.n, _mm512_set1_epi64(15));
        _mm512_storeu_si512((void *)(C + j), K.c);
        _mm512_storeu_si512((void *)(D2 + j), _mm512_maskz_mov_epi64(fits, _mm512_or_si512(K.d, _mm512_slli_epi64(K.n, 56))));
        _mm_storeu_si128((__m128i *)(F + j), _mm512_cvtepi64_epi16(fp16_v(K.c, K.d, K.n)));
        longer |= live & (__mmask8)~fits;
    }
    return longer != 0;
}

/* The candidate's ns words (bounds S of text t, w->low its folded copy) into the mask reader:
 * 1, or 0 when it does not take them (more than 63 words, or one over 15 bytes). */
WORDS_AVX512 static int cand_masks_v(WWork *w, const WordText *t, const int32_t *S, int64_t ns) {
    if (ns > 63) return 0;
    if (mask_keys_v(w->low, S, bounds_ends(S, t), ns, w->fc, w->fd, w->fpw)) return 0;
    const uint64_t valid = ((uint64_t)1 << ns) - 1;
    const __m512i v0 = _mm512_loadu_si512((const void *)w->fpw), v1 = _mm512_loadu_si512((const void *)(w->fpw + 32));
    /* each word against the first word of its fingerprint (at or before it: lanes past ns
     * cannot come first), eight at a time; only when some differ, which positions are mixed */
    int32_t first[64];
    for (int64_t j = 0; j < ns; j++) first[j] = __builtin_ctzll(fp_mask(v0, v1, w->fpw[j]));
    __mmask8 differ = 0;
    for (int64_t j = 0; j < ns; j += 8) {
        const __mmask8 live = (__mmask8)((1u << (ns - j < 8 ? ns - j : 8)) - 1);
        const __m256i at = _mm256_maskz_loadu_epi32(live, first + j);
        const __m512i c = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), live, at, (const void *)w->fc, 8);
        const __m512i d = _mm512_mask_i32gather_epi64(_mm512_setzero_si512(), live, at, (const void *)w->fd, 8);
        differ |= _mm512_mask_cmpneq_epi64_mask(live, c, _mm512_loadu_si512((const void *)(w->fc + j))) |
                  _mm512_mask_cmpneq_epi64_mask(live, d, _mm512_loadu_si512((const void *)(w->fd + j)));
    }
    uint64_t mixed = 0;
    if (differ)
        for (int64_t j = 0; j < ns; j++) {
            const uint64_t m = fp_mask(v0, v1, w->fpw[j]) & valid;
            const int l = first[j];
            const uint64_t same = (w->fc[l] == w->fc[j]) & (w->fd[l] == w->fd[j]);
            mixed |= m & (same - 1);
        }
    w->fvalid = valid;
    w->fmixed = mixed;
    return 1;
}
#endif

/* What a reference's pass accumulates from its words' match masks: the LCS row V and the
 * clipped ROUGE-1/2 state of rougen_kernel.h (Clip12). */
typedef struct { uint64_t V; Clip12 c; } MaskAcc;

static inline __attribute__((always_inline)) void mask_step(MaskAcc *a, uint64_t cur, const int lcs, const int one,
                                                            const int two) {
    if (lcs) a->V = lcs_step(a->V, cur);
    clip12_step(&a->c, cur, one, two);
}

/* A reference word's match mask against the mask reader's candidate: a plain search, for the
 * texts the AVX-512 reader does not read (2- and 4-byte texts). */
static uint64_t word_mask(const WWork *w, const Word *x) {
    uint64_t r = 0;
    if (!x->exact || x->len > 15) return 0;
    for (int l = 0; l < 63; l++)
        if ((w->fvalid >> l & 1) && w->fc[l] == x->key && w->fd[l] == (x->key2 | (uint64_t)x->len << 56))
            r |= (uint64_t)1 << l;
    return r;
}

#ifdef WORDS_X86
/* One reference (a 1-byte text under WORDS_V_MAX bytes) against the mask reader's candidate:
 * its words' match masks into a; returns its words, or -1. */
WORDS_AVX512 static inline __attribute__((always_inline)) int64_t
ref_masks_body(WWork *w, const WordsBatch *b, const WordText *t, MaskAcc *a, const int lcs, const int one,
               const int two, const int mixed) {
    int64_t ns;
    const int32_t *S = bounds_v(w, b, t, &ns);
    if (!S) return -1;
    const int32_t *E = bounds_ends(S, t);
    const uint8_t *low = w->low;
    const __m512i v0 = _mm512_loadu_si512((const void *)w->fpw), v1 = _mm512_loadu_si512((const void *)(w->fpw + 32));
    MaskAcc A = *a;
    const size_t room = (size_t)ns + 8;
    if (grow((void **)&w->keys, &w->keys_cap, 3 * room, sizeof(uint64_t)) < 0) return -1;
    uint64_t *kc = w->keys, *kd = kc + room;  /* and the fingerprints after them */
    uint16_t *kf = (uint16_t *)(kd + room);
    mask_keys_v(low, S, E, ns, kc, kd, kf);
    for (int64_t i = 0; i < ns; i++) {
        /* (not cut to the candidate's positions: a bit above them, a lane left from an earlier
         * candidate, changes no lower bit of the LCS step, and Clip12 takes valid positions
         * only; below them the first position decides as before) */
        uint64_t m = fp_mask(v0, v1, kf[i]);
        const int l = __builtin_ctzll(m | (uint64_t)1 << 63);
        const uint64_t eq = ((w->fc[l] ^ kc[i]) | (w->fd[l] ^ kd[i])) == 0;
        if (mixed && (m & w->fmixed)) m = fp_exact(w, m, kc[i], kd[i]);
        else m &= 0 - eq;
        mask_step(&A, m, lcs, one, two);
    }
    *a = A;
    return ns;
}

/* ref_masks_body for each mix of LCS, ROUGE-1 and ROUGE-2, and for a candidate with words
 * that share a fingerprint or none (constants: no test in the loop). */
#define REF_MASKS_CASES(mx)                                       \
    case mx << 3 | 7: return ref_masks_body(w, b, t, a, 1, 1, 1, mx); \
    case mx << 3 | 6: return ref_masks_body(w, b, t, a, 1, 1, 0, mx); \
    case mx << 3 | 5: return ref_masks_body(w, b, t, a, 1, 0, 1, mx); \
    case mx << 3 | 4: return ref_masks_body(w, b, t, a, 1, 0, 0, mx); \
    case mx << 3 | 3: return ref_masks_body(w, b, t, a, 0, 1, 1, mx); \
    case mx << 3 | 2: return ref_masks_body(w, b, t, a, 0, 1, 0, mx); \
    case mx << 3 | 1: return ref_masks_body(w, b, t, a, 0, 0, 1, mx); \
    case mx << 3 | 0: return ref_masks_body(w, b, t, a, 0, 0, 0, mx);
WORDS_AVX512 static int64_t ref_masks_v(WWork *w, const WordsBatch *b, const WordText *t, MaskAcc *a, int lcs,
                                        int one, int two) {
    switch ((w->fmixed != 0) << 3 | lcs << 2 | one << 1 | two) {
        REF_MASKS_CASES(0)
        REF_MASKS_CASES(1)
        default: return -1;
    }
}
#undef REF_MASKS_CASES
#endif

/* Instance i by the mask reader, its candidate of n words read already (cand_masks_v):
 * every reference's LCS and ROUGE-1/2 counts; 0, or -1 when out of memory. */
static int masks_instance(WWork *w, const WordsBatch *b, size_t i, int64_t n, int one, int two) {
    const int64_t t0 = b->inst_start[i], t1 = b->inst_start[i + 1];
    const size_t pair0 = (size_t)(t0 - (int64_t)i);
    const int lcs = b->lcs != NULL;
    const uint64_t valid = w->fvalid;  /* (one and two: what b->ngram asks, 0 without it) */
    for (int64_t t = t0 + 1; t < t1; t++) {
        const WordText *x = &b->texts[t];
        MaskAcc A;
        A.V = ~(uint64_t)0;
        clip12_start(&A.c, valid);
        int64_t cnt;
#ifdef WORDS_X86
        if (x->kind == 1 && w->simd && x->len < WORDS_V_MAX) {
            cnt = ref_masks_v(w, b, x, &A, lcs, one, two);
        } else
#endif
        {
            if (grow((void **)&w->w, &w->w_cap, (size_t)(x->len + 1) / 2 + 2, sizeof(Word)) < 0) return -1;
            cnt = scan(w, b, x, w->w);
            for (int64_t j = 0; j < cnt; j++) mask_step(&A, word_mask(w, &w->w[j]), lcs, one, two);
        }
        if (cnt < 0) return -1;
        const size_t pr = pair0 + (size_t)(t - t0 - 1);
        b->ref_len[pr] = cnt;
        if (lcs) b->lcs[pr] = popcount64(~A.V & valid);
        if (b->ngram) {
            const size_t K = (size_t)b->ngram->K;
            clip12_put(b->ngram, &A.c, valid, cnt, b->ngram_out.hits + pr * K, b->ngram_out.ref_grams + pr * K);
        }
    }
    if (b->ngram) {
        const size_t K = (size_t)b->ngram->K;
        clip12_cand_grams(b->ngram, n, b->ngram_out.cand_grams + i * K);
    }
    return 0;
}

#endif
