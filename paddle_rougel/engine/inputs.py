"""One validated, immutable batch of scoring instances.

Every metric consumes a :class:`Batch`, so an instance is checked once, at the
call that gives it, and nothing the caller does afterwards changes what is
scored.  :func:`make_batch`:

* checks the structure; an error names the instance (``instance {base + i}``,
  the running index in the metric) and the reference or entity;
* snapshots the tokens: a ``str`` is kept (immutable; its characters are the
  tokens); a list, tuple or other iterable of hashable tokens becomes a tuple;
  a numpy integer array becomes a read-only copy; sets and mappings are
  refused (they have no order);
* flags the common all-``str`` case (``plain``), checked at C speed, so that
  case skips the per-instance work;
* decodes the DuReader bonus inputs once: per instance either ``yn_match``
  (one bool per reference: its label equals the candidate's) or ``entities``
  (a tuple), as the contest does (the yes/no bonus wins when both are given).

>>> b = make_batch(["abc", ["x", "y"]], [["abd"], iter([("x",), ["y"]])])
>>> b.cands, b.ref_lists, b.plain
(('abc', ('x', 'y')), (('abd',), (('x',), ('y',))), False)
>>> make_batch(["ab"], [["ab", "cd"]], yn_labels=["Yes"], yn_refs=[["Yes", "No"]]).yn_match
((True, False),)
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence as SequenceABC
from typing import Any, Callable, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ..core.text import as_str, unordered  # noqa: F401 - read here by the engine
from . import cext

__all__ = ["Batch", "FlatRefs", "OneRef", "make_batch", "str_pairs_batch", "plain_instance", "pair_lists", "pairs_batch",
           "check_tokens", "ref_items", "unordered", "as_str", "locate", "what_is",
           "ids_against_text"]


def locate(e: BaseException, where: str) -> BaseException:
    """The error ``e`` of a tokenizer (``text.TokenizerError``, the ``TypeError`` of a result that
    is not tokens) again with its place in front, chained to the same cause: raise it."""
    try:
        out = type(e)(f"{where}: {e}")
    except Exception:  # noqa: BLE001 - an exception type that takes other arguments: as it was
        return e
    out.__cause__ = e.__cause__
    out.__suppress_context__ = True
    return out


class FlatRefs(SequenceABC):
    """Per-instance reference tuples kept flat: instance i's are ``flat[offsets[i]:offsets[i+1]]``.

    A str batch's references as the C snapshot makes them (one tuple for the
    batch, not one per instance); it reads as a tuple of tuples.

    >>> refs = FlatRefs(("a", "b", "c"), np.array([0, 2, 3]))
    >>> len(refs), refs[0], list(refs)
    (2, ('a', 'b'), [('a', 'b'), ('c',)])
    """

    __slots__ = ("flat", "offsets")

    def __init__(self, flat: tuple, offsets: np.ndarray):
        self.flat = flat
        self.offsets = offsets  # int64 [N+1], read-only

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self)[i]
        o = self.offsets
        i = range(len(self))[i]  # negative indexes and IndexError as a tuple's
        return self.flat[o[i]:o[i + 1]]

    def __iter__(self):
        o = self.offsets.tolist()
        return (self.flat[a:b] for a, b in zip(o, o[1:]))

    def __repr__(self) -> str:
        return f"FlatRefs({tuple(self)!r})"


class OneRef(SequenceABC):
    """Per-instance reference tuples when each instance has exactly one reference:
    ``refs[i]`` is instance i's; it reads as a tuple of 1-tuples without making them (the
    engine takes ``refs`` as is: ``engine.lcs_batch``).

    >>> refs = OneRef(("a", "b"))
    >>> len(refs), refs[1], list(refs)
    (2, ('b',), [('a',), ('b',)])
    """

    __slots__ = ("refs",)

    def __init__(self, refs: tuple):
        self.refs = refs

    def __len__(self) -> int:
        return len(self.refs)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self)[i]
        return (self.refs[i],)

    def __iter__(self):
        return zip(self.refs)

    def __repr__(self) -> str:
        return f"OneRef({self.refs!r})"


class Batch(NamedTuple):
    """A validated batch: immutable all the way down (tuples; a str batch of summaries keeps
    its references in one flat tuple, :class:`FlatRefs`), safe to keep and to share."""

    cands: tuple
    ref_lists: Sequence         # one non-empty tuple of references per instance (a tuple, FlatRefs or OneRef)
    plain: bool                 # every candidate and reference is a str
    yn_match: Optional[tuple]   # per instance: tuple of bool per reference, or None
    entities: Optional[tuple]   # per instance: tuple of entities, or None
    tokenized: bool = False     # str inputs were turned into word tokens by text settings
    # (mode, fold) of the C word reader: the strs are kept as given and split into words by
    # the engine (``engine.lcs_batch(words=...)``); None: the tokens are as they are here
    words: Optional[tuple] = None

    def __len__(self) -> int:  # the number of instances (not of fields)
        return len(self.cands)


_STR = {str}
_SEQS = {list, tuple}

# the type check of a batch of texts at C speed (optional, like the engine)
_c_str_tuple = getattr(cext.lcs, "str_tuple", None)


def str_tuple(items: Sequence) -> Optional[tuple]:
    """``items`` as a tuple (the same object when it is one) when every item is a ``str``
    (exactly: a subclass may read differently), else None.

    >>> str_tuple(["a", "b"]), str_tuple(("a", 1))
    (('a', 'b'), None)
    """
    if _c_str_tuple is not None:
        return _c_str_tuple(items)
    t = tuple(items)
    return t if set(map(type, t)) <= _STR else None


def _plain(cands: Sequence, ref_lists: Sequence) -> bool:
    """Every candidate a str, every ref_list a non-empty list/tuple of str (C-speed set checks)."""
    return (set(map(type, cands)) <= _STR and set(map(type, ref_lists)) <= _SEQS
            and all(ref_lists) and set(map(type, itertools.chain.from_iterable(ref_lists))) <= _STR)


def _token_tuples(cands: Sequence, ref_lists: Sequence, snapshot: bool) -> Optional[tuple]:
    """(cands, ref_lists) as tuples when every candidate and reference is a list or tuple of
    hashable tokens and every ref_list a non-empty list or tuple (checked at C speed: one
    hash() of the whole snapshot); None otherwise (the per-instance checks name the problem).
    snapshot=False: the outer tuples only, the token lists as given, unchecked (for a batch
    the C reader takes at once: it snapshots them itself and names an unhashable token)."""
    if not (set(map(type, cands)) <= _SEQS and set(map(type, ref_lists)) <= _SEQS and all(ref_lists)
            and set(map(type, itertools.chain.from_iterable(ref_lists))) <= _SEQS):
        return None
    if not snapshot:
        return tuple(cands), tuple(ref_lists)
    c_out = tuple(map(tuple, cands))
    r_out = tuple(tuple(map(tuple, rl)) for rl in ref_lists)
    try:
        hash((c_out, r_out))  # every token hashable (a str's hash is cached: cheap)
    except Exception:  # noqa: BLE001 - the slow path raises the named error
        return None
    return c_out, r_out


def str_pairs_batch(cands: Sequence, refs: Sequence, tokenizer=None) -> Optional[Batch]:
    """The batch of (cands[i], refs[i]) when every item is a ``str`` and the text settings are
    characters (``tokenizer`` None) or have a C word reader: the strs kept as given, one
    reference each (:class:`OneRef`), checked at C speed; None otherwise.

    >>> b = str_pairs_batch(["ab", "c"], ["b", "cd"])
    >>> b.cands, tuple(b.ref_lists), b.words
    (('ab', 'c'), (('b',), ('cd',)), None)
    """
    cw = getattr(tokenizer, "c_words", None)
    if tokenizer is not None and cw is None:
        return None
    if len(cands) != len(refs):
        return None
    cs = str_tuple(cands)
    rs = str_tuple(refs) if cs is not None else None
    if rs is None:
        return None
    return Batch(cs, OneRef(rs), True, None, None, cw is not None, cw)


def plain_instance(cand: Any, ref_list: Any) -> Optional[Batch]:
    """A one-instance Batch when the instance is a str and a non-empty list of str (nothing to
    check: the common ``add_inst`` call, a few hundred nanoseconds); None otherwise."""
    if type(cand) is str and type(ref_list) in _SEQS and ref_list and \
            all(type(r) is str for r in ref_list):
        return Batch((cand,), (tuple(ref_list),), True, None, None, False)
    return None


def what_is(x: Any) -> str:
    """What a non-sequence item is, for an error ("float nan (a missing value? ...)")."""
    if isinstance(x, float) and x != x:
        return "float nan (a missing value? pandas reads an empty cell as NaN: fill or drop it)"
    return type(x).__name__


def check_tokens(seq: Any, where: str) -> Any:
    """A snapshot of one token sequence: a str, a read-only integer array, or a tuple.

    >>> check_tokens(["a", "b"], "x"), check_tokens("ab", "x")
    (('a', 'b'), 'ab')
    >>> check_tokens({"a"}, "instance 0, candidate")
    Traceback (most recent call last):
    TypeError: instance 0, candidate: a set has no order; expected a str or a sequence of tokens
    >>> check_tokens(b"abc", "instance 0, reference 0")
    Traceback (most recent call last):
    TypeError: instance 0, reference 0: got bytes where text is expected (its bytes would be scored as integer tokens): decode it first, e.g. x.decode('utf-8')
    """
    if isinstance(seq, str):
        return as_str(seq)
    if seq is None:
        raise TypeError(f"{where}: got None, expected a str or a sequence of tokens")
    if isinstance(seq, (bytes, bytearray)):
        raise TypeError(f"{where}: got {type(seq).__name__} where text is expected (its bytes would be "
                        "scored as integer tokens): decode it first, e.g. x.decode('utf-8')")
    if isinstance(seq, np.ndarray):
        if seq.ndim != 1:
            raise TypeError(f"{where}: expected a 1-D array of tokens, got shape {seq.shape}")
        if seq.dtype.kind in "iu":
            snap = seq.copy()  # the C engine reads integer buffers directly
            snap.flags.writeable = False
            return snap
        seq = seq.tolist()  # Python scalars compare and hash like the tokens they are
    elif unordered(seq):
        raise TypeError(f"{where}: {unordered(seq)} has no order; expected a str or a sequence of tokens")
    try:
        items = iter(seq)
    except TypeError:
        raise TypeError(f"{where}: got {what_is(seq)}, expected a str or a sequence of tokens") from None
    try:
        toks = tuple(items)
        hash(toks)  # one C-level pass: every token must be hashable
    except TypeError as e:
        raise TypeError(f"{where}: expected a str or a sequence of hashable tokens ({e})") from None
    return toks


def _kind(x: Any, sentences: bool) -> Optional[str]:
    """"text" (a str, or a summary with a str sentence), "ids" (tokens whose first is not a
    str: an integer array, a list of ids) or None (str tokens, or nothing to tell); a look at
    one token per sequence, never a pass over the tokens."""
    if isinstance(x, str):
        return "text"
    parts = x if sentences else (x,)
    if any(isinstance(p, str) for p in parts):
        return "text"
    for p in parts:
        if len(p) and (p.dtype.kind in "iu" if isinstance(p, np.ndarray) else not isinstance(p[0], str)):
            return "ids"
    return None


def ids_against_text(cand: Any, refs: tuple, index: int, sentences: bool = False) -> None:
    """A TypeError when one side of instance ``index`` is text (a str) and the other token ids
    (a sequence of non-str tokens): they never match, so the score would be 0 without a word.
    ``sentences``: each side is a summary (a str or a tuple of sentences: ROUGE-Lsum)."""
    kinds = [_kind(cand, sentences)] + [_kind(r, sentences) for r in refs]
    if "text" not in kinds or "ids" not in kinds:
        return
    other = "text" if kinds[0] == "ids" else "ids"
    j = kinds.index(other, 1) - 1
    ids_side, text_side = ("candidate", f"reference {j}") if kinds[0] == "ids" else (f"reference {j}", "candidate")
    raise TypeError(f"instance {index}: the {ids_side} is token ids (tokens that are not str) but the "
                    f"{text_side} is text (a str): ids never equal characters, so it would score 0; give "
                    "both as text (decode the ids) or both as ids")


def ref_items(ref_list: Any, index: int, what: str = "references") -> tuple:
    """The references of one instance as a non-empty tuple (structure only; shared with ROUGE-Lsum)."""
    if ref_list is None or isinstance(ref_list, (str, bytes)):
        got = "None" if ref_list is None else f"a bare {type(ref_list).__name__}"
        raise TypeError(f"instance {index}: ref_list must be a list of {what}, got {got} "
                        "(wrap a single reference as [ref])")
    if unordered(ref_list):
        raise TypeError(f"instance {index}: ref_list must be an ordered list of references, got "
                        f"{type(ref_list).__name__} (the order pairs references with yn_ref and "
                        "decides ties)")
    try:
        refs = tuple(ref_list)
    except TypeError:
        raise TypeError(f"instance {index}: ref_list must be a list of {what}, "
                        f"got {what_is(ref_list)}") from None
    if not refs:
        raise ValueError(f"instance {index}: ref_list is empty (need at least one reference)")
    return refs


def _check_ref_list(ref_list: Any, index: int) -> tuple:
    refs = ref_items(ref_list, index)
    return tuple(check_tokens(r, f"instance {index}, reference {j}") for j, r in enumerate(refs))


def check_instance(cand: Any, ref_list: Any, index: int) -> Tuple[Any, tuple]:
    """Snapshot and check one (candidate, ref_list); errors name ``instance {index}``."""
    if cand is None:
        raise TypeError(f"instance {index}: candidate is None")
    refs = _check_ref_list(ref_list, index)
    cand = check_tokens(cand, f"instance {index}, candidate")
    ids_against_text(cand, refs, index)
    return cand, refs


def _collection(x: Any, where: str, what: str) -> tuple:
    """``x`` as a tuple; a bare str or a non-iterable is a TypeError naming ``what``."""
    if isinstance(x, (str, bytes)):
        raise TypeError(f"{where}: {what}, got a bare {type(x).__name__}")
    try:
        return tuple(x)
    except TypeError:
        raise TypeError(f"{where}: {what}, got {type(x).__name__}") from None


def _check_yn(yn_label: Any, yn_ref: Any, n_refs: int, index: int) -> tuple:
    labels = _collection(yn_ref, f"instance {index}",
                         "yn_ref must be a list of labels, one per reference")
    if len(labels) != n_refs:
        raise ValueError(f"instance {index}: yn_ref has {len(labels)} labels but ref_list has "
                         f"{n_refs} references (need one label per reference)")
    # paddlenlp's test is `not (label != ref_label)`; keep its exact semantics
    return tuple(not (yn_label != lab) for lab in labels)


def _check_entities(entity_ref: Any, cand: Any, index: int, tokenizer=None) -> tuple:
    ents = _collection(entity_ref, f"instance {index}",
                       "entity_ref must be a collection of entities (wrap one as [entity])")
    out = []
    for j, e in enumerate(ents):
        where = f"instance {index}, entity {j}"
        if e is None:
            raise TypeError(f"{where}: got None")
        if tokenizer is not None and isinstance(e, str):
            try:
                out.append(tokenizer(as_str(e)))
            except (TypeError, ValueError) as err:  # a tokenize callable's: name the entity
                raise locate(err, where)
            continue
        if isinstance(cand, str) and not isinstance(e, str):
            raise TypeError(f"{where}: the candidate is a str, so entities must be str too "
                            f"(got {type(e).__name__})")
        snap = check_tokens(e, where)
        # a list stays a (private) list: the bonus tests `e in cand`, where a list
        # never equals a tuple token (paddlenlp's semantics)
        out.append(list(snap) if isinstance(e, list) else snap)
    return tuple(out)


def _column(xs: Optional[Sequence], n: int, what: str) -> Sequence:
    if xs is None:
        return itertools.repeat(None, n)
    if isinstance(xs, (str, bytes)):
        raise TypeError(f"add_batch: {what} must be a list with one item per instance, got a str")
    xs = xs if isinstance(xs, (list, tuple)) else list(xs)
    if len(xs) != n:
        raise ValueError(f"add_batch: got {n} candidates but {len(xs)} {what}")
    return xs


def _engine_checks_tokens() -> bool:
    """The back end in use reads token lists once and names a bad token (``Backend.checks_tokens``)."""
    from .registry import get_backend  # engine imports this module (as_str, unordered): not at import time

    return get_backend().checks_tokens


def make_batch(cands: Sequence, ref_lists: Sequence, yn_labels: Optional[Sequence] = None,
               yn_refs: Optional[Sequence] = None, entity_refs: Optional[Sequence] = None,
               base: int = 0, tokenizer: Optional[Callable[[str], Any]] = None,
               hint: Optional[Callable[[Sequence, Sequence], None]] = None,
               words: bool = False, snapshot: bool = True) -> Batch:
    """Validate and snapshot N instances (see the module doc); errors name ``instance {base + i}``.

    The bonus columns hold one item (or None) per instance.  ``yn_refs`` is used
    only where ``yn_labels`` is given too (as paddlenlp), ``entity_refs`` only
    where the yes/no bonus does not apply.  ``tokenizer`` (from the text
    settings) turns every ``str`` candidate, reference and entity into tokens;
    token lists are passed through untouched.  ``hint`` (the metric's
    :class:`paddle_rougel.hints.Hinter`) looks at the valid inputs first.
    ``words=True`` (a consumer that scores
    with ``engine.lcs_batch(..., words=batch.words)``): when the tokenizer has a C word
    reader (``c_words``), the batch is all ``str`` and has no bonus columns, the strs are
    kept and ``Batch.words`` says how the engine splits them.  ``snapshot=False`` (a batch
    scored at once, never buffered, by a back end that checks tokens: the C one): lists of
    token lists are not copied or checked here (the engine reads them once, names a bad
    token, and the caller gets only numbers back).
    """
    if isinstance(cands, (str, bytes)) or isinstance(ref_lists, (str, bytes)):
        raise TypeError("expected a list of candidates and a list of reference lists, not a str")
    cands = cands if isinstance(cands, (list, tuple)) else list(cands)
    ref_lists = ref_lists if isinstance(ref_lists, (list, tuple)) else list(ref_lists)
    n = len(cands)
    if len(ref_lists) != n:
        raise ValueError(f"got {n} candidates but {len(ref_lists)} reference lists")
    if _plain(cands, ref_lists):
        c_out, r_out = tuple(cands), tuple(map(tuple, ref_lists))
        plain = True
    elif (toks := _token_tuples(cands, ref_lists, snapshot or not _engine_checks_tokens())) is not None:
        (c_out, r_out), plain = toks, False
    else:
        pairs = [check_instance(c, r, base + i) for i, (c, r) in enumerate(zip(cands, ref_lists))]
        c_out = tuple(p[0] for p in pairs)
        r_out = tuple(p[1] for p in pairs)
        plain = all(type(c) is str for c in c_out) and all(
            type(r) is str for refs in r_out for r in refs)
    if hint is not None:
        hint(cands, ref_lists)
    cw = getattr(tokenizer, "c_words", None)
    if words and cw is not None and plain and yn_labels is None and entity_refs is None:
        return Batch(c_out, r_out, True, None, None, True, cw)
    if tokenizer is not None:
        c_out, r_out, plain = _tokenized(c_out, r_out, tokenizer, base)
    if yn_labels is None and entity_refs is None:
        return Batch(c_out, r_out, plain, None, None, tokenizer is not None)
    yn, ents = _bonus_columns(c_out, r_out, yn_labels, yn_refs, entity_refs, base, tokenizer)
    return Batch(c_out, r_out, plain, yn, ents, tokenizer is not None)


def _tokenized(cands: tuple, refs: tuple, tok: Callable, base: int = 0) -> tuple:
    """Apply the text settings' tokenizer (str -> str of characters, or a tuple) to every str
    (already exact: ``check_tokens``); its errors gain the instance and side."""
    if all(type(c) is str for c in cands) and all(type(r) is str for rl in refs for r in rl):
        f = tok  # the common case at C speed
    else:
        def f(x):
            return tok(x) if type(x) is str else x
    # list.extend keeps what it appended before an error: its length is the failing item
    c_out: list = []
    try:
        c_out.extend(map(f, cands))
    except (TypeError, ValueError) as e:
        raise locate(e, f"instance {base + len(c_out)}, candidate")
    r_out = []
    for i, rl in enumerate(refs):
        got: list = []
        try:
            got.extend(map(f, rl))
        except (TypeError, ValueError) as e:
            raise locate(e, f"instance {base + i}, reference {len(got)}")
        r_out.append(tuple(got))
    plain = all(type(c) is str for c in c_out) and all(type(r) is str for rl in r_out for r in rl)
    return tuple(c_out), tuple(r_out), plain


def _bonus_columns(cands: tuple, refs: tuple, yn_labels, yn_refs, entity_refs, base: int,
                   tokenizer=None):
    n = len(cands)
    yn_out, ent_out = [None] * n, [None] * n
    cols = zip(_column(yn_labels, n, "yn_labels"), _column(yn_refs, n, "yn_refs"),
               _column(entity_refs, n, "entity_refs"))
    for i, (yl, yr, er) in enumerate(cols):
        if yl is not None and yr is not None:
            yn_out[i] = _check_yn(yl, yr, len(refs[i]), base + i)
        elif er is not None:
            ent_out[i] = _check_entities(er, cands[i], base + i, tokenizer)
    has_yn = any(x is not None for x in yn_out)
    has_ent = any(x is not None for x in ent_out)
    return (tuple(yn_out) if has_yn else None), (tuple(ent_out) if has_ent else None)


def split_words(batch: Batch) -> Batch:
    """A batch whose strs the C reader would split (``words``), split by the Python tokenizer."""
    if batch.words is None:
        return batch
    mode, fold = batch.words
    from ..core.text import TextSettings

    tok = TextSettings("whitespace", lowercase=fold) if mode == 0 else TextSettings("rouge_score")
    c_out, r_out, plain = _tokenized(batch.cands, batch.ref_lists, tok.tokenizer())
    return Batch(c_out, r_out, plain, batch.yn_match, batch.entities, True, None)  # (no _replace:
    # Batch.__len__ counts instances, which NamedTuple._make mistakes for its field count)


def split_texts(cands: Sequence, ref_lists: Sequence, words: tuple) -> Tuple[tuple, tuple]:
    """Candidates and reference lists split into words by the Python tokenizer of the C word
    reader's ``words`` settings (the general path when a fast path does not take them)."""
    b = make_batch(cands, ref_lists)
    split = split_words(Batch(b.cands, b.ref_lists, b.plain, None, None, False, tuple(words)))
    return split.cands, split.ref_lists


def fast_refs(ref_lists: Any) -> Tuple[Sequence, bool]:
    """``(refs, one_ref)`` as the word-reading fast paths take references: a :class:`OneRef`'s
    strs themselves (``one_ref`` True), else the reference lists as a list or tuple."""
    if isinstance(ref_lists, OneRef):
        return ref_lists.refs, True
    return (ref_lists if isinstance(ref_lists, (list, tuple)) else list(ref_lists)), False


def concat(batches: Sequence[Batch]) -> Batch:
    """One batch of the instances of several (in order)."""
    if len(batches) == 1:
        return batches[0]
    if len({b.words for b in batches}) > 1:  # texts kept for the C reader next to tokens
        batches = [split_words(b) for b in batches]
    def col(name):
        if all(getattr(b, name) is None for b in batches):
            return None
        n_of = [len(b.cands) for b in batches]
        return tuple(itertools.chain.from_iterable(
            getattr(b, name) if getattr(b, name) is not None else (None,) * k
            for b, k in zip(batches, n_of)))

    return Batch(tuple(itertools.chain.from_iterable(b.cands for b in batches)),
                 tuple(itertools.chain.from_iterable(b.ref_lists for b in batches)),
                 all(b.plain for b in batches), col("yn_match"), col("entities"),
                 any(b.tokenized for b in batches), batches[0].words)


def pairs_batch(hypotheses: tuple, references: tuple, tokenizer, hint) -> Batch:
    """The batch of a per-pair call's snapshots (:func:`pair_lists`), one reference each: strs
    kept for the C word reader (:func:`str_pairs_batch`), else checked by :func:`make_batch`
    (errors name the instance); the tokenization ``hint`` given either way."""
    batch = str_pairs_batch(hypotheses, references, tokenizer)
    if batch is None:
        return make_batch(hypotheses, list(zip(references)), tokenizer=tokenizer, hint=hint, words=True,
                          snapshot=False)
    hint(hypotheses, references)
    return batch


def pair_lists(name: str, hypotheses: Sequence, references: Sequence) -> tuple:
    """The two lists of a per-pair call (``rouge_l``, ``rouge_lsum``, ``rouge_n``): one reference
    per hypothesis; a bare str or a length mismatch is an error naming the call."""
    if isinstance(hypotheses, (str, bytes)) or isinstance(references, (str, bytes)):
        raise TypeError(f"{name} takes a list of hypotheses and a list of references, not a single str")
    hypotheses, references = tuple(hypotheses), tuple(references)  # (a tuple is kept: it cannot change)
    if len(hypotheses) != len(references):
        raise ValueError(f"{name}: got {len(hypotheses)} hypotheses but {len(references)} references")
    return hypotheses, references
