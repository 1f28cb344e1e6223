/* ROUGE-1.5.5's quadratic kernels (paddle_rougel._r155): the LCS / weighted-LCS hit masks with
 * the script's DP and backtrack, and clipped overlap counts of n-gram / skip-bigram keys.
 * Built with -ffp-contract=off: the weighted DP adds (k+1)**w - k**w in the script's order. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One model unit against one peer unit: set mask[i] for the model positions on the backtrack. */
static int unit_mask(const int32_t *a, Py_ssize_t m, const int32_t *b, Py_ssize_t n, double w,
                     unsigned char *mask, unsigned char *dir, double *c, int32_t *len)
{
    Py_ssize_t i, j, W = n + 1;
    if (m == 0) return 0;
    for (j = 0; j <= n; j++) { c[j] = 0.0; len[j] = 0; }
    for (i = 1; i <= m; i++) {   /* two rows of scores and run lengths; every row of steps */
        double *cp = c + ((i - 1) & 1) * W, *cc = c + (i & 1) * W;
        int32_t *lp = len + ((i - 1) & 1) * W, *lc = len + (i & 1) * W;
        unsigned char *d = dir + i * W;
        int32_t x = a[i - 1];
        cc[0] = 0.0; lc[0] = 0;
        for (j = 1; j <= n; j++) {
            if (x == b[j - 1]) {
                if (w > 0) {
                    int32_t k = lp[j - 1];
                    double up = pow((double)(k + 1), w), dn = pow((double)k, w);
                    double t = cp[j - 1] + up;
                    cc[j] = t - dn;
                    lc[j] = k + 1;
                } else {
                    cc[j] = cp[j - 1] + 1.0;
                    lc[j] = 0;
                }
                d[j] = 1;
            } else if (cp[j] >= cc[j - 1]) {
                cc[j] = cp[j]; lc[j] = 0; d[j] = 2;
            } else {
                cc[j] = cc[j - 1]; lc[j] = 0; d[j] = 3;
            }
        }
    }
    i = m; j = n;
    while (i != 0 && j != 0) {
        unsigned char s = dir[i * W + j];
        if (s == 1) { i--; j--; mask[i] = 1; }
        else if (s == 2) i--;
        else j--;
    }
    return 0;
}

/* Every model unit against every peer unit: the units' masks end to end in mask (zeroed here).
 * -1: out of memory. */
static int all_masks(const int32_t *mid, const int64_t *moff, Py_ssize_t mu, const int32_t *pid,
                     const int64_t *poff, Py_ssize_t pu, double w, unsigned char *mask, Py_ssize_t total)
{
    Py_ssize_t u, v, maxm = 0, maxn = 0;
    for (u = 0; u < mu; u++) if (moff[u + 1] - moff[u] > maxm) maxm = moff[u + 1] - moff[u];
    for (v = 0; v < pu; v++) if (poff[v + 1] - poff[v] > maxn) maxn = poff[v + 1] - poff[v];
    size_t cells = (size_t)(maxm + 1) * (size_t)(maxn + 1), row = 2 * (size_t)(maxn + 1);
    unsigned char *dir = malloc(cells ? cells : 1);
    double *c = malloc(sizeof(double) * row);
    int32_t *len = malloc(sizeof(int32_t) * row);
    int rc = -1;
    if (dir && c && len) {
        memset(mask, 0, total);
        for (u = 0; u < mu; u++)
            for (v = 0; v < pu; v++)
                unit_mask(mid + moff[u], moff[u + 1] - moff[u], pid + poff[v], poff[v + 1] - poff[v], w,
                          mask + moff[u], dir, c, len);
        rc = 0;
    }
    free(dir); free(c); free(len);
    return rc;
}

/* masks(model ids int32, model offsets int64 [u+1], peer ids, peer offsets, weight) -> bytearray
 * of the model's positions (weight <= 0: plain LCS). */
static PyObject *r155_masks(PyObject *self, PyObject *args)
{
    Py_buffer ma, mo, pa, po;
    double w;
    int rc;
    PyObject *out = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*d", &ma, &mo, &pa, &po, &w)) return NULL;
    Py_ssize_t total = ma.len / 4;
    out = PyByteArray_FromStringAndSize(NULL, total);
    if (out) {
        unsigned char *mask = (unsigned char *)PyByteArray_AS_STRING(out);
        Py_BEGIN_ALLOW_THREADS
        rc = all_masks(ma.buf, mo.buf, mo.len / 8 - 1, pa.buf, po.buf, po.len / 8 - 1, w, mask, total);
        Py_END_ALLOW_THREADS
        if (rc < 0) { Py_CLEAR(out); PyErr_NoMemory(); }
    }
    PyBuffer_Release(&ma); PyBuffer_Release(&mo); PyBuffer_Release(&pa); PyBuffer_Release(&po);
    return out;
}

static Py_ssize_t max_id(const int32_t *a, Py_ssize_t n, Py_ssize_t top)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++) if (a[i] > top) top = a[i];
    return top;
}

/* The hits of the masks: lcs / wlcs's loop over the model units, clipping by the unigram counts
 * left (mc: the model text's, pc: the peer text's); weighted: a run of clipped hits adds
 * run**w where the mask's run ends. */
static void mask_hits(const int32_t *mid, const int64_t *moff, Py_ssize_t mu, const unsigned char *mask,
                      int32_t *mc, int32_t *pc, double w, long long *hit, double *whit, double *wbase)
{
    Py_ssize_t u, j;
    for (u = 0; u < mu; u++) {
        Py_ssize_t m = moff[u + 1] - moff[u];
        const int32_t *t = mid + moff[u];
        const unsigned char *k = mask + moff[u];
        long long run = 0;
        if (w > 0) *wbase += pow((double)m, w);
        for (j = 0; j < m; j++) {
            if (k[j] != 1) continue;
            if (mc[t[j]] > 0 && pc[t[j]] > 0) {
                if (w <= 0) (*hit)++;
                else {
                    run++;
                    if ((j + 1 < m && k[j + 1] == 0) || j + 1 == m) { *whit += pow((double)run, w); run = 0; }
                }
                mc[t[j]]--; pc[t[j]]--;
            }
        }
    }
}

/* lcs_hits(model ids, model offsets, peer ids, peer offsets, model text ids, peer text ids, w,
 * scratch) -> (hits, base): ROUGE-L (w <= 0: ints, base the model's unit lengths) or ROUGE-W
 * (floats: the weighted runs, the sum of the units' m**w) of one model against the peer, as
 * the script's lcs / wlcs (ids >= 0).  scratch: the caller's writable buffer of 2 int32 per
 * token id (every id + 1 of the arrays), all zero; the clipping counts live there during the
 * call and are zero again after it (the kernel keeps no state). */
static PyObject *r155_lcs_hits(PyObject *self, PyObject *args)
{
    Py_buffer ma, mo, pa, po, mt, pt;
    double w, whit = 0.0, wbase = 0.0;
    long long hit = 0;
    PyObject *out = NULL;
    unsigned char *mask = NULL;
    Py_buffer sc;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*dw*", &ma, &mo, &pa, &po, &mt, &pt, &w, &sc)) return NULL;
    const int32_t *mid = ma.buf, *mtx = mt.buf, *ptx = pt.buf;
    const int64_t *moff = mo.buf;
    Py_ssize_t mu = mo.len / 8 - 1, total = ma.len / 4, nm = mt.len / 4, np_ = pt.len / 4, i;
    Py_ssize_t top = max_id(ptx, np_, max_id(mtx, nm, max_id(mid, total, -1)));
    Py_ssize_t size = sc.len / 8;
    if (top >= size) {
        PyErr_Format(PyExc_ValueError, "lcs_hits: scratch holds %zd ids, token id %zd", size, top);
        goto done;
    }
    mask = malloc(total ? total : 1);
    if (!mask || all_masks(mid, moff, mu, pa.buf, po.buf, po.len / 8 - 1, w, mask, total) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    int32_t *mc = (int32_t *)sc.buf, *pc = (int32_t *)sc.buf + size;
    for (i = 0; i < nm; i++) mc[mtx[i]]++;
    for (i = 0; i < np_; i++) pc[ptx[i]]++;
    mask_hits(mid, moff, mu, mask, mc, pc, w, &hit, &whit, &wbase);
    for (i = 0; i < nm; i++) mc[mtx[i]] = 0;
    for (i = 0; i < np_; i++) pc[ptx[i]] = 0;
    for (i = 0; i < total; i++) { mc[mid[i]] = 0; pc[mid[i]] = 0; }
    if (w > 0) out = Py_BuildValue("(dd)", whit, wbase);
    else out = Py_BuildValue("(Ln)", hit, moff[mu] - moff[0]);
done:
    free(mask);
    PyBuffer_Release(&ma); PyBuffer_Release(&mo); PyBuffer_Release(&pa); PyBuffer_Release(&po);
    PyBuffer_Release(&mt); PyBuffer_Release(&pt); PyBuffer_Release(&sc);
    return out;
}

/* boot_sums(rows float64 [n x 3], resamples) -> bytes float64 [resamples x 3]: for resample i,
 * Perl's srand(i) (drand48: x = i << 16 | 0x330E) then n draws of int(rand(n)), the drawn rows
 * added in draw order (bootstrapResampling's sums). */
static PyObject *r155_boot_sums(PyObject *self, PyObject *args)
{
    Py_buffer bv;
    Py_ssize_t R, r, k;
    if (!PyArg_ParseTuple(args, "y*n", &bv, &R)) return NULL;
    const double *v = bv.buf;
    Py_ssize_t n = bv.len / 24;
    if (R < 0) R = 0;
    PyObject *out = PyBytes_FromStringAndSize(NULL, 24 * R);
    if (!out) { PyBuffer_Release(&bv); return NULL; }
    double *o = (double *)PyBytes_AS_STRING(out);
    const uint64_t mask48 = (((uint64_t)1) << 48) - 1;
    Py_BEGIN_ALLOW_THREADS
    for (r = 0; r < R; r++) {
        uint64_t x = (((uint64_t)r << 16) + 0x330E) & mask48;
        double a0 = 0.0, a1 = 0.0, a2 = 0.0;
        for (k = 0; k < n; k++) {
            x = (x * 0x5DEECE66DULL + 0xB) & mask48;
            Py_ssize_t j = (Py_ssize_t)((double)n * ((double)x * 0x1p-48));
            if (k == 0) { a0 = v[3 * j]; a1 = v[3 * j + 1]; a2 = v[3 * j + 2]; }
            else { a0 += v[3 * j]; a1 += v[3 * j + 1]; a2 += v[3 * j + 2]; }
        }
        o[3 * r] = a0; o[3 * r + 1] = a1; o[3 * r + 2] = a2;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&bv);
    return out;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* clip(sorted-or-not keys A int64, keys B int64) -> sum over keys of min(count in A, count in B) */
static PyObject *r155_clip(PyObject *self, PyObject *args)
{
    Py_buffer ba, bb;
    if (!PyArg_ParseTuple(args, "y*y*", &ba, &bb)) return NULL;
    Py_ssize_t na = ba.len / 8, nb = bb.len / 8, i = 0, j = 0;
    long long hits = 0;
    int64_t *a = malloc(8 * (na ? na : 1)), *b = malloc(8 * (nb ? nb : 1));
    if (!a || !b) { free(a); free(b); PyBuffer_Release(&ba); PyBuffer_Release(&bb); return PyErr_NoMemory(); }
    memcpy(a, ba.buf, 8 * na); memcpy(b, bb.buf, 8 * nb);
    PyBuffer_Release(&ba); PyBuffer_Release(&bb);
    qsort(a, na, 8, cmp_i64); qsort(b, nb, 8, cmp_i64);
    while (i < na && j < nb) {
        if (a[i] < b[j]) i++;
        else if (a[i] > b[j]) j++;
        else { hits++; i++; j++; }
    }
    free(a); free(b);
    return PyLong_FromLongLong(hits);
}

/* Sorts n int64 keys (all >= 0) in place: LSD radix sort on the bytes that vary (tmp: n
 * scratch keys); small arrays by insertion. */
static void sort_keys(int64_t *a, int64_t *tmp, Py_ssize_t n)
{
    Py_ssize_t i, j, cnt[256];
    uint64_t all_or = 0, all_and = ~(uint64_t)0;
    int shift;
    if (n < 32) {
        for (i = 1; i < n; i++) {
            int64_t x = a[i];
            for (j = i; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    for (i = 0; i < n; i++) { all_or |= (uint64_t)a[i]; all_and &= (uint64_t)a[i]; }
    for (shift = 0; shift < 64; shift += 8) {
        if ((((all_or ^ all_and) >> shift) & 0xFF) == 0) continue;   /* the same byte in every key */
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < n; i++) cnt[((uint64_t)a[i] >> shift) & 0xFF]++;
        Py_ssize_t at = 0;
        for (j = 0; j < 256; j++) { Py_ssize_t c = cnt[j]; cnt[j] = at; at += c; }
        for (i = 0; i < n; i++) tmp[cnt[((uint64_t)a[i] >> shift) & 0xFF]++] = a[i];
        memcpy(a, tmp, (size_t)n * 8);
    }
}

/* sort_keys on a fresh scratch buffer; -1: out of memory (a is then left unsorted). */
static int sort_keys_alloc(int64_t *a, Py_ssize_t n)
{
    int64_t *tmp = n >= 32 ? malloc((size_t)n * 8) : NULL;
    if (n >= 32 && !tmp) return -1;
    sort_keys(a, tmp, n);
    free(tmp);
    return 0;
}

/* skip_keys(ids int32, skip (<0: any), unigrams) -> bytes of int64 keys (createSkipBigram's units):
 * a pair (x, y) is (x+1) << 32 | (y+1), a unigram (x+1) << 32. */
static PyObject *r155_skip_keys(PyObject *self, PyObject *args)
{
    Py_buffer bi;
    long long skip;
    int uni;
    if (!PyArg_ParseTuple(args, "y*Lp", &bi, &skip, &uni)) return NULL;
    const int32_t *t = (const int32_t *)bi.buf;
    Py_ssize_t n = bi.len / 4, i, j, count = 0, last = n - 1;
    for (i = 0; i < last; i++) {
        Py_ssize_t stop = (skip < 0 || i + skip + 1 > last) ? last : i + (Py_ssize_t)skip + 1;
        count += (uni ? 1 : 0) + (stop - i);
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, 8 * count);
    if (!out) { PyBuffer_Release(&bi); return NULL; }
    int64_t *k = (int64_t *)PyBytes_AS_STRING(out);
    for (i = 0; i < last; i++) {
        Py_ssize_t stop = (skip < 0 || i + skip + 1 > last) ? last : i + (Py_ssize_t)skip + 1;
        int64_t hi = ((int64_t)t[i] + 1) << 32;
        if (uni) *k++ = hi;
        for (j = i + 1; j <= stop; j++) *k++ = hi | ((int64_t)t[j] + 1);
    }
    PyBuffer_Release(&bi);
    if (sort_keys_alloc((int64_t *)PyBytes_AS_STRING(out), count) < 0) { Py_DECREF(out); return PyErr_NoMemory(); }
    return out;   /* sorted: clip_sorted merges them */
}

/* ngram_keys(ids int32, n, bits) -> bytes of the sorted int64 keys of the n-grams: the ids + 1
 * packed bits apart (the caller checks that they fit). */
static PyObject *r155_ngram_keys(PyObject *self, PyObject *args)
{
    Py_buffer bi;
    int n, bits;
    if (!PyArg_ParseTuple(args, "y*ii", &bi, &n, &bits)) return NULL;
    const int32_t *t = (const int32_t *)bi.buf;
    Py_ssize_t len = bi.len / 4, count = len - n + 1, i;
    int k;
    if (count < 0) count = 0;
    PyObject *out = PyBytes_FromStringAndSize(NULL, 8 * count);
    if (!out) { PyBuffer_Release(&bi); return NULL; }
    int64_t *key = (int64_t *)PyBytes_AS_STRING(out);
    for (i = 0; i < count; i++) {
        int64_t v = 0;
        for (k = 0; k < n; k++) v = (v << bits) | ((int64_t)t[i + k] + 1);
        key[i] = v;
    }
    PyBuffer_Release(&bi);
    if (sort_keys_alloc(key, count) < 0) { Py_DECREF(out); return PyErr_NoMemory(); }
    return out;
}

/* clip_sorted(A, B): clip() of two already sorted key arrays (no copy, no sort). */
static PyObject *r155_clip_sorted(PyObject *self, PyObject *args)
{
    Py_buffer ba, bb;
    if (!PyArg_ParseTuple(args, "y*y*", &ba, &bb)) return NULL;
    const int64_t *a = (const int64_t *)ba.buf, *b = (const int64_t *)bb.buf;
    Py_ssize_t na = ba.len / 8, nb = bb.len / 8, i = 0, j = 0;
    long long hits = 0;
    while (i < na && j < nb) {
        if (a[i] < b[j]) i++;
        else if (a[i] > b[j]) j++;
        else { hits++; i++; j++; }
    }
    PyBuffer_Release(&ba); PyBuffer_Release(&bb);
    return PyLong_FromLongLong(hits);
}

static PyMethodDef methods[] = {
    {"ngram_keys", r155_ngram_keys, METH_VARARGS, "sorted int64 keys of the n-grams of int32 token ids"},
    {"clip_sorted", r155_clip_sorted, METH_VARARGS, "clipped overlap of two sorted int64 key arrays"},
    {"masks", r155_masks, METH_VARARGS, "LCS (weight <= 0) or weighted-LCS hit masks of model units"},
    {"lcs_hits", r155_lcs_hits, METH_VARARGS, "ROUGE-L / ROUGE-W (hits, base) of one model against a peer"},
    {"boot_sums", r155_boot_sums, METH_VARARGS, "the script's bootstrap resample sums (Perl's drand48)"},
    {"clip", r155_clip, METH_VARARGS, "clipped overlap of two int64 key arrays"},
    {"skip_keys", r155_skip_keys, METH_VARARGS, "skip-bigram (and unigram) keys of int32 token ids"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_r155", "ROUGE-1.5.5 kernels", -1, methods};

PyMODINIT_FUNC PyInit__r155(void) { return PyModule_Create(&mod); }
