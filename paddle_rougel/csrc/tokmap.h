/*
 * Per-thread scratch shared by the kernels: growable buffers and a token -> local id map.
 *
 * The map is open addressing with generation stamps: starting a new instance
 * bumps the generation instead of clearing the table, so its cost is the
 * instance's tokens, not the table's size.  Header-only (static functions):
 * each kernel keeps its own copy, inlined.
 */
#ifndef PADDLE_ROUGEL_TOKMAP_H
#define PADDLE_ROUGEL_TOKMAP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tok.h"

/* Grow *p (cap elements of elt bytes) to hold need elements, doubling; -1 when out of memory. */
static inline int grow(void **p, size_t *cap, size_t need, size_t elt) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * elt);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

typedef struct {
    tok_t *keys;
    uint32_t *vals, *stamp;
    uint32_t gen;
    size_t cap;  /* a power of two */
} TokMap;

static inline size_t tokmap_hash(tok_t t) {
    uint32_t h = (t ^ (t >> 16)) * 0x45d9f3bu;
    return h ^ (h >> 16);
}

/* Room for need keys at load <= 1/2; -1 when out of memory (the map is then empty). */
static inline int tokmap_reserve(TokMap *m, size_t need) {
    size_t cap = 1024;
    while (cap < 2 * need) cap *= 2;
    if (cap <= m->cap) return 0;
    free(m->keys); free(m->vals); free(m->stamp);
    m->keys = (tok_t *)malloc(cap * sizeof(tok_t));
    m->vals = (uint32_t *)malloc(cap * sizeof(uint32_t));
    m->stamp = (uint32_t *)calloc(cap, sizeof(uint32_t));
    m->gen = 0;
    if (!m->keys || !m->vals || !m->stamp) { m->cap = 0; return -1; }
    m->cap = cap;
    return 0;
}

/* The slot of t: its own, or the empty one where it would go. */
static inline size_t tokmap_slot(const TokMap *m, tok_t t) {
    const size_t mask = m->cap - 1;
    size_t h = tokmap_hash(t) & mask;
    while (m->stamp[h] == m->gen && m->keys[h] != t) h = (h + 1) & mask;
    return h;
}

/* The value of t, or 0 when t is absent. */
static inline uint32_t tokmap_get(const TokMap *m, tok_t t) {
    const size_t h = tokmap_slot(m, t);
    return m->stamp[h] == m->gen ? m->vals[h] : 0;
}

/* The value of t; an absent t is added with the next value, ++*k (the map must have room). */
static inline uint32_t tokmap_add(TokMap *m, tok_t t, uint32_t *k) {
    const size_t h = tokmap_slot(m, t);
    if (m->stamp[h] != m->gen) { m->stamp[h] = m->gen; m->keys[h] = t; m->vals[h] = ++*k; }
    return m->vals[h];
}

/* Forget every key (a new generation; the stamps are cleared only when it wraps). */
static inline void tokmap_clear(TokMap *m) {
    if (++m->gen == 0) { memset(m->stamp, 0, m->cap * sizeof(uint32_t)); m->gen = 1; }
}

static inline void tokmap_free(TokMap *m) {
    free(m->keys); free(m->vals); free(m->stamp);
}

#endif
