/*
 * The one home of the bit-parallel LCS step (Allison-Dix / Hyyro), every kernel's inner loop.
 *
 * The bit side a (n tokens) is a bit vector V, one bit per position, all ones before the
 * first row.  For each token t of the other side, with M the match mask of t (bit p set iff
 * a[p] == t), one step gives the next row:
 *
 *     U = V & M;   V' = (V + U) | (V & ~M)        (V & ~M == V - U: U is inside V)
 *
 * and after the last row LCS = the zero bits of V among the n positions.  Across a row of
 * several 64-bit words the addition carries from word to word: lcs_step_carry takes the
 * carry into the word and leaves the carry out (the kernels go word-major, one carry per
 * row kept between words).
 *
 * With the step, ROUGE-Lsum's walk back needs each row's go-left cells, where rouge-score's
 * backtrack moves left when there is no match: t[i][j-1] == t[i][j] (bit j-1 of the new row
 * is one) and t[i-1][j] == t[i][j] - 1 (the carry out of bit j-1 of the row's addition, the
 * vertical difference; the majority of V, U and the carry in, which with U inside V is
 * U | (V & ~U & ~S) for the sum S).  lcs_step_left / lcs_step_carry_left yield them.
 *
 * Each formula is written once (LCS_STEP_, LCS_LEFT_) and instantiated for the scalar word
 * (inline functions) and for GCC vectors of 64-bit lanes (macros: lcs_v2, 2 lanes, an SSE2
 * register; lcs_v4, 4 lanes, an AVX2 register; on another target the compiler splits them),
 * lane l one independent one-word bit vector.
 */
#ifndef PADDLE_ROUGEL_LCS_STEP_H
#define PADDLE_ROUGEL_LCS_STEP_H

#include <stdint.h>

#include "bitops.h"

#if defined(__GNUC__) || defined(__clang__)
#define LCS_STEP_INLINE static inline __attribute__((always_inline))
#else
#define LCS_STEP_INLINE static inline
#endif

/* The next row from V, its sum S = V + (V & M) (+ carry in) and the mask M. */
#define LCS_STEP_(V, S, M) ((S) | ((V) & ~(M)))
/* The go-left cells of a step: N the next row, U = V & M, S the sum. */
#define LCS_LEFT_(V, U, S, N) ((N) & ((U) | ((V) & ~(U) & ~(S))))

/* One word: a bit side of at most 64 tokens. */
LCS_STEP_INLINE uint64_t lcs_step(uint64_t V, uint64_t M) {
    return LCS_STEP_(V, V + (V & M), M);
}

/* One word of a longer row: *carry (0 or 1) in from the word below, out to the word above. */
LCS_STEP_INLINE uint64_t lcs_step_carry(uint64_t V, uint64_t M, uint8_t *carry) {
    return LCS_STEP_(V, add_carry64(V, V & M, carry), M);
}

/* lcs_step, and the row's go-left cells in *go_left. */
LCS_STEP_INLINE uint64_t lcs_step_left(uint64_t V, uint64_t M, uint64_t *go_left) {
    const uint64_t U = V & M, S = V + U, N = LCS_STEP_(V, S, M);
    *go_left = LCS_LEFT_(V, U, S, N);
    return N;
}

/* lcs_step_carry, and the word's go-left cells in *go_left. */
LCS_STEP_INLINE uint64_t lcs_step_carry_left(uint64_t V, uint64_t M, uint8_t *carry, uint64_t *go_left) {
    const uint64_t U = V & M, S = add_carry64(V, U, carry), N = LCS_STEP_(V, S, M);
    *go_left = LCS_LEFT_(V, U, S, N);
    return N;
}

#if defined(__GNUC__) || defined(__clang__)
#define LCS_STEP_VECTORS 1
/* Lanes of independent one-word bit vectors (lane l: its own pair; no carry between lanes). */
typedef uint64_t lcs_v2 __attribute__((vector_size(16)));  /* 128 bits: SSE2 */
typedef uint64_t lcs_v4 __attribute__((vector_size(32)));  /* 256 bits: AVX2 */

/* lcs_step on every lane of V (an lcs_v2 or lcs_v4 variable), in place.  Macros, not
 * functions: a function taking a 256-bit vector by value changes the ABI without AVX
 * (GCC's -Wpsabi), and a macro is expanded in its caller, AVX2 target or not. */
#define LCS_STEP_VEC(V, M) ((V) = LCS_STEP_((V), (V) + ((V) & (M)), (M)))

/* lcs_step_left on every lane: V (of vector type T) in place, its go-left cells to G. */
#define LCS_STEP_LEFT_VEC(T, V, M, G)                                  \
    do {                                                               \
        const T U_ = (V) & (M), S_ = (V) + U_, N_ = LCS_STEP_((V), S_, (M)); \
        (G) = LCS_LEFT_((V), U_, S_, N_);                              \
        (V) = N_;                                                      \
    } while (0)
#endif

#endif
