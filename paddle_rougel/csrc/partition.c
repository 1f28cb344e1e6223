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
    piece_fn fn;
    void *ctx;
    size_t npieces, next;
    int stop;
    pthread_mutex_t lock;
} Pool;

typedef struct {
    Pool *pool;
    int slot;
} Seat;

static void *worker(void *arg) {
    Seat *S = (Seat *)arg;
    Pool *P = S->pool;
    for (;;) {
        pthread_mutex_lock(&P->lock);
        const size_t p = P->stop ? P->npieces : P->next;
        if (p < P->npieces) P->next++;
        pthread_mutex_unlock(&P->lock);
        if (p >= P->npieces) return NULL;
        if (P->fn(P->ctx, p, S->slot) != 0) {
            pthread_mutex_lock(&P->lock);
            P->stop = 1;
            pthread_mutex_unlock(&P->lock);
        }
    }
}

int run_pieces(size_t npieces, int nthreads, piece_fn fn, void *ctx) {
    if (nthreads > PARTITION_MAX_THREADS) nthreads = PARTITION_MAX_THREADS;
    if (nthreads < 1) nthreads = 1;
    if ((size_t)nthreads > npieces) nthreads = npieces ? (int)npieces : 1;
    Pool P;
    P.fn = fn; P.ctx = ctx; P.npieces = npieces; P.next = 0; P.stop = 0;
    Seat seats[PARTITION_MAX_THREADS];
    for (int t = 0; t < nthreads; t++) { seats[t].pool = &P; seats[t].slot = t; }
    if (nthreads == 1 || pthread_mutex_init(&P.lock, NULL) != 0) {  /* on the calling thread alone */
        for (size_t p = 0; p < npieces; p++)
            if (fn(ctx, p, 0) != 0) return -1;
        return 0;
    }
    pthread_t tids[PARTITION_MAX_THREADS];
    int started[PARTITION_MAX_THREADS] = {0};
    for (int t = 1; t < nthreads; t++) started[t] = pthread_create(&tids[t], NULL, worker, &seats[t]) == 0;
    worker(&seats[0]);  /* the calling thread works too; it alone if no thread could start */
    for (int t = 1; t < nthreads; t++)
        if (started[t]) pthread_join(tids[t], NULL);
    pthread_mutex_destroy(&P.lock);
    return P.stop ? -1 : 0;
}

typedef struct {
    range_fn fn;
    void *ctx;
    const size_t *bounds;  /* piece p is [bounds[p], bounds[p + 1]) */
} Ranges;

static int range_piece(void *ctx, size_t p, int slot) {
    const Ranges *R = (const Ranges *)ctx;
    (void)slot;
    return R->bounds[p] < R->bounds[p + 1] && R->fn(R->ctx, R->bounds[p], R->bounds[p + 1]) != 0;
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
    Ranges R = {fn, ctx, bounds};
    const int rc = run_pieces(npieces, nthreads, range_piece, &R);
    free(bounds);
    return rc;
}

typedef struct {
    range_fn fn;
    void *ctx;
    size_t n, nthreads;
} EvenRanges;

static int even_piece(void *ctx, size_t p, int slot) {
    const EvenRanges *E = (const EvenRanges *)ctx;
    (void)slot;
    return E->fn(E->ctx, E->n * p / E->nthreads, E->n * (p + 1) / E->nthreads) != 0;
}

int run_even(size_t n, int nthreads, size_t min_each, range_fn fn, void *ctx) {
    if (nthreads > PARTITION_MAX_THREADS) nthreads = PARTITION_MAX_THREADS;
    if (min_each < 1) min_each = 1;
    if (nthreads < 1) nthreads = 1;
    if ((size_t)nthreads > n / min_each) nthreads = (int)(n / min_each);
    if (nthreads <= 1) return fn(ctx, 0, n) ? -1 : 0;
    EvenRanges E = {fn, ctx, n, (size_t)nthreads};
    return run_pieces((size_t)nthreads, nthreads, even_piece, &E);
}
