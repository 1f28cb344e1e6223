#include "partition.h"

#include <pthread.h>
#include <stdlib.h>

/* Below this total cost (about one candidate word times one reference token
 * per unit) a thread start costs more than it saves. */
#define MIN_PARALLEL_COST 2e5

/* Pieces per thread: threads take the next piece when done with one, so a
 * thread slowed down (a busy core, a shared machine, an uneven cost estimate)
 * costs at most about one piece, not half the batch. */
#define PIECES_PER_THREAD 16
#define MIN_PIECE_COST (MIN_PARALLEL_COST / 8)  /* each piece sets up its own scratch buffers */

typedef struct {
    range_fn fn;
    void *ctx;
    const size_t *bounds;  /* piece p is [bounds[p], bounds[p + 1]) */
    size_t npieces, next;
    int failed;
    pthread_mutex_t lock;
} Pool;

static void *worker(void *arg) {
    Pool *P = (Pool *)arg;
    for (;;) {
        pthread_mutex_lock(&P->lock);
        const size_t p = P->failed ? P->npieces : P->next;
        if (p < P->npieces) P->next++;
        pthread_mutex_unlock(&P->lock);
        if (p >= P->npieces) return NULL;
        if (P->bounds[p] < P->bounds[p + 1] && P->fn(P->ctx, P->bounds[p], P->bounds[p + 1]) != 0) {
            pthread_mutex_lock(&P->lock);
            P->failed = 1;
            pthread_mutex_unlock(&P->lock);
        }
    }
}

/* bounds[0..npieces]: piece p ends where the running cost first reaches (p + 1) / npieces of the total. */
static void split(const double *cost, size_t n, size_t npieces, double total, size_t *bounds) {
    size_t end = 0;
    double acc = 0;
    const double per = total / (double)npieces;
    bounds[0] = 0;
    for (size_t p = 0; p + 1 < npieces; p++) {
        while (end < n && acc < per * (double)(p + 1)) acc += cost[end++];
        bounds[p + 1] = end;
    }
    bounds[npieces] = n;
}

int run_partitioned(const double *cost, size_t n, int nthreads, range_fn fn, void *ctx) {
    double total = 0;
    for (size_t i = 0; i < n; i++) total += cost[i];
    if (nthreads > PARTITION_MAX_THREADS) nthreads = PARTITION_MAX_THREADS;
    if (nthreads < 1 || total < MIN_PARALLEL_COST || n < 2 * (size_t)nthreads) nthreads = 1;
    if (nthreads == 1) return fn(ctx, 0, n) ? -1 : 0;
    size_t npieces = (size_t)nthreads * PIECES_PER_THREAD;
    if ((double)npieces > total / MIN_PIECE_COST) npieces = (size_t)(total / MIN_PIECE_COST);
    if (npieces > n) npieces = n;
    if (npieces < (size_t)nthreads) npieces = (size_t)nthreads;  /* n >= 2 * nthreads */
    size_t *bounds = (size_t *)malloc((npieces + 1) * sizeof(size_t));
    if (!bounds) return -1;
    split(cost, n, npieces, total, bounds);
    Pool P;
    P.fn = fn; P.ctx = ctx; P.bounds = bounds; P.npieces = npieces; P.next = 0; P.failed = 0;
    if (pthread_mutex_init(&P.lock, NULL) != 0) {
        free(bounds);
        return fn(ctx, 0, n) ? -1 : 0;
    }
    pthread_t tids[PARTITION_MAX_THREADS];
    int started[PARTITION_MAX_THREADS] = {0};
    for (int t = 1; t < nthreads; t++) started[t] = pthread_create(&tids[t], NULL, worker, &P) == 0;
    worker(&P);  /* the calling thread works too; it alone if no thread could start */
    for (int t = 1; t < nthreads; t++)
        if (started[t]) pthread_join(tids[t], NULL);
    pthread_mutex_destroy(&P.lock);
    free(bounds);
    return P.failed ? -1 : 0;
}

typedef struct {
    range_fn fn;
    void *ctx;
    size_t begin, end;
    int rc;
} Even;

static void *even_worker(void *arg) {
    Even *E = (Even *)arg;
    E->rc = E->fn(E->ctx, E->begin, E->end);
    return NULL;
}

int run_even(size_t n, int nthreads, size_t min_each, range_fn fn, void *ctx) {
    if (nthreads > PARTITION_MAX_THREADS) nthreads = PARTITION_MAX_THREADS;
    if (min_each < 1) min_each = 1;
    if (nthreads < 1) nthreads = 1;
    if ((size_t)nthreads > n / min_each) nthreads = (int)(n / min_each);
    if (nthreads <= 1) return fn(ctx, 0, n) ? -1 : 0;
    Even E[PARTITION_MAX_THREADS];
    pthread_t tids[PARTITION_MAX_THREADS];
    int started[PARTITION_MAX_THREADS] = {0};
    for (int t = 0; t < nthreads; t++) {
        E[t].fn = fn; E[t].ctx = ctx; E[t].rc = 0;
        E[t].begin = n * (size_t)t / (size_t)nthreads;
        E[t].end = n * (size_t)(t + 1) / (size_t)nthreads;
    }
    for (int t = 1; t < nthreads; t++) started[t] = pthread_create(&tids[t], NULL, even_worker, &E[t]) == 0;
    even_worker(&E[0]);
    int failed = E[0].rc != 0;
    for (int t = 1; t < nthreads; t++) {
        if (started[t]) pthread_join(tids[t], NULL);
        else even_worker(&E[t]);  /* no thread: the calling thread runs its range */
        failed |= E[t].rc != 0;
    }
    return failed ? -1 : 0;
}
