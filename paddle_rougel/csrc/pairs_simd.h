/* The lanes of the independent-pairs kernels: PAIRS_LANES short pairs (candidates of at
 * most 64 tokens) through the bit-parallel recurrence at once (pure C, no Python API). */
#ifndef PADDLE_ROUGEL_PAIRS_SIMD_H
#define PADDLE_ROUGEL_PAIRS_SIMD_H

#include <stdint.h>

#define PAIRS_LANES 8
#define PAIRS_LANE_STEPS 256  /* the longest reference a lane takes (a group runs its longest) */

/* Instruction sets of pairs_lanes, by level. */
enum { PAIRS_PORTABLE = 0, PAIRS_AVX2 = 1, PAIRS_AVX512 = 2 };

/* The best level this CPU runs (PAIRS_PORTABLE off x86). */
int pairs_simd_level(void);

/* Lane l (l < PAIRS_LANES) streams the match masks ms[j * PAIRS_LANES + l], j < steps,
 * through V = (V + (V & M)) | (V & ~M) from V = all ones; V[l] gets the result.  A zero
 * mask leaves V as it is (pad a shorter reference with zeros).  ms: 64-byte aligned.
 * level: at most pairs_simd_level(). */
void pairs_lanes(int level, const uint64_t *ms, int64_t steps, uint64_t *V);

/* The match masks of a reference against a candidate of 1..64 tokens, by vector compares
 * (no table to fill or clear): o[j * stride] = the candidate positions equal to r[j],
 * j < m.  akind, rkind: bytes per token, 1, 2 (PEP 393 data of those kinds) or 4 (only
 * where every value is below 0x10000: token ids of a batch with fewer; they are compared
 * as 16 bits).  Returns 1, or 0 (nothing written) at PAIRS_PORTABLE: the caller's table
 * then. */
int pairs_fill(int level, const void *a, int64_t n, int akind, const void *r, int64_t m, int rkind, uint64_t *o,
               int64_t stride);

#endif
