/* Similarity-join candidates: prefix-filter index probe with PPJoin's positional bound. */
#include "join_kernel.h"

#include <math.h>
#include <stdlib.h>

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

/* The first k in [lo, hi) with recs[k] > x (hi when none): recs ascend there. */
static int64_t first_above(const int64_t *recs, int64_t lo, int64_t hi, int64_t x) {
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (recs[mid] > x) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

static int grow(int64_t **xs, int64_t **ys, int64_t *cap, int64_t need) {
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    int64_t *nx = (int64_t *)realloc(*xs, (size_t)c * sizeof(int64_t));
    if (!nx) return -1;
    *xs = nx;
    int64_t *ny = (int64_t *)realloc(*ys, (size_t)c * sizeof(int64_t));
    if (!ny) return -1;
    *ys = ny;
    *cap = c;
    return 0;
}

/* Per right text, while one left text is probed: count > 0 the shared prefix elements so
 * far, -1 ruled out; last_l / last_r the positions of the last one in each text. */
int64_t join_candidates(const JoinIndex *J, int64_t lo, int64_t hi, int64_t max_pairs,
                        int64_t **xs, int64_t **ys, int64_t *n, int64_t *cap) {
    int32_t *count = (int32_t *)calloc((size_t)J->nr + 1, sizeof(int32_t));
    int64_t *last = (int64_t *)malloc(((size_t)J->nr + 1) * 2 * sizeof(int64_t));
    int64_t *touched = (int64_t *)malloc(((size_t)J->nr + 1) * sizeof(int64_t));
    int64_t x = lo;
    if (!count || !last || !touched) { x = -1; goto done; }
    for (; x < hi && *n < max_pairs; x++) {
        const int64_t m = J->llen[x], *el = J->elems + J->ptr[x];
        int64_t nt = 0;
        for (int64_t px = 0; px < J->plen[x]; px++) {
            const int64_t e = el[px];
            int64_t k = J->indptr[e], end = J->indptr[e + 1];
            if (J->order > 0) k = first_above(J->recs, k, end, x);       /* postings ascend */
            else if (J->order < 0) end = first_above(J->recs, k, end, x - 1);
            for (; k < end; k++) {
                const int64_t y = J->recs[k];
                int32_t c = count[y];
                if (c < 0) continue;
                if (c == 0) {
                    touched[nt++] = y;
                    const int64_t nn = J->rlen[y], py = J->rpos[k];
                    const int64_t req = join_need(m, nn, J->t, J->alpha);
                    const int64_t rest = (m - px < nn - py) ? m - px : nn - py;  /* positional */
                    if ((m < nn ? m : nn) < req || rest < req) { count[y] = -1; continue; }
                }
                count[y] = c + 1;
                last[2 * y] = px;
                last[2 * y + 1] = J->rpos[k];
            }
        }
        int64_t kept = 0;
        for (int64_t i = 0; i < nt; i++) {
            const int64_t y = touched[i], c = count[y];
            count[y] = 0;
            if (c <= 0) continue;
            const int64_t nn = J->rlen[y];
            const int64_t a = m - 1 - last[2 * y], b = nn - 1 - last[2 * y + 1];
            if (c + (a < b ? a : b) >= join_need(m, nn, J->t, J->alpha)) touched[kept++] = y;
        }
        if (!kept) continue;
        if (grow(xs, ys, cap, *n + kept) < 0) { x = -1; goto done; }
        qsort(touched, (size_t)kept, sizeof(int64_t), cmp_i64);
        for (int64_t i = 0; i < kept; i++) {
            (*xs)[*n + i] = x;
            (*ys)[*n + i] = touched[i];
        }
        *n += kept;
    }
done:
    free(count); free(last); free(touched);
    return x;
}
