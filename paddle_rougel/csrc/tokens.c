/*
 * Token reading, in two passes:
 *
 * 1. snapshot (tokens_snapshot.c; no token's __hash__ / __eq__ runs): the outer sequences
 *    become tuples we own; each text becomes a str we own, references to its
 *    tokens in one C array (no tuple per text: GC-tracked allocations made
 *    word-level batches 2x slower), or, for a 1-D integer buffer (numpy,
 *    array.array), its values copied out in native byte order.
 * 2. ids: when every text is a str, a token is its code point.  Otherwise
 *    every token goes through one dict (token -> id), so equality is Python's
 *    ==, except that a token unequal to itself (NaN, ...) gets an id of its
 *    own and so matches nothing, not even itself.  Integer values become
 *    Python ints first, so they equal the same ints (or 1.0) in a list.
 *    A list or tuple of exact ints of 64 bits is snapshotted as their values
 *    (no reference per token), as an integer buffer is; when every text is
 *    such, a C table keyed by value gives the ids (int_ids): no Python object
 *    per token, no dict.
 */
#include "tokens.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tokens_snapshot.h"

/* ------------------------------------------------------------ pass 2: ids */

typedef struct {
    PyObject *vocab;        /* token -> id */
    uint64_t next_id;       /* ids handed out: vocab entries and self-unequal tokens */
    /* exact str / int tokens by address, in front of the dict: a token list built from one
     * vocabulary repeats the same objects, and the same object has the same id (the
     * snapshot owns every token, so no address is reused while the ids are read) */
    PyObject **pkeys;
    tok_t *pvals;
    size_t pcap, pcount;    /* pcap: 0 or a power of two */
} Interner;

static inline size_t ptr_slot(const Interner *in, PyObject *o) {
    const size_t mask = in->pcap - 1;
    size_t h = (size_t)((((uintptr_t)o >> 4) * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (in->pkeys[h] && in->pkeys[h] != o) h = (h + 1) & mask;
    return h;
}

/* Remember o -> id (best effort: without memory the cache just stays smaller). */
static void ptr_put(Interner *in, PyObject *o, tok_t id) {
    if (2 * (in->pcount + 1) > in->pcap) {
        const size_t cap = in->pcap ? 2 * in->pcap : 4096;
        PyObject **keys = (PyObject **)calloc(cap, sizeof(PyObject *));
        tok_t *vals = (tok_t *)malloc(cap * sizeof(tok_t));
        if (!keys || !vals) { free(keys); free(vals); return; }
        Interner old = *in;
        in->pkeys = keys; in->pvals = vals; in->pcap = cap;
        for (size_t i = 0; i < old.pcap; i++)
            if (old.pkeys[i]) {
                const size_t h = ptr_slot(in, old.pkeys[i]);
                in->pkeys[h] = old.pkeys[i];
                in->pvals[h] = old.pvals[i];
            }
        free(old.pkeys); free(old.pvals);
    }
    const size_t h = ptr_slot(in, o);
    if (!in->pkeys[h]) { in->pkeys[h] = o; in->pvals[h] = id; in->pcount++; }
}

/* 1 when tok != tok (it then matches nothing), 0 when it equals itself, -1 on error.
 * Trusted without a call (== is reflexive for them): exact str, int, bool,
 * bytes, tuple (items compare by identity first), frozenset and None.  Exact
 * float and complex: NaN test.  Anything else (subclasses, numpy scalars,
 * user classes): one `tok == tok` call. */
static int never_matches(PyObject *tok) {
    PyTypeObject *tp = Py_TYPE(tok);
    if (tp == &PyUnicode_Type || tp == &PyLong_Type || tp == &PyTuple_Type || tp == &PyBool_Type ||
        tp == &PyBytes_Type || tp == &PyFrozenSet_Type || tok == Py_None)
        return 0;
    if (tp == &PyFloat_Type) return isnan(PyFloat_AS_DOUBLE(tok)) != 0;
    if (tp == &PyComplex_Type) {
        Py_complex c = PyComplex_AsCComplex(tok);
        return isnan(c.real) || isnan(c.imag);
    }
    PyObject *eq = PyObject_RichCompare(tok, tok, Py_EQ);  /* no identity shortcut */
    if (!eq) return -1;
    const int truth = PyObject_IsTrue(eq);
    Py_DECREF(eq);
    return truth < 0 ? -1 : !truth;
}

static int new_id(Interner *in, tok_t *id) {
    if (in->next_id >= TOK_ID_LIMIT) {
        PyErr_SetString(PyExc_OverflowError, "too many distinct tokens in one batch");
        return -1;
    }
    *id = (tok_t)in->next_id++;
    return 0;
}

/* The id of a token known to equal itself. */
static int intern_trusted(Interner *in, PyObject *tok, tok_t *id) {
    PyObject *v = PyDict_GetItemWithError(in->vocab, tok);  /* borrowed */
    if (v) {
        *id = (tok_t)PyLong_AsUnsignedLong(v);
        return 0;
    }
    if (PyErr_Occurred() || new_id(in, id) < 0) return -1;
    PyObject *key = PyLong_FromUnsignedLong(*id);
    if (!key) return -1;
    const int rc = PyDict_SetItem(in->vocab, tok, key);
    Py_DECREF(key);
    return rc;
}

/* Hash first, so an unhashable token (a list, a 2-D array's row) is reported
 * as such rather than by its == (only untrusted types pay the second hash). */
static inline int intern_token(Interner *in, PyObject *tok, tok_t *id) {
    PyTypeObject *tp = Py_TYPE(tok);
    if (tp == &PyUnicode_Type || tp == &PyLong_Type) {  /* the common case */
        if (in->pcap) {
            const size_t h = ptr_slot(in, tok);
            if (in->pkeys[h]) { *id = in->pvals[h]; return 0; }
        }
        if (intern_trusted(in, tok, id) < 0) return -1;
        ptr_put(in, tok, *id);
        return 0;
    }
    if (PyObject_Hash(tok) == -1) return -1;
    const int bad = never_matches(tok);
    if (bad < 0) return -1;
    return bad ? new_id(in, id) : intern_trusted(in, tok, id);
}

/* A TypeError / ValueError (exactly those: unhashable token, ambiguous truth
 * value) raised by token p of text t gets the text's name and the token's
 * index and type, the original as __cause__.  Other exceptions (the user's
 * own, subclasses included) pass through unchanged. */
static void name_token_error(const Text *t, Py_ssize_t p, PyObject *tok) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (type != PyExc_TypeError && type != PyExc_ValueError) {
        PyErr_Restore(type, value, tb);
        return;
    }
    PyObject *w = tokens_where(t->inst, t->ref);
    if (!w) { Py_XDECREF(type); Py_XDECREF(value); Py_XDECREF(tb); return; }
    PyErr_Format(type, "%U: token %zd (%.100s): %S", w, p, tokens_type_name(tok), value);
    Py_DECREF(w);
    PyObject *t2, *v2, *tb2;
    PyErr_Fetch(&t2, &v2, &tb2);
    PyErr_NormalizeException(&t2, &v2, &tb2);
    if (tb) PyException_SetTraceback(value, tb);
    PyException_SetCause(v2, value);  /* steals value */
    Py_XDECREF(type);
    Py_XDECREF(tb);
    PyErr_Restore(t2, v2, tb2);
}

/* The id of v, a new reference to token p of t made here (NULL: the error is set), released
after; an error in interning it names the token. */
static int intern_made(Interner *in, const Text *t, int64_t p, PyObject *v, tok_t *id) {
    if (!v) return -1;
    const int rc = intern_trusted(in, v, id);
    if (rc < 0) name_token_error(t, (Py_ssize_t)p, v);
    Py_DECREF(v);
    return rc < 0 ? -1 : 0;
}

/* Ids of one snapshotted text into out[0 .. t->len). */
static int text_ids(Interner *in, const Snapshot *s, const Text *t, tok_t *out) {
    if (t->kind == TEXT_INTS) {  /* Python ints: equal to the same ints in a list */
        const uint64_t *x = s->raw + t->off;
        for (int64_t p = 0; p < t->len; p++) {
            PyObject *v = t->is_signed ? PyLong_FromLongLong((long long)(int64_t)x[p])
                                       : PyLong_FromUnsignedLongLong(x[p]);
            if (intern_made(in, t, p, v, &out[p]) < 0) return -1;
        }
        return 0;
    }
    if (t->kind == TEXT_STR) {  /* a str is its characters, as 1-char strs */
        const int kind = PyUnicode_KIND(t->str);
        const void *data = PyUnicode_DATA(t->str);
        for (int64_t p = 0; p < t->len; p++)
            if (intern_made(in, t, p, PyUnicode_FromOrdinal(PyUnicode_READ(kind, data, p)), &out[p]) < 0) return -1;
        return 0;
    }
    for (int64_t p = 0; p < t->len; p++) {
        PyObject *tok = s->items[t->off + p];
        if (intern_token(in, tok, &out[p]) < 0) {
            name_token_error(t, (Py_ssize_t)p, tok);
            return -1;
        }
    }
    return 0;
}

/* Every text an integer buffer or a list / tuple of exact 64-bit ints (TEXT_INTS): a value's
 * id from a C table (no Python int, no dict).  Two values are equal as Python ints when their
 * 64 bits and their sign are: an int64 -1 and a uint64 2**64 - 1 have the same bits and
 * differ.  (A string is never among them: the texts all hold integers.) */
typedef struct {
    uint64_t *keys;
    uint32_t *vals;  /* 0: empty; ids are val - 1 */
    uint8_t *neg;
    size_t cap;      /* a power of two, at most half full */
} IntTable;

static inline size_t int_slot(const IntTable *m, uint64_t k, uint8_t ng) {
    const size_t mask = m->cap - 1;
    size_t h = (size_t)(((k ^ (k >> 29)) * 0x9E3779B97F4A7C15ull) >> 17) & mask;
    while (m->vals[h] && (m->keys[h] != k || m->neg[h] != ng)) h = (h + 1) & mask;
    return h;
}

static void int_table_free(IntTable *m) { free(m->keys); free(m->vals); free(m->neg); }

/* A table of cap slots holding old's entries; -1 when out of memory (old unchanged). */
static int int_table_resize(IntTable *m, size_t cap) {
    IntTable n = {(uint64_t *)malloc(cap * sizeof(uint64_t)), (uint32_t *)calloc(cap, sizeof(uint32_t)),
                  (uint8_t *)malloc(cap), cap};
    if (!n.keys || !n.vals || !n.neg) { int_table_free(&n); return -1; }
    for (size_t i = 0; i < m->cap; i++)
        if (m->vals[i]) {
            const size_t h = int_slot(&n, m->keys[i], m->neg[i]);
            n.keys[h] = m->keys[i]; n.neg[h] = m->neg[i]; n.vals[h] = m->vals[i];
        }
    int_table_free(m);
    *m = n;
    return 0;
}

static int int_ids(const Snapshot *s, TokenBatch *b) {
    /* sized by the distinct values seen, not the tokens: a vocabulary stays in cache */
    IntTable m = {NULL, NULL, NULL, 0};
    if (int_table_resize(&m, 1024) < 0) { PyErr_NoMemory(); return -1; }
    uint32_t next = 0;
    for (size_t t = 0; t < s->n; t++) {
        const Text *x = &s->texts[t];
        const uint64_t *v = s->raw + x->off;
        tok_t *out = b->toks + b->text_off[t];
        for (int64_t p = 0; p < x->len; p++) {
            const uint64_t k = v[p];
            const uint8_t ng = x->is_signed && (int64_t)k < 0;
            size_t h = int_slot(&m, k, ng);
            if (!m.vals[h]) {
                if (2 * ((size_t)next + 1) > m.cap) {
                    if (int_table_resize(&m, 2 * m.cap) < 0) { int_table_free(&m); PyErr_NoMemory(); return -1; }
                    h = int_slot(&m, k, ng);
                }
                m.keys[h] = k; m.neg[h] = ng; m.vals[h] = ++next;
            }
            out[p] = m.vals[h] - 1;
        }
    }
    int_table_free(&m);
    return 0;
}

/* Every text a str: its code points are the ids (no dict, no user code). */
static void code_points(const Text *t, tok_t *out) {
    const Py_ssize_t n = (Py_ssize_t)t->len;
    const void *data = PyUnicode_DATA(t->str);
    switch (PyUnicode_KIND(t->str)) {
        case PyUnicode_1BYTE_KIND:
            for (Py_ssize_t i = 0; i < n; i++) out[i] = ((const Py_UCS1 *)data)[i];
            break;
        case PyUnicode_2BYTE_KIND:
            for (Py_ssize_t i = 0; i < n; i++) out[i] = ((const Py_UCS2 *)data)[i];
            break;
        default:
            for (Py_ssize_t i = 0; i < n; i++) out[i] = ((const Py_UCS4 *)data)[i];
    }
}

/* Pass 2: text_off and toks for every snapshotted text. */
static int read_ids(const Snapshot *s, TokenBatch *b) {
    b->text_off = (int64_t *)malloc((s->n + 1) * sizeof(int64_t));
    if (!b->text_off) { PyErr_NoMemory(); return -1; }
    int64_t total = 0;
    for (size_t t = 0; t < s->n; t++) {
        Text *x = &s->texts[t];
        if (x->kind == TEXT_STR) {
#if PY_VERSION_HEX < 0x030C0000
            if (PyUnicode_READY(x->str) < 0) return -1;
#endif
            x->len = PyUnicode_GET_LENGTH(x->str);
        }
        b->text_off[t] = total;
        total += x->len;
    }
    b->text_off[s->n] = total;
    b->toks = (tok_t *)malloc(((size_t)total + 1) * sizeof(tok_t));
    if (!b->toks) { PyErr_NoMemory(); return -1; }
    if (s->all_str) {
        for (size_t t = 0; t < s->n; t++) code_points(&s->texts[t], b->toks + b->text_off[t]);
        return 0;
    }
    if (s->all_ints && s->n > 0 && (uint64_t)total < TOK_ID_LIMIT) return int_ids(s, b);
    Interner in = {PyDict_New(), 0, NULL, NULL, 0, 0};
    if (!in.vocab) return -1;
    int rc = 0;
    for (size_t t = 0; t < s->n && rc == 0; t++) rc = text_ids(&in, s, &s->texts[t], b->toks + b->text_off[t]);
    Py_DECREF(in.vocab);
    free(in.pkeys);
    free(in.pvals);
    return rc;
}

int batch_read(TokenBatch *b, PyObject *cands, PyObject *lists, int kind) {
    Snapshot s;
    memset(&s, 0, sizeof(s));
    int rc = tokens_snapshot_batch(&s, b, cands, lists, kind);
    if (rc == 0) rc = read_ids(&s, b);
    tokens_snapshot_free(&s);
    return rc;
}

void batch_free(TokenBatch *b) {
    free(b->inst_start);
    free(b->text_off);
    free(b->toks);
    memset(b, 0, sizeof(*b));
}
