/* Resampled column sums for bootstrap and approximate randomization (pure C).
 *
 * The generator (identical in paddle_rougel/stats.py, which documents it):
 *   mix(z)        splitmix64's output function
 *   key(seed, r)  = mix(seed + (r + 1) * GAMMA)        stream r of the seed
 *   draw(r, j, m) = mulhi64(mix(key + (j + 1) * GAMMA), m)   value j of stream r, in [0, m)
 * all arithmetic mod 2^64; mulhi64(h, m) = floor(h * m / 2^64) for m < 2^32,
 * computed exactly from 32-bit halves.
 *
 * A sum over instances is the pairwise tree of its terms (adjacent pairs added
 * level by level, an odd last element carried up): the same additions in the
 * same order as the numpy fallback, so both give bit-identical sums. */
#ifndef PADDLE_ROUGEL_STATS_KERNEL_H
#define PADDLE_ROUGEL_STATS_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/* STATS_BOOTSTRAP_WIDE: STATS_BOOTSTRAP always counting in 32 bits (the path
 * taken when an instance is drawn 256+ times), for the tests; STATS_NO_SIMD
 * (glue only) forces the portable draw loop. */
enum { STATS_BOOTSTRAP = 0, STATS_RANDOMIZE = 1, STATS_BOOTSTRAP_WIDE = 2, STATS_NO_SIMD = 4 /* flag */ };

typedef struct {
    const double *cols; /* column-major [k, n] */
    size_t n;           /* instances, 1 <= n < 2^32 */
    size_t k;           /* columns; STATS_RANDOMIZE: system A's k/2 columns, then B's */
    uint64_t seed;
    int mode;           /* STATS_BOOTSTRAP, STATS_RANDOMIZE or STATS_BOOTSTRAP_WIDE */
    int simd;           /* use the AVX-512 draw loop (set by stats_simd_available()) */
    double *out;        /* [resamples, k] */
} ResampleJob;

/* 1 if this CPU runs the AVX-512 draw loop (same numbers, faster). */
int stats_simd_available(void);

/* Stream key of resample (or trial) r. */
uint64_t stats_key(uint64_t seed, uint64_t r);

/* out[t] = draw(r, j0 + t, m) for t < count, key = stats_key(seed, r); m < 2^32. */
void stats_draws(uint64_t key, uint64_t j0, size_t count, uint32_t m, uint32_t *out, int simd);

/* Pairwise tree sum of buf[0:m] (m >= 1); buf is overwritten. */
double stats_tree_sum(double *buf, size_t m);

/* range_fn (partition.h) over resamples [begin, end) of a ResampleJob:
 *   STATS_BOOTSTRAP: out[r, c] = tree over i of count_r[i] * cols[c, i], where
 *     count_r[i] = #{j < n : draw(r, j, n) == i};
 *   STATS_RANDOMIZE: with s_i = draw(r, i, 2), out[r, c] = tree over i of
 *     (s_i ? B : A)[c, i] and out[r, k/2 + c] = tree over i of (s_i ? A : B)[c, i].
 * Returns 0, or -1 when out of memory. */
int stats_range(void *ctx, size_t begin, size_t end);

#endif
