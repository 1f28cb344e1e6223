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
 * The code, in the order the compiler sees it: words_read.h (the reader), words_ids.h (the
 * local ids), words_masks.h (the mask reader), then here the instance and the range.
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

#include "words_read.h"

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

#include "words_ids.h"
#include "words_masks.h"

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
