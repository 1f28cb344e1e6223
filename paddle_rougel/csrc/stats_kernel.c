/* Resampled column sums: the counter-based generator, pairwise sums, and the
 * bootstrap / approximate-randomization loops.  See stats_kernel.h. */
#include "stats_kernel.h"

#include <stdlib.h>
#include <string.h>

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF /* a fused multiply-add would change the sums' last bits */
#endif

#define GAMMA 0x9E3779B97F4A7C15ULL
#define BLOCK 1024 /* instances per L1-sized block (a power of two: see stats_tree_sum) */

static inline uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* floor(h * m / 2^64) for m < 2^32, exactly: hi * m + ((lo * m) >> 32) < 2^64. */
static inline uint32_t mulhi(uint64_t h, uint64_t m) {
    return (uint32_t)(((h >> 32) * m + (((h & 0xFFFFFFFFULL) * m) >> 32)) >> 32);
}

uint64_t stats_key(uint64_t seed, uint64_t r) { return mix(seed + (r + 1) * GAMMA); }

#define DRAWS_BODY                                                  \
    for (size_t t = 0; t < count; t++)                              \
        out[t] = mulhi(mix(key + (j0 + t + 1) * GAMMA), m);

static void draws_plain(uint64_t key, uint64_t j0, size_t count, uint64_t m, uint32_t *restrict out) {
    DRAWS_BODY
}

#if defined(__x86_64__) && defined(__GNUC__)
#define STATS_X86_SIMD 1
/* The same loop compiled for AVX-512 (64-bit vector multiplies): integer
 * arithmetic, so the numbers are identical; about 5x faster. */
__attribute__((target("avx512f,avx512dq"))) static void draws_avx512(
    uint64_t key, uint64_t j0, size_t count, uint64_t m, uint32_t *restrict out) {
    DRAWS_BODY
}
#endif

int stats_simd_available(void) {
#ifdef STATS_X86_SIMD
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#else
    return 0;
#endif
}

void stats_draws(uint64_t key, uint64_t j0, size_t count, uint32_t m, uint32_t *out, int simd) {
#ifdef STATS_X86_SIMD
    if (simd) {
        draws_avx512(key, j0, count, m, out);
        return;
    }
#endif
    (void)simd;
    draws_plain(key, j0, count, m, out);
}

/* Level by level: buf[i] = buf[2i] + buf[2i+1]; an odd last element moves up
 * unchanged.  While m is a multiple of 8 the next three levels have no odd
 * element, so groups of 8 are added as ((0+1)+(2+3))+((4+5)+(6+7)) at once:
 * the same additions.  Summing aligned power-of-two blocks this way and then
 * the block sums gives the same tree as the whole array at once.  Not inlined,
 * so no compiler can fuse a caller's product into these additions. */
#ifdef __GNUC__
__attribute__((noinline))
#endif
double stats_tree_sum(double *buf, size_t m) {
    while (m >= 8 && m % 8 == 0) {
        for (size_t g = 0; g < m / 8; g++) {
            const double *b = buf + 8 * g;
            buf[g] = ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]));
        }
        m /= 8;
    }
    while (m > 1) {
        size_t h = m / 2;
        for (size_t i = 0; i < h; i++) buf[i] = buf[2 * i] + buf[2 * i + 1];
        if (m & 1) buf[h] = buf[m - 1];
        m = h + (m & 1);
    }
    return buf[0];
}

typedef struct {
    uint8_t *count8;   /* [n] multiplicities, while all are < 256 (an L2-sized array) */
    uint32_t *count;   /* [n] multiplicities, allocated when a byte count overflows */
    uint32_t *draw;    /* [BLOCK] */
    double *buf;       /* [2 * BLOCK] */
    double *bsum;      /* [k * nblocks] block sums */
} Scratch;

static void scratch_free(Scratch *s) {
    free(s->count8);
    free(s->count);
    free(s->draw);
    free(s->buf);
    free(s->bsum);
}

static int scratch_alloc(Scratch *s, const ResampleJob *J, size_t nblocks) {
    memset(s, 0, sizeof(*s));
    s->count8 = J->mode != STATS_RANDOMIZE ? (uint8_t *)malloc(J->n) : NULL;
    s->draw = (uint32_t *)malloc(BLOCK * sizeof(uint32_t));
    s->buf = (double *)malloc(2 * BLOCK * sizeof(double));
    s->bsum = (double *)malloc(J->k * nblocks * sizeof(double));
    if ((J->mode != STATS_RANDOMIZE && !s->count8) || !s->draw || !s->buf || !s->bsum) {
        scratch_free(s);
        return -1;
    }
    return 0;
}

/* Multiplicities of resample r's n draws: in count8, or (returns 1) in count
 * when some instance is drawn 256 times or more; -1 when out of memory. */
static int count_draws(const ResampleJob *J, Scratch *s, uint64_t key) {
    const size_t n = J->n;
    int wide = J->mode == STATS_BOOTSTRAP_WIDE;
    memset(s->count8, 0, n);
    for (size_t j0 = 0; j0 < n; j0 += BLOCK) {
        const size_t m = n - j0 < BLOCK ? n - j0 : BLOCK;
        stats_draws(key, j0, m, (uint32_t)n, s->draw, J->simd);
        for (size_t t = 0; t < m; t++) wide |= ++s->count8[s->draw[t]] == 0;
    }
    if (!wide) return 0;
    if (!s->count && !(s->count = (uint32_t *)malloc(n * sizeof(uint32_t)))) return -1;
    memset(s->count, 0, n * sizeof(uint32_t));
    for (size_t j0 = 0; j0 < n; j0 += BLOCK) {
        const size_t m = n - j0 < BLOCK ? n - j0 : BLOCK;
        stats_draws(key, j0, m, (uint32_t)n, s->draw, J->simd);
        for (size_t t = 0; t < m; t++) s->count[s->draw[t]]++;
    }
    return 1;
}

#if defined(__x86_64__) && !defined(__FMA__)
/* No fused multiply-add in this build's instruction set: the products can go
 * straight into the first three tree levels without being contracted. */
#define FUSE_PRODUCTS 1
#define P(i) ((double)q[i] * v[i])
static double block_sum8(const uint8_t *restrict q0, const double *restrict x, double *buf) {
    for (size_t g = 0; g < BLOCK / 8; g++) {
        const uint8_t *q = q0 + 8 * g;
        const double *v = x + 8 * g;
        buf[g] = ((P(0) + P(1)) + (P(2) + P(3))) + ((P(4) + P(5)) + (P(6) + P(7)));
    }
    return stats_tree_sum(buf, BLOCK / 8);
}
#undef P
#endif

/* Tree sum of count * x over one block of m instances (count8 or count). */
static double block_sum(const Scratch *s, int wide, const double *x, size_t i0, size_t m) {
#ifdef FUSE_PRODUCTS
    if (!wide && m == BLOCK) return block_sum8(s->count8 + i0, x + i0, s->buf);
#endif
    if (wide) {
        for (size_t t = 0; t < m; t++) s->buf[t] = (double)s->count[i0 + t] * x[i0 + t];
    } else {
        for (size_t t = 0; t < m; t++) s->buf[t] = (double)s->count8[i0 + t] * x[i0 + t];
    }
    return stats_tree_sum(s->buf, m);
}

/* Resample r: multiplicities of the n draws, then per column the tree of count * value. */
static int bootstrap_one(const ResampleJob *J, Scratch *s, uint64_t r, size_t nblocks) {
    const size_t n = J->n;
    const int wide = count_draws(J, s, stats_key(J->seed, r));
    if (wide < 0) return -1;
    for (size_t c = 0; c < J->k; c++) {
        const double *x = J->cols + c * n;
        for (size_t b = 0; b < nblocks; b++) {
            const size_t i0 = b * BLOCK, m = n - i0 < BLOCK ? n - i0 : BLOCK;
            s->bsum[b] = block_sum(s, wide, x, i0, m);
        }
        J->out[r * J->k + c] = stats_tree_sum(s->bsum, nblocks);
    }
    return 0;
}

/* Trial r: instance i's rows of A and B exchanged when draw(r, i, 2) is 1. */
static void randomize_one(const ResampleJob *J, Scratch *s, uint64_t r, size_t nblocks) {
    const size_t n = J->n, half = J->k / 2;
    const uint64_t key = stats_key(J->seed, r);
    double *bufa = s->buf, *bufb = s->buf + BLOCK;
    for (size_t b = 0; b < nblocks; b++) {
        const size_t i0 = b * BLOCK, m = n - i0 < BLOCK ? n - i0 : BLOCK;
        stats_draws(key, i0, m, 2, s->draw, J->simd);
        for (size_t c = 0; c < half; c++) {
            const double *a = J->cols + c * n + i0, *bb = J->cols + (half + c) * n + i0;
            for (size_t t = 0; t < m; t++) {
                bufa[t] = s->draw[t] ? bb[t] : a[t];
                bufb[t] = s->draw[t] ? a[t] : bb[t];
            }
            s->bsum[c * nblocks + b] = stats_tree_sum(bufa, m);
            s->bsum[(half + c) * nblocks + b] = stats_tree_sum(bufb, m);
        }
    }
    for (size_t c = 0; c < J->k; c++) J->out[r * J->k + c] = stats_tree_sum(s->bsum + c * nblocks, nblocks);
}

int stats_range(void *ctx, size_t begin, size_t end) {
    const ResampleJob *J = (const ResampleJob *)ctx;
    const size_t nblocks = (J->n + BLOCK - 1) / BLOCK;
    Scratch s;
    if (begin >= end) return 0;
    if (scratch_alloc(&s, J, nblocks) < 0) return -1;
    int rc = 0;
    for (size_t r = begin; r < end && rc == 0; r++) {
        if (J->mode != STATS_RANDOMIZE) rc = bootstrap_one(J, &s, (uint64_t)r, nblocks);
        else randomize_one(J, &s, (uint64_t)r, nblocks);
    }
    scratch_free(&s);
    return rc;
}
