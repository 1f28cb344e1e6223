#include "partition.h"

#include <pthread.h>

/* Below this total cost (about one candidate word times one reference token
 * per unit) a thread start costs more than it saves. */
#define MIN_PARALLEL_COST 2e5

typedef struct {
    range_fn fn;
    void *ctx;
    size_t begin, end;
    int rc;
} Chunk;

static void *run_chunk(void *arg) {
    Chunk *c = (Chunk *)arg;
    c->rc = c->fn(c->ctx, c->begin, c->end);
    return NULL;
}

/* Chunk t ends where the running cost first reaches (t + 1) / nthreads of the total. */
static void split(const double *cost, size_t n, int nthreads, double total, Chunk *chunks) {
    size_t begin = 0, end = 0;
    double acc = 0, per = total / nthreads;
    for (int t = 0; t < nthreads; t++) {
        if (t == nthreads - 1) {
            end = n;
        } else {
            while (end < n && acc < per * (t + 1)) acc += cost[end++];
        }
        chunks[t].begin = begin;
        chunks[t].end = end;
        begin = end;
    }
}

int run_partitioned(const double *cost, size_t n, int nthreads, range_fn fn, void *ctx) {
    double total = 0;
    for (size_t i = 0; i < n; i++) total += cost[i];
    if (nthreads > PARTITION_MAX_THREADS) nthreads = PARTITION_MAX_THREADS;
    if (nthreads < 1 || total < MIN_PARALLEL_COST || n < 2 * (size_t)nthreads) nthreads = 1;
    Chunk chunks[PARTITION_MAX_THREADS];
    pthread_t tids[PARTITION_MAX_THREADS];
    int started[PARTITION_MAX_THREADS] = {0};
    for (int t = 0; t < nthreads; t++) {
        chunks[t].fn = fn;
        chunks[t].ctx = ctx;
        chunks[t].rc = 0;
    }
    split(cost, n, nthreads, total, chunks);
    for (int t = 1; t < nthreads; t++)
        started[t] = pthread_create(&tids[t], NULL, run_chunk, &chunks[t]) == 0;
    run_chunk(&chunks[0]);
    int rc = chunks[0].rc;
    for (int t = 1; t < nthreads; t++) {
        if (started[t]) pthread_join(tids[t], NULL);
        else run_chunk(&chunks[t]);  /* no thread available: run it here */
        if (chunks[t].rc) rc = -1;
    }
    return rc ? -1 : 0;
}
