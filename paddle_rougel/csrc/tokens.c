/*
 * Token reading, in two passes:
 *
 * 1. snapshot (no token's __hash__ / __eq__ runs): the outer sequences
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

enum { TEXT_STR, TEXT_ITEMS, TEXT_INTS };

typedef struct {
    int kind;
    int is_signed;          /* TEXT_INTS */
    PyObject *str;          /* TEXT_STR: owned */
    int64_t off, len;       /* TEXT_ITEMS: items[off ..]; TEXT_INTS: raw[off ..] */
    Py_ssize_t inst, ref;   /* names in errors (ref < 0: the candidate) */
} Text;

typedef struct {
    Text *texts;
    size_t n, cap;
    PyObject **items;       /* owned references to the tokens of TEXT_ITEMS texts */
    size_t items_len, items_cap;
    uint64_t *raw;          /* TEXT_INTS values (two's complement when signed) */
    size_t raw_len, raw_cap;
    PyObject **list;        /* scratch: owned references to one reference list's texts */
    size_t list_cap;
    int all_str;
    int all_ints;           /* every text TEXT_INTS */
} Snapshot;

static int reserve(void **p, size_t *cap, size_t need, size_t elt) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * elt);
    if (!q) { PyErr_NoMemory(); return -1; }
    *p = q;
    *cap = c;
    return 0;
}

static void snapshot_free(Snapshot *s) {
    for (size_t t = 0; t < s->n; t++) Py_XDECREF(s->texts[t].str);
    for (size_t k = 0; k < s->items_len; k++) Py_DECREF(s->items[k]);
    free(s->texts);
    free(s->items);
    free(s->raw);
    free(s->list);
}

/* Append owned references to the items of seq to *arr.  No Python code runs
 * while a list's item array is copied, so it is read whole before anyone
 * (a token's __hash__, another thread) can change it. */
static int take_items(PyObject *seq, PyObject ***arr, size_t *len, size_t *cap) {
    PyObject *fast;  /* an exact list or tuple: itself, no copy; else list(seq), as Python does */
    if (PyList_CheckExact(seq) || PyTuple_CheckExact(seq)) {
        Py_INCREF(seq);
        fast = seq;
    } else if (!(fast = PySequence_List(seq))) {
        return -1;
    }
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (reserve((void **)arr, cap, *len + (size_t)n, sizeof(PyObject *)) < 0) { Py_DECREF(fast); return -1; }
    PyObject **src = PySequence_Fast_ITEMS(fast), **dst = *arr + *len;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_INCREF(src[k]);
        dst[k] = src[k];
    }
    *len += (size_t)n;
    Py_DECREF(fast);
    return 0;
}

/* type(obj).__name__, as the Python fallback says it ("ndarray", not "numpy.ndarray") */
static const char *type_name(PyObject *obj) {
    const char *name = Py_TYPE(obj)->tp_name, *dot = strrchr(name, '.');
    return dot ? dot + 1 : name;
}

/* "instance 3, candidate" / "instance 3, reference 1" */
static PyObject *where(Py_ssize_t inst, Py_ssize_t ref) {
    if (ref < 0) return PyUnicode_FromFormat("instance %zd, candidate", inst);
    return PyUnicode_FromFormat("instance %zd, reference %zd", inst, ref);
}

/* "a set" / "a mapping" / "a mapping view" when obj has no order to read items in (sets,
 * dicts, their views, any registered collections.abc Set / Mapping), else NULL; *err is set
 * when the check itself failed.  The words of inputs.unordered, which the Python engine uses. */
static const char *unordered(PyObject *obj, int *err) {
    static PyObject *abc[3];  /* Set, Mapping, MappingView: imported once (the GIL is held) */
    static const char *const what[3] = {"a set", "a mapping", "a mapping view"};
    *err = 0;
    if (PyAnySet_Check(obj)) return what[0];
    if (PyDict_Check(obj)) return what[1];
    if (!abc[0]) {
        PyObject *mod = PyImport_ImportModule("collections.abc");
        if (!mod) { *err = 1; return NULL; }
        PyObject *found[3] = {PyObject_GetAttrString(mod, "Set"), PyObject_GetAttrString(mod, "Mapping"),
                              PyObject_GetAttrString(mod, "MappingView")};
        Py_DECREF(mod);
        if (!found[0] || !found[1] || !found[2]) {
            for (int k = 0; k < 3; k++) Py_XDECREF(found[k]);
            *err = 1;
            return NULL;
        }
        for (int k = 0; k < 3; k++) abc[k] = found[k];  /* kept for the life of the process */
    }
    for (int k = 0; k < 3; k++) {
        const int rc = PyObject_IsInstance(obj, abc[k]);
        if (rc < 0) { *err = 1; return NULL; }
        if (rc) return what[k];
    }
    return NULL;
}

/* ------------------------------------------------------------ integer buffers */

/* Byte order of a buffer format: 1 when its values must be byte-swapped. */
static int needs_swap(char order) {
    const uint16_t one = 1;
    const int little = *(const uint8_t *)&one;
    if (order == '<') return !little;
    if (order == '>' || order == '!') return little;
    return 0;  /* '@', '=' or none: native */
}

static uint64_t bswap(uint64_t x, Py_ssize_t size) {
    uint64_t y = 0;
    for (Py_ssize_t i = 0; i < size; i++, x >>= 8) y = (y << 8) | (x & 0xFF);
    return y;
}

/* One value of `size` bytes at p, sign-extended when is_signed. */
static uint64_t load_int(const char *p, Py_ssize_t size, int swap, int is_signed) {
    uint8_t b1; uint16_t b2; uint32_t b4; uint64_t x;
    switch (size) {
        case 1: memcpy(&b1, p, 1); x = b1; break;
        case 2: memcpy(&b2, p, 2); x = b2; break;
        case 4: memcpy(&b4, p, 4); x = b4; break;
        default: memcpy(&x, p, 8); break;
    }
    if (swap && size > 1) x = bswap(x, size);
    if (is_signed && size < 8 && (x >> (size * 8 - 1)) & 1) x |= ~(uint64_t)0 << (size * 8);
    return x;
}

/* Signedness of a 1-D integer buffer's format ("i", ">q", "<H", ...), or -1. */
static int int_format(const Py_buffer *v, char *order) {
    const char *f = v->format ? v->format : "B";
    *order = '@';
    if (*f == '@' || *f == '=' || *f == '<' || *f == '>' || *f == '!') *order = *f++;
    if (f[0] == '\0' || f[1] != '\0' || v->ndim != 1) return -1;
    if (!(v->itemsize == 1 || v->itemsize == 2 || v->itemsize == 4 || v->itemsize == 8)) return -1;
    if (strchr("bhilqn", f[0])) return 1;
    if (strchr("BHILQN", f[0])) return 0;
    return -1;
}

/* Copy a 1-D integer buffer's values (any byte order, any stride) into s->raw.
 * Returns 0, -1 on error, 1 when obj is not such a buffer. */
static int snap_int_buffer(Snapshot *s, Text *t, PyObject *obj) {
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_STRIDES | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 1;
    }
    char order;
    const int is_signed = int_format(&v, &order);
    if (is_signed < 0) { PyBuffer_Release(&v); return 1; }
    const Py_ssize_t n = v.shape ? v.shape[0] : v.len / v.itemsize;
    const Py_ssize_t stride = v.strides ? v.strides[0] : v.itemsize;
    if (reserve((void **)&s->raw, &s->raw_cap, s->raw_len + (size_t)n, sizeof(uint64_t)) < 0) {
        PyBuffer_Release(&v);
        return -1;
    }
    const int swap = needs_swap(order);
    const char *p = (const char *)v.buf;
    uint64_t *out = s->raw + s->raw_len;
    for (Py_ssize_t i = 0; i < n; i++, p += stride) out[i] = load_int(p, v.itemsize, swap, is_signed);
    PyBuffer_Release(&v);
    t->kind = TEXT_INTS;
    t->off = (int64_t)s->raw_len;
    t->len = n;
    t->is_signed = is_signed;
    s->raw_len += (size_t)n;
    return 0;
}

/* ------------------------------------------------------------ pass 1: snapshot */

/* An exact list or tuple whose items are all exact ints of 64 signed bits: their values into
 * s->raw (a TEXT_INTS text, as an int64 buffer), with no reference taken per token.  Returns
 * 0, -1 on error, 1 (nothing kept) when some item is anything else (a bool, a float, a huge
 * int, a str ...).  No Python code runs. */
static int snap_int_items(Snapshot *s, Text *t, PyObject *seq) {
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    if (n > 0 && Py_TYPE(items[0]) != &PyLong_Type) return 1;  /* (an empty one: no tokens, fine) */
    if (reserve((void **)&s->raw, &s->raw_cap, s->raw_len + (size_t)n, sizeof(uint64_t)) < 0) return -1;
    uint64_t *out = s->raw + s->raw_len;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *o = items[k];
        int over = 0;
        if (Py_TYPE(o) != &PyLong_Type) return 1;
        const long long v = PyLong_AsLongLongAndOverflow(o, &over);
        if (over || (v == -1 && PyErr_Occurred())) { PyErr_Clear(); return 1; }
        out[k] = (uint64_t)v;
    }
    t->kind = TEXT_INTS;
    t->off = (int64_t)s->raw_len;
    t->len = n;
    t->is_signed = 1;
    s->raw_len += (size_t)n;
    return 0;
}

/* A TypeError while iterating a text (a 0-d array, say) names the text. */
static void not_a_text(const Text *t, PyObject *seq) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *w = where(t->inst, t->ref);
    if (w) {
        PyErr_Format(PyExc_TypeError, "%U: got %.100s, expected a str or a sequence of tokens (%S)", w,
                     type_name(seq), value ? value : Py_None);
        Py_DECREF(w);
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

static int snap_text(Snapshot *s, PyObject *seq, Py_ssize_t inst, Py_ssize_t ref) {
    if (reserve((void **)&s->texts, &s->cap, s->n + 1, sizeof(Text)) < 0) return -1;
    Text *t = &s->texts[s->n];
    memset(t, 0, sizeof(*t));
    t->inst = inst;
    t->ref = ref;
    const char *bad = NULL;
    if (seq == Py_None) bad = "None";
    else if (!PyUnicode_Check(seq) && !PySequence_Check(seq) && !Py_TYPE(seq)->tp_iter)
        bad = type_name(seq);
    if (bad) {
        PyObject *w = where(inst, ref);
        if (w) PyErr_Format(PyExc_TypeError, "%U: got %.100s, expected a str or a sequence of tokens", w, bad);
        Py_XDECREF(w);
        return -1;
    }
    if (PyUnicode_Check(seq)) {
        s->all_ints = 0;
        Py_INCREF(seq);
        t->kind = TEXT_STR;
        t->str = seq;
        s->n++;
        return 0;
    }
    s->all_str = 0;
    int rc = PyObject_CheckBuffer(seq) ? snap_int_buffer(s, t, seq) : 1;
    if (rc == 1 && (PyList_CheckExact(seq) || PyTuple_CheckExact(seq))) rc = snap_int_items(s, t, seq);
    if (rc < 0) return -1;
    if (rc == 1 && !PyList_CheckExact(seq) && !PyTuple_CheckExact(seq)) {  /* the common types: no check */
        int err;
        const char *what = unordered(seq, &err);
        if (err) return -1;
        if (what) {
            PyObject *w = where(inst, ref);
            if (w) PyErr_Format(PyExc_TypeError, "%U: %s has no order; expected a str or a sequence of tokens",
                                w, what);
            Py_XDECREF(w);
            return -1;
        }
    }
    if (rc == 1) {
        s->all_ints = 0;
        t->kind = TEXT_ITEMS;
        t->off = (int64_t)s->items_len;
        if (take_items(seq, &s->items, &s->items_len, &s->items_cap) < 0) {
            not_a_text(t, seq);
            return -1;
        }
        t->len = (int64_t)s->items_len - t->off;
    }
    s->n++;
    return 0;
}

/* Owned references to the references (or sources) of instance i in s->list;
 * returns how many, or -1. */
static Py_ssize_t snap_list(Snapshot *s, PyObject *lst, Py_ssize_t i, int kind) {
    if (kind == LISTS_OF_REFERENCES && (lst == Py_None || PyUnicode_Check(lst) || PyBytes_Check(lst))) {
        PyErr_Format(PyExc_TypeError,
                     "instance %zd: ref_list must be a list of references, got %.100s"
                     " (wrap a single reference as [ref])", i,
                     lst == Py_None ? "None" : type_name(lst));
        return -1;
    }
    if (!PySequence_Check(lst) && !Py_TYPE(lst)->tp_iter) {
        if (kind == LISTS_OF_REFERENCES)
            PyErr_Format(PyExc_TypeError, "instance %zd: ref_list must be a list of references, got %.100s",
                         i, type_name(lst));
        else
            PyErr_Format(PyExc_TypeError, "instance %zd: sources must be a list, got %.100s", i,
                         type_name(lst));
        return -1;
    }
    if (!PyList_CheckExact(lst) && !PyTuple_CheckExact(lst)) {
        int err;
        const char *what = unordered(lst, &err);
        if (err) return -1;
        if (what) {
            PyErr_Format(PyExc_TypeError, "instance %zd: %s is %s, which has no order; expected a list", i,
                         kind == LISTS_OF_REFERENCES ? "ref_list" : "sources", what);
            return -1;
        }
    }
    size_t n = 0;
    if (take_items(lst, &s->list, &n, &s->list_cap) < 0) return -1;
    if (n == 0 && kind == LISTS_OF_REFERENCES) {
        PyErr_Format(PyExc_ValueError, "instance %zd: ref_list is empty (need at least one reference)", i);
        return -1;
    }
    return (Py_ssize_t)n;
}

/* Texts of one instance: its candidate, then the k texts in s->list (released here). */
static int snap_instance(Snapshot *s, PyObject *cand, Py_ssize_t k, Py_ssize_t i) {
    int rc = snap_text(s, cand, i, -1);
    for (Py_ssize_t j = 0; rc == 0 && j < k; j++) rc = snap_text(s, s->list[j], i, j);
    for (Py_ssize_t j = 0; j < k; j++) Py_DECREF(s->list[j]);
    return rc;
}

static PyObject *outer_tuple(PyObject *seq, const char *name) {
    if (!PySequence_Check(seq) && !Py_TYPE(seq)->tp_iter) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence, got %.100s", name, type_name(seq));
        return NULL;
    }
    return PySequence_Tuple(seq);
}

/* Pass 1 over the whole batch; fills s and b->inst_start. */
static int snapshot_batch(Snapshot *s, TokenBatch *b, PyObject *cands_in, PyObject *lists_in, int kind) {
    const int refs = kind == LISTS_OF_REFERENCES;
    PyObject *cands = outer_tuple(cands_in, "cands"), *lists = NULL;
    int rc = -1;
    if (!cands || !(lists = outer_tuple(lists_in, refs ? "ref_lists" : "source_lists"))) goto done;
    b->N = PyTuple_GET_SIZE(cands);
    if (PyTuple_GET_SIZE(lists) != b->N) {
        PyErr_Format(PyExc_ValueError, "got %zd candidates but %zd %s", b->N, PyTuple_GET_SIZE(lists),
                     refs ? "reference lists" : "source lists");
        goto done;
    }
    b->inst_start = (int64_t *)malloc(((size_t)b->N + 1) * sizeof(int64_t));
    if (!b->inst_start) { PyErr_NoMemory(); goto done; }
    s->all_str = 1;
    s->all_ints = 1;
    for (Py_ssize_t i = 0; i < b->N; i++) {
        b->inst_start[i] = (int64_t)s->n;
        const Py_ssize_t k = snap_list(s, PyTuple_GET_ITEM(lists, i), i, kind);
        if (k < 0 || snap_instance(s, PyTuple_GET_ITEM(cands, i), k, i) < 0) goto done;
    }
    b->inst_start[b->N] = (int64_t)s->n;
    b->T = (Py_ssize_t)s->n;
    rc = 0;
done:
    Py_XDECREF(cands);
    Py_XDECREF(lists);
    return rc;
}

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
    PyObject *w = where(t->inst, t->ref);
    if (!w) { Py_XDECREF(type); Py_XDECREF(value); Py_XDECREF(tb); return; }
    PyErr_Format(type, "%U: token %zd (%.100s): %S", w, p, type_name(tok), value);
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
    int rc = snapshot_batch(&s, b, cands, lists, kind);
    if (rc == 0) rc = read_ids(&s, b);
    snapshot_free(&s);
    return rc;
}

void batch_free(TokenBatch *b) {
    free(b->inst_start);
    free(b->text_off);
    free(b->toks);
    memset(b, 0, sizeof(*b));
}
