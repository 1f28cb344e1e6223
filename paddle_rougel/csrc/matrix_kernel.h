/* All-pairs LCS: every query against every choice (pure C, no Python API). */
#ifndef PADDLE_ROUGEL_MATRIX_KERNEL_H
#define PADDLE_ROUGEL_MATRIX_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/* Texts are dense ids 1..V (global over queries and choices).  Query q is
 * toks[q_off[q] .. q_off[q+1]), choice c is toks[c_off[c] .. c_off[c+1]).
 * Work item k covers the queries qidx[item[k] .. item[k+1]): up to MATRIX_LANES
 * queries of at most 64 tokens scored together, or one longer query. */
#define MATRIX_LANES 4

typedef struct {
    const uint32_t *toks;
    const int64_t *q_off, *c_off;
    int64_t C;
    uint32_t V;
    const int64_t *qidx, *item;
    int simd;                   /* 1: the AVX2 lanes (checked by the caller: matrix_simd_available) */
    int32_t *lcs;               /* [Q, C] out, row-major */
} MatrixJob;

/* Work items over Q queries: fills qidx [Q] and item [Q+1]; returns how many items. */
int64_t matrix_items(const int64_t *q_off, int64_t Q, int64_t *qidx, int64_t *item);

double matrix_cost(const MatrixJob *j, size_t k);
int matrix_range(void *ctx, size_t begin, size_t end);

/* F (and P, R) of rows of an LCS matrix as float32, each computed in double exactly as
 * paddle_rougel.scoring does it in numpy (precision_recall, then f_alpha or, alpha < 0,
 * f_t2t), then rounded once.  A range_fn over rows. */
typedef struct {
    const int32_t *lcs;         /* [Q, C] */
    const int64_t *qlen, *clen;
    int64_t C;
    double alpha;
    float *f, *p, *r;           /* [Q, C] out; p and r may be NULL */
    double *f64;                /* instead of f, p, r (not NULL): F as float64, unrounded */
} ScoreJob;

int score_rows(void *ctx, size_t begin, size_t end);

/* 1 when this CPU runs the AVX2 lanes. */
int matrix_simd_available(void);

#endif
