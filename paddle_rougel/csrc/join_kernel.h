/* Similarity-join candidates: a prefix-filter index probed with PPJoin's positional bound,
 * then the overlap bound on the whole texts (pure C, no Python API).  See
 * paddle_rougel/candidates.py for the bounds. */
#ifndef PADDLE_ROUGEL_JOIN_KERNEL_H
#define PADDLE_ROUGEL_JOIN_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/* Left text x has the elements elems[ptr[x] .. ptr[x+1]) (global ranks, ascending), length
 * llen[x] and a probe prefix of plen[x] elements.  Element e's postings are the right texts
 * recs[indptr[e] .. indptr[e+1]) (ascending by length), rpos[] the element's position in each and
 * plens[] its length (a posting whose length is not its text's is an error).  Right
 * text y has the elements relems[rptr[y] .. rptr[y+1]) (ascending) and length rlen[y].
 * The sizes (nl left texts, ne left elements, E index elements, nk postings, nr right texts,
 * nre right elements) bound every read: an offset, element or id outside them is an error. */
typedef struct {
    const int64_t *elems, *ptr, *plen, *llen;
    const int64_t *indptr, *recs, *rpos, *plens, *rlen;  /* plens[k]: rlen[recs[k]] */
    const int64_t *relems, *rptr;
    int64_t nl, ne, E, nk, nr, nre;
    double t, alpha;            /* threshold (>= 0) and alpha (< 0: tensor2tensor's F) */
    int order;                  /* 0: every pair, 1: right id > left id, -1: right id < left id */
    int window;                 /* 0: every length, 1: right length <= left, 2: right length > left */
} JoinIndex;

#define JOIN_NOMEM (-1)
#define JOIN_BAD (-2)

/* The least LCS a pair of lengths m (hypothesis), n can have with F >= t (>= 1). */
int64_t join_need(int64_t m, int64_t n, double t, double alpha);

/* Candidates of the left texts lo, lo+1, ... (stopping after the text that brings the
 * output to max_pairs or more, or at hi): appended to *xs / *ys (grown with realloc;
 * *cap their capacity, *n their count), each text's right ids ascending, on up to
 * `threads` threads (pieces of rows, results in row order).  Returns the next left text
 * to probe, JOIN_NOMEM when out of memory or JOIN_BAD when a buffer is inconsistent. */
int64_t join_candidates(const JoinIndex *J, int64_t lo, int64_t hi, int64_t max_pairs, int threads,
                        int64_t **xs, int64_t **ys, int64_t *n, int64_t *cap);

#endif
