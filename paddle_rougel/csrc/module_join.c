/* paddle_rougel._lcs, the similarity-join bindings (paddle_rougel/candidates.py): lcs_index_pairs
 * (the exact LCS of candidate pairs read by index, on lcs_pairs' kernel), join_candidates (the
 * prefix-index probe with the positional bound: join_kernel.c) and word_ids (the words of a
 * corpus as ids, one pass).  The common part: module.c. */
#include "module_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "join_kernel.h"
#include "pairs_kernel.h"
#include "pairs_simd.h"
#include "partition.h"

MOD_DOC(py_lcs_index_pairs_doc,
"lcs_index_pairs(left, right, xs, ys, threads=1) -> lcs or None\n\n"
"The LCS of left[xs[i]] and right[ys[i]] (xs, ys: native int64 buffers of equal length),\n"
"every character a token, as lcs_pairs computes it: a native int64 bytearray.  None\n"
"(nothing computed) unless left and right are lists or tuples and every text the pairs\n"
"read is an exact str; an index out of range is a ValueError.  The work is O(pairs), not\n"
"O(len(left) + len(right)).");

PyObject *py_lcs_index_pairs(PyObject *self, PyObject *args) {
    PyObject *left, *right, *lcs = NULL, *result = NULL, **objs = NULL;
    Py_buffer xb = {0}, yb = {0};
    int threads = 1;
    Py_ssize_t owned = 0;
    WordText *texts = NULL;
    double *cost = NULL;
    if (!PyArg_ParseTuple(args, "OOy*y*|i", &left, &right, &xb, &yb, &threads)) return NULL;
    if (!mod_list_or_tuple(left) || !mod_list_or_tuple(right)) { result = Py_None; Py_INCREF(result); goto done; }
    if (xb.len != yb.len || xb.len % (Py_ssize_t)sizeof(int64_t)) {
        PyErr_SetString(PyExc_ValueError, "lcs_index_pairs: xs and ys must be int64 buffers of one length");
        goto done;
    }
    const Py_ssize_t N = xb.len / (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t NL = PySequence_Fast_GET_SIZE(left), NR = PySequence_Fast_GET_SIZE(right);
    const int64_t *xs = (const int64_t *)xb.buf, *ys = (const int64_t *)yb.buf;
    PyObject **li = PySequence_Fast_ITEMS(left), **ri = PySequence_Fast_ITEMS(right);
    for (Py_ssize_t i = 0; i < N; i++)
        if (xs[i] < 0 || xs[i] >= NL || ys[i] < 0 || ys[i] >= NR) {
            PyErr_Format(PyExc_ValueError, "lcs_index_pairs: pair %zd indexes out of range", i);
            goto done;
        }
    for (Py_ssize_t k = 0; k < 2 * N; k++) {  /* every text read must be an exact str */
        PyObject *o = k % 2 ? ri[ys[k / 2]] : li[xs[k / 2]];
        if (!PyUnicode_CheckExact(o)) { result = Py_None; Py_INCREF(result); goto done; }
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(o) < 0) goto done;
#endif
    }
    texts = (WordText *)malloc(((size_t)2 * N + 1) * sizeof(WordText));
    cost = (double *)malloc(((size_t)N + 1) * sizeof(double));
    int64_t *out;
    if (!texts || !cost) { PyErr_NoMemory(); goto done; }
    if (!(lcs = mod_int64_array(N, &out))) goto done;
    PairsBatch P = {texts, out, pairs_simd_level()};
    /* the lists may change once the GIL is released: a reference to every text read is held */
    if (!(objs = (PyObject **)malloc(((size_t)2 * N + 1) * sizeof(PyObject *)))) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < N; i++) {
        objs[owned++] = li[xs[i]];
        objs[owned++] = ri[ys[i]];
        Py_INCREF(li[xs[i]]);
        Py_INCREF(ri[ys[i]]);
        mod_text_of(li[xs[i]], &texts[2 * i]);
        mod_text_of(ri[ys[i]], &texts[2 * i + 1]);
        cost[i] = pairs_cost(&P, (size_t)i);
    }
    if (mod_run_kernel(cost, N, threads, pairs_range, &P) < 0) goto done;
    result = lcs;
    Py_INCREF(result);
done:
    for (Py_ssize_t t = 0; t < owned; t++) Py_DECREF(objs[t]);
    free(objs); free(texts); free(cost);
    Py_XDECREF(lcs);
    PyBuffer_Release(&xb);
    PyBuffer_Release(&yb);
    return result;
}


MOD_DOC(py_join_candidates_doc,
"join_candidates(elems, ptr, plen, llen, indptr, recs, rpos, plens, rlen, relems, rptr, lo, hi, t,\n"
"                alpha, order, window, max_pairs, threads=1) -> (xs, ys, next)\n\n"
"int64 buffers as paddle_rougel.candidates builds them (join_kernel.h).  The candidate\n"
"pairs of the left texts lo.. (until max_pairs or hi), as native int64 bytearrays, each\n"
"left text's right ids ascending; next: the left text to probe next.  Candidates pass the\n"
"length filter, the prefix index, PPJoin's positional bound and the overlap bound.  Every\n"
"offset, element and id is checked when read (inconsistent buffers: ValueError).");

/* The buffers' sizes agree with each other (what is read through them is checked then). */
static int join_sizes_ok(Py_buffer *b, Py_ssize_t lo, Py_ssize_t hi) {
    for (int i = 0; i < 11; i++)
        if (b[i].len % (Py_ssize_t)sizeof(int64_t)) return 0;
    const Py_ssize_t nl = b[1].len / 8 - 1, E = b[4].len / 8 - 1, nk = b[5].len / 8, nr = b[8].len / 8;
    return nl >= 0 && E >= 0 && b[2].len / 8 == nl && b[3].len / 8 == nl && b[6].len / 8 == nk &&
           b[7].len / 8 == nk && b[10].len / 8 == nr + 1 && lo >= 0 && hi >= lo && hi <= nl;
}

PyObject *py_join_candidates(PyObject *self, PyObject *args) {
    Py_buffer b[11];
    memset(b, 0, sizeof(b));
    Py_ssize_t lo, hi, max_pairs;
    double t, alpha;
    int order, window, threads = 1;
    PyObject *xo = NULL, *yo = NULL, *result = NULL;
    int64_t *xs = NULL, *ys = NULL, n = 0, cap = 0, next;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*y*nnddiin|i", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
                          &b[6], &b[7], &b[8], &b[9], &b[10], &lo, &hi, &t, &alpha, &order, &window, &max_pairs,
                          &threads))
        goto done;
    if (!join_sizes_ok(b, lo, hi) || !(t >= 0) || !isfinite(t) || !isfinite(alpha) || alpha > 1 || window < 0 ||
        window > 2) {
        PyErr_SetString(PyExc_ValueError, "join_candidates: inconsistent index buffers or settings");
        goto done;
    }
    const int64_t *i64[11];
    for (int i = 0; i < 11; i++) i64[i] = (const int64_t *)b[i].buf;
    JoinIndex J = {i64[0], i64[1], i64[2], i64[3], i64[4], i64[5], i64[6], i64[7], i64[8], i64[9], i64[10],
                   (int64_t)(b[1].len / 8 - 1), (int64_t)(b[0].len / 8), (int64_t)(b[4].len / 8 - 1),
                   (int64_t)(b[5].len / 8), (int64_t)(b[8].len / 8), (int64_t)(b[9].len / 8),
                   t, alpha, order, window};
    Py_BEGIN_ALLOW_THREADS
    next = join_candidates(&J, lo, hi, max_pairs, threads, &xs, &ys, &n, &cap);
    Py_END_ALLOW_THREADS
    if (next == JOIN_BAD) {
        PyErr_SetString(PyExc_ValueError, "join_candidates: inconsistent index buffers or settings");
        goto done;
    }
    if (next < 0) { PyErr_NoMemory(); goto done; }
    if (!(xo = PyByteArray_FromStringAndSize((const char *)xs, (Py_ssize_t)(n * 8))) ||
        !(yo = PyByteArray_FromStringAndSize((const char *)ys, (Py_ssize_t)(n * 8)))) goto done;
    result = Py_BuildValue("(OOL)", xo, yo, (long long)next);
done:
    for (int i = 0; i < 11; i++)
        if (b[i].obj) PyBuffer_Release(&b[i]);
    free(xs); free(ys);
    Py_XDECREF(xo); Py_XDECREF(yo);
    return result;
}


MOD_DOC(py_word_ids_doc,
"word_ids(text, mode) -> (ids, lens, words)\n\n"
"The words of each line of text (lines end at '\\n'), in turn: mode 0 the runs of\n"
"non-whitespace (what str.split() gives), mode 1 the runs of [a-z0-9] (rouge-score's tokens\n"
"once the text is lowercased).  ids: each word's id, ids numbered in order of first\n"
"occurrence; lens: the words of each line (count('\\n') + 1 lines); both native int64\n"
"bytearrays; words: the distinct words as str, words[id].");

typedef struct {
    int64_t *v;
    size_t n, cap;
} I64s;

static int i64s_push(I64s *a, int64_t x) {
    if (a->n == a->cap) {
        const size_t cap = a->cap ? 2 * a->cap : 1024;
        int64_t *v = (int64_t *)realloc(a->v, cap * sizeof(int64_t));
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
    int mode;
    I64s ids, lens, wstart, wlen;  /* wstart / wlen: each distinct word's place in the text */
    uint64_t *whash;
    int64_t *table;                /* open addressing: word id + 1, 0 empty */
    size_t tcap;
} WordScan;

static inline int word_char(Py_UCS4 c, int mode) {
    return mode ? ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) : !Py_UNICODE_ISSPACE(c);
}

/* Double the table (and the per-word hashes' room) when it is half full. */
static int scan_grow(WordScan *S) {
    const size_t nw = S->wstart.n;
    if (S->tcap && 2 * (nw + 1) <= S->tcap) return 0;
    const size_t cap = S->tcap ? 2 * S->tcap : 1 << 12;
    int64_t *t = (int64_t *)calloc(cap, sizeof(int64_t));
    uint64_t *h = (uint64_t *)realloc(S->whash, cap * sizeof(uint64_t));
    if (!t || !h) { free(t); if (h) S->whash = h; return -1; }
    S->whash = h;
    for (size_t w = 0; w < nw; w++) {
        size_t k = (size_t)h[w] & (cap - 1);
        while (t[k]) k = (k + 1) & (cap - 1);
        t[k] = (int64_t)w + 1;
    }
    free(S->table);
    S->table = t;
    S->tcap = cap;
    return 0;
}

/* The id of the word at [start, start + len) with hash h (a new one when it is new). */
static int64_t scan_word(WordScan *S, Py_ssize_t start, Py_ssize_t len, uint64_t h) {
    if (scan_grow(S) < 0) return -1;
    const size_t mask = S->tcap - 1;
    const char *base = (const char *)S->data;
    size_t k = (size_t)h & mask;
    for (; S->table[k]; k = (k + 1) & mask) {
        const int64_t w = S->table[k] - 1;
        if (S->whash[w] == h && S->wlen.v[w] == len &&
            memcmp(base + (size_t)S->wstart.v[w] * S->kind, base + (size_t)start * S->kind, (size_t)len * S->kind) == 0)
            return w;
    }
    const int64_t w = (int64_t)S->wstart.n;
    if (i64s_push(&S->wstart, start) < 0 || i64s_push(&S->wlen, len) < 0) return -1;
    S->whash[w] = h;
    S->table[k] = w + 1;
    return w;
}

/* The whole text: 0, or -1 when out of memory. */
static int scan_text(WordScan *S) {
    int64_t in_line = 0;
    Py_ssize_t i = 0;
    while (i < S->n) {
        Py_UCS4 c = PyUnicode_READ(S->kind, S->data, i);
        if (c == '\n') {
            if (i64s_push(&S->lens, in_line) < 0) return -1;
            in_line = 0;
            i++;
            continue;
        }
        if (!word_char(c, S->mode)) { i++; continue; }
        const Py_ssize_t start = i;
        uint64_t h = 0x9E3779B97F4A7C15ull;
        while (i < S->n && (c = PyUnicode_READ(S->kind, S->data, i)) != '\n' && word_char(c, S->mode)) {
            h = (h ^ (uint64_t)c) * 0x100000001B3ull;
            h ^= h >> 29;
            i++;
        }
        const int64_t w = scan_word(S, start, i - start, h);
        if (w < 0 || i64s_push(&S->ids, w) < 0) return -1;
        in_line++;
    }
    return i64s_push(&S->lens, in_line);
}

PyObject *py_word_ids(PyObject *self, PyObject *args) {
    PyObject *text, *ids = NULL, *lens = NULL, *words = NULL, *result = NULL;
    int mode, rc;
    if (!PyArg_ParseTuple(args, "Ui", &text, &mode)) return NULL;
    if (mode != 0 && mode != 1) {
        PyErr_SetString(PyExc_ValueError, "word_ids: mode must be 0 or 1");
        return NULL;
    }
    if (PyUnicode_READY(text) < 0) return NULL;  /* a legacy str: its storage */
    WordScan S;
    memset(&S, 0, sizeof(S));
    S.kind = PyUnicode_KIND(text);
    S.data = PyUnicode_DATA(text);
    S.n = PyUnicode_GET_LENGTH(text);
    S.mode = mode;
    Py_BEGIN_ALLOW_THREADS  /* a str does not change; the words' str are made after */
    rc = scan_text(&S);
    Py_END_ALLOW_THREADS
    if (rc < 0) { PyErr_NoMemory(); goto done; }
    if (!(ids = PyByteArray_FromStringAndSize((const char *)S.ids.v, (Py_ssize_t)(S.ids.n * 8))) ||
        !(lens = PyByteArray_FromStringAndSize((const char *)S.lens.v, (Py_ssize_t)(S.lens.n * 8))) ||
        !(words = PyList_New((Py_ssize_t)S.wstart.n)))
        goto done;
    for (size_t w = 0; w < S.wstart.n; w++) {
        PyObject *s = PyUnicode_Substring(text, S.wstart.v[w], S.wstart.v[w] + S.wlen.v[w]);
        if (!s) goto done;
        PyList_SET_ITEM(words, (Py_ssize_t)w, s);
    }
    result = PyTuple_Pack(3, ids, lens, words);
done:
    free(S.ids.v); free(S.lens.v); free(S.wstart.v); free(S.wlen.v); free(S.whash); free(S.table);
    Py_XDECREF(ids); Py_XDECREF(lens); Py_XDECREF(words);
    return result;
}
