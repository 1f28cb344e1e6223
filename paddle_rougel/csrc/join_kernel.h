/* Similarity-join candidates: a prefix-filter index probed with PPJoin's positional bound
 * (pure C, no Python API).  See paddle_rougel/candidates.py for the bounds. */
#ifndef PADDLE_ROUGEL_JOIN_KERNEL_H
#define PADDLE_ROUGEL_JOIN_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/* Left text x has the elements elems[ptr[x] .. ptr[x+1]) (global ranks, ascending), length
 * llen[x] and a probe prefix of plen[x] elements.  Element e's postings are the right texts
 * recs[indptr[e] .. indptr[e+1]) (ascending), rpos[] the element's position in each. */
typedef struct {
    const int64_t *elems, *ptr, *plen, *llen;
    const int64_t *indptr, *recs, *rpos, *rlen;
    int64_t nr;                 /* right texts */
    double t, alpha;            /* threshold (>= 0) and alpha (< 0: tensor2tensor's F) */
    int order;                  /* 0: every pair, 1: right id > left id, -1: right id < left id */
} JoinIndex;

/* The least LCS a pair of lengths m (hypothesis), n can have with F >= t (>= 1). */
int64_t join_need(int64_t m, int64_t n, double t, double alpha);

/* Candidates of the left texts lo, lo+1, ... (stopping after the text that brings the
 * output to max_pairs or more, or at hi): appended to *xs / *ys (grown with realloc;
 * *cap their capacity, *n their count), each text's right ids ascending.  Returns the
 * next left text to probe, or -1 when out of memory. */
int64_t join_candidates(const JoinIndex *J, int64_t lo, int64_t hi, int64_t max_pairs,
                        int64_t **xs, int64_t **ys, int64_t *n, int64_t *cap);

#endif
