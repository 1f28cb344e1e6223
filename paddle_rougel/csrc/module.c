/*
 * Exact bit-parallel LCS for batches of (candidate, [references]) instances.
 *
 * Algorithm: Hyyro's bit-vector LCS (Allison-Dix/Crochemore et al. family).
 * The candidate is the bit side: V starts all ones and for every reference
 * token t with match mask M[t]:  U = V & M;  V = (V + U) | (V & ~M).
 * LCS = number of zero bits of V among the candidate's n positions.
 *
 * Memory per instance is O(n + sum(len(ref))): the candidate is processed one
 * 64-position word at a time ("word-major"), with one carry bit per reference
 * position kept between words.  Masks exist only for the 64 positions of the
 * current word, so a 100k x 100k pair needs ~1 MB, never an n x m table.
 *
 * Tokens: when every item of the batch is a str, tokens are code points read
 * straight from the string buffers.  Otherwise every token goes through one
 * Python dict (token -> id), so equality is exactly Python's ==, as in the
 * reference O(n*m) implementations.  Ids are then remapped per instance to a
 * dense 1..k range over the candidate's alphabet (0 = "not in candidate").
 *
 * The GIL is held only while tokens are copied into flat arrays; the kernel
 * runs without it, split over `threads` pthreads by estimated cost.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t tok_t;

/* ---------------------------------------------------------------- tokens */

typedef struct {
    tok_t *data;
    Py_ssize_t len, cap;
} TokBuf;

static int tb_reserve(TokBuf *b, Py_ssize_t extra) {
    if (b->len + extra <= b->cap) return 0;
    Py_ssize_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + extra) cap *= 2;
    tok_t *d = (tok_t *)realloc(b->data, (size_t)cap * sizeof(tok_t));
    if (!d) { PyErr_NoMemory(); return -1; }
    b->data = d; b->cap = cap;
    return 0;
}

/* Intern one token object; returns id or (tok_t)-1 with an exception set. */
static tok_t intern_obj(PyObject *vocab, PyObject *tok) {
    PyObject *v = PyDict_GetItemWithError(vocab, tok);
    if (v) return (tok_t)PyLong_AsUnsignedLong(v);
    if (PyErr_Occurred()) return (tok_t)-1;
    Py_ssize_t n = PyDict_Size(vocab);
    if (n >= (Py_ssize_t)UINT32_MAX - 1) {
        PyErr_SetString(PyExc_OverflowError, "too many distinct tokens");
        return (tok_t)-1;
    }
    PyObject *id = PyLong_FromSsize_t(n);
    if (!id) return (tok_t)-1;
    int rc = PyDict_SetItem(vocab, tok, id);
    Py_DECREF(id);
    if (rc < 0) return (tok_t)-1;
    return (tok_t)n;
}

/* Append a 1-D C-contiguous integer buffer.  Returns 0 on success, -1 on
 * error, 1 when seq is not such a buffer (caller falls back to iteration).
 * Values become Python ints before interning, so they equal the same ints
 * given in a list. */
static int append_int_buffer(TokBuf *buf, PyObject *seq, PyObject *vocab) {
    Py_buffer view;
    if (PyObject_GetBuffer(seq, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        return 1;
    }
    const char *f = view.format ? view.format : "B";
    while (*f == '@' || *f == '=' || *f == '<' || *f == '>' || *f == '!') f++;
    int is_signed;
    switch (*f) {
        case 'b': case 'h': case 'i': case 'l': case 'q': case 'n': is_signed = 1; break;
        case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N': is_signed = 0; break;
        default: PyBuffer_Release(&view); return 1;
    }
    if (f[1] != '\0' || view.ndim != 1 ||
        !(view.itemsize == 1 || view.itemsize == 2 || view.itemsize == 4 || view.itemsize == 8)) {
        PyBuffer_Release(&view);
        return 1;
    }
    const Py_ssize_t n = view.shape ? view.shape[0] : view.len / view.itemsize;
    if (tb_reserve(buf, n) < 0) { PyBuffer_Release(&view); return -1; }
    tok_t *out = buf->data + buf->len;
    const char *p = (const char *)view.buf;
    for (Py_ssize_t i = 0; i < n; i++, p += view.itemsize) {
        PyObject *v;
        if (is_signed) {
            long long x;
            switch (view.itemsize) {
                case 1: x = *(const int8_t *)p; break;
                case 2: { int16_t t; memcpy(&t, p, 2); x = t; break; }
                case 4: { int32_t t; memcpy(&t, p, 4); x = t; break; }
                default: { int64_t t; memcpy(&t, p, 8); x = t; break; }
            }
            v = PyLong_FromLongLong(x);
        } else {
            unsigned long long x;
            switch (view.itemsize) {
                case 1: x = *(const uint8_t *)p; break;
                case 2: { uint16_t t; memcpy(&t, p, 2); x = t; break; }
                case 4: { uint32_t t; memcpy(&t, p, 4); x = t; break; }
                default: { uint64_t t; memcpy(&t, p, 8); x = t; break; }
            }
            v = PyLong_FromUnsignedLongLong(x);
        }
        if (!v) { PyBuffer_Release(&view); return -1; }
        tok_t id = intern_obj(vocab, v);
        Py_DECREF(v);
        if (id == (tok_t)-1 && PyErr_Occurred()) { PyBuffer_Release(&view); return -1; }
        out[i] = id;
    }
    buf->len += n;
    PyBuffer_Release(&view);
    return 0;
}

/* Append the tokens of `seq` to buf.  what/idx name the item in errors. */
static int append_seq(TokBuf *buf, PyObject *seq, PyObject *vocab,
                      const char *what, Py_ssize_t inst, Py_ssize_t ref) {
#define ITEM_ERR(exc, fmt, ...)                                                   \
    do {                                                                          \
        if (ref >= 0)                                                             \
            PyErr_Format(exc, "instance %zd, reference %zd: " fmt, inst, ref, __VA_ARGS__); \
        else                                                                      \
            PyErr_Format(exc, "instance %zd, %s: " fmt, inst, what, __VA_ARGS__); \
    } while (0)
    if (seq == Py_None) {
        ITEM_ERR(PyExc_TypeError, "got %s, expected a str or a sequence of tokens", "None");
        return -1;
    }
    if (PyUnicode_Check(seq)) {
        if (PyUnicode_READY(seq) < 0) return -1;
        Py_ssize_t n = PyUnicode_GET_LENGTH(seq);
        if (tb_reserve(buf, n) < 0) return -1;
        int kind = PyUnicode_KIND(seq);
        const void *data = PyUnicode_DATA(seq);
        tok_t *out = buf->data + buf->len;
        if (!vocab) {
            if (kind == PyUnicode_1BYTE_KIND) {
                const Py_UCS1 *s = (const Py_UCS1 *)data;
                for (Py_ssize_t i = 0; i < n; i++) out[i] = s[i];
            } else if (kind == PyUnicode_2BYTE_KIND) {
                const Py_UCS2 *s = (const Py_UCS2 *)data;
                for (Py_ssize_t i = 0; i < n; i++) out[i] = s[i];
            } else {
                const Py_UCS4 *s = (const Py_UCS4 *)data;
                for (Py_ssize_t i = 0; i < n; i++) out[i] = s[i];
            }
        } else {
            /* mixed batch: a str is its sequence of 1-char strings */
            for (Py_ssize_t i = 0; i < n; i++) {
                PyObject *ch = PyUnicode_FromOrdinal(PyUnicode_READ(kind, data, i));
                if (!ch) return -1;
                tok_t id = intern_obj(vocab, ch);
                Py_DECREF(ch);
                if (id == (tok_t)-1 && PyErr_Occurred()) return -1;
                out[i] = id;
            }
        }
        buf->len += n;
        return 0;
    }
    if (!vocab) {
        PyErr_SetString(PyExc_SystemError, "non-str item in code point mode");
        return -1;
    }
    if (PyObject_CheckBuffer(seq) && !PyBytes_Check(seq)) {
        /* 1-D integer arrays (numpy, array.array): read values, intern as ints */
        int rc = append_int_buffer(buf, seq, vocab);
        if (rc <= 0) return rc;  /* 0 = done, -1 = error; 1 = not an int buffer */
    }
    PyObject *fast = PySequence_Fast(seq, "");
    if (!fast) {
        PyErr_Clear();
        ITEM_ERR(PyExc_TypeError, "got %.100s, expected a str or a sequence of tokens",
                 Py_TYPE(seq)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (tb_reserve(buf, n) < 0) { Py_DECREF(fast); return -1; }
    PyObject **items = PySequence_Fast_ITEMS(fast);
    tok_t *out = buf->data + buf->len;
    for (Py_ssize_t i = 0; i < n; i++) {
        tok_t id = intern_obj(vocab, items[i]);
        if (id == (tok_t)-1 && PyErr_Occurred()) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                ITEM_ERR(PyExc_TypeError, "token %zd is unhashable (%.100s)", i,
                         Py_TYPE(items[i])->tp_name);
            }
            Py_DECREF(fast);
            return -1;
        }
        out[i] = id;
    }
    buf->len += n;
    Py_DECREF(fast);
    return 0;
#undef ITEM_ERR
}

/* ---------------------------------------------------------------- kernel */

typedef struct {
    /* inputs (shared, read-only) */
    const tok_t *toks;
    const int64_t *cand_off;   /* [N] token offset of candidate i */
    const int64_t *cand_len;   /* [N] */
    const int64_t *ref_start;  /* [N+1] index of first ref of instance i */
    const int64_t *ref_off;    /* [M] token offset of ref j */
    const int64_t *ref_len;    /* [M] */
    int64_t *lcs;              /* [M] output */
    Py_ssize_t begin, end;     /* instance range of this worker */
    int failed;
} Job;

typedef struct {
    /* open-addressing map token -> local id, generation-stamped (no clears) */
    tok_t *keys;
    uint32_t *vals;
    uint32_t *stamp;
    uint32_t gen;
    size_t cap;                /* power of two */
    uint32_t *a_ids;           /* candidate local ids */
    uint32_t *b_ids;           /* all refs' local ids, concatenated */
    uint64_t *mw;              /* per-word masks indexed by local id */
    uint8_t *carry;            /* per reference position */
    size_t a_cap, b_cap, mw_cap, carry_cap;
} Work;

static int grow(void **p, size_t *cap, size_t need, size_t elt) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * elt);
    if (!q) return -1;
    *p = q; *cap = c;
    return 0;
}

static int map_init(Work *w, size_t need) {
    size_t cap = 1024;
    while (cap < 2 * need) cap *= 2;
    if (cap <= w->cap) return 0;
    free(w->keys); free(w->vals); free(w->stamp);
    w->keys = (tok_t *)malloc(cap * sizeof(tok_t));
    w->vals = (uint32_t *)malloc(cap * sizeof(uint32_t));
    w->stamp = (uint32_t *)calloc(cap, sizeof(uint32_t));
    w->cap = cap; w->gen = 0;
    return (w->keys && w->vals && w->stamp) ? 0 : -1;
}

static inline uint32_t hash_tok(tok_t t) {
    uint32_t h = (t ^ (t >> 16)) * 0x45d9f3bu;
    return h ^ (h >> 16);
}

static void work_free(Work *w) {
    free(w->keys); free(w->vals); free(w->stamp);
    free(w->a_ids); free(w->b_ids); free(w->mw); free(w->carry);
}

static int run_instance(Work *w, const Job *J, Py_ssize_t i) {
    const int64_t n = J->cand_len[i];
    const int64_t r0 = J->ref_start[i], r1 = J->ref_start[i + 1];
    int64_t total_b = 0;
    for (int64_t r = r0; r < r1; r++) total_b += J->ref_len[r];
    if (n == 0 || total_b == 0) {
        for (int64_t r = r0; r < r1; r++) J->lcs[r] = 0;
        return 0;
    }
    /* local ids over the candidate's alphabet */
    if (map_init(w, (size_t)n) < 0) return -1;
    if (++w->gen == 0) { memset(w->stamp, 0, w->cap * sizeof(uint32_t)); w->gen = 1; }
    if (grow((void **)&w->a_ids, &w->a_cap, (size_t)n, sizeof(uint32_t)) < 0) return -1;
    if (grow((void **)&w->b_ids, &w->b_cap, (size_t)total_b, sizeof(uint32_t)) < 0) return -1;
    const size_t mask = w->cap - 1;
    const uint32_t gen = w->gen;
    const tok_t *a = J->toks + J->cand_off[i];
    uint32_t k = 0;
    for (int64_t p = 0; p < n; p++) {
        tok_t t = a[p];
        size_t h = hash_tok(t) & mask;
        while (w->stamp[h] == gen && w->keys[h] != t) h = (h + 1) & mask;
        if (w->stamp[h] != gen) { w->stamp[h] = gen; w->keys[h] = t; w->vals[h] = ++k; }
        w->a_ids[p] = w->vals[h];
    }
    int64_t q = 0;
    for (int64_t r = r0; r < r1; r++) {
        const tok_t *b = J->toks + J->ref_off[r];
        for (int64_t j = 0; j < J->ref_len[r]; j++) {
            tok_t t = b[j];
            size_t h = hash_tok(t) & mask;
            while (w->stamp[h] == gen && w->keys[h] != t) h = (h + 1) & mask;
            w->b_ids[q++] = (w->stamp[h] == gen) ? w->vals[h] : 0;
        }
    }
    if (grow((void **)&w->mw, &w->mw_cap, (size_t)k + 1, sizeof(uint64_t)) < 0) return -1;
    memset(w->mw, 0, ((size_t)k + 1) * sizeof(uint64_t));
    const int64_t nwords = (n + 63) / 64;
    uint64_t *mw = w->mw;
    const uint32_t *A = w->a_ids;

    if (nwords == 1) {
        /* one word: no carries between words */
        for (int64_t p = 0; p < n; p++) mw[A[p]] |= (uint64_t)1 << p;
        const uint64_t valid = (n == 64) ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
        const uint32_t *B = w->b_ids;
        for (int64_t r = r0; r < r1; r++) {
            uint64_t V = ~(uint64_t)0;
            const int64_t m = J->ref_len[r];
            for (int64_t j = 0; j < m; j++) {
                uint64_t M = mw[B[j]];
                uint64_t U = V & M;
                V = (V + U) | (V & ~M);
            }
            B += m;
            J->lcs[r] = __builtin_popcountll(~V & valid);
        }
        return 0;
    }

    if (grow((void **)&w->carry, &w->carry_cap, (size_t)total_b, 1) < 0) return -1;
    memset(w->carry, 0, (size_t)total_b);
    for (int64_t r = r0; r < r1; r++) J->lcs[r] = 0;
    for (int64_t wd = 0; wd < nwords; wd++) {
        const int64_t p0 = wd * 64;
        const int64_t p1 = (p0 + 64 < n) ? p0 + 64 : n;
        for (int64_t p = p0; p < p1; p++) mw[A[p]] |= (uint64_t)1 << (p - p0);
        const int64_t nb = p1 - p0;
        const uint64_t valid = (nb == 64) ? ~(uint64_t)0 : (((uint64_t)1 << nb) - 1);
        const uint32_t *B = w->b_ids;
        uint8_t *C = w->carry;
        for (int64_t r = r0; r < r1; r++) {
            uint64_t V = ~(uint64_t)0;
            const int64_t m = J->ref_len[r];
            for (int64_t j = 0; j < m; j++) {
                uint64_t M = mw[B[j]];
                uint64_t U = V & M;
                unsigned __int128 s = (unsigned __int128)V + U + C[j];
                C[j] = (uint8_t)(s >> 64);
                V = (uint64_t)s | (V & ~M);
            }
            B += m;
            C += m;
            J->lcs[r] += __builtin_popcountll(~V & valid);
        }
        for (int64_t p = p0; p < p1; p++) mw[A[p]] = 0;
    }
    return 0;
}

static void *worker(void *arg) {
    Job *J = (Job *)arg;
    Work w;
    memset(&w, 0, sizeof(w));
    for (Py_ssize_t i = J->begin; i < J->end; i++) {
        if (run_instance(&w, J, i) < 0) { J->failed = 1; break; }
    }
    work_free(&w);
    return NULL;
}

/* ---------------------------------------------------------------- entry */

static PyObject *bytes_of(const int64_t *p, Py_ssize_t n) {
    return PyBytes_FromStringAndSize((const char *)p, n * (Py_ssize_t)sizeof(int64_t));
}

PyDoc_STRVAR(lcs_batch_doc,
"lcs_batch(cands, ref_lists, threads=1) -> (lcs, cand_len, ref_len, ref_count)\n\n"
"cands: list of N token sequences; ref_lists: list of N non-empty lists of\n"
"token sequences.  Returns four bytes objects of native int64: LCS of every\n"
"(candidate, reference) pair in order [M], candidate lengths [N], reference\n"
"lengths [M] and references per instance [N].");

static PyObject *lcs_batch(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "ref_lists", "threads", NULL};
    PyObject *cands_in, *refs_in;
    int threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|i", kwlist, &cands_in, &refs_in, &threads))
        return NULL;
    PyObject *cands = PySequence_Fast(cands_in, "cands must be a sequence");
    if (!cands) return NULL;
    PyObject *refs = PySequence_Fast(refs_in, "ref_lists must be a sequence");
    if (!refs) { Py_DECREF(cands); return NULL; }
    const Py_ssize_t N = PySequence_Fast_GET_SIZE(cands);
    PyObject *result = NULL, *vocab = NULL;
    TokBuf buf = {0};
    int64_t *cand_off = NULL, *cand_len = NULL, *ref_start = NULL;
    int64_t *ref_off = NULL, *ref_len = NULL, *lcs = NULL, *ref_count = NULL;
    PyObject **ref_fast = NULL;

    if (PySequence_Fast_GET_SIZE(refs) != N) {
        PyErr_Format(PyExc_ValueError, "got %zd candidates but %zd reference lists",
                     N, PySequence_Fast_GET_SIZE(refs));
        goto done;
    }
    ref_fast = (PyObject **)calloc((size_t)N + 1, sizeof(PyObject *));
    cand_off = (int64_t *)malloc(((size_t)N + 1) * sizeof(int64_t));
    cand_len = (int64_t *)malloc(((size_t)N + 1) * sizeof(int64_t));
    ref_start = (int64_t *)malloc(((size_t)N + 1) * sizeof(int64_t));
    ref_count = (int64_t *)malloc(((size_t)N + 1) * sizeof(int64_t));
    if (!ref_fast || !cand_off || !cand_len || !ref_start || !ref_count) { PyErr_NoMemory(); goto done; }

    /* pass 1: validate structure, count references, decide the token mode */
    Py_ssize_t M = 0;
    int all_str = 1;
    PyObject **C = PySequence_Fast_ITEMS(cands);
    PyObject **R = PySequence_Fast_ITEMS(refs);
    for (Py_ssize_t i = 0; i < N; i++) {
        PyObject *rl = R[i];
        if (rl == Py_None || PyUnicode_Check(rl) || PyBytes_Check(rl)) {
            PyErr_Format(PyExc_TypeError,
                         "instance %zd: ref_list must be a list of references, got %.100s"
                         " (wrap a single reference as [ref])", i,
                         rl == Py_None ? "None" : Py_TYPE(rl)->tp_name);
            goto done;
        }
        ref_fast[i] = PySequence_Fast(rl, "");
        if (!ref_fast[i]) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "instance %zd: ref_list must be a list of references, got %.100s",
                         i, Py_TYPE(rl)->tp_name);
            goto done;
        }
        Py_ssize_t k = PySequence_Fast_GET_SIZE(ref_fast[i]);
        if (k == 0) {
            PyErr_Format(PyExc_ValueError, "instance %zd: ref_list is empty (need at least one reference)", i);
            goto done;
        }
        ref_count[i] = k;
        M += k;
        if (!PyUnicode_Check(C[i])) all_str = 0;
        PyObject **rr = PySequence_Fast_ITEMS(ref_fast[i]);
        for (Py_ssize_t j = 0; j < k && all_str; j++)
            if (!PyUnicode_Check(rr[j])) all_str = 0;
    }
    ref_off = (int64_t *)malloc(((size_t)M + 1) * sizeof(int64_t));
    ref_len = (int64_t *)malloc(((size_t)M + 1) * sizeof(int64_t));
    lcs = (int64_t *)calloc((size_t)M + 1, sizeof(int64_t));
    if (!ref_off || !ref_len || !lcs) { PyErr_NoMemory(); goto done; }
    if (!all_str) { vocab = PyDict_New(); if (!vocab) goto done; }

    /* pass 2: copy tokens */
    Py_ssize_t m = 0;
    double total_cost = 0;
    for (Py_ssize_t i = 0; i < N; i++) {
        cand_off[i] = buf.len;
        if (append_seq(&buf, C[i], vocab, "candidate", i, -1) < 0) goto done;
        cand_len[i] = buf.len - cand_off[i];
        ref_start[i] = m;
        PyObject **rr = PySequence_Fast_ITEMS(ref_fast[i]);
        for (Py_ssize_t j = 0; j < ref_count[i]; j++, m++) {
            ref_off[m] = buf.len;
            if (append_seq(&buf, rr[j], vocab, "reference", i, j) < 0) goto done;
            ref_len[m] = buf.len - ref_off[m];
            total_cost += (double)((cand_len[i] + 63) / 64 + 1) * (double)(ref_len[m] + 1);
        }
    }
    ref_start[N] = m;

    /* kernel, without the GIL */
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    if (total_cost < 2e5 || N < 2 * threads) threads = 1;
    Job jobs[64];
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t begin = 0;
    double acc = 0, per = total_cost / threads;
    int t = 0;
    for (; t < threads; t++) {
        Py_ssize_t end = begin;
        if (t == threads - 1) end = N;
        else {
            double target = per * (t + 1);
            while (end < N && acc < target) {
                for (int64_t r = ref_start[end]; r < ref_start[end + 1]; r++)
                    acc += (double)((cand_len[end] + 63) / 64 + 1) * (double)(ref_len[r] + 1);
                end++;
            }
        }
        Job j = {buf.data, cand_off, cand_len, ref_start, ref_off, ref_len, lcs, begin, end, 0};
        jobs[t] = j;
        begin = end;
    }
    pthread_t tids[64];
    int started[64] = {0};
    for (t = 1; t < threads; t++)
        started[t] = pthread_create(&tids[t], NULL, worker, &jobs[t]) == 0;
    worker(&jobs[0]);
    for (t = 1; t < threads; t++) {
        if (started[t]) pthread_join(tids[t], NULL);
        else worker(&jobs[t]);
    }
    for (t = 0; t < threads; t++) failed |= jobs[t].failed;
    Py_END_ALLOW_THREADS
    if (failed) { PyErr_NoMemory(); goto done; }

    result = Py_BuildValue("(NNNN)", bytes_of(lcs, M), bytes_of(cand_len, N),
                           bytes_of(ref_len, M), bytes_of(ref_count, N));
done:
    if (ref_fast) {
        for (Py_ssize_t i = 0; i < N; i++) Py_XDECREF(ref_fast[i]);
        free(ref_fast);
    }
    free(cand_off); free(cand_len); free(ref_start); free(ref_count);
    free(ref_off); free(ref_len); free(lcs); free(buf.data);
    Py_XDECREF(vocab);
    Py_DECREF(cands);
    Py_DECREF(refs);
    return result;
}

/* ------------------------------------------------------------- n-grams */

/* BLEU's clipped n-gram matches.  For instance i and k = 1..n:
 *   match[i][k-1] = sum over distinct k-grams g of cand_i of
 *                   min(count of g in cand_i, max over sources s of count of g in s)
 * and, with a prefix p_i, the same with the max over the first p_i sources.
 * Only the candidate's k-grams are stored (a table of at most len(cand)
 * entries, generation-stamped), so sources are streamed through lookups. */

typedef struct {
    const tok_t *at;     /* first token of the k-gram in the candidate */
    uint64_t hash;
    uint32_t cand;       /* occurrences in the candidate */
    uint32_t best, best_pre;
    uint32_t run;        /* occurrences in the current source */
    uint32_t run_src;    /* source id the run belongs to (+1) */
    uint32_t stamp;
} GramSlot;

static inline uint64_t gram_step(uint64_t h, tok_t t) {
    /* hash of a k-gram = fold of its tokens: h(k+1) = step(h(k), next token) */
    h ^= t + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static inline int gram_eq(const tok_t *a, const tok_t *b, int k) {
    for (int i = 0; i < k; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

typedef struct {
    const tok_t *toks;
    const int64_t *src_start;  /* [N+1] index of instance i's first text (its candidate) */
    const int64_t *text_off;   /* [T+1] token offset of each text */
    const int64_t *npre;       /* [N] or NULL */
    int n, Q;
    Py_ssize_t N, begin, end;
    int64_t *out;              /* [Q, N, n] */
    int failed;
} GramJob;

static void *gram_worker(void *arg) {
    GramJob *J = (GramJob *)arg;
    GramSlot *tab = NULL;
    size_t tab_cap = 0, scratch_cap = 0;
    uint32_t gen = 0;
    uint64_t *hash = NULL;   /* running k-gram hash of every position of the instance */
    uint8_t *alive = NULL;   /* can the k-gram at this position still match? */
    uint32_t *slot = NULL;   /* candidate position -> table slot */
    const int n = J->n;
    for (Py_ssize_t i = J->begin; i < J->end; i++) {
        const int64_t t0 = J->src_start[i], t1 = J->src_start[i + 1];
        const int64_t base = J->text_off[t0];
        const int64_t clen = J->text_off[t0 + 1] - base;
        const int64_t total = J->text_off[t1] - base;
        const int64_t ns = t1 - t0 - 1;
        const int64_t npre = J->npre ? J->npre[i] : ns;
        if (clen == 0 || ns == 0) continue;
        size_t cap = 64;
        while (cap < 2 * (size_t)clen) cap *= 2;
        if (cap > tab_cap) {
            free(tab);
            tab = (GramSlot *)calloc(cap, sizeof(GramSlot));
            tab_cap = cap;
            gen = 0;
        }
        if ((size_t)total > scratch_cap) {
            scratch_cap = (size_t)total * 2;
            free(hash); free(alive); free(slot);
            hash = (uint64_t *)malloc(scratch_cap * sizeof(uint64_t));
            alive = (uint8_t *)malloc(scratch_cap);
            slot = (uint32_t *)malloc(scratch_cap * sizeof(uint32_t));
        }
        if (!tab || !hash || !alive || !slot) { J->failed = 1; break; }
        const size_t mask = cap - 1;
        const tok_t *T = J->toks + base;
        for (int64_t p = 0; p < total; p++) hash[p] = 0;
        memset(alive, 1, (size_t)total);
        for (int k = 1; k <= n && k <= clen; k++) {
            if (++gen == 0) { memset(tab, 0, tab_cap * sizeof(GramSlot)); gen = 1; }
            int any = 0;
            /* candidate k-grams whose (k-1)-gram prefix occurred in some source */
            for (int64_t p = 0; p + k <= clen; p++) {
                if (!alive[p]) continue;
                const uint64_t h = hash[p] = gram_step(hash[p], T[p + k - 1]);
                const tok_t *g = T + p;
                size_t s = (size_t)h & mask;
                while (tab[s].stamp == gen && (tab[s].hash != h || !gram_eq(tab[s].at, g, k)))
                    s = (s + 1) & mask;
                if (tab[s].stamp != gen) {
                    GramSlot z = {g, h, 0, 0, 0, 0, 0, gen};
                    tab[s] = z;
                }
                tab[s].cand++;
                slot[p] = (uint32_t)s;
                any = 1;
            }
            if (!any) break;
            for (int64_t j = 0; j < ns; j++) {
                const uint32_t sid = (uint32_t)j + 1;
                const int in_pre = j < npre;
                const int64_t s0 = J->text_off[t0 + 1 + j] - base, s1 = J->text_off[t0 + 2 + j] - base;
                for (int64_t p = s0; p + k <= s1; p++) {
                    if (!alive[p]) continue;
                    const uint64_t h = hash[p] = gram_step(hash[p], T[p + k - 1]);
                    const tok_t *g = T + p;
                    size_t s = (size_t)h & mask;
                    while (tab[s].stamp == gen && (tab[s].hash != h || !gram_eq(tab[s].at, g, k)))
                        s = (s + 1) & mask;
                    if (tab[s].stamp != gen) { alive[p] = 0; continue; }  /* no longer k-gram can match */
                    GramSlot *e = &tab[s];
                    if (e->run_src != sid) { e->run_src = sid; e->run = 0; }
                    e->run++;
                    if (e->run > e->best) e->best = e->run;
                    if (in_pre && e->run > e->best_pre) e->best_pre = e->run;
                }
            }
            int64_t m = 0, mp = 0;
            for (int64_t p = 0; p + k <= clen; p++) {
                if (!alive[p]) continue;
                GramSlot *e = &tab[slot[p]];
                if (e->best == 0) { alive[p] = 0; continue; }
                if (e->cand) {  /* count each distinct k-gram once */
                    m += e->cand < e->best ? e->cand : e->best;
                    mp += e->cand < e->best_pre ? e->cand : e->best_pre;
                    e->cand = 0;
                }
            }
            J->out[(size_t)i * n + (k - 1)] = m;
            if (J->Q == 2) J->out[((size_t)J->N + i) * n + (k - 1)] = mp;
        }
    }
    free(tab); free(hash); free(alive); free(slot);
    return NULL;
}

PyDoc_STRVAR(ngram_matches_doc,
"ngram_matches(cands, source_lists, n, prefix=None, threads=1) -> bytes\n\n"
"Clipped n-gram matches (BLEU) of each candidate against its sources, for\n"
"k = 1..n.  Returns native int64 [Q, N, n] (Q = 2 with prefix, the second\n"
"block using only the first prefix[i] sources of instance i).  Source lists\n"
"may be empty.  Tokens as lcs_batch.");

static PyObject *ngram_matches(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "source_lists", "n", "prefix", "threads", NULL};
    PyObject *cands_in, *srcs_in, *prefix_in = Py_None;
    int n, threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOi|Oi", kwlist, &cands_in, &srcs_in, &n,
                                     &prefix_in, &threads))
        return NULL;
    if (n < 1) { PyErr_SetString(PyExc_ValueError, "n must be >= 1"); return NULL; }
    PyObject *cands = PySequence_Fast(cands_in, "cands must be a sequence");
    if (!cands) return NULL;
    PyObject *srcs = PySequence_Fast(srcs_in, "source_lists must be a sequence");
    if (!srcs) { Py_DECREF(cands); return NULL; }
    PyObject *prefix = NULL, *result = NULL, *vocab = NULL;
    const Py_ssize_t N = PySequence_Fast_GET_SIZE(cands);
    const int Q = (prefix_in == Py_None) ? 1 : 2;
    int64_t *out = NULL, *src_start = NULL, *npre = NULL, *text_off = NULL;
    size_t text_cap = 0, ntext = 0;
    TokBuf buf = {0};
    PyObject **S = NULL;

    if (PySequence_Fast_GET_SIZE(srcs) != N) {
        PyErr_Format(PyExc_ValueError, "got %zd candidates but %zd source lists", N,
                     PySequence_Fast_GET_SIZE(srcs));
        goto done;
    }
    if (Q == 2) {
        prefix = PySequence_Fast(prefix_in, "prefix must be a sequence");
        if (!prefix) goto done;
        if (PySequence_Fast_GET_SIZE(prefix) != N) {
            PyErr_SetString(PyExc_ValueError, "prefix must have one entry per candidate");
            goto done;
        }
        npre = (int64_t *)malloc(((size_t)N + 1) * sizeof(int64_t));
        if (!npre) { PyErr_NoMemory(); goto done; }
    }
    out = (int64_t *)calloc((size_t)Q * (size_t)N * (size_t)n + 1, sizeof(int64_t));
    src_start = (int64_t *)malloc(((size_t)N + 1) * sizeof(int64_t));
    S = (PyObject **)calloc((size_t)N + 1, sizeof(PyObject *));
    if (!out || !src_start || !S) { PyErr_NoMemory(); goto done; }
    /* pass 1 (GIL): structure and token mode */
    int all_str = 1;
    PyObject **C = PySequence_Fast_ITEMS(cands);
    for (Py_ssize_t i = 0; i < N; i++) {
        S[i] = PySequence_Fast(PySequence_Fast_ITEMS(srcs)[i], "");
        if (!S[i]) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "instance %zd: sources must be a list", i);
            goto done;
        }
        ntext += 1 + (size_t)PySequence_Fast_GET_SIZE(S[i]);
        if (!PyUnicode_Check(C[i])) all_str = 0;
        PyObject **ss = PySequence_Fast_ITEMS(S[i]);
        for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(S[i]) && all_str; j++)
            if (!PyUnicode_Check(ss[j])) all_str = 0;
        if (Q == 2) {
            npre[i] = PyLong_AsSsize_t(PySequence_Fast_ITEMS(prefix)[i]);
            if (npre[i] == -1 && PyErr_Occurred()) goto done;
            if (npre[i] < 0) npre[i] = 0;
        }
    }
    if (!all_str) { vocab = PyDict_New(); if (!vocab) goto done; }
    text_cap = ntext + 1;
    text_off = (int64_t *)malloc(text_cap * sizeof(int64_t));
    if (!text_off) { PyErr_NoMemory(); goto done; }
    /* pass 2 (GIL): copy tokens */
    size_t t = 0;
    double cost = 0;
    for (Py_ssize_t i = 0; i < N; i++) {
        src_start[i] = (int64_t)t;
        text_off[t++] = buf.len;
        if (append_seq(&buf, C[i], vocab, "candidate", i, -1) < 0) goto done;
        PyObject **ss = PySequence_Fast_ITEMS(S[i]);
        for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(S[i]); j++) {
            text_off[t++] = buf.len;
            if (append_seq(&buf, ss[j], vocab, "reference", i, j) < 0) goto done;
        }
    }
    src_start[N] = (int64_t)t;
    text_off[t] = buf.len;
    cost = (double)buf.len * n;
    /* pass 3 (no GIL): count, instances split over threads by token count */
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    if (cost < 2e5 || N < 2 * threads) threads = 1;
    {
        GramJob jobs[64];
        pthread_t tids[64];
        int started[64] = {0};
        int failed = 0;
        Py_BEGIN_ALLOW_THREADS
        Py_ssize_t begin = 0;
        for (int w = 0; w < threads; w++) {
            Py_ssize_t end = N;
            if (w < threads - 1) {
                const int64_t target = buf.len / threads * (w + 1);
                end = begin;
                while (end < N && text_off[src_start[end]] < target) end++;
            }
            GramJob j = {buf.data, src_start, text_off, npre, n, Q, N, begin, end, out, 0};
            jobs[w] = j;
            begin = end;
        }
        for (int w = 1; w < threads; w++)
            started[w] = pthread_create(&tids[w], NULL, gram_worker, &jobs[w]) == 0;
        gram_worker(&jobs[0]);
        for (int w = 1; w < threads; w++) {
            if (started[w]) pthread_join(tids[w], NULL);
            else gram_worker(&jobs[w]);
        }
        for (int w = 0; w < threads; w++) failed |= jobs[w].failed;
        Py_END_ALLOW_THREADS
        if (failed) { PyErr_NoMemory(); goto done; }
    }
    result = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)((size_t)Q * N * n * sizeof(int64_t)));
done:
    if (S) {
        for (Py_ssize_t i = 0; i < N; i++) Py_XDECREF(S[i]);
        free(S);
    }
    free(out); free(src_start); free(npre); free(text_off); free(buf.data);
    Py_XDECREF(vocab);
    Py_XDECREF(prefix);
    Py_DECREF(cands);
    Py_DECREF(srcs);
    return result;
}

static PyMethodDef methods[] = {
    {"lcs_batch", (PyCFunction)(void (*)(void))lcs_batch, METH_VARARGS | METH_KEYWORDS, lcs_batch_doc},
    {"ngram_matches", (PyCFunction)(void (*)(void))ngram_matches, METH_VARARGS | METH_KEYWORDS,
     ngram_matches_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, "_lcs", "Exact LCS (bit-parallel) and BLEU n-gram matching kernels (C).", -1, methods,
};

PyMODINIT_FUNC PyInit__lcs(void) { return PyModule_Create(&moddef); }
