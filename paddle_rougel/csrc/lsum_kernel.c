/*
 * ROUGE-Lsum as rouge-score 0.1.2 computes it (_summary_level_lcs):
 *
 *   for every reference sentence r: the union, over the candidate sentences c,
 *   of the positions in r of ONE LCS of (r, c), the one rouge-score's
 *   _backtrack_norec reads out; hits = sum over token types t of
 *   min(union tokens of type t over all reference sentences, count of t in the
 *   candidate)  (its token-count clipping; the reference count never binds).
 *
 * The LCS table of a sentence pair is Hyyro's bit-parallel recurrence with the
 * candidate sentence as the bit side: after reference token i, bit j-1 of row
 * V_i is 1 iff t[i][j] == t[i][j-1], and the carry out of bit j-1 of the row's
 * addition is t[i][j] - t[i-1][j].  Per row we keep their AND, the cells where
 * rouge-score's _backtrack_norec moves left when there is no match (t[i][j-1]
 * > t[i-1][j]); it otherwise moves up, and diagonally at a match.  So the walk
 * reads out exactly its LCS, and ties (which change the union) resolve as
 * there.  Memory: one pair's rows, len(r) * ceil(len(c)/64) words, at a time.
 */
#include "lsum_kernel.h"

#include <stdlib.h>
#include <string.h>

#include "bitops.h"
#include "tokmap.h"

typedef struct {
    TokMap map;          /* token -> local id */
    uint32_t *ids;       /* local ids of the instance's tokens */
    uint64_t *mw;        /* match masks of the current candidate word, by local id */
    uint64_t *rows;      /* rows of the current pair */
    uint8_t *carry;      /* per reference position, multi-word candidates */
    uint8_t *mark;       /* union: per reference token of the instance */
    uint32_t *cnt, *used;
    /* text path: the instance's words, a table of 16-byte slots (cache-friendly) and,
     * by id, what words longer than 8 bytes need for an exact comparison */
    struct Slot { uint64_t key; uint32_t stamp, id; } *words;
    struct Long { const char *p; uint32_t len; } *longs;
    uint32_t wgen;
    size_t wcap, longs_cap;
    int64_t *soff, *dsent;
    size_t ids_cap, mw_cap, rows_cap, carry_cap, mark_cap, cnt_cap, used_cap, soff_cap, dsent_cap;
} Work;

static void work_free(Work *w) {
    tokmap_free(&w->map); free(w->ids); free(w->mw); free(w->rows);
    free(w->carry); free(w->mark); free(w->cnt); free(w->used); free(w->words); free(w->longs); free(w->soff);
    free(w->dsent);
}

static inline uint64_t low_bits(int64_t j) { return j >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << j) - 1); }

/* ---------------------------------------------------------------- one pair */

/* Index of the highest set bit of x != 0. */
static inline int top_bit(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return 63 - __builtin_clzll(x);
#else
    int b = 0;
    while (x >>= 1) b++;
    return b;
#endif
}

/* One row step of the recurrence on word V with match mask M (and carry-in c
 * for multi-word rows).  Returns the new row; *go_left gets the cells where
 * rouge-score's backtrack moves left when there is no match: t[i][j-1] ==
 * t[i][j] (bit j-1 of the new row) and t[i-1][j] == t[i][j] - 1, which is the
 * carry out of bit j-1 of V + (V & M) (the vertical difference). */
static inline uint64_t row_step(uint64_t V, uint64_t M, uint8_t *c, uint64_t *go_left) {
    const uint64_t U = V & M;
    const uint64_t S = c ? add_carry64(V, U, c) : V + U;
    const uint64_t carry_out = U | (V & ~U & ~S);  /* majority(V, U, carry in); U is inside V */
    const uint64_t next = S | (V & ~M);
    *go_left = next & carry_out;
    return next;
}

/* Candidate sentence a[0..n), n <= 64, with its masks in w->mw.  Reading out
 * one row at a time: from column j, the path moves left through the go-left
 * cells that do not match, and leaves row i at the first cell that matches
 * (diagonal, a mark) or does not go left (up). */
static void pair_one_word(Work *w, int64_t n, const uint32_t *b, int64_t m, uint8_t *mark) {
    uint64_t *rows = w->rows, V = ~(uint64_t)0;
    const uint64_t *mw = w->mw;
    for (int64_t j = 0; j < m; j++) V = row_step(V, mw[b[j]], NULL, &rows[j]);
    int64_t cur = popcount64(~V & low_bits(n)), i = m, j = n;
    while (cur > 0) {  /* cur = t[i][j]; at 0 no match is left */
        const uint64_t M = mw[b[i - 1]];
        const uint64_t stop = (M | ~rows[i - 1]) & (~(uint64_t)0 >> (64 - j));  /* j >= cur > 0; stop != 0 */
        const int p = top_bit(stop);
        const int hit = (int)((M >> p) & 1);  /* diagonal (a mark) or up: no branch, it is unpredictable */
        mark[i - 1] |= (uint8_t)hit;
        j = p + 1 - hit;
        cur -= hit;
        i--;
    }
}

/* Longer candidate sentences: word by word, one carry per reference position,
 * then rouge-score's backtrack one cell at a time. */
static void pair_words(Work *w, const uint32_t *a, int64_t n, const uint32_t *b, int64_t m, uint8_t *mark) {
    const int64_t W = (n + 63) / 64;
    uint64_t *rows = w->rows, *mw = w->mw;
    int64_t cur = 0;
    memset(w->carry, 0, (size_t)m);
    for (int64_t q = 0; q < W; q++) {
        const int64_t p0 = q * 64, p1 = p0 + 64 < n ? p0 + 64 : n;
        for (int64_t p = p0; p < p1; p++) mw[a[p]] |= (uint64_t)1 << (p - p0);
        uint64_t V = ~(uint64_t)0;
        for (int64_t j = 0; j < m; j++) V = row_step(V, mw[b[j]], &w->carry[j], &rows[j * W + q]);
        cur += popcount64(~V & low_bits(p1 - p0));
        for (int64_t p = p0; p < p1; p++) mw[a[p]] = 0;
    }
    int64_t i = m, j = n;
    while (cur > 0) {
        if (b[i - 1] == a[j - 1]) {
            mark[i - 1] = 1;
            i--; j--; cur--;
        } else if ((rows[(i - 1) * W + ((j - 1) >> 6)] >> ((j - 1) & 63)) & 1) {
            j--;
        } else {
            i--;
        }
    }
}

/* ------------------------------------------------------------ one instance */

typedef struct {
    const int64_t *sent_off;  /* absolute offsets; minus base = index into ids */
    int64_t base;
    const int64_t *doc_sent;
    int64_t d0, d1;           /* documents: d0 the candidate, d0+1 .. d1-1 the references */
} Layout;

static int reserve_instance(Work *w, size_t k, size_t nref_tok, int64_t max_rows) {
    if (grow((void **)&w->mw, &w->mw_cap, k + 1, sizeof(uint64_t)) < 0) return -1;
    if (grow((void **)&w->cnt, &w->cnt_cap, k + 1, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->used, &w->used_cap, k + 1, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->mark, &w->mark_cap, nref_tok + 1, 1) < 0) return -1;
    if (grow((void **)&w->rows, &w->rows_cap, (size_t)max_rows + 1, sizeof(uint64_t)) < 0) return -1;
    memset(w->mw, 0, (k + 1) * sizeof(uint64_t));
    memset(w->cnt, 0, (k + 1) * sizeof(uint32_t));
    memset(w->used, 0, (k + 1) * sizeof(uint32_t));
    memset(w->mark, 0, nref_tok + 1);
    return 0;
}

/* Clipped hits of one reference document from the union marks. */
static int64_t doc_hits(Work *w, const uint32_t *ids, int64_t cand_end, int64_t q0, int64_t q1) {
    int64_t h = 0;
    for (int64_t q = q0; q < q1; q++) {
        const uint32_t id = ids[q];
        const uint32_t ok = w->mark[q - cand_end] & (w->used[id] < w->cnt[id]);  /* branchless */
        w->used[id] += ok;
        h += ok;
    }
    for (int64_t q = q0; q < q1; q++) w->used[ids[q]] = 0;
    return h;
}

/* Pairs of one candidate sentence a[0..n) with every reference sentence. */
static void cand_sentence(Work *w, const uint32_t *ids, const Layout *L, int64_t cand_end, const uint32_t *a,
                          int64_t n) {
    if (n <= 64)
        for (int64_t p = 0; p < n; p++) w->mw[a[p]] |= (uint64_t)1 << p;
    for (int64_t r = L->doc_sent[L->d0 + 1]; r < L->doc_sent[L->d1]; r++) {
        const int64_t b0 = L->sent_off[r] - L->base, m = L->sent_off[r + 1] - L->sent_off[r];
        if (m == 0) continue;
        if (n <= 64) pair_one_word(w, n, ids + b0, m, w->mark + (b0 - cand_end));
        else pair_words(w, a, n, ids + b0, m, w->mark + (b0 - cand_end));
    }
    if (n <= 64)
        for (int64_t p = 0; p < n; p++) w->mw[a[p]] = 0;
}

/* Hits of every reference of one instance whose tokens are local ids ids[]
 * (every candidate token >= 1 and < k + 1; a reference token the candidate
 * lacks may be anything <= k without a mask, e.g. 0). */
static int instance_core(Work *w, const uint32_t *ids, const Layout *L, size_t k, int64_t *hits) {
    const int64_t *so = L->sent_off, *ds = L->doc_sent;
    const int64_t cand_end = so[ds[L->d0 + 1]] - L->base, total = so[ds[L->d1]] - L->base;
    int64_t max_rows = 0, max_ref = 0, max_words = 0;
    for (int64_t r = ds[L->d0 + 1]; r < ds[L->d1]; r++)
        if (so[r + 1] - so[r] > max_ref) max_ref = so[r + 1] - so[r];
    for (int64_t s = ds[L->d0]; s < ds[L->d0 + 1]; s++)
        if ((so[s + 1] - so[s] + 63) / 64 > max_words) max_words = (so[s + 1] - so[s] + 63) / 64;
    max_rows = max_ref * max_words;
    if (reserve_instance(w, k, (size_t)(total - cand_end), max_rows) < 0) return -1;
    if (max_words > 1 && grow((void **)&w->carry, &w->carry_cap, (size_t)max_ref + 1, 1) < 0) return -1;
    for (int64_t p = 0; p < cand_end; p++) w->cnt[ids[p]]++;
    for (int64_t s = ds[L->d0]; s < ds[L->d0 + 1]; s++) {
        const int64_t a0 = so[s] - L->base, n = so[s + 1] - so[s];
        if (n > 0) cand_sentence(w, ids, L, cand_end, ids + a0, n);
    }
    for (int64_t d = L->d0 + 1; d < L->d1; d++) {
        const int64_t q0 = so[ds[d]] - L->base, q1 = so[ds[d + 1]] - L->base;
        hits[d - L->d0 - 1] = doc_hits(w, ids, cand_end, q0, q1);
    }
    return 0;
}

/* ------------------------------------------------------ token-id batches */

/* w->ids for toks[0 .. total): the candidate's [0 .. n) get 1..k, the rest
 * their candidate id or 0.  Returns k, or -1. */
static int64_t local_ids(Work *w, const tok_t *toks, int64_t n, int64_t total) {
    if (tokmap_reserve(&w->map, (size_t)n) < 0) return -1;
    if (grow((void **)&w->ids, &w->ids_cap, (size_t)total + 1, sizeof(uint32_t)) < 0) return -1;
    tokmap_clear(&w->map);
    const size_t mask = w->map.cap - 1;
    uint32_t k = 0;
    for (int64_t p = 0; p < total; p++) {
        const tok_t t = toks[p];
        size_t h = tokmap_hash(t) & mask;
        while (w->map.stamp[h] == w->map.gen && w->map.keys[h] != t) h = (h + 1) & mask;
        if (w->map.stamp[h] == w->map.gen) w->ids[p] = w->map.vals[h];
        else if (p < n) { w->map.stamp[h] = w->map.gen; w->map.keys[h] = t; w->map.vals[h] = w->ids[p] = ++k; }
        else w->ids[p] = 0;
    }
    return k;
}

static int lsum_instance(Work *w, const LsumBatch *b, size_t i) {
    const int64_t d0 = b->inst_doc[i], d1 = b->inst_doc[i + 1];
    const int64_t base = b->sent_off[b->doc_sent[d0]];
    const int64_t n = b->sent_off[b->doc_sent[d0 + 1]] - base;
    const int64_t total = b->sent_off[b->doc_sent[d1]] - base;
    int64_t *hits = b->hits + (d0 - (int64_t)i);  /* references before instance i: d0 - i */
    if (n == 0 || total == n) {
        for (int64_t d = d0 + 1; d < d1; d++) hits[d - d0 - 1] = 0;
        return 0;
    }
    const int64_t k = local_ids(w, b->toks + base, n, total);
    if (k < 0) return -1;
    const Layout L = {b->sent_off, base, b->doc_sent, d0, d1};
    return instance_core(w, w->ids, &L, (size_t)k, hits);
}

double lsum_cost(const LsumBatch *b, size_t i) {
    const int64_t d0 = b->inst_doc[i], d1 = b->inst_doc[i + 1];
    const int64_t *so = b->sent_off, *ds = b->doc_sent;
    const double cand = (double)(so[ds[d0 + 1]] - so[ds[d0]]);
    const double sents = (double)(ds[d0 + 1] - ds[d0]);
    const double refs = (double)(so[ds[d1]] - so[ds[d0 + 1]]);
    return (sents + cand / 64 + 1) * (refs + 1);
}

int lsum_range(void *ctx, size_t begin, size_t end) {
    const LsumBatch *b = (const LsumBatch *)ctx;
    Work w;
    memset(&w, 0, sizeof(w));
    int rc = 0;
    for (size_t i = begin; i < end && rc == 0; i++) rc = lsum_instance(&w, b, i);
    work_free(&w);
    return rc;
}

/* ------------------------------------------------------------ ASCII text */

/* Tokenizing 8 bytes at a time (SWAR): byte k of a word is text byte q + k,
 * loaded little-endian; every byte of an ASCII text is < 0x80. */
#define B8(x) ((uint64_t)(x) * 0x0101010101010101ull)

/* 0x80 in each byte of x (bytes < 0x80) that lies in [lo, hi], 0 elsewhere. */
static inline uint64_t bytes_in(uint64_t x, unsigned lo, unsigned hi) {
    return (x + B8(0x80 - lo)) & ~(x + B8(0x7F - hi)) & B8(0x80);
}

/* [A-Za-z0-9]: rouge-score's token characters (for them, c | 0x20 is the lowercase) */
static inline uint64_t alnum8(uint64_t x) { return bytes_in(x, '0', '9') | bytes_in(x | B8(0x20), 'a', 'z'); }

/* Bytes c[q .. min(q + 8, len)), zero bytes after the end (no token character). */
static inline uint64_t load8(const char *c, int64_t q, int64_t len) {
    uint64_t x = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (q + 8 <= len) {
        memcpy(&x, c + q, 8);  /* a fixed size: one load */
        return x;
    }
#endif
    for (int64_t e = 0; e < 8 && q + e < len; e++) x |= (uint64_t)(unsigned char)c[q + e] << (8 * e);
    return x;
}

/* Index of the first byte flagged (0x80) in m != 0. */
static inline int first_byte(uint64_t m) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(m) >> 3;
#else
    int b = 0;
    while (!(m & 0x80)) { m >>= 8; b++; }
    return b;
#endif
}

/* The bytes below byte k (k in 0..8) of a word. */
static inline uint64_t below_byte(int k) { return k >= 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * k)) - 1); }

static int words_reserve(Work *w, size_t need) {
    if (grow((void **)&w->longs, &w->longs_cap, need + 1, sizeof(*w->longs)) < 0) return -1;
    size_t cap = 256;
    while (cap < 2 * need) cap *= 2;
    if (cap <= w->wcap) return 0;
    free(w->words);
    w->words = calloc(cap, sizeof(*w->words));
    w->wgen = 0;
    if (!w->words) { w->wcap = 0; return -1; }
    w->wcap = cap;
    return 0;
}

/* Instance-local id (1, 2, ...) of the word p[0..len), compared case-insensitively
 * (for [A-Za-z0-9], c | 0x20 is exactly the lowercase).  key: its first 8
 * lowercased bytes, packed; a word of fewer bytes has a zero byte there, which no
 * token character is, so for those the key is the whole word. */
static uint32_t word_id(Work *w, const char *p, uint32_t len, uint64_t key, uint32_t *k) {
    uint64_t h = (key ^ len) * 0x9E3779B97F4A7C15ull;
    for (uint32_t q = 8; q < len; q++) h = (h ^ (uint64_t)((unsigned char)p[q] | 0x20)) * 0x100000001B3ull;
    const size_t mask = w->wcap - 1;
    for (size_t s = (size_t)(h >> 40) & mask;; s = (s + 1) & mask) {
        struct Slot *x = &w->words[s];
        if (x->stamp != w->wgen) {
            x->stamp = w->wgen; x->key = key; x->id = ++*k;
            w->longs[x->id].p = p; w->longs[x->id].len = len;
            return x->id;
        }
        if (x->key != key) continue;
        if (len < 8) return x->id;
        const struct Long *o = &w->longs[x->id];
        if (o->len != len) continue;
        uint32_t q = 8;
        while (q < len && ((unsigned char)o->p[q] | 0x20) == ((unsigned char)p[q] | 0x20)) q++;
        if (q == len) return x->id;
    }
}

/* End of the word that starts at c[q] (a token character; x = load8(c, q, len),
 * tok = alnum8(x)) and its key (first 8 bytes, lowercased, zero bytes after a
 * shorter word). */
static inline int64_t word_end(const char *c, int64_t q, int64_t len, uint64_t x, uint64_t tok, uint64_t *key) {
    const uint64_t stop = ~tok & B8(0x80);
    if (stop) {
        const int k = first_byte(stop);
        *key = (x | B8(0x20)) & below_byte(k);
        return q + k;
    }
    *key = x | B8(0x20);
    int64_t e = q + 8;
    for (;;) {
        const uint64_t more = ~alnum8(load8(c, e, len)) & B8(0x80);
        if (more) return e + first_byte(more);  /* the zero bytes after the end stop it */
        e += 8;
    }
}

/* Tokens of one text appended to w->ids, its sentences with tokens to w->soff
 * (a sentence ends at '\n'; a run of separators is checked for one at once). */
static int64_t tokenize_text(Work *w, const char *c, int64_t len, int64_t *ntok, int64_t *nsent, uint32_t *k) {
    /* locals, not *ntok, *nsent, *k: stores to ids[] (uint32_t) may alias those */
    uint32_t *ids = w->ids, kk = *k;
    int64_t *soff = w->soff, nt = *ntok, ns = *nsent;
    const int64_t first = nt;
    int64_t start_tok = nt, q = 0;
    while (q < len) {
        const uint64_t x = load8(c, q, len), tok = alnum8(x);
        if (tok & 0x80) {  /* a word starts at q */
            uint64_t key;
            const int64_t e = word_end(c, q, len, x, tok, &key);
            ids[nt++] = word_id(w, c + q, (uint32_t)(e - q), key, &kk);
            if (e - q >= 8) { q = e; continue; }
            /* the separators after a short word start inside x: up to the next word there, or all of x */
            const uint64_t next = tok & ~below_byte((int)(e - q));
            const int run = next ? first_byte(next) : 8;
            if (bytes_in(x, '\n', '\n') & below_byte(run)) {
                if (nt > start_tok) soff[++ns] = nt;
                start_tok = nt;
            }
            q += run;
            continue;
        }
        const int run = tok ? first_byte(tok) : 8;  /* separators before the next word (or 8) */
        if (bytes_in(x, '\n', '\n') & below_byte(run)) {
            if (nt > start_tok) soff[++ns] = nt;
            start_tok = nt;
        }
        q += run;
    }
    if (nt > start_tok) soff[++ns] = nt;
    *ntok = nt; *nsent = ns; *k = kk;
    return nt - first;
}

static int lsum_text_instance(Work *w, const LsumTextBatch *b, size_t i) {
    const int64_t t0 = b->inst_text[i], t1 = b->inst_text[i + 1];
    int64_t bytes = 0;
    for (int64_t t = t0; t < t1; t++) bytes += b->len[t];
    /* a text of L bytes has at most (L + 1) / 2 tokens, and a kept sentence has a token */
    const size_t max_tok = (size_t)bytes / 2 + (size_t)(t1 - t0) + 2;
    if (grow((void **)&w->ids, &w->ids_cap, max_tok, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->soff, &w->soff_cap, max_tok + 1, sizeof(int64_t)) < 0) return -1;
    if (grow((void **)&w->dsent, &w->dsent_cap, (size_t)(t1 - t0) + 1, sizeof(int64_t)) < 0) return -1;
    if (words_reserve(w, max_tok) < 0) return -1;
    if (++w->wgen == 0) { memset(w->words, 0, w->wcap * sizeof(*w->words)); w->wgen = 1; }
    int64_t ntok = 0, nsent = 0;
    uint32_t k = 0;
    w->soff[0] = 0;
    for (int64_t t = t0; t < t1; t++) {
        w->dsent[t - t0] = nsent;
        b->doc_len[t] = tokenize_text(w, b->chars[t], b->len[t], &ntok, &nsent, &k);
    }
    w->dsent[t1 - t0] = nsent;
    int64_t *hits = b->hits + (t0 - (int64_t)i);
    if (b->doc_len[t0] == 0 || ntok == b->doc_len[t0]) {
        for (int64_t t = t0 + 1; t < t1; t++) hits[t - t0 - 1] = 0;
        return 0;
    }
    const Layout L = {w->soff, 0, w->dsent, 0, t1 - t0};
    return instance_core(w, w->ids, &L, k, hits);
}

double lsum_text_cost(const LsumTextBatch *b, size_t i) {
    const int64_t t0 = b->inst_text[i], t1 = b->inst_text[i + 1];
    double refs = 0;
    for (int64_t t = t0 + 1; t < t1; t++) refs += (double)b->len[t];
    return ((double)b->len[t0] / 64 + 4) * (refs / 6 + 1);  /* ~6 bytes per word */
}

int lsum_text_range(void *ctx, size_t begin, size_t end) {
    const LsumTextBatch *b = (const LsumTextBatch *)ctx;
    Work w;
    memset(&w, 0, sizeof(w));
    int rc = 0;
    for (size_t i = begin; i < end && rc == 0; i++) rc = lsum_text_instance(&w, b, i);
    work_free(&w);
    return rc;
}
