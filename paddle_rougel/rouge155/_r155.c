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
    for (i = 1; i <= m; i++) {
        double *cp = c + (i - 1) * W, *cc = c + i * W;
        int32_t *lp = len + (i - 1) * W, *lc = len + i * W;
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

/* masks(model ids int32, model offsets int64 [u+1], peer ids, peer offsets, weight) -> bytearray
 * of the model's positions (weight <= 0: plain LCS). */
static PyObject *r155_masks(PyObject *self, PyObject *args)
{
    Py_buffer ma, mo, pa, po;
    double w;
    PyObject *out = NULL;
    if (!PyArg_ParseTuple(args, "y*y*y*y*d", &ma, &mo, &pa, &po, &w)) return NULL;
    const int32_t *mid = (const int32_t *)ma.buf, *pid = (const int32_t *)pa.buf;
    const int64_t *moff = (const int64_t *)mo.buf, *poff = (const int64_t *)po.buf;
    Py_ssize_t mu = mo.len / 8 - 1, pu = po.len / 8 - 1, total = ma.len / 4, u, v, maxm = 0, maxn = 0;
    for (u = 0; u < mu; u++) if (moff[u + 1] - moff[u] > maxm) maxm = moff[u + 1] - moff[u];
    for (v = 0; v < pu; v++) if (poff[v + 1] - poff[v] > maxn) maxn = poff[v + 1] - poff[v];
    size_t cells = (size_t)(maxm + 1) * (size_t)(maxn + 1);
    unsigned char *dir = malloc(cells ? cells : 1);
    double *c = malloc(sizeof(double) * (cells ? cells : 1));
    int32_t *len = malloc(sizeof(int32_t) * (cells ? cells : 1));
    out = PyByteArray_FromStringAndSize(NULL, total);
    if (!dir || !c || !len || !out) { Py_XDECREF(out); out = PyErr_NoMemory(); goto done; }
    unsigned char *mask = (unsigned char *)PyByteArray_AS_STRING(out);
    memset(mask, 0, total);
    Py_BEGIN_ALLOW_THREADS
    for (u = 0; u < mu; u++)
        for (v = 0; v < pu; v++)
            unit_mask(mid + moff[u], moff[u + 1] - moff[u], pid + poff[v], poff[v + 1] - poff[v], w,
                      mask + moff[u], dir, c, len);
    Py_END_ALLOW_THREADS
done:
    free(dir); free(c); free(len);
    PyBuffer_Release(&ma); PyBuffer_Release(&mo); PyBuffer_Release(&pa); PyBuffer_Release(&po);
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
    qsort(PyBytes_AS_STRING(out), count, 8, cmp_i64);   /* sorted: clip_sorted merges them */
    return out;
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
    qsort(key, count, 8, cmp_i64);
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
    {"clip", r155_clip, METH_VARARGS, "clipped overlap of two int64 key arrays"},
    {"skip_keys", r155_skip_keys, METH_VARARGS, "skip-bigram (and unigram) keys of int32 token ids"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_r155", "ROUGE-1.5.5 kernels", -1, methods};

PyMODINIT_FUNC PyInit__r155(void) { return PyModule_Create(&mod); }
