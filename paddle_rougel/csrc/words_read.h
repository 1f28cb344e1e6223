/* words_kernel.c's word reader: a text's words (Word: keys, hash, place), the per-thread work
 * area (WWork), the portable readers (bitmap1, scan1, scan) and the AVX-512 reader of 1-byte
 * texts (bitmap1_v, bounds_v).
 * Part of words_kernel.c's translation unit, included there only: its functions are static
 * (inline where they were), so the compiler sees the one unit it saw before the split and
 * inlines the hot paths as before.
 */
#ifndef PADDLE_ROUGEL_WORDS_READ_H
#define PADDLE_ROUGEL_WORDS_READ_H

/* A word of code points < 256 (as bytes, folded when fold): key its first 8 bytes and key2
 * the next 8 (zero-padded), so that a word of at most 16 bytes is (key, key2, its length);
 * a longer one has its hash as key2 (and is compared byte by byte). */
typedef struct {
    uint64_t key, key2, hash;
    const WordText *t;
    int64_t start, len;
    int exact;                  /* (key, key2, len) is the word: code points < 256, at most 16 */
} Word;

/* word -> local id; an exact word is compared without a reload */
typedef struct { uint64_t key, key2; uint32_t stamp, id, rep, tag; } Slot;

/* A word's tag: its length when (key, key2, length) is the word, else ~0 (compare the words). */
static inline uint32_t word_tag(const Word *x) { return x->exact ? (uint32_t)x->len : ~(uint32_t)0; }

typedef struct {
    Word *w;
    uint32_t *ids;              /* the instance's words: candidate ids, then references' */
    int64_t *ref_len;
    uint64_t *bits;             /* word-character bitmap of one text (kind 1) */
    uint8_t *low;               /* that text's bytes, folded when fold, then 16 zero bytes */
    int64_t *bounds;            /* its words' first and last byte: starts, then ends */
    uint8_t *narrow;            /* one word of a 2- or 4-byte text as bytes */
    int32_t *b32;               /* the AVX-512 reader's starts and ends (a text under WORDS_V_MAX bytes) */
    uint64_t *keys;             /* and its words' keys, key2s, hashes and lengths (cand_ids_v) */
    size_t keys_cap, w_cap, ids_cap, rl_cap, bits_cap, low_cap, bounds_cap, narrow_cap, b32_cap;
    int simd;                   /* the AVX-512 reader (words_simd_available and not b->no_simd) */
    /* the mask reader (cand_masks_v, ref_masks_v): the candidate's words by position (at most
     * 63 of at most 15 bytes; room for a last group of 8): fingerprints, key, key2 | length
     * << 56; fvalid its positions, fmixed those whose fingerprint another word shares */
    uint16_t fpw[72];
    uint64_t fc[72], fd[72];
    uint64_t fvalid, fmixed;
    int masks, one, two;        /* the batch suits the mask reader (b->ngram: none, or clipped orders
                                 * within {1, 2}); which of ROUGE-1 and ROUGE-2 it asks for */
    Slot *map;                  /* open addressing with generation stamps */
    uint32_t gen;
    size_t mcap;
    uint8_t wc[256];            /* word character?  code points < 256 */
    LcsScratch s;
    RougeNScratch rs;
} WWork;

static void wwork_free(WWork *w) {
    free(w->w); free(w->ids); free(w->ref_len); free(w->bits); free(w->low); free(w->bounds);
    free(w->narrow); free(w->map); free(w->b32); free(w->keys);
    lcs_scratch_free(&w->s);
    rougen_scratch_free(&w->rs);
}

static void word_table(const WordsBatch *b, uint8_t *wc) {
    for (uint32_t c = 0; c < 256; c++) {
        if (b->mode == WORDS_ALNUM)
            wc[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (b->fold && c >= 'A' && c <= 'Z');
        else if (c < 128)
            wc[c] = !((c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x20));
        else
            wc[c] = !b->is_space(c);
    }
}

static inline uint32_t fold_ascii(uint32_t c) { return (c - 'A' < 26u) ? c + 32 : c; }

/* Eight bytes with every ASCII A-Z byte made a-z (other bytes unchanged). */
static inline uint64_t fold8(uint64_t v) {
    const uint64_t x = v & 0x7F7F7F7F7F7F7F7Full;
    const uint64_t ge_a = x + 0x3F3F3F3F3F3F3F3Full;   /* high bit: byte >= 'A' */
    const uint64_t gt_z = x + 0x2525252525252525ull;   /* high bit: byte > 'Z' */
    const uint64_t upper = ge_a & ~gt_z & ~v & 0x8080808080808080ull;
    return v | (upper >> 2);
}

/* Bytes p[at .. at+k) (k <= 8) of a text of len bytes as a little-endian word, zero above k. */
static inline uint64_t load_le(const uint8_t *p, int64_t at, int64_t k, int64_t len) {
    uint64_t v = 0;
    if (at + 8 <= len) {
        memcpy(&v, p + at, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = __builtin_bswap64(v);
#endif
        if (k < 8) v &= ((uint64_t)1 << (8 * k)) - 1;
    } else {
        for (int64_t i = 0; i < k; i++) v |= (uint64_t)p[at + i] << (8 * i);
    }
    return v;
}

static inline uint32_t code_point(const WordText *t, int64_t i) {
    if (t->kind == 1) return ((const uint8_t *)t->data)[i];
    if (t->kind == 2) return ((const uint16_t *)t->data)[i];
    return ((const uint32_t *)t->data)[i];
}

static int word_eq(const Word *a, const Word *b, int fold) {
    if (a->len != b->len) return 0;
    if (a->t->kind == 1 && b->t->kind == 1) {
        const uint8_t *pa = (const uint8_t *)a->t->data, *pb = (const uint8_t *)b->t->data;
        for (int64_t i = 0; i < a->len; i += 8) {
            const int64_t k = a->len - i < 8 ? a->len - i : 8;
            uint64_t x = load_le(pa, a->start + i, k, a->t->len), y = load_le(pb, b->start + i, k, b->t->len);
            if (fold) { x = fold8(x); y = fold8(y); }
            if (x != y) return 0;
        }
        return 1;
    }
    for (int64_t i = 0; i < a->len; i++) {
        uint32_t x = code_point(a->t, a->start + i), y = code_point(b->t, b->start + i);
        if (fold) { x = fold_ascii(x); y = fold_ascii(y); }
        if (x != y) return 0;
    }
    return 1;
}

/* Word-character bitmap of 64 bytes at p (bit i: p[i]); the bytes, ASCII-folded when b->fold,
 * copied to out. */
static inline uint64_t classify64(const WWork *w, const WordsBatch *b, const uint8_t *p, uint8_t *out) {
#if defined(__SSE2__)
    (void)w;
    uint64_t m = 0;
    for (int e = 0; e < 4; e++) {
        const __m128i x = _mm_loadu_si128((const __m128i *)(p + 16 * e));
        __m128i word, copy = x;
        if (b->fold) {  /* A-Z: + 0x20 */
            const __m128i up = _mm_cmplt_epi8(_mm_add_epi8(x, _mm_set1_epi8((char)(0x80 - 'A'))),
                                              _mm_set1_epi8((char)(0x80 + 26)));
            copy = _mm_or_si128(x, _mm_and_si128(up, _mm_set1_epi8(0x20)));
        }
        _mm_storeu_si128((__m128i *)(out + 16 * e), copy);
        if (b->mode == WORDS_ALNUM) {  /* [0-9a-z], and A-Z (the mode folds) */
            const __m128i low = _mm_or_si128(x, _mm_set1_epi8(0x20));
            const __m128i a = _mm_cmplt_epi8(_mm_add_epi8(low, _mm_set1_epi8((char)(0x80 - 'a'))),
                                             _mm_set1_epi8((char)(0x80 + 26)));
            const __m128i d = _mm_cmplt_epi8(_mm_add_epi8(x, _mm_set1_epi8((char)(0x80 - '0'))),
                                             _mm_set1_epi8((char)(0x80 + 10)));
            word = _mm_or_si128(a, d);
        } else {  /* not whitespace: \t-\r, \x1c-space, \x85, \xa0 */
            const __m128i c = _mm_cmplt_epi8(_mm_add_epi8(x, _mm_set1_epi8((char)(0x80 - 9))),
                                             _mm_set1_epi8((char)(0x80 + 5)));
            const __m128i f = _mm_cmplt_epi8(_mm_add_epi8(x, _mm_set1_epi8((char)(0x80 - 0x1c))),
                                             _mm_set1_epi8((char)(0x80 + 5)));
            const __m128i n = _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8((char)0x85)),
                                           _mm_cmpeq_epi8(x, _mm_set1_epi8((char)0xA0)));
            word = _mm_xor_si128(_mm_or_si128(_mm_or_si128(c, f), n), _mm_set1_epi8(-1));
        }
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(word) << (16 * e);
    }
    return m;
#else
    uint64_t m = 0;
    for (int i = 0; i < 64; i++) {
        m |= (uint64_t)w->wc[p[i]] << i;
        out[i] = (uint8_t)(b->fold ? fold_ascii(p[i]) : p[i]);
    }
    return m;
#endif
}

/* Room for the bitmap of a 1-byte text of nb 64-byte blocks (w->bits: a zero word before, one
 * after) and its folded copy (w->low: 16 bytes more); the bitmap (w->bits + 1), or NULL. */
static uint64_t *bitmap_room(WWork *w, int64_t nb) {
    if (grow((void **)&w->bits, &w->bits_cap, (size_t)nb + 2, sizeof(uint64_t)) < 0 ||
        grow((void **)&w->low, &w->low_cap, 64 * (size_t)nb + 16, 1) < 0)
        return NULL;
    w->bits[0] = 0;
    return w->bits + 1;
}

/* The bitmap's zero word after the text, and the 16 zero bytes after its folded copy. */
static void bitmap_close(WWork *w, uint64_t *bits, int64_t nb) {
    bits[nb] = 0;
    memset(w->low + 64 * nb, 0, 16);
}

/* Word-character bitmap of a 1-byte text in w->bits + 1 (with a zero word before and after),
 * and its bytes (folded when fold) in w->low, then at least 16 zero bytes. */
static uint64_t *bitmap1(WWork *w, const WordsBatch *b, const WordText *t) {
    const uint8_t *p = (const uint8_t *)t->data;
    const int64_t len = t->len, nb = (len + 63) / 64;
    uint64_t *bits = bitmap_room(w, nb);
    if (!bits) return NULL;
    for (int64_t k = 0; k < nb; k++) {
        const int64_t at = 64 * k, n = len - at < 64 ? len - at : 64;
        if (n == 64) {
            bits[k] = classify64(w, b, p + at, w->low + at);
        } else {  /* the last bytes: from a zero-padded copy, bits above n cleared */
            uint8_t tail[64];
            memset(tail, 0, sizeof(tail));
            memcpy(tail, p + at, (size_t)n);
            bits[k] = classify64(w, b, tail, w->low + at) & (((uint64_t)1 << n) - 1);
        }
    }
    bitmap_close(w, bits, nb);
    return bits;
}

/* The positions of the set bits of m, plus base, written at out (room for 4 more than there
 * are: the first four are written unconditionally); returns how many. */
static inline int64_t bit_positions(uint64_t m, int64_t base, int64_t *out) {
    int64_t cnt = 0;
    for (int j = 0; j < 4; j++) {
        out[j] = base + __builtin_ctzll(m | ((uint64_t)1 << 63));
        cnt += m != 0;
        m &= m - 1;
    }
    while (m) {
        out[cnt++] = base + __builtin_ctzll(m);
        m &= m - 1;
    }
    return cnt;
}

/* Little-endian 8 bytes at p (room for them: the folded copy's zero tail). */
static inline uint64_t load8(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* The first n (1..8) bytes of v, the others zero. */
static inline uint64_t low_bytes(uint64_t v, int64_t n) { return v & (~(uint64_t)0 >> (64 - 8 * n)); }

/* Key, key2, hash and exact of the word of n >= 1 bytes at q (folded already; at least 16
 * bytes of room after the word), for n <= 16 with no branch on n (a branch the predictor
 * misses flushes the overlapped work of the words around it); for n > 16, word_bytes. */
static inline void word_short(const uint8_t *q, int64_t n, Word *out) {
    const int64_t n0 = n < 8 ? n : 8, n1 = n - 8 < 1 ? 1 : (n - 8 > 8 ? 8 : n - 8);
    const uint64_t c = low_bytes(load8(q), n0), d = n > 8 ? low_bytes(load8(q + 8), n1) : 0;
    const uint64_t h0 = ((uint64_t)n * HASH_MUL) ^ c;
    const uint64_t h1 = ((h0 << 5 | h0 >> 59) ^ d) * HASH_MUL;
    const uint64_t h = (n > 8 ? h1 : h0) * HASH_MUL;
    out->key = c;
    out->key2 = d;
    out->hash = h ^ (h >> 29);
    out->exact = n <= 16;
}

/* The same for any n >= 1: the hash chains the 8-byte pieces of the word. */
static void word_bytes(const uint8_t *q, int64_t n, Word *out) {
    if (n <= 16) {
        word_short(q, n, out);
        return;
    }
    uint64_t h = ((uint64_t)n * HASH_MUL) ^ load8(q);
    for (int64_t i = 8; i < n; i += 8)
        h = ((h << 5 | h >> 59) ^ low_bytes(load8(q + i), n - i < 8 ? n - i : 8)) * HASH_MUL;
    h *= HASH_MUL;
    out->key = load8(q);
    out->hash = h ^ (h >> 29);
    out->key2 = out->hash;
    out->exact = 0;
}

/* The words of a 1-byte text: the starts and ends of its words from its bitmap (the k-th
 * start and the k-th end bound the k-th word), then each word's key and hash from the folded
 * copy, written at out (room reserved: (len + 1) / 2 + 1).  Returns how many, or -1. */
static int64_t scan1(WWork *w, const WordsBatch *b, const WordText *t, Word *out) {
    const uint64_t *bits = bitmap1(w, b, t);
    if (!bits) return -1;
    const int64_t len = t->len, nb = (len + 63) / 64, most = (len + 1) / 2;
    if (grow((void **)&w->bounds, &w->bounds_cap, 3 * (size_t)most + 24, sizeof(int64_t)) < 0) return -1;
    int64_t *S = w->bounds, *E = w->bounds + most + 8, *longs = w->bounds + 2 * most + 16;
    int64_t ns = 0, ne = 0;
    for (int64_t k = 0; k < nb; k++) {
        const uint64_t m = bits[k];
        ns += bit_positions(m & ~((m << 1) | (bits[k - 1] >> 63)), 64 * k, S + ns);
        ne += bit_positions(m & ~((m >> 1) | (bits[k + 1] << 63)), 64 * k, E + ne);
    }
    const uint8_t *low = w->low;
    /* each word's key and hash (words over 16 bytes, rare, after: no branch on a length) */
    int64_t nlong = 0;
    for (int64_t j = 0; j < ns; j++) {
        const int64_t s = S[j], n = E[j] - s + 1;
        Word *x = &out[j];
        word_short(low + s, n, x);
        x->t = t;
        x->start = s;
        x->len = n;
        longs[nlong] = j;
        nlong += n > 16;
    }
    for (int64_t i = 0; i < nlong; i++) {
        Word *x = &out[longs[i]];
        word_bytes(low + x->start, x->len, x);
    }
    return ns;
}

/* ---- the AVX-512 reader of 1-byte texts (run-time dispatch: words_simd_available) ----
 * The same words, keys and hashes as bitmap1, scan1 and word_short compute (word_short is
 * the definition; these lanes compute it eight words at a time): the bitmap from one 64-byte
 * compare per block; each block's word starts and ends by compressing the byte positions
 * 0..63 under the start and end masks (register form); the key, key2 and hash of eight words
 * from two gathers at their starts, masked by their lengths.  A word over 16 bytes (rare)
 * goes through word_bytes.  Positions are int32: texts of WORDS_V_MAX bytes or more take the
 * portable reader. */
#ifdef WORDS_X86
WORDS_AVX512 static inline uint64_t classify64_v(const WordsBatch *b, const __m512i x, uint8_t *out) {
    _mm512_storeu_si512((void *)out, b->fold ? fold64_v(x) : x);
    if (b->mode == WORDS_ALNUM) return alnum64_v(x);  /* [0-9a-z], and A-Z (the mode folds) */
    /* not whitespace: \t-\r, \x1c-space, \x85, \xa0 */
    const __mmask64 c = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(x, _mm512_set1_epi8(9)), _mm512_set1_epi8(5));
    const __mmask64 f = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(x, _mm512_set1_epi8(0x1c)), _mm512_set1_epi8(5));
    const __mmask64 n = _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8((char)0x85)) |
                        _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8((char)0xA0));
    return ~(uint64_t)(c | f | n);
}

/* bitmap1 with classify64_v */
WORDS_AVX512 static uint64_t *bitmap1_v(WWork *w, const WordsBatch *b, const WordText *t) {
    const uint8_t *p = (const uint8_t *)t->data;
    const int64_t len = t->len, nb = (len + 63) / 64;
    uint64_t *bits = bitmap_room(w, nb);
    if (!bits) return NULL;
    for (int64_t k = 0; k + 1 < nb; k++)
        bits[k] = classify64_v(b, _mm512_loadu_si512((const void *)(p + 64 * k)), w->low + 64 * k);
    if (nb > 0) {  /* the last bytes: a masked load (zero above n; nothing past the text read), bits above n cleared */
        const int64_t at = 64 * (nb - 1), n = len - at;
        const uint64_t live = ~(uint64_t)0 >> (64 - n);
        bits[nb - 1] = classify64_v(b, _mm512_maskz_loadu_epi8((__mmask64)live, p + at), w->low + at) & live;
    }
    bitmap_close(w, bits, nb);
    return bits;
}

/* Where bounds_v puts the last bytes E of text t's words, after their first bytes S. */
static inline const int32_t *bounds_ends(const int32_t *S, const WordText *t) { return S + (t->len + 1) / 2 + 40; }

/* The words of a 1-byte text (len < WORDS_V_MAX): its bitmap and folded copy (w->bits,
 * w->low), the k-th word's first byte at S[k] and last at E[k] (S = w->b32, E after it:
 * returned, E = bounds_ends(S, t)); the count at *ns, or NULL when out of memory. */
WORDS_AVX512 static int32_t *bounds_v(WWork *w, const WordsBatch *b, const WordText *t, int64_t *ns_out) {
    const uint64_t *bits = bitmap1_v(w, b, t);
    if (!bits) return NULL;
    const int64_t len = t->len, nb = (len + 63) / 64, most = (len + 1) / 2;
    /* each block writes 32 positions (it has at most 32 starts and 32 ends) */
    if (grow((void **)&w->b32, &w->b32_cap, 2 * (size_t)most + 80, sizeof(int32_t)) < 0) return NULL;
    int32_t *S = w->b32, *E = (int32_t *)bounds_ends(S, t);  /* = S + most + 40 */
    int64_t ns = 0, ne = 0;
    for (int64_t k = 0; k < nb; k++) {
        const uint64_t m = bits[k];
        const uint64_t ms = m & ~((m << 1) | (bits[k - 1] >> 63)), me = m & ~((m >> 1) | (bits[k + 1] << 63));
        ns += positions64_v(ms, 64 * k, S + ns);
        ne += positions64_v(me, 64 * k, E + ne);
    }
    *ns_out = ns;
    return S;
}

#endif

/* Words of text t appended at out (room reserved: (len + 1) / 2 + 1); returns how many, or -1. */
static int64_t scan(WWork *w, const WordsBatch *b, const WordText *t, Word *out) {
    const int fold = b->fold;
    if (t->kind == 1) return scan1(w, b, t, out);
    /* 2- and 4-byte texts: code point by code point; a word of code points < 256 hashes as
     * its bytes would (it may equal a word of a 1-byte text), any other with its code points */
    const int64_t len = t->len;
    int64_t n = 0, p = 0;
    for (;;) {
        uint32_t c = 0;
        while (p < len) {
            c = code_point(t, p);
            if (c < 256 ? w->wc[c] : (b->mode == WORDS_SPLIT && !b->is_space(c))) break;
            p++;
        }
        if (p >= len) break;
        const int64_t s0 = p;
        int wide = 0;
        while (p < len) {
            c = code_point(t, p);
            if (!(c < 256 ? w->wc[c] : (b->mode == WORDS_SPLIT && !b->is_space(c)))) break;
            wide |= c >= 256;
            p++;
        }
        const int64_t wl = p - s0;
        if (!wide) {
            if (grow((void **)&w->narrow, &w->narrow_cap, (size_t)wl + 16, 1) < 0) return -1;
            for (int64_t i = 0; i < wl; i++) {
                const uint32_t x = code_point(t, s0 + i);
                w->narrow[i] = (uint8_t)(fold ? fold_ascii(x) : x);
            }
            memset(w->narrow + wl, 0, 16);
            word_bytes(w->narrow, wl, &out[n]);
        } else {  /* never equal to a word of bytes: key ~0 is no 8 bytes' folded key */
            uint64_t h = ~(uint64_t)0;
            for (int64_t i = 0; i < wl; i++) {
                const uint32_t x = code_point(t, s0 + i);
                h = ((h << 5 | h >> 59) ^ (fold ? fold_ascii(x) : x)) * HASH_MUL;
            }
            out[n].key = ~(uint64_t)0;
            out[n].exact = 0;
            out[n].hash = h ^ (h >> 29);
            out[n].key2 = out[n].hash;
        }
        out[n].t = t; out[n].start = s0; out[n].len = wl;
        n++;
    }
    return n;
}

#endif
