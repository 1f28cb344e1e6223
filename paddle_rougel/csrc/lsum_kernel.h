/* ROUGE-Lsum (summary-level union LCS) over token-id arrays (pure C, no Python API). */
#ifndef PADDLE_ROUGEL_LSUM_KERNEL_H
#define PADDLE_ROUGEL_LSUM_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "tok.h"

/* N instances of D documents (summaries) of S sentences: instance i owns
 * documents inst_doc[i] (its candidate) .. inst_doc[i+1]-1 (its references),
 * document d owns sentences doc_sent[d] .. doc_sent[d+1]-1, sentence s is
 * toks[sent_off[s] .. sent_off[s+1]).  Sentences between documents (unused
 * texts) are allowed: a document's sentences are contiguous. */
typedef struct {
    const tok_t *toks;
    const int64_t *sent_off;  /* [S+1] */
    const int64_t *doc_sent;  /* [D+1] */
    const int64_t *inst_doc;  /* [N+1] */
    int64_t *hits;            /* [D-N] out: clipped union-LCS hits of each reference, in order */
    size_t scratch;           /* bytes of LCS table a thread may hold (see lsum_pair_scratch) */
} LsumBatch;

/* The LCS table of a candidate sentence of n tokens against a reference sentence
 * of m: the bytes the kernel needs at least, rows checkpointed (0 when n <= 64:
 * those sentences are scored in LANES words a row).  The kernel keeps the whole
 * table, m * ceil(n/64) words, when that fits in b->scratch; else this. */
size_t lsum_pair_scratch(int64_t n, int64_t m);

/* The pair of an instance with the largest lsum_pair_scratch: the candidate
 * sentence, the reference (0-based among the instance's), its sentence, their
 * tokens (for text, the newline-split sentences as rouge-score splits them:
 * non-empty lines), and the bytes. */
typedef struct { int64_t cand_sent, ref, ref_sent, n, m; size_t need; } LsumNeed;
void lsum_need(const LsumBatch *b, size_t i, LsumNeed *out);

/* The call's default budget of LCS table, shared by its threads (paddle_rougel.lsum.SCRATCH_BYTES). */
#define LSUM_DEFAULT_SCRATCH ((size_t)256 << 20)

/* Estimated work of instance i (for run_partitioned). */
double lsum_cost(const LsumBatch *b, size_t i);

/* Fill b->hits for instances [begin, end); a range_fn (ctx = LsumBatch *).
 * Returns 0, or -1 when out of memory. */
int lsum_range(void *ctx, size_t begin, size_t end);

/* lsum_text.c: the same from ASCII text, tokenized and split as rouge-score's rougeLsum
 * does by default: sentences end at '\n', a token is a maximal run of
 * [A-Za-z0-9], lowercased.  Instance i owns texts inst_text[i] (its
 * candidate) .. inst_text[i+1]-1; text t is chars[t][0 .. len[t]). */
typedef struct {
    const char *const *chars;
    const int64_t *len;        /* [T] */
    const int64_t *inst_text;  /* [N+1] */
    int64_t *hits;             /* [T-N] out */
    int64_t *doc_len;          /* [T] out: tokens of each text */
    /* NULL: the above (ASCII).  Else every character but '\n' is a token (the
     * package's default "char" tokens, newline split): text t is len[t] code
     * points of kind[t] bytes each (1, 2 or 4: a str's storage). */
    const uint8_t *kind;       /* [T] or NULL */
    size_t scratch;            /* as LsumBatch */
    int no_simd;               /* 1: the portable reader even where AVX-512 runs (the same results) */
} LsumTextBatch;

double lsum_text_cost(const LsumTextBatch *b, size_t i);

/* As lsum_need; when a bound from the texts' lengths is at most `share`, out->need
 * is that bound and the rest is 0 (the texts are not scanned). */
void lsum_text_need(const LsumTextBatch *b, size_t i, size_t share, LsumNeed *out);
int lsum_text_range(void *ctx, size_t begin, size_t end);

#endif
