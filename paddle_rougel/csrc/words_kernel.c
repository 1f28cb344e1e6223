/*
 * Sentence-level ROUGE-L on words read from str data, in the kernel threads, and from the
 * same word ids the ROUGE-N counts (rougen_kernel.c) when asked: the text is read once.
 *
 * Each instance is tokenized on its own (its candidate, then its references) and its
 * words get local ids by a small hash table keyed by the words' contents: the LCS needs
 * equality within an instance only, so there is no vocabulary for the batch and nothing
 * to share between threads.  Words point into the str data (no copy); a word's hash is
 * over its code points (ASCII-folded when asked), so equal words in texts of different
 * PEP 393 kinds get equal ids.
 *
 * Where the CPU runs the AVX-512 reader, an instance whose candidate is a 1-byte text of at
 * most 63 words of at most 15 bytes (summaries, answers: most of them) takes the mask reader
 * instead: no ids and no table, each reference word's match mask over the candidate's
 * positions straight from a vector compare of fingerprints, fed to the LCS step and to the
 * clipped ROUGE-1/2 count (Clip12) as it is read.  The same numbers (the differential tests
 * compare both with the portable reader, simd=0).
 *
 * WORDS_SPLIT is str.split(): the whitespace of ASCII (\t\n\v\f\r, \x1c-\x1f, space) by a
 * table, of other code points by the caller's test (str.isspace: Py_UNICODE_ISSPACE).
 * WORDS_ALNUM is rouge-score's tokenizer on a lowercased text: runs of [a-z0-9] (with
 * fold, ASCII A-Z count as a-z; the caller lowercases non-ASCII texts with str.lower,
 * so no code point >= 128 is a word character and none folds to one).
 */
#include "words_kernel.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bitops.h"
#include "lcs_kernel.h"
#include "lcs_step.h"
#include "tokmap.h"
#include "words_simd.h"

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

int words_simd_available(void) {
#ifdef WORDS_X86
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("popcnt") &&
           __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#else
    return 0;
#endif
}

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

/* Text t's words as candidate words (their ids by cand_id), in two steps so that the table
 * can be sized between them: words_scan finds them (w->w[base ..], or for the AVX-512 reader
 * their starts at *S, the rest kept in w), returns how many, or -1; words_cand_ids then gives
 * them their ids at ids (nothing else may read a text in between). */
static int64_t words_scan(WWork *w, const WordsBatch *b, const WordText *t, size_t base, const int32_t **S) {
    *S = NULL;
#ifdef WORDS_X86
    if (t->kind == 1 && w->simd && t->len < WORDS_V_MAX) {
        int64_t ns;
        return (*S = bounds_v(w, b, t, &ns)) ? ns : -1;
    }
#endif
    return scan(w, b, t, w->w + base);
}

static int words_cand_ids(WWork *w, const WordsBatch *b, const WordText *t, const int32_t *S, int64_t cnt,
                          size_t base, uint32_t *k) {
#ifdef WORDS_X86
    if (S) return cand_ids_v(w, t, S, cnt, base, w->ids + base, b->fold, k);
#endif
    (void)t; (void)S;
    for (size_t p = base; p < base + (size_t)cnt; p++) w->ids[p] = cand_id(w, p, b->fold, k);
    return 0;
}

/* Every word of instance i's references stored after the candidate's and given an id (new
 * ones above the candidate's k), as distinct n-gram counts need; q: words so far (in: the
 * candidate's).  Returns the instance's distinct words, or -1. */
static int64_t all_ids(WWork *w, const WordsBatch *b, size_t i, size_t *q, uint32_t k) {
    const int64_t t0 = b->inst_start[i], t1 = b->inst_start[i + 1];
    for (int64_t t = t0 + 1; t < t1; t++) {
        const int32_t *S;
        const int64_t cnt = words_scan(w, b, &b->texts[t], *q, &S);
        if (cnt < 0 || (uint64_t)*q + (uint64_t)cnt > UINT32_MAX - 1) return -1;
        if (words_cand_ids(w, b, &b->texts[t], S, cnt, *q, &k) < 0) return -1;
        b->ref_len[t - (int64_t)i - 1] = cnt;
        w->ref_len[t - t0 - 1] = cnt;
        *q += (size_t)cnt;
    }
    return k;
}

static int words_instance(WWork *w, const WordsBatch *b, size_t i) {
    const int64_t t0 = b->inst_start[i], t1 = b->inst_start[i + 1];
    const int64_t nrefs = t1 - t0 - 1;
    const int every = b->ngram && b->ngram->distinct;  /* reference words the candidate lacks need ids */
    size_t most = 0;  /* words are separated: at most (len + 1) / 2 a text */
    for (int64_t t = t0; t < t1; t++) most += (size_t)(b->texts[t].len + 1) / 2 + 1;
    const size_t cand_most = every ? most : (size_t)(b->texts[t0].len + 1) / 2 + 1;
    if (grow((void **)&w->ids, &w->ids_cap, most + 1, sizeof(uint32_t)) < 0 ||
        grow((void **)&w->ref_len, &w->rl_cap, (size_t)nrefs + 1, sizeof(int64_t)) < 0 ||
        grow((void **)&w->w, &w->w_cap, cand_most + 1, sizeof(Word)) < 0)
        return -1;
    /* the candidate's words (kept: they are the table's representatives), then their ids */
    const int32_t *S;
    const int64_t n = words_scan(w, b, &b->texts[t0], 0, &S);
    if (n < 0) return -1;
    if ((uint64_t)n > UINT32_MAX - 1) return -1;  /* word indexes are 32-bit (a 4-GB candidate) */
    b->cand_len[i] = n;
#ifdef WORDS_X86
    if (S && w->masks) {
        const int r = cand_masks_v(w, &b->texts[t0], S, n);
        if (r < 0) return -1;
        if (r) return masks_instance(w, b, i, n, w->one, w->two);
    }
#endif
    uint32_t k = 0;
    if (map_reserve(w, every ? most : (size_t)n) < 0) return -1;
    if (++w->gen == 0) { memset(w->map, 0, w->mcap * sizeof(Slot)); w->gen = 1; }
    if (words_cand_ids(w, b, &b->texts[t0], S, n, 0, &k) < 0) return -1;
    size_t q = (size_t)n;
    int64_t V = k;  /* ids 1..V (ids above k: words the candidate lacks) */
    if (every) {
        V = all_ids(w, b, i, &q, k);
        if (V < 0) return -1;
    } else {  /* each reference's words after the candidate's, then their ids */
        for (int64_t t = t0 + 1; t < t1; t++) {
            const WordText *x = &b->texts[t];
#ifdef WORDS_X86
            if (x->kind == 1 && w->simd && x->len < WORDS_V_MAX) {
                const int64_t cnt = ref_ids_v(w, b, x, w->ids + q);
                if (cnt < 0) return -1;
                b->ref_len[t - (int64_t)i - 1] = cnt;
                w->ref_len[t - t0 - 1] = cnt;
                q += (size_t)cnt;
                continue;
            }
#endif
            const size_t room = (size_t)n + (size_t)(x->len + 1) / 2 + 1;
            if (grow((void **)&w->w, &w->w_cap, room + 1, sizeof(Word)) < 0) return -1;
            const int64_t cnt = scan(w, b, x, w->w + n);
            if (cnt < 0) return -1;
            for (int64_t j = 0; j < cnt; j++) w->ids[q + (size_t)j] = ref_id(w, &w->w[n + j], b->fold);
            b->ref_len[t - (int64_t)i - 1] = cnt;
            w->ref_len[t - t0 - 1] = cnt;
            q += (size_t)cnt;
        }
    }
    const size_t pair0 = (size_t)(t0 - (int64_t)i);  /* pairs before instance i */
    if (b->lcs && lcs_local(&w->s, w->ids, n, (uint32_t)V, w->ids + n, w->ref_len, nrefs, b->lcs + pair0) < 0)
        return -1;  /* (ids above k: all-zero masks, as 0) */
    if (!b->ngram) return 0;
    const size_t K = (size_t)b->ngram->K;
    return rougen_local(&w->rs, b->ngram, w->ids, n, k, w->ids + n, w->ref_len, nrefs,
                        b->ngram_out.hits + pair0 * K, b->ngram_out.cand_grams + i * K,
                        b->ngram_out.ref_grams + pair0 * K);
}

#ifdef WORDS_X86
WORDS_AVX512 static int64_t fingerprints_v(WWork *w, const WordsBatch *b, const WordText *t, uint16_t *out,
                                           int64_t cap) {
    int64_t ns;
    const int32_t *S = bounds_v(w, b, t, &ns);
    if (!S) return -1;
    const size_t room = (size_t)ns + 8;
    if (grow((void **)&w->keys, &w->keys_cap, 3 * room, sizeof(uint64_t)) < 0) return -1;
    uint16_t *F = (uint16_t *)(w->keys + 2 * room);
    mask_keys_v(w->low, S, bounds_ends(S, t), ns, w->keys, w->keys + room, F);
    const int64_t n = ns < cap ? ns : cap;
    memcpy(out, F, (size_t)n * sizeof(uint16_t));
    return n;
}
#endif

int64_t words_fingerprints(const WordsBatch *b, const WordText *t, uint16_t *out, int64_t cap) {
#ifdef WORDS_X86
    if (t->kind != 1 || t->len >= WORDS_V_MAX || !words_simd_available()) return -1;
    WWork w;
    memset(&w, 0, sizeof(w));
    word_table(b, w.wc);
    const int64_t n = fingerprints_v(&w, b, t, out, cap);
    wwork_free(&w);
    return n;
#else
    (void)b; (void)t; (void)out; (void)cap;
    return -1;
#endif
}

double words_texts_cost(const WordText *texts, int64_t t0, int64_t t1) {
    double chars = 0, refs = 0;
    for (int64_t t = t0; t < t1; t++) chars += (double)texts[t].len;
    refs = chars - (double)texts[t0].len;
    return chars + (double)(texts[t0].len / 384 + 1) * refs / 6;
}

double words_cost(const WordsBatch *b, size_t i) {
    return words_texts_cost(b->texts, b->inst_start[i], b->inst_start[i + 1]);
}

/* Zero instances [begin, end)'s entries of b's outputs that a path may leave unwritten. */
static void words_zero(const WordsBatch *b, size_t begin, size_t end) {
    const size_t p0 = (size_t)b->inst_start[begin] - begin, p1 = (size_t)b->inst_start[end] - end;
    if (b->lcs) memset(b->lcs + p0, 0, (p1 - p0) * sizeof(int64_t));
    if (b->zeros) memset(b->zeros + p0, 0, (p1 - p0) * sizeof(int64_t));
    if (b->ngram) {
        const size_t K = (size_t)b->ngram->K;
        memset(b->ngram_out.hits + p0 * K, 0, (p1 - p0) * K * sizeof(int64_t));
        memset(b->ngram_out.ref_grams + p0 * K, 0, (p1 - p0) * K * sizeof(int64_t));
        memset(b->ngram_out.cand_grams + begin * K, 0, (end - begin) * K * sizeof(int64_t));
    }
    for (size_t i = begin; i < end; i++) b->ref_count[i] = b->inst_start[i + 1] - b->inst_start[i] - 1;
}

int words_range(void *ctx, size_t begin, size_t end) {
    const WordsBatch *b = (const WordsBatch *)ctx;
    words_zero(b, begin, end);
    WWork w;
    memset(&w, 0, sizeof(w));
    word_table(b, w.wc);
    w.simd = !b->no_simd && words_simd_available();
    w.masks = !b->ngram || rougen_low12(b->ngram);
    if (b->ngram) rougen_orders12(b->ngram, &w.one, &w.two);
    int rc = 0;
    for (size_t i = begin; i < end && rc == 0; i++) {
        if (i + 2 < end)  /* the strs are scattered over the heap: fetch the next texts ahead */
            for (int64_t t = b->inst_start[i + 2]; t < b->inst_start[i + 3]; t++) {
                __builtin_prefetch(b->texts[t].data);
                __builtin_prefetch((const char *)b->texts[t].data + 64);
            }
        rc = words_instance(&w, b, i);
    }
    wwork_free(&w);
    return rc;
}
