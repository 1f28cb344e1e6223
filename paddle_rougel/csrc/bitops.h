/* Word operations with a portable form; compiler builtins only where guarded. */
#ifndef PADDLE_ROUGEL_BITOPS_H
#define PADDLE_ROUGEL_BITOPS_H

#include <stdint.h>

/* Population count in plain word operations (no popcnt instruction assumed, no library call). */
static inline int popcount64_words(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

/* The builtin only where it is one instruction (-mpopcnt, a target("popcnt") function, or
 * another architecture's native count); without it GCC calls libgcc's __popcountdi2. */
static inline int popcount64(uint64_t x) {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__)))
    return __builtin_popcountll(x);
#else
    return popcount64_words(x);
#endif
}

/* a + b + *carry (carry in {0, 1}); the carry out replaces *carry. */
static inline uint64_t add_carry64(uint64_t a, uint64_t b, uint8_t *carry) {
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;  /* GCC/Clang: compiles to add-with-carry */
    u128 s = (u128)a + b + *carry;
    *carry = (uint8_t)(s >> 64);
    return (uint64_t)s;
#else
    uint64_t s = a + b;
    uint8_t c = s < a;
    uint64_t t = s + *carry;
    *carry = c | (t < s);
    return t;
#endif
}

#endif
