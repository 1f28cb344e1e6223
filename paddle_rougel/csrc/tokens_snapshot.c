/* Token reading, pass 1: the snapshot (see tokens.c for both passes).  No token's __hash__ /
 * __eq__ runs here: the outer sequences become tuples we own, each text a str we own,
 * references to its tokens in one C array, or an integer buffer's values copied out. */
#include "tokens_snapshot.h"

#include <stdlib.h>
#include <string.h>

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

void tokens_snapshot_free(Snapshot *s) {
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
const char *tokens_type_name(PyObject *obj) {
    const char *name = Py_TYPE(obj)->tp_name, *dot = strrchr(name, '.');
    return dot ? dot + 1 : name;
}

/* "instance 3, candidate" / "instance 3, reference 1" */
PyObject *tokens_where(Py_ssize_t inst, Py_ssize_t ref) {
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
    PyObject *w = tokens_where(t->inst, t->ref);
    if (w) {
        PyErr_Format(PyExc_TypeError, "%U: got %.100s, expected a str or a sequence of tokens (%S)", w,
                     tokens_type_name(seq), value ? value : Py_None);
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
        bad = tokens_type_name(seq);
    if (bad) {
        PyObject *w = tokens_where(inst, ref);
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
            PyObject *w = tokens_where(inst, ref);
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
                     lst == Py_None ? "None" : tokens_type_name(lst));
        return -1;
    }
    if (!PySequence_Check(lst) && !Py_TYPE(lst)->tp_iter) {
        if (kind == LISTS_OF_REFERENCES)
            PyErr_Format(PyExc_TypeError, "instance %zd: ref_list must be a list of references, got %.100s",
                         i, tokens_type_name(lst));
        else
            PyErr_Format(PyExc_TypeError, "instance %zd: sources must be a list, got %.100s", i,
                         tokens_type_name(lst));
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
        PyErr_Format(PyExc_TypeError, "%s must be a sequence, got %.100s", name, tokens_type_name(seq));
        return NULL;
    }
    return PySequence_Tuple(seq);
}

/* Pass 1 over the whole batch; fills s and b->inst_start. */
int tokens_snapshot_batch(Snapshot *s, TokenBatch *b, PyObject *cands_in, PyObject *lists_in, int kind) {
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
