/*
 * Lanes for independent pairs: PAIRS_LANES pairs, each with its own candidate masks and its
 * own reference, advance together, lane l of one vector being pair l's state V.  The caller
 * looks up every reference token's mask in its own candidate's table (the part no vector
 * unit helps with) and lays them out lane-interleaved, zeros past a reference's end (a zero
 * mask is the identity step), so the recurrence costs one vector step per reference
 * position for PAIRS_LANES pairs instead of one scalar dependency chain per pair.
 *
 * The loop is written once with GCC vector extensions and compiled three times: for
 * AVX-512 (one 512-bit register), for AVX2 (two 256-bit ones) and for the baseline (what
 * the compiler makes of it: SSE2 on x86-64, scalar words elsewhere); pairs_simd_level
 * picks at run time, so one build runs on every CPU.
 *
 * Profiled, the recurrence was never the cost of a short pair: building the candidate's
 * table (insert, then clear, a read-modify-write per character) and probing it for every
 * reference character were (about 15 cycles per character).  pairs_fill makes the masks
 * without a table: the candidate (at most 64 characters, widened to 16 bits, zero padded)
 * sits in registers, and each reference character is broadcast and compared with all of
 * them at once, the equal positions read out as bits.  Padding that compares equal (a
 * reference NUL against the zeros) sets bits at positions >= n only, which never reach
 * the low n bits of V (the addition carries upwards only) and are cut by the valid mask.
 */
#include "pairs_simd.h"

#include <string.h>

/* (__SSE2__: scripts/sanitize.sh's portable build undefines it, and then compiles only what
 * another architecture does) */
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__)
#define PAIRS_X86 1
#endif

typedef uint64_t v8u __attribute__((vector_size(64)));

#define LANES_LOOP                                                                      \
    {                                                                                   \
        v8u X = {~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull};               \
        const v8u *M = (const v8u *)__builtin_assume_aligned(ms, 64);                   \
        for (int64_t j = 0; j < steps; j++) {                                           \
            const v8u m = M[j];                                                         \
            X = (X + (X & m)) | (X & ~m);                                               \
        }                                                                               \
        memcpy(V, &X, sizeof(X));                                                       \
    }

#ifdef PAIRS_X86
#include <immintrin.h>
#endif

#ifdef PAIRS_X86
__attribute__((target("avx512f"))) static void lanes_avx512(const uint64_t *ms, int64_t steps, uint64_t *V)
LANES_LOOP

__attribute__((target("avx2"))) static void lanes_avx2(const uint64_t *ms, int64_t steps, uint64_t *V)
LANES_LOOP
#endif

static void lanes_portable(const uint64_t *ms, int64_t steps, uint64_t *V)
LANES_LOOP

int pairs_simd_level(void) {
#ifdef PAIRS_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl"))
        return PAIRS_AVX512;
    if (__builtin_cpu_supports("avx2")) return PAIRS_AVX2;
#endif
    return PAIRS_PORTABLE;
}

void pairs_lanes(int level, const uint64_t *ms, int64_t steps, uint64_t *V) {
#ifdef PAIRS_X86
    if (level >= PAIRS_AVX512) { lanes_avx512(ms, steps, V); return; }
    if (level == PAIRS_AVX2) { lanes_avx2(ms, steps, V); return; }
#endif
    (void)level;
    lanes_portable(ms, steps, V);
}

#ifdef PAIRS_X86
/* One reference, kind T, through COMPUTE(c) -> its mask. */
#define FILL_REF(T, COMPUTE)                                                            \
    do {                                                                                \
        const T *d = (const T *)r;                                                      \
        for (int64_t j = 0; j < m; j++) o[j * stride] = COMPUTE(d[j]);                  \
    } while (0)
#define FILL(COMPUTE)                                                                   \
    do {                                                                                \
        if (rkind == 1) FILL_REF(uint8_t, COMPUTE);                                     \
        else if (rkind == 2) FILL_REF(uint16_t, COMPUTE);                               \
        else FILL_REF(uint32_t, COMPUTE);                                               \
    } while (0)

/* Positions 32 h .. 32 h + 31 of the candidate as 16-bit lanes, zeros past n: masked loads
 * (no byte past the text is read; masked-out elements never fault). */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static inline __m512i cand_half(const void *a, int64_t n,
                                                                                    int akind, int h) {
    const int64_t k = n - 32 * h;
    if (k <= 0) return _mm512_setzero_si512();
    const __mmask32 mk = k >= 32 ? 0xFFFFFFFFu : (((__mmask32)1 << k) - 1);
    if (akind == 1) return _mm512_cvtepu8_epi16(_mm256_maskz_loadu_epi8(mk, (const uint8_t *)a + 32 * h));
    if (akind == 2) return _mm512_maskz_loadu_epi16(mk, (const uint16_t *)a + 32 * h);
    const uint32_t *d = (const uint32_t *)a + 32 * h;  /* values below 0x10000: truncation keeps them */
    const __m256i lo = _mm512_cvtepi32_epi16(_mm512_maskz_loadu_epi32((__mmask16)(mk & 0xFFFF), d));
    const __m256i hi = _mm512_cvtepi32_epi16(_mm512_maskz_loadu_epi32((__mmask16)(mk >> 16), d + 16));
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

__attribute__((target("avx512f,avx512bw,avx512vl"))) static void fill_avx512(const void *a, int64_t n, int akind,
                                                                             const void *r, int64_t m, int rkind,
                                                                             uint64_t *o, int64_t stride) {
    const __m512i c0 = cand_half(a, n, akind, 0), c1 = cand_half(a, n, akind, 1);
#define EQ32(c) ((uint64_t)_mm512_cmpeq_epi16_mask(c0, _mm512_set1_epi16((short)(c))))
#define EQ64(c)                                                                         \
    (EQ32(c) | (uint64_t)_mm512_cmpeq_epi16_mask(c1, _mm512_set1_epi16((short)(c))) << 32)
    if (n <= 32) FILL(EQ32);
    else FILL(EQ64);
#undef EQ32
#undef EQ64
}

/* The candidate as 64 x 16 bits, zero padded, into buf (64-byte aligned): vector stores and
 * a copy loop, not memset / memcpy (inlined as rep stos / rep movs: slow to start, and a
 * third of a short pair's time in the profile). */
__attribute__((target("avx2"))) static void cand_buf_avx2(uint16_t *buf, const void *a, int64_t n, int akind) {
    for (int k = 0; k < 4; k++) _mm256_store_si256((__m256i *)(buf + 16 * k), _mm256_setzero_si256());
    if (akind == 1)
        for (int64_t p = 0; p < n; p++) buf[p] = ((const uint8_t *)a)[p];
    else if (akind == 2)
        for (int64_t p = 0; p < n; p++) buf[p] = ((const uint16_t *)a)[p];
    else
        for (int64_t p = 0; p < n; p++) buf[p] = (uint16_t)((const uint32_t *)a)[p];
}

__attribute__((target("avx2"))) static inline uint64_t eq64_avx2(__m256i c0, __m256i c1, __m256i c2, __m256i c3,
                                                                  short c) {
    const __m256i B = _mm256_set1_epi16(c);
    const uint64_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_packs_epi16(_mm256_cmpeq_epi16(c0, B),
                                                                          _mm256_cmpeq_epi16(c1, B)));
    const uint64_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_packs_epi16(_mm256_cmpeq_epi16(c2, B),
                                                                          _mm256_cmpeq_epi16(c3, B)));
    return lo | hi << 32;
}

/* AVX2 has no mask registers: the 16-bit compares are packed to bytes and their sign bits
 * read.  packs works within 128-bit halves, so each register holds positions 8k..8k+7 in
 * its low half and 8k+16.. in its high half: then the packed bytes are in position order. */
__attribute__((target("avx2"))) static void fill_avx2(const uint16_t *buf, int64_t n, const void *r, int64_t m,
                                                      int rkind, uint64_t *o, int64_t stride) {
#define HALVES(lo, hi)                                                                  \
    _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_load_si128((const __m128i *)(buf + (lo)))), \
                            _mm_load_si128((const __m128i *)(buf + (hi))), 1)
    const __m256i c0 = HALVES(0, 16), c1 = HALVES(8, 24), c2 = HALVES(32, 48), c3 = HALVES(40, 56);
#undef HALVES
#define EQ2(x, y, B)                                                                    \
    (uint64_t)(uint32_t)_mm256_movemask_epi8(                                           \
        _mm256_packs_epi16(_mm256_cmpeq_epi16(x, B), _mm256_cmpeq_epi16(y, B)))
#define EQ32(c) EQ2(c0, c1, _mm256_set1_epi16((short)(c)))
#define EQ64(c) eq64_avx2(c0, c1, c2, c3, (short)(c))
    if (n <= 32) FILL(EQ32);
    else FILL(EQ64);
#undef EQ64
#undef EQ2
#undef EQ32
}
#endif

int pairs_fill(int level, const void *a, int64_t n, int akind, const void *r, int64_t m, int rkind, uint64_t *o,
               int64_t stride) {
#ifdef PAIRS_X86
    if (level == PAIRS_PORTABLE || n < 1 || n > 64) return 0;
    if (level >= PAIRS_AVX512) {
        fill_avx512(a, n, akind, r, m, rkind, o, stride);
        return 1;
    }
    uint16_t buf[64] __attribute__((aligned(64)));
    cand_buf_avx2(buf, a, n, akind);
    fill_avx2(buf, n, r, m, rkind, o, stride);
    return 1;
#else
    (void)level; (void)a; (void)n; (void)akind; (void)r; (void)m; (void)rkind; (void)o; (void)stride;
    return 0;
#endif
}
