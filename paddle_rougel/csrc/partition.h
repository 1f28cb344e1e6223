/* Run a kernel over instances [0, n) split across threads by estimated cost. */
#ifndef PADDLE_ROUGEL_PARTITION_H
#define PADDLE_ROUGEL_PARTITION_H

#include <stddef.h>

/* Process instances [begin, end); return 0, or -1 on failure (out of memory). */
typedef int (*range_fn)(void *ctx, size_t begin, size_t end);

#define PARTITION_MAX_THREADS 64

/* Split [0, n) into at most nthreads contiguous chunks of about equal total
 * cost[i] and run fn on each (chunk 0 on the calling thread).  Small batches
 * run on one thread.  Pure C (call it without the GIL).  Returns 0, or -1 if
 * any chunk failed. */
int run_partitioned(const double *cost, size_t n, int nthreads, range_fn fn, void *ctx);

#endif
