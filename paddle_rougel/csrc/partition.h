/* Run a kernel over instances [0, n) split across threads by estimated cost. */
#ifndef PADDLE_ROUGEL_PARTITION_H
#define PADDLE_ROUGEL_PARTITION_H

#include <stddef.h>

/* Process instances [begin, end); return 0, or -1 on failure (out of memory). */
typedef int (*range_fn)(void *ctx, size_t begin, size_t end);

#define PARTITION_MAX_THREADS 64

/* Run piece p (0 <= p < npieces) on the thread of index slot (0 <= slot < nthreads: the
 * thread's own scratch, if any); nonzero: start no further piece. */
typedef int (*piece_fn)(void *ctx, size_t piece, int slot);

/* The one thread pool: pieces 0, 1, ... taken in order by up to nthreads threads (the
 * calling thread one of them, slot 0), each thread taking the next piece when it is done
 * with one; once a call returns nonzero no further piece starts (pieces under way finish).
 * A thread that cannot start leaves its pieces to the others.  Pure C (call it without the
 * GIL).  Returns 0, or -1 if any call returned nonzero. */
int run_pieces(size_t npieces, int nthreads, piece_fn fn, void *ctx);

/* Run fn over [0, n) on up to nthreads threads (the calling thread one of
 * them): the range is cut into contiguous pieces of about equal total
 * cost[i], and each thread takes the next piece when it is done with one.
 * Small batches run on one thread.  Pure C (call it without the GIL).
 * Returns 0, or -1 if any piece failed (out of memory). */
int run_partitioned(const double *cost, size_t n, int nthreads, range_fn fn, void *ctx);

/* Run fn over [0, n) cut into up to nthreads ranges of equal length, each of at least
 * min_each items (fewer ranges otherwise), on the pool of run_pieces: for a pass whose items
 * cost alike.  Returns 0, or -1 if any range failed. */
int run_even(size_t n, int nthreads, size_t min_each, range_fn fn, void *ctx);

#endif
