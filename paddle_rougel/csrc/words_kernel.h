/* Sentence-level ROUGE-L and ROUGE-N on words read from str data in C (pure C, no Python API). */
#ifndef PADDLE_ROUGEL_WORDS_KERNEL_H
#define PADDLE_ROUGEL_WORDS_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "rougen_kernel.h"

/* How a text becomes words. */
enum {
    WORDS_SPLIT = 0,   /* str.split(): runs of characters that are not whitespace */
    WORDS_ALNUM = 1,   /* rouge-score: runs of [a-z0-9] (after lowercasing) */
};

/* One text: PEP 393 storage (kind 1, 2 or 4 bytes a code point). */
typedef struct {
    const void *data;
    int64_t len;
    int kind;
} WordText;

/* N instances over T texts: instance i owns texts inst_start[i] .. inst_start[i+1]-1, its
 * candidate first.  fold: ASCII A-Z compare as a-z (a text with other characters must be
 * lowercased by the caller).  is_space: the whitespace test of code points >= 128
 * (str.isspace; WORDS_SPLIT). */
typedef struct {
    const WordText *texts;
    const int64_t *inst_start;  /* [N+1] */
    int mode, fold;
    int (*is_space)(uint32_t c);
    int64_t *lcs;               /* [T-N] out: LCS of each reference, in order (NULL: no LCS) */
    int64_t *cand_len;          /* [N] out: words of each candidate */
    int64_t *ref_len;           /* [T-N] out: words of each reference, in order */
    int64_t *ref_count;         /* [N] out: references of each instance */
    const RougeNSpec *ngram;    /* ROUGE-N counts of the same words too (NULL: none) */
    RougeNOut ngram_out;        /* (rougen_kernel.h) */
    int no_simd;                /* 1: the portable reader even where AVX-512 runs (the same results) */
    int64_t *zeros;             /* [T-N] or NULL: only zeroed (lcs=False's LCS of 0) */
} WordsBatch;

/* Whether this CPU runs the AVX-512 word reader (AVX-512 F/BW/VL/DQ and VBMI2; 0 off x86). */
int words_simd_available(void);

/* The mask reader's 16-bit fingerprints of the words of a 1-byte text t read as b says (tests:
 * to find words that share one), at most cap at out; how many, or -1 where the CPU has no
 * AVX-512 reader (or t is not a 1-byte text, or out of memory). */
int64_t words_fingerprints(const WordsBatch *b, const WordText *t, uint16_t *out, int64_t cap);

/* Estimated work of instance i (for run_partitioned); of the instance of texts t0 .. t1-1
 * (its candidate first). */
double words_cost(const WordsBatch *b, size_t i);
double words_texts_cost(const WordText *texts, int64_t t0, int64_t t1);

/* Fill b->lcs, the lengths and b->ngram_out for instances [begin, end) (zeroing their entries
 * first: the arrays may come uninitialised; the threads that fill them touch them first); a
 * range_fn.  0, or -1 when out of memory. */
int words_range(void *ctx, size_t begin, size_t end);

#endif
