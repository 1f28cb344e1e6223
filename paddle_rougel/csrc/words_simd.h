/* The AVX-512 pieces of the 1-byte text readers, one home for both: words_kernel.c's word
 * reader (lcs_words) and lsum_text.c's ASCII reader (ROUGE-Lsum).  Run-time dispatch:
 * words_simd_available() (words_kernel.c) says whether this CPU runs them; every function
 * here is static inline under WORDS_AVX512, so only code that checked it may call them.
 *
 * - alnum64_v / fold64_v: [0-9A-Za-z] bits of 64 bytes, and the bytes with A-Z made a-z;
 * - positions64_v: the bit positions of a 64-bit mask as int32s (a compress of 0..63);
 * - keys8_v: the keys of eight words (key: first 8 bytes, key2: the next 8, zero above the
 *   word; their hash; the length) by two gathers from a folded copy followed by 16 readable
 *   bytes.  Right for words up to 16 bytes; a caller keys longer words its own way;
 *   keys8_cdn_v the same without the hash, fp16_v a 16-bit fingerprint of them;
 * - keys_v: keys8_v of a text's words into arrays. */
#ifndef PADDLE_ROUGEL_WORDS_SIMD_H
#define PADDLE_ROUGEL_WORDS_SIMD_H

#include <stdint.h>

#define HASH_MUL 0x9E3779B97F4A7C15ull

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && defined(__SSE2__)
#define WORDS_X86 1
#include <immintrin.h>
#define WORDS_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi2,popcnt,bmi,bmi2")))
#define WORDS_V_MAX ((int64_t)1 << 30)  /* positions are int32: longer texts take the portable readers */

/* Bit i: byte i of x is in [0-9A-Za-z]. */
WORDS_AVX512 static inline uint64_t alnum64_v(__m512i x) {
    const __m512i low = _mm512_or_si512(x, _mm512_set1_epi8(0x20));
    const __mmask64 a = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(low, _mm512_set1_epi8('a')), _mm512_set1_epi8(26));
    const __mmask64 d = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(x, _mm512_set1_epi8('0')), _mm512_set1_epi8(10));
    return (uint64_t)(a | d);
}

/* x with every A-Z byte made a-z. */
WORDS_AVX512 static inline __m512i fold64_v(__m512i x) {
    return _mm512_mask_add_epi8(x, _mm512_cmplt_epu8_mask(_mm512_sub_epi8(x, _mm512_set1_epi8('A')), _mm512_set1_epi8(26)),
                                x, _mm512_set1_epi8(0x20));
}

/* base + the position of every set bit of m (in order) at out; writes 32 entries whatever the
 * count (out needs that room; a mask of word starts or ends has at most 32 bits).  Returns how
 * many bits m has. */
WORDS_AVX512 static inline int64_t positions64_v(uint64_t m, int64_t base, int32_t *out) {
    static const uint8_t iota_b[64] = {
        0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
        22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
        44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
    const __m512i iota = _mm512_loadu_si512((const void *)iota_b), b = _mm512_set1_epi32((int)base);
    const __m512i c = _mm512_maskz_compress_epi8((__mmask64)m, iota);
    _mm512_storeu_si512((void *)out, _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_castsi512_si128(c)), b));
    _mm512_storeu_si512((void *)(out + 16), _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 1)), b));
    return (int64_t)_mm_popcnt_u64(m);
}

/* The words S[l] .. E[l] (first and last byte), l < 8 where live, of a folded copy `low`
 * readable 16 bytes past every word start: key (c), key2 (d), hash (h) and length (n) in
 * lanes (right for lengths up to 16). */
typedef struct { __m512i c, d, h, n; __m256i s; } Keys8;

/* The key (c), key2 (d) and length (n) lanes of keys8_v, no hash. */
WORDS_AVX512 static inline Keys8 keys8_cdn_v(const uint8_t *low, const int32_t *S, const int32_t *E, __mmask8 live) {
    Keys8 r;
    const __m512i zero = _mm512_setzero_si512(), ones = _mm512_set1_epi64(-1), eight = _mm512_set1_epi64(8),
                  k64 = _mm512_set1_epi64(64);
    r.s = _mm256_maskz_loadu_epi32(live, S);
    const __m256i e = _mm256_maskz_loadu_epi32(live, E);
    const __m512i n = _mm512_add_epi64(_mm512_cvtepi32_epi64(_mm256_sub_epi32(e, r.s)), _mm512_set1_epi64(1));
    const __m512i n0 = _mm512_min_epi64(n, eight);
    const __m512i n1 = _mm512_min_epi64(_mm512_max_epi64(_mm512_sub_epi64(n, eight), zero), eight);
    r.c = _mm512_and_si512(_mm512_mask_i32gather_epi64(zero, live, r.s, (const void *)low, 1),
                           _mm512_srlv_epi64(ones, _mm512_sub_epi64(k64, _mm512_slli_epi64(n0, 3))));
    r.d = _mm512_and_si512(_mm512_mask_i32gather_epi64(zero, live, r.s, (const void *)(low + 8), 1),
                           _mm512_srlv_epi64(ones, _mm512_sub_epi64(k64, _mm512_slli_epi64(n1, 3))));
    r.n = n;
    r.h = zero;
    return r;
}

WORDS_AVX512 static inline Keys8 keys8_v(const uint8_t *low, const int32_t *S, const int32_t *E, __mmask8 live) {
    Keys8 r = keys8_cdn_v(low, S, E, live);
    const __m512i M = _mm512_set1_epi64((long long)HASH_MUL), eight = _mm512_set1_epi64(8);
    const __m512i h0 = _mm512_xor_si512(_mm512_mullo_epi64(r.n, M), r.c);
    const __m512i h1 = _mm512_mullo_epi64(_mm512_xor_si512(_mm512_rol_epi64(h0, 5), r.d), M);
    __m512i h = _mm512_mask_blend_epi64(_mm512_cmpgt_epi64_mask(r.n, eight), h0, h1);
    h = _mm512_mullo_epi64(h, M);
    r.h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 29));
    return r;
}

/* A 16-bit fingerprint of words (c, d, n lanes as keys8_cdn_v's) in lanes, for words_kernel.c's
 * mask reader: the three folded to 32 bits, times an odd 32-bit constant, bits 16-31 of the
 * product (Knuth's multiplicative hash: they depend on every bit of the fold).  One
 * multiply where keys8_v's hash takes three 64-bit ones; equal words have equal
 * fingerprints, and the reader checks every match against the word's key. */
WORDS_AVX512 static inline __m512i fp16_v(__m512i c, __m512i d, __m512i n) {
    const __m512i z = _mm512_ternarylogic_epi64(c, _mm512_rol_epi64(d, 23), _mm512_slli_epi64(n, 40), 0x96);
    const __m512i y = _mm512_xor_si512(z, _mm512_srli_epi64(z, 32));
    return _mm512_and_si512(_mm512_srli_epi64(_mm512_mul_epu32(y, _mm512_set1_epi64(0x9E3779B1)), 16),
                            _mm512_set1_epi64(0xFFFF));
}

/* keys8_v of words 0 .. ns-1 into arrays (each with room for ns rounded up to 8): key C, key2 D,
 * hash H (NULL: not kept), length N; in a loop of their own, so that a missed branch of the
 * table steps after it cannot flush the gathers and multiplies in flight. */
WORDS_AVX512 static inline void keys_v(const uint8_t *low, const int32_t *S, const int32_t *E, int64_t ns,
                                       uint64_t *C, uint64_t *D, uint64_t *H, uint64_t *N) {
    for (int64_t j = 0; j < ns; j += 8) {
        const int64_t cnt = ns - j < 8 ? ns - j : 8;
        const Keys8 K = keys8_v(low, S + j, E + j, (__mmask8)((1u << cnt) - 1));
        _mm512_storeu_si512((void *)(C + j), K.c);
        _mm512_storeu_si512((void *)(D + j), K.d);
        if (H) _mm512_storeu_si512((void *)(H + j), K.h);
        _mm512_storeu_si512((void *)(N + j), K.n);
    }
}
#endif

#endif
