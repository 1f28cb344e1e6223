/*
 * ROUGE-Lsum from text (lsum_text): the readers that turn an instance's strs into the
 * kernel's form (lsum_work.h), then lsum_kernel.c's core scores it.
 *
 * Two readers:
 *
 * - ASCII text as rouge-score's rougeLsum tokenizes it by default (a sentence ends at
 *   '\n', a token is a maximal run of [A-Za-z0-9], lowercased): 64 bytes at a time into
 *   bitmaps of token bytes and newlines, then each word gets its id by a hash table keyed
 *   by its first 16 bytes (a hash of the rest past 16), without a branch between a new
 *   word and a seen one;
 * - char mode: every character but '\n' is a token (the package's default "char" tokens),
 *   read from a str's storage of 1, 2 or 4 bytes a code point.
 *
 * The ASCII reader and words_kernel.c's word reader (lcs_words, rouge-score tokens)
 * classify bytes the same way (SSE2, 64 bytes to a bitmap) and both key words by their
 * folded bytes; where the CPU runs AVX-512 (words_simd_available, and not b->no_simd) both
 * take words_simd.h's pieces (tokenize_text_v here: the same k1, k2 as tokenize_text's);
 * they differ in what they emit (sentence ends and the reference rows the candidate has,
 * here; word records of any str kind, there).
 */
#include "lsum_kernel.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "bitops.h"
#include "lsum_work.h"
#include "tokmap.h"
#include "words_kernel.h"
#include "words_simd.h"

/* The text path reads 64 bytes at a time, and 16 from each word start: the last
 * bytes of a text are read from a zero-padded copy of at most 80 of them. */
#define TAIL 96

typedef struct { uint64_t k1, k2; uint32_t stamp, id; } Slot;  /* a candidate word */
typedef struct { const char *p; uint32_t len; } Long;           /* where word `id` is, by id */

typedef LsumPrepared Prepared;

typedef struct {
    LsumWork k;          /* the kernel's work: the instance as lsum_instance_core reads it */
    /* the end of one text, zero-padded; where its words start and end; the candidate's words */
    char tail[TAIL];
    uint32_t *starts, *ends;
    Slot *words;
    Long *longs;
    uint32_t wgen;
    int wshift;
    size_t wcap;
    int64_t *soff;       /* where each candidate sentence starts among the instance's tokens */
    size_t starts_cap, ends_cap, longs_cap, soff_cap;
    /* the AVX-512 reader (words_simd_available and not b->no_simd): a text's bytes folded, then
     * 16 zero bytes (keys8_v gathers there); its words' keys (k1, k2 up to 16 bytes) and lengths */
    int simd;
    uint8_t *low;
    uint64_t *keys;
    size_t low_cap, keys_cap;
} Work;

static void text_work_free(Work *w) {
    lsum_work_free(&w->k);
    free(w->starts); free(w->ends); free(w->words); free(w->longs); free(w->soff);
    free(w->low); free(w->keys);
}

/* Index of the lowest set bit of x != 0. */
static inline int low_bit(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int b = 0;
    while (!(x & 1)) { x >>= 1; b++; }
    return b;
#endif
}

/* ------------------------------------------------------------ ASCII text */

/* Word-at-a-time (8 bytes) on a padded copy of the text: byte k of a word is
 * text byte q + k; every byte of an ASCII text is < 0x80. */
#define B8(x) ((uint64_t)(x) * 0x0101010101010101ull)

static inline uint64_t load8(const char *p) {
    uint64_t x;
    memcpy(&x, p, 8);  /* a fixed size: one load */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

/* 0x80 in each byte of x (bytes < 0x80) that lies in [lo, hi], 0 elsewhere. */
static inline uint64_t bytes_in(uint64_t x, unsigned lo, unsigned hi) {
    return (x + B8(0x80 - lo)) & ~(x + B8(0x7F - hi)) & B8(0x80);
}

/* Bit k set iff byte k of t (0x80 or 0 per byte) is set: gathers bit 8k + 7 to bit k. */
static inline unsigned gather8(uint64_t t) { return (unsigned)(((t >> 7) * 0x0102040810204080ull) >> 56); }

/* Bit k set iff byte k of x is in [A-Za-z0-9], rouge-score's token characters
 * (for them, c | 0x20 is the lowercase). */
static inline unsigned alnum_bits8(uint64_t x) {
    return gather8(bytes_in(x, '0', '9') | bytes_in(x | B8(0x20), 'a', 'z'));
}

/* BELOW[k]: the bytes below byte k (k in 0..8) of a word. */
static const uint64_t BELOW[9] = {0, 0xFFull, 0xFFFFull, 0xFFFFFFull, 0xFFFFFFFFull, 0xFFFFFFFFFFull,
                                  0xFFFFFFFFFFFFull, 0xFFFFFFFFFFFFFFull, ~(uint64_t)0};

/* Bit k set iff byte k of the 64 bytes at p is in [A-Za-z0-9]; *nl: iff it is '\n'. */
#if defined(__SSE2__)
static inline uint64_t block_bits(const char *p, uint64_t *nl) {
    uint64_t out = 0, n = 0;
    for (int e = 0; e < 4; e++) {
        const __m128i x = _mm_loadu_si128((const __m128i *)(p + 16 * e));
        /* c - lo + (-128) < -128 + span, signed: c in [lo, lo + span) */
        const __m128i low = _mm_or_si128(x, _mm_set1_epi8(0x20));
        const __m128i a = _mm_cmplt_epi8(_mm_add_epi8(low, _mm_set1_epi8((char)(0x80 - 'a'))),
                                         _mm_set1_epi8((char)(0x80 + 26)));
        const __m128i d = _mm_cmplt_epi8(_mm_add_epi8(x, _mm_set1_epi8((char)(0x80 - '0'))),
                                         _mm_set1_epi8((char)(0x80 + 10)));
        out |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(a, d)) << (16 * e);
        n |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))) << (16 * e);
    }
    *nl = n;
    return out;
}
#else
static inline uint64_t block_bits(const char *p, uint64_t *nl) {
    uint64_t out = 0, n = 0;
    for (int e = 0; e < 8; e++) {
        const uint64_t x = load8(p + 8 * e);
        out |= (uint64_t)alnum_bits8(x) << (8 * e);
        n |= (uint64_t)gather8(bytes_in(x, '\n', '\n')) << (8 * e);
    }
    *nl = n;
    return out;
}
#endif

/* Appends base + the index of every set bit of bits to out (in order), returns
 * how many.  Writes up to 16 entries whatever the count (out needs that room):
 * the common counts take no unpredictable branch. */
static inline int64_t flatten(uint64_t bits, uint32_t base, uint32_t *out) {
    const int cnt = popcount64_words(bits);  /* per 64 bytes: no library call */
    for (int k = 0; k < 8; k++) {
        out[k] = base + (uint32_t)low_bit(bits | ((uint64_t)1 << 63));  /* past the last: any value */
        bits &= bits - 1;
    }
    if (cnt > 8) {
        for (int k = 8; k < 16; k++) {
            out[k] = base + (uint32_t)low_bit(bits | ((uint64_t)1 << 63));
            bits &= bits - 1;
        }
        for (int k = 16; k < cnt; k++) {
            out[k] = base + (uint32_t)low_bit(bits);
            bits &= bits - 1;
        }
    }
    return cnt;
}

/* Room for the words of a candidate of `need` tokens (load <= 1/8: a word is found at its first
 * slot, with no branch to mispredict) and a new generation. */
static int words_reserve(Work *w, size_t need) {
    if (grow((void **)&w->longs, &w->longs_cap, need + 1, sizeof(*w->longs)) < 0) return -1;
    size_t cap = 256;
    int shift = 56;
    while (cap < 8 * need) { cap *= 2; shift--; }
    if (cap > w->wcap) {
        free(w->words);
        w->words = (Slot *)calloc(cap, sizeof(*w->words));
        w->wgen = 0;
        if (!w->words) { w->wcap = 0; return -1; }
        w->wcap = cap;
        w->wshift = shift;
    }
    if (++w->wgen == 0) { memset(w->words, 0, w->wcap * sizeof(*w->words)); w->wgen = 1; }
    return 0;
}

/* Words are compared case-insensitively by (k1, k2): k1 the first 8 bytes,
 * lowercased, zero bytes after a shorter word; k2 the next 8 so, or, past 16
 * bytes, a hash of the rest with the top bit set, then checked byte by byte. */
static uint64_t long_key(const char *p, int64_t len) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (int64_t q = 8; q < len; q++) h = (h ^ (uint64_t)((unsigned char)p[q] | 0x20)) * 0x100000001B3ull;
    return h | ((uint64_t)1 << 63);
}

static int long_same(const Long *o, const char *p, int64_t len) {
    if (o->len != len) return 0;
    for (int64_t q = 8; q < len; q++)
        if (((unsigned char)o->p[q] | 0x20) != ((unsigned char)p[q] | 0x20)) return 0;
    return 1;
}

/* The slot of word (k1, k2): its own, or the empty one where it goes.  Probing
 * on is rare (the table is at most 1/8 full), so it is out of the fast path. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static Slot *word_probe(const Work *w, size_t s, uint64_t k1, uint64_t k2, const char *p, int64_t len) {
    const size_t mask = w->wcap - 1;
    for (;; s = (s + 1) & mask) {
        Slot *x = &w->words[s];
        if (x->stamp != w->wgen) return x;
        if (x->k1 == k1 && x->k2 == k2 && (!(k2 >> 63) || long_same(&w->longs[x->id], p, len))) return x;
    }
}

static inline Slot *word_slot_of(const Work *w, uint64_t k1, uint64_t k2, const char *p, int64_t len) {
    const size_t s = (size_t)(((k1 ^ (k2 * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull) >> w->wshift);
    Slot *x = &w->words[s];
    /* the common cases, an empty slot or the word itself (16 bytes or fewer), take no branch */
    const uint64_t fast = (uint64_t)(x->stamp != w->wgen) | (((x->k1 ^ k1) | (x->k2 ^ k2)) == 0 && !(k2 >> 63));
    return fast ? x : word_probe(w, s, k1, k2, p, len);
}

/* Id of a candidate word (1, 2, ... in order of first occurrence); p, len: where
 * it is in the caller's text, kept for the long-word check. */
static inline uint32_t word_add(Work *w, uint64_t k1, uint64_t k2, const char *p, int64_t len, uint32_t *k) {
    Slot *x = word_slot_of(w, k1, k2, p, len);
    const uint32_t fresh = x->stamp != w->wgen, keep = fresh - 1;  /* keep: all ones for a seen word */
    const uint32_t id = ((*k + 1) & ~keep) | (x->id & keep);     /* new or seen without a branch */
    *k += fresh;
    w->k.cnt[id] = (w->k.cnt[id] & keep) + 1;  /* the candidate's count of the word */
    x->stamp = w->wgen; x->k1 = k1; x->k2 = k2; x->id = id;
    if (k2 >> 63) { w->longs[id].p = p; w->longs[id].len = (uint32_t)len; }  /* only long words need it */
    return id;
}

/* Id of a reference word in the candidate, or 0. */
static inline uint32_t word_find(const Work *w, uint64_t k1, uint64_t k2, const char *p, int64_t len) {
    const Slot *x = word_slot_of(w, k1, k2, p, len);
    return x->id & ((uint32_t)(x->stamp != w->wgen) - 1);
}

/* The newlines of one 64-byte block (bits of nl): at each, the words before it (nws before the
 * block and the block's starts below it) end a sentence if any came since the last end (*last):
 * its end, as a token index, to soff[++*ns]. */
static inline void sentence_ends(uint64_t nl, uint64_t starts, int64_t nws, int64_t nt0, int64_t *soff,
                                 int64_t *ns, int64_t *last) {
    while (nl) {
        const int64_t before = nws + popcount64_words(starts & (((uint64_t)1 << low_bit(nl)) - 1));
        if (before > *last) { soff[++*ns] = nt0 + before; *last = before; }
        nl &= nl - 1;
    }
}

/* Word i (keys k1, k2; at p, wl bytes) of a text: a candidate's (add) id to ids[i]; a
 * reference's, when the candidate has the word, to rid[*r] (one more row), and S[i] becomes
 * the rows before word i (S[i], its start, is read: not needed after). */
static inline void word_step(Work *w, int add, int64_t i, uint64_t k1, uint64_t k2, const char *p,
                             int64_t wl, uint32_t *ids, uint32_t *rid, uint32_t *S, int64_t *r, int64_t nr0,
                             uint32_t *kk) {
    if (add) {
        ids[i] = word_add(w, k1, k2, p, wl, kk);
    } else {
        const uint32_t id = word_find(w, k1, k2, p, wl);
        rid[*r] = id;
        S[i] = (uint32_t)(*r - nr0);
        *r += id != 0;  /* no branch: unpredictable */
    }
}

/* A reference's sentences (ns0 .. ns) as where each starts among the rows (w->k.rsent), from
 * S (the rows before each word, word_step) once its nws words have their ids. */
static inline void reference_rows(Work *w, uint32_t *S, int64_t nws, int64_t r, int64_t nr0,
                                  const int64_t *soff, int64_t ns0, int64_t ns, int64_t nt0, int64_t ncs) {
    S[nws] = (uint32_t)(r - nr0);
    for (int64_t t = ns0; t < ns; t++) w->k.rsent[t - ncs] = nr0 + S[soff[t] - nt0];
    w->k.rsent[ns - ncs] = r;
}

/* One text, tokenized: in passes, the bitmaps of token bytes and newlines, 64
 * bytes at a time; where words start and end (and, at each newline, how many
 * words came before: a sentence end, to w->soff); then each word's id.  The
 * candidate (add) appends its words' ids to w->k.ids and counts them in w->k.cnt;
 * a reference appends the ids of its words the candidate has to w->k.rid (*nr
 * of them so far) and where each of its sentences starts there to w->k.rsent
 * (sentence s at index s - ncs).  Returns the text's tokens, or -1 when out of
 * memory. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline int64_t tokenize_text(Work *w, const char *c, int64_t len, int add, int64_t *ntok, int64_t *nsent,
                                    uint32_t *k, int64_t *nr, int64_t ncs) {
    const int64_t nw = (len + 63) / 64;  /* bitmap words */
    const size_t most = (size_t)len / 2 + 1 + 16;  /* words, and room for flatten's extra entries */
    if (grow((void **)&w->starts, &w->starts_cap, most, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->ends, &w->ends_cap, most, sizeof(uint32_t)) < 0) return -1;
    uint32_t *S = w->starts, *E = w->ends;
    /* bytes from tb on are read from the copy: the last block, and words within 16 of the end */
    int64_t tb = len - 16 < (nw - 1) * 64 ? len - 16 : (nw - 1) * 64;
    if (tb < 0) tb = 0;
    memset(w->tail, 0, TAIL);  /* zero bytes: no token character */
    memcpy(w->tail, c + tb, (size_t)(len - tb));  /* len - tb <= 80; every read ends before 80 */
    int64_t *soff = w->soff;
    const int64_t nt0 = *ntok, ns0 = *nsent;
    int64_t ns = ns0, nws = 0, nwe = 0, last = 0;  /* words started, ended; words before the last sentence end */
    uint64_t carry = 0;
    for (int64_t q = 0; q <= nw; q++) {
        uint64_t nl = 0;
        const uint64_t b = q == nw ? 0 : block_bits(64 * q + 64 <= len ? c + 64 * q : w->tail + (64 * q - tb), &nl);
        const uint64_t starts = b & ~((b << 1) | carry), ends = ~b & ((b << 1) | carry);
        carry = b >> 63;
        sentence_ends(nl, starts, nws, nt0, soff, &ns, &last);
        nws += flatten(starts, (uint32_t)(64 * q), S + nws);
        nwe += flatten(ends, (uint32_t)(64 * q), E + nwe);
    }
    if (nws > last) soff[++ns] = nt0 + nws;
    /* ids; nwe == nws (zero bytes follow the text) */
    uint32_t *ids = w->k.ids + nt0, *rid = w->k.rid, kk = *k;
    int64_t r = *nr;
    for (int64_t i = 0; i < nws; i++) {
        const int64_t s = S[i], wl = (int64_t)E[i] - s;
        const char *p = s + 16 <= len ? c + s : w->tail + (s - tb);
        const uint64_t k1 = (load8(p) | B8(0x20)) & BELOW[wl < 8 ? wl : 8];
        uint64_t k2 = (load8(p + 8) | B8(0x20)) & BELOW[wl < 8 ? 0 : wl < 16 ? wl - 8 : 8];
        if (wl > 16) k2 = long_key(c + s, wl);
        word_step(w, add, i, k1, k2, c + s, wl, ids, rid, S, &r, *nr, &kk);
    }
    if (!add) reference_rows(w, S, nws, r, *nr, soff, ns0, ns, nt0, ncs);
    *ntok = nt0 + nws; *nsent = ns; *k = kk; *nr = r;
    return nws;
}

#ifdef WORDS_X86
/* tokenize_text on words_simd.h's pieces (a text under WORDS_V_MAX bytes): the same words,
 * sentence ends and ids.  Per 64 bytes, one compare each for token bytes and newlines (the
 * last block by a masked load: no byte past the text is read), the bytes folded into w->low,
 * the starts and ends by positions64_v (E: a word's last byte, as keys8_v takes it); then
 * k1, k2 of eight words at a time by keys8_v's gathers from w->low (k1 = its key, k2 = its
 * key2 for a word up to 16 bytes; past 16, long_key as tokenize_text); then the table steps. */
WORDS_AVX512 static int64_t tokenize_text_v(Work *w, const char *c, int64_t len, int add, int64_t *ntok,
                                            int64_t *nsent, uint32_t *k, int64_t *nr, int64_t ncs) {
    const int64_t nw = (len + 63) / 64;
    const size_t most = (size_t)len / 2 + 1 + 40;  /* words, and room for positions64_v's 32 entries */
    if (grow((void **)&w->starts, &w->starts_cap, most, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->ends, &w->ends_cap, most, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->low, &w->low_cap, 64 * (size_t)nw + 16, 1) < 0) return -1;
    if (grow((void **)&w->keys, &w->keys_cap, 3 * most, sizeof(uint64_t)) < 0) return -1;
    int32_t *S = (int32_t *)w->starts, *E = (int32_t *)w->ends;
    uint8_t *low = w->low;
    int64_t *soff = w->soff;
    const int64_t nt0 = *ntok, ns0 = *nsent;
    int64_t ns = ns0, nws = 0, nwe = 0, last = 0;
    uint64_t carry = 0;
    for (int64_t q = 0; q <= nw; q++) {
        uint64_t b = 0, nl = 0;
        if (q < nw) {
            const __m512i x = 64 * q + 64 <= len ? _mm512_loadu_si512((const void *)(c + 64 * q))
                                                 : _mm512_maskz_loadu_epi8(~(uint64_t)0 >> (64 - (len - 64 * q)),
                                                                           (const void *)(c + 64 * q));
            _mm512_storeu_si512((void *)(low + 64 * q), fold64_v(x));
            b = alnum64_v(x);
            nl = (uint64_t)_mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('\n'));
        }
        const uint64_t starts = b & ~((b << 1) | carry), ends = ~b & ((b << 1) | carry);
        carry = b >> 63;
        sentence_ends(nl, starts, nws, nt0, soff, &ns, &last);
        nws += positions64_v(starts, 64 * q, S + nws);
        nwe += positions64_v(ends, 64 * q - 1, E + nwe);
    }
    if (nws > last) soff[++ns] = nt0 + nws;
    memset(low + 64 * nw, 0, 16);
    /* the keys first (keys_v); nwe == nws (the text ends with a block of no token byte) */
    uint64_t *K1 = w->keys, *K2 = K1 + most, *N = K2 + most;
    keys_v(low, S, E, nws, K1, K2, NULL, N);
    uint32_t *ids = w->k.ids + nt0, *rid = w->k.rid, kk = *k;
    int64_t r = *nr;
    for (int64_t i = 0; i < nws; i++) {
        const int64_t s = S[i], wl = (int64_t)N[i];
        const uint64_t k1 = K1[i], k2 = __builtin_expect(wl > 16, 0) ? long_key(c + s, wl) : K2[i];
        word_step(w, add, i, k1, k2, c + s, wl, ids, rid, (uint32_t *)S, &r, *nr, &kk);
    }
    if (!add) reference_rows(w, (uint32_t *)S, nws, r, *nr, soff, ns0, ns, nt0, ncs);
    *ntok = nt0 + nws; *nsent = ns; *k = kk; *nr = r;
    return nws;
}
#endif

/* A text by the AVX-512 reader where it runs (w->simd), else by tokenize_text. */
static int64_t tokenize_any(Work *w, const char *c, int64_t len, int add, int64_t *ntok, int64_t *nsent, uint32_t *k,
                            int64_t *nr, int64_t ncs) {
#ifdef WORDS_X86
    if (w->simd && len < WORDS_V_MAX) return tokenize_text_v(w, c, len, add, ntok, nsent, k, nr, ncs);
#endif
    return add ? tokenize_text(w, c, len, 1, ntok, nsent, k, nr, ncs)
               : tokenize_text(w, c, len, 0, ntok, nsent, k, nr, ncs);
}

static int lsum_text_instance(Work *w, const LsumTextBatch *b, size_t i) {
    const int64_t t0 = b->inst_text[i], t1 = b->inst_text[i + 1];
    int64_t bytes = 0;
    for (int64_t t = t0; t < t1; t++) bytes += b->len[t];
    /* a text of L bytes has at most (L + 1) / 2 tokens, and a kept sentence has a token */
    const size_t max_tok = (size_t)bytes / 2 + (size_t)(t1 - t0) + 2;
    const size_t max_cand = (size_t)b->len[t0] / 2 + 2;
    if (grow((void **)&w->k.ids, &w->k.ids_cap, max_tok, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->soff, &w->soff_cap, max_tok + 1, sizeof(int64_t)) < 0) return -1;
    if (grow((void **)&w->k.rid, &w->k.rid_cap, max_tok, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->k.rsent, &w->k.rsent_cap, max_tok + 1, sizeof(int64_t)) < 0) return -1;
    if (lsum_grow_zeroed((void **)&w->k.mark, &w->k.mark_cap, max_tok, 1) < 0) return -1;
    if (grow((void **)&w->k.cnt, &w->k.cnt_cap, max_cand, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->k.dsent, &w->k.dsent_cap, (size_t)(t1 - t0) + 1, sizeof(int64_t)) < 0) return -1;
    if (words_reserve(w, max_cand) < 0) return -1;
    int64_t ntok = 0, nsent = 0, nr = 0, ncs = 0;
    uint32_t k = 0;
    w->soff[0] = 0;
    w->k.rsent[0] = 0;
    for (int64_t t = t0; t < t1; t++) {
        w->k.dsent[t - t0] = nsent;
        const int64_t got = tokenize_any(w, b->chars[t], b->len[t], t == t0, &ntok, &nsent, &k, &nr, t == t0 ? 0 : ncs);
        if (got < 0) return -1;
        b->doc_len[t] = got;
        if (t == t0) ncs = nsent;
    }
    w->k.dsent[t1 - t0] = nsent;
    int64_t *hits = b->hits + (t0 - (int64_t)i);
    if (nr == 0) {  /* no reference word is in the candidate (or either side is empty) */
        for (int64_t t = t0 + 1; t < t1; t++) hits[t - t0 - 1] = 0;
        return 0;
    }
    for (int64_t t = 1; t <= t1 - t0; t++) w->k.dsent[t] -= ncs;  /* the references' sentences from 0 */
    const Prepared P = {w->k.ids, w->soff, 0, ncs, k, nsent - ncs, w->k.dsent + 1, t1 - t0 - 1};
    return lsum_instance_core(&w->k, &P, hits);
}

/* Character q of text t (char mode). */
static inline tok_t text_char(const LsumTextBatch *b, int64_t t, int64_t q) {
    const char *c = b->chars[t];
    switch (b->kind[t]) {
    case 1: return ((const uint8_t *)c)[q];
    case 2: return ((const uint16_t *)(const void *)c)[q];
    default: return ((const uint32_t *)(const void *)c)[q];
    }
}

/* Char mode: every character but '\n' a token, a sentence ends at '\n'.  The
 * candidate's characters get local ids 1..k (counted in w->k.cnt); a reference's
 * characters the candidate has become rows, as in tokenize_text. */
static int char_instance(Work *w, const LsumTextBatch *b, size_t i) {
    const int64_t t0 = b->inst_text[i], t1 = b->inst_text[i + 1];
    int64_t chars = 0;
    for (int64_t t = t0; t < t1; t++) chars += b->len[t];
    const size_t nc = (size_t)b->len[t0];
    /* sentences: at most one per character and one more per text */
    const size_t max_sent = (size_t)chars + (size_t)(t1 - t0) + 1;
    if (tokmap_reserve(&w->k.map, nc + 1) < 0) return -1;
    if (grow((void **)&w->k.ids, &w->k.ids_cap, nc + 1, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->soff, &w->soff_cap, nc + 2, sizeof(int64_t)) < 0) return -1;
    if (grow((void **)&w->k.rid, &w->k.rid_cap, (size_t)chars + 1, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->k.rsent, &w->k.rsent_cap, max_sent, sizeof(int64_t)) < 0) return -1;
    if (lsum_grow_zeroed((void **)&w->k.mark, &w->k.mark_cap, (size_t)chars + 1, 1) < 0) return -1;
    if (grow((void **)&w->k.cnt, &w->k.cnt_cap, nc + 2, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->k.dsent, &w->k.dsent_cap, (size_t)(t1 - t0) + 1, sizeof(int64_t)) < 0) return -1;
    tokmap_clear(&w->k.map);
    /* the candidate */
    uint32_t k = 0;
    int64_t n = 0, ncs = 0;
    w->soff[0] = 0;
    for (int64_t q = 0; q < (int64_t)nc; q++) {
        const tok_t c = text_char(b, t0, q);
        if (c == '\n') {
            if (n > w->soff[ncs]) w->soff[++ncs] = n;
            continue;
        }
        const uint32_t seen = k, id = tokmap_add(&w->k.map, c, &k);
        if (k != seen) w->k.cnt[id] = 0;  /* a new character */
        w->k.cnt[id]++;
        w->k.ids[n++] = id;
    }
    if (n > w->soff[ncs]) w->soff[++ncs] = n;
    b->doc_len[t0] = n;
    /* the references */
    int64_t nr = 0, ns = 0;
    for (int64_t t = t0 + 1; t < t1; t++) {
        w->k.dsent[t - t0 - 1] = ns;
        int64_t m = 0;
        w->k.rsent[ns] = nr;
        for (int64_t q = 0; q < b->len[t]; q++) {
            const tok_t c = text_char(b, t, q);
            if (c == '\n') {
                if (nr > w->k.rsent[ns]) w->k.rsent[++ns] = nr;  /* a sentence with rows */
                continue;
            }
            m++;
            const uint32_t id = tokmap_get(&w->k.map, c);
            w->k.rid[nr] = id;
            nr += id != 0;
        }
        if (nr > w->k.rsent[ns]) w->k.rsent[++ns] = nr;
        b->doc_len[t] = m;
    }
    w->k.dsent[t1 - t0 - 1] = ns;
    int64_t *hits = b->hits + (t0 - (int64_t)i);
    if (nr == 0) {  /* no reference character is in the candidate (or either side is empty) */
        for (int64_t t = t0 + 1; t < t1; t++) hits[t - t0 - 1] = 0;
        return 0;
    }
    const Prepared P = {w->k.ids, w->soff, 0, ncs, k, ns, w->k.dsent, t1 - t0 - 1};
    return lsum_instance_core(&w->k, &P, hits);
}

/* At most the tokens of text t: a character each (char mode), or a word of one
 * byte or more between separators. */
static int64_t text_token_bound(const LsumTextBatch *b, int64_t t) {
    return b->kind ? b->len[t] : (b->len[t] + 1) / 2;
}

static inline int ascii_alnum(tok_t c) {
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* The most tokens of a sentence (a non-empty line) of text t, and its index among them. */
static int64_t text_longest_sentence(const LsumTextBatch *b, int64_t t, int64_t *index) {
    int64_t best = 0, cur = 0, line_len = 0, sent = 0;
    tok_t prev = '\n';
    *index = 0;
    for (int64_t q = 0; q <= b->len[t]; q++) {
        const tok_t c = q < b->len[t] ? (b->kind ? text_char(b, t, q) : (tok_t)(unsigned char)b->chars[t][q]) : '\n';
        if (c == '\n') {
            if (cur > best) { best = cur; *index = sent; }
            sent += line_len > 0;
            cur = line_len = 0;
        } else {
            line_len++;
            cur += b->kind ? 1 : (ascii_alnum(c) && !ascii_alnum(prev));
        }
        prev = c;
    }
    return best;
}

void lsum_text_need(const LsumTextBatch *b, size_t i, size_t share, LsumNeed *out) {
    const int64_t t0 = b->inst_text[i], t1 = b->inst_text[i + 1];
    memset(out, 0, sizeof(*out));
    int64_t n = text_token_bound(b, t0), m = 0;
    if (n <= 64) return;
    for (int64_t t = t0 + 1; t < t1; t++)
        if (text_token_bound(b, t) > m) m = text_token_bound(b, t);
    /* a bound from the lengths (the whole table's size bounds the checkpointed one): the common case ends here */
    out->need = (size_t)m * (size_t)((n + 63) / 64) * sizeof(uint64_t);
    if (out->need <= share) return;
    int64_t idx;
    out->n = text_longest_sentence(b, t0, &idx);
    out->cand_sent = idx;
    out->need = 0;
    if (out->n <= 64) return;
    for (int64_t t = t0 + 1; t < t1; t++) {
        const int64_t x = text_longest_sentence(b, t, &idx);
        if (x > out->m) { out->m = x; out->ref = t - t0 - 1; out->ref_sent = idx; }
    }
    out->need = lsum_pair_scratch(out->n, out->m);
}

double lsum_text_cost(const LsumTextBatch *b, size_t i) {
    const int64_t t0 = b->inst_text[i], t1 = b->inst_text[i + 1];
    double refs = 0;
    for (int64_t t = t0 + 1; t < t1; t++) refs += (double)b->len[t];
    if (b->kind) return ((double)b->len[t0] / 64 + 4) * (refs + 1);  /* a token per character */
    return ((double)b->len[t0] / 64 + 4) * (refs / 6 + 1);  /* ~6 bytes per word */
}

/* The texts of instance i towards the cache (they are read from memory, scattered). */
static void prefetch_instance(const LsumTextBatch *b, size_t i) {
#if defined(__GNUC__) || defined(__clang__)
    for (int64_t t = b->inst_text[i]; t < b->inst_text[i + 1]; t++)
        for (int64_t q = 0; q < b->len[t]; q += 64) __builtin_prefetch(b->chars[t] + q);
#else
    (void)b; (void)i;
#endif
}

int lsum_text_range(void *ctx, size_t begin, size_t end) {
    const LsumTextBatch *b = (const LsumTextBatch *)ctx;
    Work w;
    memset(&w, 0, sizeof(w));
    w.k.scratch = b->scratch;
    w.simd = !b->kind && !b->no_simd && words_simd_available();
    int rc = 0;
    for (size_t i = begin; i < end && rc == 0; i++) {
        if (i + 1 < end && !b->kind) prefetch_instance(b, i + 1);
        rc = b->kind ? char_instance(&w, b, i) : lsum_text_instance(&w, b, i);
    }
    text_work_free(&w);
    return rc;
}
