/* paddle_rougel._lcs, the ROUGE-Lsum bindings: lsum_batch (sentences as token sequences),
 * lsum_text (str texts read in C) and lsum_text_snapshot.  The common part: module.c. */
#include "module_common.h"

#include <stdlib.h>
#include <string.h>

#include "lsum_kernel.h"
#include "partition.h"

MOD_DOC(py_lsum_batch_doc,
"lsum_batch(sentence_lists, doc_sizes, ref_count, threads=1, scratch=256 MiB, base=0) -> (hits, doc_len)\n\n"
"sentence_lists[i]: the sentences of instance i, its candidate's then each\n"
"reference's (texts as lcs_batch); doc_sizes: sentences per document, the\n"
"candidate first, instance by instance [D]; ref_count: references per\n"
"instance [N].  Returns bytearrays of native int64: rouge-score's clipped\n"
"union-LCS hits of every reference [D-N] and the tokens of every document [D].\n"
"scratch: bytes of LCS table for the call, shared by its threads (see\n"
"lsum_kernel.h); a pair that cannot fit raises ValueError naming instance\n"
"base + i.");

/* The threads for a ROUGE-Lsum batch, and in *share each one's bytes of LCS table: the
 * budget is the call's, split between the threads; as many threads as asked while each
 * has room for the largest pair (lsum_pair_scratch), fewer otherwise.  A pair that does
 * not fit in the whole budget: ValueError naming the first such instance (base + i),
 * before any work.  need(b, i, share, out) is lsum_text_need, or lsum_need. */
static int lsum_threads(const void *b, Py_ssize_t N, int threads, Py_ssize_t budget_in, Py_ssize_t base,
                        void (*need)(const void *, size_t, size_t, LsumNeed *), size_t *share) {
    if (budget_in <= 0) {
        PyErr_SetString(PyExc_ValueError, "scratch must be > 0 bytes");
        return -1;
    }
    const size_t budget = (size_t)budget_in;
    if (threads > PARTITION_MAX_THREADS) threads = PARTITION_MAX_THREADS;
    if (threads < 1) threads = 1;
    size_t most = 0;
    for (Py_ssize_t i = 0; i < N; i++) {
        LsumNeed x;
        need(b, (size_t)i, budget / (size_t)threads, &x);
        if (x.need > budget) {
            PyErr_Format(PyExc_ValueError,
                         "instance %zd: candidate sentence %lld (%lld tokens) against reference %lld, sentence "
                         "%lld (%lld tokens): ROUGE-Lsum needs %zu bytes of LCS scratch, over the limit of %zu "
                         "(paddle_rougel.lsum.SCRATCH_BYTES); split these sentences",
                         base + i, (long long)x.cand_sent, (long long)x.n, (long long)x.ref,
                         (long long)x.ref_sent, (long long)x.m, x.need, budget);
            return -1;
        }
        if (x.need > most) most = x.need;
    }
    while (threads > 1 && budget / (size_t)threads < most) threads--;
    *share = budget / (size_t)threads;
    return threads;
}

static void token_need(const void *b, size_t i, size_t share, LsumNeed *out) {
    (void)share;
    lsum_need((const LsumBatch *)b, i, out);
}

static void text_need(const void *b, size_t i, size_t share, LsumNeed *out) {
    lsum_text_need((const LsumTextBatch *)b, i, share, out);
}

/* sent_off / doc_sent / inst_doc of a read batch whose text 0 of each instance is a placeholder. */
static int lsum_layout(const TokenBatch *b, const int64_t *sizes, Py_ssize_t D, const int64_t *refs,
                       int64_t *sent_off, int64_t *doc_sent, int64_t *inst_doc) {
    Py_ssize_t s = 0, d = 0;
    for (Py_ssize_t i = 0; i < b->N; i++) {
        for (int64_t t = b->inst_start[i] + 1; t < b->inst_start[i + 1]; t++) sent_off[s++] = b->text_off[t];
        inst_doc[i] = d;
        int64_t have = 0;
        for (int64_t r = 0; r <= refs[i] && d < D; r++) have += sizes[d++];
        if (d - inst_doc[i] != refs[i] + 1 || have != b->inst_start[i + 1] - b->inst_start[i] - 1) {
            PyErr_Format(PyExc_ValueError, "instance %zd: doc_sizes / ref_count do not match its sentences", i);
            return -1;
        }
    }
    if (d != D) { PyErr_SetString(PyExc_ValueError, "doc_sizes has more entries than documents"); return -1; }
    sent_off[s] = b->text_off[b->T];
    inst_doc[b->N] = d;
    doc_sent[0] = 0;
    for (Py_ssize_t k = 0; k < D; k++) doc_sent[k + 1] = doc_sent[k] + sizes[k];
    return 0;
}

PyObject *py_lsum_batch(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"sentence_lists", "doc_sizes", "ref_count", "threads", "scratch", "base", NULL};
    PyObject *lists, *sizes_in, *refs_in, *hits = NULL, *dlen = NULL, *result = NULL, *blanks = NULL;
    int threads = 1;
    Py_ssize_t scratch = (Py_ssize_t)LSUM_DEFAULT_SCRATCH, base = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|inn", kwlist, &lists, &sizes_in, &refs_in, &threads,
                                     &scratch, &base))
        return NULL;
    TokenBatch b;
    memset(&b, 0, sizeof(b));
    Py_ssize_t D = 0, N = 0;
    int64_t *sizes = NULL, *refs = NULL, *so = NULL, *ds = NULL, *id = NULL, *dl;
    double *cost = NULL;
    if (!(sizes = mod_read_counts(sizes_in, &D, "doc_sizes")) || !(refs = mod_read_counts(refs_in, &N, "ref_count"))) goto done;
    blanks = mod_repeat_steal(Py_BuildValue("(s)", ""), N);  /* "" placeholders: all-str batches keep code points */
    if (!blanks || batch_read(&b, blanks, lists, LISTS_OF_SOURCES) < 0) goto done;
    so = (int64_t *)malloc(((size_t)(b.T - b.N) + 1) * sizeof(int64_t));
    ds = (int64_t *)malloc(((size_t)D + 1) * sizeof(int64_t));
    id = (int64_t *)malloc(((size_t)N + 1) * sizeof(int64_t));
    cost = (double *)malloc(((size_t)N + 1) * sizeof(double));
    if (!so || !ds || !id || !cost) { PyErr_NoMemory(); goto done; }
    if (lsum_layout(&b, sizes, D, refs, so, ds, id) < 0) goto done;
    LsumBatch L = {b.toks, so, ds, id, NULL, 0};
    if ((threads = lsum_threads(&L, N, threads, scratch, base, token_need, &L.scratch)) < 0) goto done;
    if (!(hits = mod_int64_array(D - N, &L.hits)) || !(dlen = mod_int64_array(D, &dl))) goto done;
    for (Py_ssize_t d = 0; d < D; d++) dl[d] = so[ds[d + 1]] - so[ds[d]];
    for (Py_ssize_t i = 0; i < N; i++) cost[i] = lsum_cost(&L, (size_t)i);
    if (mod_run_kernel(cost, N, threads, lsum_range, &L) < 0) goto done;
    result = Py_BuildValue("(OO)", hits, dlen);
done:
    Py_XDECREF(hits); Py_XDECREF(dlen); Py_XDECREF(blanks);
    free(sizes); free(refs); free(so); free(ds); free(id); free(cost);
    batch_free(&b);
    return result;
}

MOD_DOC(py_lsum_text_snapshot_doc,
"lsum_text_snapshot(cands, refs, one_ref=False) -> (cands, flat, offsets) or None\n\n"
"cands: a list or tuple of str; refs: per candidate a non-empty list or tuple of\n"
"str (with one_ref: a str, its only reference).  None unless every item has those\n"
"exact types; else a tuple of the candidates, a tuple of every reference in order,\n"
"and int64 offsets [N+1] (a bytearray): candidate i's references are\n"
"flat[offsets[i]:offsets[i+1]].");



/* The snapshot, or Py_None (a new reference) when the types do not fit.  No Python
 * code runs here, so a list cannot change between the count and the copy. */
static PyObject *flat_snapshot(PyObject *cands_in, PyObject *refs_in, int one_ref) {
    if (!mod_same_length_lists(cands_in, refs_in)) Py_RETURN_NONE;
    const Py_ssize_t N = PySequence_Fast_GET_SIZE(refs_in);
    PyObject **ci = PySequence_Fast_ITEMS(cands_in), **ri = PySequence_Fast_ITEMS(refs_in);
    const Py_ssize_t total = mod_str_refs_total(ci, ri, N, one_ref);
    if (total < 0) Py_RETURN_NONE;
    int64_t *off;
    PyObject *cands = PySequence_Tuple(cands_in), *flat = PyTuple_New(total), *offsets = mod_int64_array(N + 1, &off);
    PyObject *result = NULL;
    if (!cands || !flat || !offsets) goto done;
    Py_ssize_t t = 0;
    for (Py_ssize_t i = 0; i < N; i++) {
        off[i] = t;
        const Py_ssize_t k = mod_nrefs_of(ri, i, one_ref);
        PyObject **items = mod_refs_of(ri, i, one_ref);
        for (Py_ssize_t j = 0; j < k; j++) {
            Py_INCREF(items[j]);
            PyTuple_SET_ITEM(flat, t++, items[j]);
        }
    }
    off[N] = t;
    result = PyTuple_Pack(3, cands, flat, offsets);
done:
    Py_XDECREF(cands); Py_XDECREF(flat); Py_XDECREF(offsets);
    return result;
}

PyObject *py_lsum_text_snapshot(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "refs", "one_ref", NULL};
    PyObject *cands, *refs;
    int one_ref = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|p", kwlist, &cands, &refs, &one_ref)) return NULL;
    return flat_snapshot(cands, refs, one_ref);
}

MOD_DOC(py_lsum_text_doc,
"lsum_text(cands, flat, offsets, threads=1, chars=False, scratch=256 MiB, base=0, simd=-1)\n"
"    -> (hits, cand_len, ref_len) or None\n\n"
"ROUGE-Lsum text handling in C: sentences end at '\\n'; the tokens are\n"
"rouge-score's (the lowercased runs of [A-Za-z0-9]) or, with chars, every\n"
"character but '\\n'.  cands, flat, offsets: as lsum_text_snapshot returns them\n"
"(offsets=None: flat is a list of reference lists, snapshotted here).  None\n"
"(nothing computed) unless every text is a str (an ASCII str without chars).\n"
"hits and ref_len per (candidate, reference) pair, cand_len per candidate:\n"
"int64 bytearrays.  scratch, base: as lsum_batch.  simd: as lcs_words (0: the portable\n"
"ASCII reader even where the AVX-512 one runs; the same results).");

PyObject *py_lsum_text(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cands", "flat", "offsets", "threads", "chars", "scratch", "base", "simd", NULL};
    PyObject *cands, *flat, *offsets_in = Py_None, *snap = NULL, *result = NULL;
    PyObject *hits = NULL, *cand_len = NULL, *ref_len = NULL;
    int threads = 1, char_mode = 0, simd = -1;
    Py_ssize_t scratch = (Py_ssize_t)LSUM_DEFAULT_SCRATCH, base = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|Oipnni", kwlist, &cands, &flat, &offsets_in, &threads, &char_mode,
                                     &scratch, &base, &simd))
        return NULL;
    if (!mod_simd_ok("lsum_text", simd)) return NULL;
    Py_buffer ob = {0};
    const int64_t *off;
    int64_t *inst = NULL, *len = NULL, *doc_len = NULL;
    const char **chars = NULL;
    uint8_t *kind = NULL;
    double *cost = NULL;
    if (offsets_in == Py_None) {
        if (!(snap = flat_snapshot(cands, flat, 0))) return NULL;
        if (snap == Py_None) return snap;
        cands = PyTuple_GET_ITEM(snap, 0);
        flat = PyTuple_GET_ITEM(snap, 1);
        offsets_in = PyTuple_GET_ITEM(snap, 2);
    }
    if (!PyTuple_CheckExact(cands) || !PyTuple_CheckExact(flat)) {
        PyErr_SetString(PyExc_TypeError, "lsum_text: cands and flat must be tuples (see lsum_text_snapshot)");
        goto done;
    }
    if (PyObject_GetBuffer(offsets_in, &ob, PyBUF_SIMPLE) < 0) goto done;
    const Py_ssize_t N = PyTuple_GET_SIZE(cands), R = PyTuple_GET_SIZE(flat);
    off = (const int64_t *)ob.buf;
    /* the offsets are read with no check upstream: every candidate has a reference, all in flat */
    int ok = ob.len == (N + 1) * (Py_ssize_t)sizeof(int64_t) && off[0] == 0 && off[N] == R;
    for (Py_ssize_t i = 0; ok && i < N; i++) ok = off[i + 1] > off[i];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "lsum_text: offsets must be int64 [N+1] from 0 to len(flat), increasing");
        goto done;
    }
    /* texts in kernel order, instance by instance: the candidate, then its references.  The
     * tuples (held by the caller or snap) keep every str alive while the GIL is released. */
    const Py_ssize_t T = N + R;
    inst = (int64_t *)malloc(((size_t)N + 1) * sizeof(int64_t));
    len = (int64_t *)malloc(((size_t)T + 1) * sizeof(int64_t));
    doc_len = (int64_t *)malloc(((size_t)T + 1) * sizeof(int64_t));
    chars = (const char **)malloc(((size_t)T + 1) * sizeof(char *));
    cost = (double *)malloc(((size_t)N + 1) * sizeof(double));
    kind = (uint8_t *)malloc((size_t)T + 1);
    if (!inst || !len || !doc_len || !chars || !cost || !kind) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0, t = 0; i < N; i++) {
        inst[i] = t;
        for (Py_ssize_t j = off[i] - 1; j < off[i + 1]; j++, t++) {
            PyObject *x = j < off[i] ? PyTuple_GET_ITEM(cands, i) : PyTuple_GET_ITEM(flat, j);
#if PY_VERSION_HEX < 0x030C0000
            if (PyUnicode_CheckExact(x) && PyUnicode_READY(x) < 0) goto done;  /* a legacy str: its storage */
#endif
            if (!PyUnicode_CheckExact(x) || (!char_mode && !PyUnicode_IS_ASCII(x))) {  /* not for this path */
                result = Py_None;
                Py_INCREF(result);
                goto done;
            }
            chars[t] = (const char *)PyUnicode_DATA(x);
            len[t] = PyUnicode_GET_LENGTH(x);
            kind[t] = (uint8_t)PyUnicode_KIND(x);  /* 1, 2 or 4 bytes a character */
        }
    }
    inst[N] = T;
    int64_t *hp, *cl, *rl;
    if (!(hits = mod_int64_array(R, &hp)) || !(cand_len = mod_int64_array(N, &cl)) || !(ref_len = mod_int64_array(R, &rl)))
        goto done;
    LsumTextBatch L = {chars, len, inst, hp, doc_len, char_mode ? kind : NULL, 0, simd == 0};
    if ((threads = lsum_threads(&L, N, threads, scratch, base, text_need, &L.scratch)) < 0) goto done;
    for (Py_ssize_t i = 0; i < N; i++) cost[i] = lsum_text_cost(&L, (size_t)i);
    if (mod_run_kernel(cost, N, threads, lsum_text_range, &L) < 0) goto done;
    mod_split_lengths(N, inst, doc_len, NULL, cl, rl, NULL);
    result = PyTuple_Pack(3, hits, cand_len, ref_len);
done:
    if (ob.obj) PyBuffer_Release(&ob);
    free(inst); free(len); free(doc_len); free(chars); free(cost); free(kind);
    Py_XDECREF(hits); Py_XDECREF(cand_len); Py_XDECREF(ref_len); Py_XDECREF(snap);
    return result;
}
