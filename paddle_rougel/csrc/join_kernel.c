/* Similarity-join candidates: prefix-filter index probe with PPJoin's positional bound and
 * the overlap bound on the whole texts; rows in pieces over partition.c's threads. */
#include "join_kernel.h"
#include "partition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PIECES_PER_THREAD 8
#define MIN_PIECE_ROWS 64

int64_t join_need(int64_t m, int64_t n, double t, double alpha) {
    const double dm = (double)m, dn = (double)n;
    const double d = alpha < 0 ? (dm < dn ? dm : dn) : alpha * dm + (1.0 - alpha) * dn;
    const double r = floor(t * d * (1.0 - 1e-9));
    return r < 1.0 ? 1 : (int64_t)r;
}

static int cmp_i64(const void *a, const void *b) {
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The first k in [lo, hi) whose right text is longer than v or, when m > 0, whose length n
 * makes need(m, n) > room (postings ascend by length there; need grows with n: both tests
 * are monotone), or JOIN_BAD when a right id read is out of range. */
static int64_t first_beyond(const JoinIndex *J, int64_t lo, int64_t hi, int64_t v, int64_t m, int64_t room) {
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2, n = J->plens[mid];
        if (n > v || (m > 0 && join_need(m, n, J->t, J->alpha) > room)) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* Right lengths [*nlo, *nhi] that a left text of m tokens can pair with: the window's (n <= m
 * or n > m) and a superset of the length filter's (each partner is checked exactly later). */
static void length_window(const JoinIndex *J, int64_t m, int64_t *nlo, int64_t *nhi) {
    const double tt = J->t * (1.0 - 1e-9), a = J->alpha, dm = (double)m;
    *nlo = 0;
    *nhi = INT64_MAX;
    if (a >= 0) {  /* n <= m: n >= need >= tt (a m + (1 - a) n) - 1;  n > m: m >= tt (a m + (1 - a) n) - 1 */
        const double den = 1.0 - (1.0 - a) * tt, lo = (a * tt * dm - 1.0) / den - 2.0;
        if (den > 0 && lo > 0) *nlo = lo < dm ? (int64_t)lo : m;
        const double hi = (dm + 1.0 - a * tt * dm) / ((1.0 - a) * tt) + 2.0;
        if ((1.0 - a) * tt > 0 && hi < 9e18) *nhi = hi > dm ? (int64_t)hi : m;
    }
    if (J->window == 1 && *nhi > m) *nhi = m;
    if (J->window == 2 && *nlo < m + 1) *nlo = m + 1;
    /* narrowed by the length filter itself (lengths it rules out, a few steps in from each end) */
    for (int s = 0; s < 16 && *nlo <= *nhi && *nlo <= m && (*nlo < 1 || *nlo < join_need(m, *nlo, J->t, J->alpha));
         s++)
        ++*nlo;
    for (int s = 0; s < 16 && *nhi >= *nlo && *nhi > m && *nhi < INT64_MAX &&
                    m < join_need(m, *nhi, J->t, J->alpha); s++)
        --*nhi;
}

/* A piece's output: pairs (xs[i], ys[i]), i < n, in arrays of capacity cap. */
typedef struct {
    int64_t *xs, *ys, n, cap;
} Pairs;

static int grow(Pairs *o, int64_t need) {
    if (need <= o->cap) return 0;
    int64_t c = o->cap ? o->cap : 1024;
    while (c < need) c *= 2;
    int64_t *nx = (int64_t *)realloc(o->xs, (size_t)c * sizeof(int64_t));
    if (!nx) return JOIN_NOMEM;
    o->xs = nx;
    int64_t *ny = (int64_t *)realloc(o->ys, (size_t)c * sizeof(int64_t));
    if (!ny) return JOIN_NOMEM;
    o->ys = ny;
    o->cap = c;
    return 0;
}

/* Per right text, while one left text is probed: count > 0 the shared prefix elements so
 * far, -1 ruled out; last[2y], last[2y+1] the positions of the last one in each text. */
typedef struct {
    int32_t *count;
    int64_t *last, *touched;
} Work;

static int work_init(Work *w, int64_t nr) {
    w->count = (int32_t *)calloc((size_t)nr + 1, sizeof(int32_t));
    w->last = (int64_t *)malloc(((size_t)nr + 1) * 2 * sizeof(int64_t));
    w->touched = (int64_t *)malloc(((size_t)nr + 1) * sizeof(int64_t));
    return w->count && w->last && w->touched ? 0 : JOIN_NOMEM;
}

static void work_free(Work *w) {
    free(w->count); free(w->last); free(w->touched);
}

/* Whether have + |a ∩ b| (ascending arrays of distinct elements) reaches need. */
static int overlap_reaches(const int64_t *a, int64_t na, const int64_t *b, int64_t nb, int64_t have,
                           int64_t need) {
    int64_t i = 0, j = 0;
    while (have < need) {
        const int64_t ra = na - i, rb = nb - j;
        if (have + (ra < rb ? ra : rb) < need) return 0;
        if (a[i] == b[j]) { have++; i++; j++; }
        else if (a[i] < b[j]) i++;
        else j++;
    }
    return 1;
}

/* The postings of element e (at position px of a left text of m tokens) whose right texts'
 * lengths n are in [nlo, nhi] and leave the pair's first shared element room at px:
 * need(m, n) <= m - px (prefix filtering: the first element two texts with overlap o share
 * is within the first len - o + 1 of each), all checked. */
static int postings(const JoinIndex *J, int64_t e, int64_t nlo, int64_t nhi, int64_t m, int64_t px, int64_t *k,
                    int64_t *end) {
    if (e < 0 || e >= J->E) return JOIN_BAD;
    *k = J->indptr[e];
    *end = J->indptr[e + 1];
    if (*k < 0 || *end < *k || *end > J->nk) return JOIN_BAD;
    *k = first_beyond(J, *k, *end, nlo - 1, 0, 0);
    if (*k >= 0) *end = first_beyond(J, *k, *end, nhi, m, m - px);
    return *k < 0 || *end < 0 ? JOIN_BAD : 0;
}

/* Count the prefix elements left text x shares with each right text (positional bound). */
static int64_t count_shared(const JoinIndex *J, int64_t x, Work *w) {
    const int64_t m = J->llen[x], *el = J->elems + J->ptr[x];
    int64_t nt = 0, nlo, nhi;
    length_window(J, m, &nlo, &nhi);
    for (int64_t px = 0; px < J->plen[x]; px++) {
        int64_t k, end;
        if (postings(J, el[px], nlo, nhi, m, px, &k, &end) < 0) return JOIN_BAD;
        for (; k < end; k++) {
            const int64_t y = J->recs[k], py = J->rpos[k], nn = J->plens[k];
            if (y < 0 || y >= J->nr || py < 0 || py >= nn) return JOIN_BAD;
            if (J->order && (J->order > 0 ? y <= x : y >= x)) continue;
            const int32_t c = w->count[y];
            if (c < 0) continue;
            if (c == 0) {
                if (nn != J->rlen[y]) return JOIN_BAD;
                w->touched[nt++] = y;
                const int64_t req = join_need(m, nn, J->t, J->alpha);
                const int64_t rest = (m - px < nn - py) ? m - px : nn - py;  /* positional */
                if ((m < nn ? m : nn) < req || rest < req) { w->count[y] = -1; continue; }
            }
            w->count[y] = c + 1;
            w->last[2 * y] = px;
            w->last[2 * y + 1] = py;
        }
    }
    return nt;
}

/* Left text x's candidates appended to o: shared prefix elements so far plus the overlap of
 * what follows the last one in each text reach the LCS the pair needs. */
static int probe_row(const JoinIndex *J, int64_t x, Work *w, Pairs *o) {
    const int64_t m = J->llen[x], *el = J->elems + J->ptr[x];
    const int64_t nt = count_shared(J, x, w);
    int64_t kept = 0, bad = 0;
    if (nt < 0) {  /* reset what was touched before the error */
        memset(w->count, 0, ((size_t)J->nr + 1) * sizeof(int32_t));
        return (int)nt;
    }
    for (int64_t i = 0; i < nt; i++) {
        const int64_t y = w->touched[i], c = w->count[y];
        w->count[y] = 0;
        if (c <= 0 || bad) continue;
        const int64_t nn = J->rlen[y], r0 = J->rptr[y], r1 = J->rptr[y + 1];
        if (r0 < 0 || r1 < r0 || r1 > J->nre || r1 - r0 != nn || w->last[2 * y + 1] >= nn) { bad = 1; continue; }
        const int64_t px = w->last[2 * y], py = w->last[2 * y + 1], req = join_need(m, nn, J->t, J->alpha);
        if (c + (m - 1 - px < nn - 1 - py ? m - 1 - px : nn - 1 - py) < req) continue;
        if (overlap_reaches(el + px + 1, m - 1 - px, J->relems + r0 + py + 1, nn - 1 - py, c, req))
            w->touched[kept++] = y;
    }
    if (bad) return JOIN_BAD;
    if (!kept) return 0;
    if (grow(o, o->n + kept) < 0) return JOIN_NOMEM;
    qsort(w->touched, (size_t)kept, sizeof(int64_t), cmp_i64);
    for (int64_t i = 0; i < kept; i++) {
        o->xs[o->n + i] = x;
        o->ys[o->n + i] = w->touched[i];
    }
    o->n += kept;
    return 0;
}

/* Rows lo.. until hi or the output reaches budget: the next row, or an error. */
static int64_t run_rows(const JoinIndex *J, int64_t lo, int64_t hi, int64_t budget, Work *w, Pairs *o) {
    int64_t x = lo;
    for (; x < hi && o->n < budget; x++) {
        const int64_t p0 = J->ptr[x], p1 = J->ptr[x + 1];
        if (p0 < 0 || p1 < p0 || p1 > J->ne || J->llen[x] != p1 - p0 || J->plen[x] < 0 || J->plen[x] > p1 - p0)
            return JOIN_BAD;
        const int rc = probe_row(J, x, w, o);
        if (rc < 0) return rc;
    }
    return x;
}

typedef struct {
    const JoinIndex *J;
    int64_t npieces, budget;
    const int64_t *bounds;  /* piece p: rows bounds[p] .. bounds[p+1] */
    Pairs *out;
    int64_t *ends;          /* where each piece stopped (or an error); bounds[p]: not run */
    Work works[PARTITION_MAX_THREADS];
    int ready[PARTITION_MAX_THREADS];  /* per thread slot: 0 not set up, 1 ready, -1 no memory */
} Pool;

/* One piece of rows on the pool of partition.c (the thread's own scratch, set up on its
 * first piece); nonzero when it stopped early (its budget, or an error): no later piece
 * starts, and gather ends there. */
static int join_piece(void *ctx, size_t piece, int slot) {
    Pool *P = (Pool *)ctx;
    const int64_t p = (int64_t)piece;
    if (!P->ready[slot]) P->ready[slot] = work_init(&P->works[slot], P->J->nr) == 0 ? 1 : -1;
    const int64_t end = P->ready[slot] > 0 ? run_rows(P->J, P->bounds[p], P->bounds[p + 1], P->budget,
                                                       &P->works[slot], &P->out[p])
                                           : JOIN_NOMEM;
    P->ends[p] = end;
    return end < 0 || end < P->bounds[p + 1];
}

/* Pieces 0.. in order into *xs / *ys, through the first one that stopped early. */
static int64_t gather(Pool *P, int64_t hi, int64_t **xs, int64_t **ys, int64_t *n, int64_t *cap) {
    Pairs all = {*xs, *ys, *n, *cap};
    int64_t next = hi;
    for (int64_t p = 0; p < P->npieces; p++) {
        if (P->ends[p] < 0) { next = P->ends[p]; break; }
        if (P->out[p].n > 0) {  /* an empty piece has no arrays (memcpy from NULL is undefined) */
            if (grow(&all, all.n + P->out[p].n) < 0) { next = JOIN_NOMEM; break; }
            memcpy(all.xs + all.n, P->out[p].xs, (size_t)P->out[p].n * sizeof(int64_t));
            memcpy(all.ys + all.n, P->out[p].ys, (size_t)P->out[p].n * sizeof(int64_t));
            all.n += P->out[p].n;
        }
        if (P->ends[p] < P->bounds[p + 1]) { next = P->ends[p]; break; }
    }
    *xs = all.xs; *ys = all.ys; *n = all.n; *cap = all.cap;
    return next;
}

int64_t join_candidates(const JoinIndex *J, int64_t lo, int64_t hi, int64_t max_pairs, int threads,
                        int64_t **xs, int64_t **ys, int64_t *n, int64_t *cap) {
    if (threads > PARTITION_MAX_THREADS) threads = PARTITION_MAX_THREADS;
    if (threads < 1 || hi - lo < 2 * MIN_PIECE_ROWS) threads = 1;
    int64_t npieces = threads == 1 ? 1 : (int64_t)threads * PIECES_PER_THREAD;
    if (npieces > (hi - lo) / MIN_PIECE_ROWS) npieces = (hi - lo) / MIN_PIECE_ROWS;
    if (npieces < 1) npieces = 1;
    Pool *P = (Pool *)calloc(1, sizeof(Pool));
    int64_t *bounds = (int64_t *)malloc(((size_t)npieces + 1) * sizeof(int64_t));
    int64_t *ends = (int64_t *)malloc(((size_t)npieces + 1) * sizeof(int64_t));
    Pairs *out = (Pairs *)calloc((size_t)npieces + 1, sizeof(Pairs));
    int64_t next = JOIN_NOMEM;
    if (!P || !bounds || !ends || !out) goto done;
    for (int64_t p = 0; p <= npieces; p++) bounds[p] = ends[p] = lo + (hi - lo) * p / npieces;
    if (npieces == 1) out[0] = (Pairs){*xs, *ys, *n, *cap};
    P->J = J; P->npieces = npieces; P->bounds = bounds; P->out = out; P->ends = ends;
    P->budget = max_pairs / npieces > 0 ? max_pairs / npieces : 1;
    run_pieces((size_t)npieces, threads, join_piece, P);
    if (npieces == 1) {
        *xs = out[0].xs; *ys = out[0].ys; *n = out[0].n; *cap = out[0].cap;
        next = ends[0];
        out[0] = (Pairs){NULL, NULL, 0, 0};
    } else {
        next = gather(P, hi, xs, ys, n, cap);
    }
done:
    if (P)
        for (int t = 0; t < PARTITION_MAX_THREADS; t++)
            if (P->ready[t]) work_free(&P->works[t]);  /* a failed set-up may hold a part */
    if (out)
        for (int64_t p = 0; p < npieces; p++) { free(out[p].xs); free(out[p].ys); }
    free(P); free(bounds); free(ends); free(out);
    return next;
}
