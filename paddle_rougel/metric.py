"""``RougeL``: a ``paddle.metric.Metric`` drop-in for ``paddlenlp.metrics.RougeL``.

The Paddle classes are thin: each holds a pure accumulator
(``accumulators.py``: state, scoring, merge) and adds what Paddle's ``Metric``
interface needs (``compute``, ``update``, ``accumulate``, ``name``), the
conversion of network output, and distributed sync.

Example (the numbers of paddlenlp's own docstring):
    >>> from paddle_rougel import RougeL
    >>> rougel = RougeL()
    >>> cand = ["The","cat","The","cat","on","the","mat"]
    >>> ref_list = [["The","cat","is","on","the","mat"], ["There","is","a","cat","on","the","mat"]]
    >>> rougel.add_inst(cand, ref_list)
    >>> print(rougel.score())
    0.7800511508951408
"""
from __future__ import annotations

import copy
import inspect
from typing import Any, Callable, Optional, Sequence

import numpy as np

from . import convert, engine, scoring
from ._paddle import all_gather_rows, all_reduce, import_paddle
from .accumulators import Accumulator, RougeLAccumulator
from .inputs import make_batch, plain_instance
from .settings import RougeLSettings, suggest
from .text import TextSettings

paddle = import_paddle()

__all__ = ["RougeL", "PaddleMetric"]


def reject_unknown(kwargs: dict, fn: Callable) -> None:
    """TypeError for keyword arguments ``fn`` does not take, with the closest name."""
    if kwargs:
        known = [p for p in inspect.signature(fn).parameters if p not in ("self", "kwargs")]
        key = sorted(kwargs)[0]
        raise TypeError(f"{fn.__qualname__.split('.')[0]}() got an unexpected keyword argument "
                        f"{key!r}{suggest(key, known)}")


class PaddleMetric(paddle.metric.Metric):
    """A ``paddle.metric.Metric`` over an accumulator: state, merge and sync come from it."""

    def __init__(self, acc: Accumulator, name: str, sync_dist: bool):
        super().__init__()
        self._acc = acc
        self._name = name
        self.sync_dist = bool(sync_dist)

    @property
    def accumulator(self) -> Accumulator:
        """The pure (numpy-only) accumulator behind this metric."""
        return self._acc

    def _sync(self):
        return all_reduce if self.sync_dist else None

    def confidence_interval(self, resamples: int = 1000, confidence: float = 0.95, seed: int = 0):
        """Percentile bootstrap interval of the score over instances (all ranks with
        ``sync_dist``): a :class:`paddle_rougel.stats.Interval` (estimate, low, high, ...)."""
        return self._acc.confidence_interval(resamples, confidence, seed,
                                             all_gather_rows if self.sync_dist else None)

    def name(self) -> str:
        return self._name

    def signature(self) -> str:
        """Every setting that changes the number, as one line (sacreBLEU style)."""
        from . import __version__

        return f"{self._acc.metric_name}|{self._acc.settings.signature()}|v:{__version__}"

    def reset(self) -> None:
        """Forget every instance."""
        self._acc.reset()

    def score(self) -> float:
        """Same as ``accumulate()`` (paddlenlp's name)."""
        return self.accumulate()

    def accumulate(self) -> float:
        """The figure over everything added (all ranks with ``sync_dist=True``); 0.0 when empty."""
        return self._acc.score(self._sync())

    def state_dict(self) -> dict:
        """The state as plain JSON-friendly data (see the README, "Distributed evaluation")."""
        return self._acc.state_dict()

    def load_state_dict(self, state: dict) -> None:
        """Replace the state with ``state``: a ``state_dict()``, or a state file of the
        command line (``--save-state``), from which this metric's entry is taken."""
        self._acc.load_state_dict(self._own_entry(state))

    def merge(self, other: "PaddleMetric | Accumulator | dict") -> "PaddleMetric":
        """Fold another metric, accumulator or state dict into this one, in place; returns self."""
        if isinstance(other, PaddleMetric):
            other = other._acc
        self._acc.merge(other if isinstance(other, Accumulator) else self._own_entry(other))
        return self

    def _own_entry(self, state: Any) -> Any:
        if isinstance(state, dict) and isinstance(state.get("metrics"), dict):
            mine = [v for v in state["metrics"].values()
                    if isinstance(v, dict) and v.get("metric") == self._acc.metric_name]
            if len(mine) != 1:
                raise ValueError(f"the state file holds {len(mine)} {self._acc.metric_name} states "
                                 f"(entries: {', '.join(map(str, state['metrics']))})")
            return mine[0]
        return state

    def _scored(self, batch) -> scoring.Score:
        """Score a validated batch now; its per-instance Score, as copies (the metric keeps its own)."""
        return _copied(self._acc.add_now(batch)[0])

    def __getattr__(self, name: str):
        # state fields (count, f_sum, ...) read through, after a flush
        acc = self.__dict__.get("_acc")
        if acc is not None and not name.startswith("_") and name in acc.field_names():
            return getattr(acc, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __copy__(self):
        # never share the accumulator (its buffer and fields) between two metrics
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._acc = copy.deepcopy(self._acc)
        return new


def _copied(s: scoring.Score) -> scoring.Score:
    return scoring.Score(*(np.array(a, dtype=np.float64) for a in s))


def _host_lcs(cands: list, refs: list) -> np.ndarray:
    """[B, 3] int64 (lcs, cand_len, ref_len) of row-aligned id arrays, by the C engine."""
    res = engine.lcs_batch(cands, [[r] for r in refs])
    return np.stack([res.lcs, res.cand_len, res.ref_len], axis=1)


def _is_float(x: Any) -> bool:
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return False
    if isinstance(x, np.ndarray):
        return x.dtype.kind == "f"
    return "float" in str(dtype)  # paddle dtypes (float16/32/64, bfloat16)


class RougeL(PaddleMetric):
    r"""ROUGE-L (LCS-based F-measure), averaged over instances.

    For a candidate C and reference S: P = LCS(C,S)/len(C), R = LCS(C,S)/len(S),
    F = (1 + gamma^2) P R / (R + gamma^2 P), 0 when P or R is 0.

    Args:
        trans_func: ``cand_list, ref_lists = trans_func(output, label, seq_mask)``
            turns network output into tokens for ``update`` (as paddlenlp).
        vocab: id -> token mapping for ``compute`` / ``update`` without ``trans_func``.
        gamma: recall weight (>= 0, finite). Default 1.2 as paddlenlp; the
            same weighting as ROUGE's alpha = 1 / (1 + gamma^2).
        name: metric name reported to hapi. Default ``"rouge-l"``.
        multi_ref: how several references combine: ``"max_pr"`` (default; max P
            and max R separately, as paddlenlp and DuReader), ``"best"`` (the
            reference with the highest F, as rouge-score), ``"avg"``.
        sync_dist: all-reduce the state over ``paddle.distributed`` in
            ``accumulate()``.  Leave it off under hapi ``Model`` on several
            ranks: hapi all-gathers the outputs before ``compute``.
        pad_id: network output: pad tokens are dropped from both sides.
        eos_id: network output: each side ends at its first eos (excluded).
        paddlenlp_compat: network output: reproduce paddlenlp's
            ``default_trans_func`` conversion exactly (logits multiplied by
            ``seq_mask`` before argmax; only the ``seq_mask`` cut).
        num_outputs, output_index: hapi calls ``compute(*outputs, *labels)``; a
            network with several outputs (e.g. ``(logits, hidden)``) says how
            many with ``num_outputs`` and which one is scored with ``output_index``.
        keep_instances: keep per-instance statistics in the state (``state_dict``,
            ``merge``, sync), for ``confidence_interval`` and ``compare`` across jobs.
        tokenize, normalize, lowercase, stem: how a ``str`` becomes tokens
            (:mod:`paddle_rougel.text`); the default scores characters as given,
            as paddlenlp.  Token lists are scored as given.

    Network output (no ``trans_func``): ``compute(output, label, seq_mask=None)``
    applies the cutting rules of :mod:`paddle_rougel.convert` where the data
    is: numpy arrays and CPU tensors on the host with the C engine, accelerator
    tensors with the Paddle-op LCS on their device.  It returns one int64 tensor
    [B, 3] of (lcs, cand_len, ref_len); ``update`` with that single array
    folds it into the state.  The model output is the candidate, the label the
    reference.  Unknown keyword arguments are an error.
    """

    def __init__(self, trans_func: Optional[Callable] = None, vocab: Any = None,
                 gamma: float = 1.2, name: str = "rouge-l", multi_ref: str = "max_pr",
                 sync_dist: bool = False, pad_id: Optional[int] = None,
                 eos_id: Optional[int] = None, paddlenlp_compat: bool = False,
                 tokenize: Any = "char", normalize: str = "none", lowercase: Optional[bool] = None,
                 stem: bool = False, num_outputs: int = 1, output_index: int = 0,
                 keep_instances: bool = False, **kwargs):
        reject_unknown(kwargs, RougeL.__init__)
        text = TextSettings(tokenize, normalize, lowercase, stem)
        settings = RougeLSettings(gamma=gamma, multi_ref=multi_ref, pad_id=pad_id, eos_id=eos_id,
                                  paddlenlp_compat=paddlenlp_compat, text=text)
        self._init(RougeLAccumulator(settings, keep_instances), trans_func, vocab, name, sync_dist)
        self._set_outputs(num_outputs, output_index)

    def _init(self, acc, trans_func, vocab, name, sync_dist) -> None:
        super().__init__(acc, name, sync_dist)
        self.trans_func = trans_func
        self.vocab = vocab
        self._set_outputs(1, 0)

    def _set_outputs(self, num_outputs: int, output_index: int) -> None:
        for what, v in (("num_outputs", num_outputs), ("output_index", output_index)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"{what} must be an int, got {type(v).__name__}")
        if num_outputs < 1 or not 0 <= output_index < num_outputs:
            raise ValueError(f"need num_outputs >= 1 and 0 <= output_index < num_outputs, got "
                             f"num_outputs={num_outputs}, output_index={output_index}")
        self.num_outputs, self.output_index = int(num_outputs), int(output_index)

    # settings are read-only: they are the identity of the state
    gamma = property(lambda self: self._acc.settings.gamma)
    multi_ref = property(lambda self: self._acc.settings.multi_ref)
    pad_id = property(lambda self: self._acc.settings.pad_id)
    eos_id = property(lambda self: self._acc.settings.eos_id)
    paddlenlp_compat = property(lambda self: self._acc.settings.paddlenlp_compat)
    text = property(lambda self: self._acc.settings.text)

    @property
    def vocab(self):
        return self._vocab

    @vocab.setter
    def vocab(self, vocab) -> None:
        self._vtable = None if vocab is None else convert.VocabTable(vocab)
        self._vocab = vocab

    # ----------------------------------------------------------- adding data
    def add_inst(self, cand: Any, ref_list: Sequence) -> None:
        """Add one candidate scored against its list of references.

        Args:
            cand: the candidate: a str (characters are tokens) or a sequence of tokens.
            ref_list: a non-empty list of references of the same kind.

        The tokens are copied now; a bad instance raises naming its index
        (counted from 0 since the last reset) and changes nothing.
        """
        tok = self._acc.tokenizer
        batch = plain_instance(cand, ref_list) if tok is None else None
        self._acc.add(batch or make_batch([cand], [ref_list], base=self._acc.n_seen(), tokenizer=tok,
                                          words=self._acc.reads_words))

    def add_batch(self, cands: Sequence, ref_lists: Sequence) -> scoring.Score:
        """Score many instances in one engine call; returns their per-instance Score.

        >>> m = RougeL(gamma=1.0)
        >>> s = m.add_batch(["abcd", "xy"], [["abce"], ["xy", "yx"]])
        >>> [round(float(v), 4) for v in s.fmeasure], round(m.score(), 4)
        ([0.75, 1.0], 0.875)
        """
        return self._scored(make_batch(cands, ref_lists, base=self._acc.n_seen(),
                                       tokenizer=self._acc.tokenizer, words=self._acc.reads_words))

    # --------------------------------------------------------------- results
    def scores(self) -> scoring.Score:
        """Macro-averaged precision, recall and F (metrax's figures), as floats."""
        return self._acc.scores(self._sync())

    def per_instance(self) -> scoring.Score:
        """Per-instance P, R, F (float64 arrays, in the order added) on this process."""
        return self._acc.per_instance()

    @property
    def inst_scores(self) -> list:
        """Per-instance F as a list of floats (paddlenlp's attribute)."""
        return self.per_instance().fmeasure.tolist()

    def lcs(self, string: Any, sub: Any) -> float:
        """LCS length of two sequences, as a float (paddlenlp compatibility)."""
        return float(engine.lcs_length(string, sub))

    # ------------------------------------------------------- paddle.metric API
    def compute(self, *args):
        """hapi step 1: the per-instance LCS figures, where the data is.

        ``compute(*outputs, label, seq_mask=None)``: the network's
        ``num_outputs`` outputs (the one at ``output_index`` is scored: logits
        [B, T, V] or ids [B, T]), then ``label`` (ids [B, T] or [B, T, 1]) and
        an optional ``seq_mask`` [B, T].  Returns ``[packed]``, an int64 tensor
        [B, 3] of (lcs, cand_len, ref_len), which hapi turns into numpy and
        hands to ``update``.  With ``trans_func`` the inputs are passed through
        unchanged (``update`` converts them).
        """
        output, label, seq_mask = self._split_args(args)
        if self.trans_func is not None:
            return [output, label] + ([] if seq_mask is None else [seq_mask])
        packed = self._packed(output, label, seq_mask)
        return [packed if isinstance(packed, paddle.Tensor) else paddle.to_tensor(packed)]

    def _split_args(self, args: tuple):
        k = self.num_outputs
        n_labels = len(args) - k
        if n_labels not in (1, 2):
            raise TypeError(
                f"compute() got {len(args)} arguments; with num_outputs={k} it expects {k} network "
                f"output(s), then label and an optional seq_mask ({k + 1} or {k + 2} arguments). "
                "A network with several outputs: RougeL(num_outputs=N, output_index=i)")
        label = args[k]
        if _is_float(label):
            raise TypeError(
                f"compute(): argument {k} (the label, after {k} network output(s)) holds floats: "
                f"if the network returns {k + 1} or more outputs (e.g. logits and hidden states), "
                f"pass RougeL(num_outputs=..., output_index=...)")
        return args[self.output_index], label, (args[k + 1] if n_labels == 2 else None)

    def _packed(self, output, label, seq_mask):
        """(lcs, cand_len, ref_len) per row: numpy on the host, a tensor on an accelerator.

        numpy data: the rules in numpy, then the C engine.  A tensor: the rules
        with Paddle ops on its place (the logits are never copied), then the C
        engine on the [B, T] ids when that place is the CPU, else the Paddle-op LCS.
        """
        s = self._acc.settings
        cuts = dict(pad_id=s.pad_id, eos_id=s.eos_id, mask_logits=s.paddlenlp_compat)
        if not isinstance(output, paddle.Tensor):  # numpy data (or lists): the host
            canon = None if self._vtable is None else self._vtable.current()
            return _host_lcs(*convert.host_tokens(output, label, seq_mask, canon=canon, **cuts))
        from . import device

        with paddle.no_grad():
            out = convert.as_tensor(output, "output")
            canon = None if self._vtable is None else self._vtable.tensor(out.place)
            cand, cv, ref, rv = convert.prepare(out, label, seq_mask, canon=canon, **cuts)
            if convert.on_host(out):
                return _host_lcs(*convert.rows(cand.numpy(), cv.numpy(), ref.numpy(), rv.numpy()))
            lcs = device.lcs_masked(cand, cv, ref, rv)
            return paddle.stack([lcs, cv.astype("int64").sum(axis=1),
                                 rv.astype("int64").sum(axis=1)], axis=1)

    def update(self, output, label=None, seq_mask=None):
        """Accumulate a batch.  Two call patterns, told apart by arity:

        * hapi: ``update(packed)``, one argument, the [B, 3] integer array of
          ``compute`` (lcs, cand_len, ref_len): folded into the state only;
        * paddlenlp: ``update(output, label[, seq_mask])`` with raw network
          output (numpy or tensors): with ``trans_func``,
          ``cand_list, ref_lists = trans_func(output, label, seq_mask)`` scored
          by the host engine (as paddlenlp); otherwise the same conversion as
          ``compute``, so both patterns give the same score.

        Unlike paddlenlp, no ``vocab`` is needed: without one, token ids are
        the tokens (paddlenlp raises instead).
        """
        if label is None:
            if seq_mask is not None:
                raise TypeError("update(): seq_mask given without label")
            return self._fold_packed(output)
        if self.trans_func is None:
            return self._fold_packed(self._packed(output, label, seq_mask))
        cand_list, ref_lists = self.trans_func(output, label, seq_mask)
        if len(cand_list) != len(ref_lists):
            raise ValueError(f"trans_func returned {len(cand_list)} candidates but "
                             f"{len(ref_lists)} reference lists")
        self.add_batch(cand_list, ref_lists)

    def _fold_packed(self, packed) -> scoring.Score:
        arr = convert.check_packed(packed)
        return _copied(self._acc.add_lcs(arr[:, 0], arr[:, 1], arr[:, 2]))


# --------------------------------------------------------------- ROUGE-Lsum

from .accumulators import RougeLsumAccumulator  # noqa: E402  (appended section)
from .settings import RougeLsumSettings  # noqa: E402


class RougeLsum(PaddleMetric):
    r"""ROUGE-Lsum (summary-level ROUGE-L, union LCS), averaged over instances.

    Exactly rouge-score 0.1.2's ``rougeLsum`` per (candidate, reference) pair
    (:mod:`paddle_rougel.lsum`); the same API, state, merge and sync as
    :class:`RougeL`, and the same ``gamma`` and ``multi_ref``.  A summary is a
    ``str``, split into sentences by ``split`` (``"newline"``, as rouge-score;
    ``"zh"``; ``"en"``), or a list of sentences, each a ``str`` or a token
    list; the text settings apply to each sentence.  rouge-score's numbers:
    ``gamma=1.0, multi_ref="best", tokenize="rouge_score"``.

    >>> m = RougeLsum(gamma=1.0, multi_ref="best", tokenize="rouge_score")
    >>> m.add_inst("The cat sat.\nIt was happy.", ["A cat sat down.\nIt was very happy."])
    >>> round(m.score(), 6)                  # P = 5/6, R = 5/8 (rouge-score's numbers)
    0.714286

    There is no hapi ``compute`` path (network output has no sentences):
    ``update(cands, ref_lists)`` is ``add_batch``.  Unknown keyword arguments
    are an error.
    """

    def __init__(self, gamma: float = 1.2, name: str = "rouge-lsum", multi_ref: str = "max_pr",
                 split: str = "newline", sync_dist: bool = False, tokenize: Any = "char",
                 normalize: str = "none", lowercase: Optional[bool] = None, stem: bool = False,
                 keep_instances: bool = False, **kwargs):
        reject_unknown(kwargs, RougeLsum.__init__)
        text = TextSettings(tokenize, normalize, lowercase, stem)
        settings = RougeLsumSettings(gamma=gamma, multi_ref=multi_ref, split=split, text=text)
        acc = (RougeLsumAccumulator(settings, keep_instances) if keep_instances
               else RougeLsumAccumulator(settings))
        super().__init__(acc, name, sync_dist)

    gamma = property(lambda self: self._acc.settings.gamma)
    multi_ref = property(lambda self: self._acc.settings.multi_ref)
    split = property(lambda self: self._acc.settings.split)
    text = property(lambda self: self._acc.settings.text)

    def _batch(self, cands: Sequence, ref_lists: Sequence):
        from .lsum import make_lsum_batch

        s = self._acc.settings
        return make_lsum_batch(cands, ref_lists, s.split, self._acc.tokenizer, s.raw_text(),
                               base=self._acc.n_seen())

    def add_inst(self, cand: Any, ref_list: Sequence) -> None:
        """Add one candidate summary scored against its list of reference summaries.

        The inputs are copied (and split and tokenized) now; a bad instance raises
        naming its index, reference and sentence, and changes nothing.
        """
        self._acc.add(self._batch([cand], [ref_list]))

    def add_batch(self, cands: Sequence, ref_lists: Sequence) -> scoring.Score:
        """Score many instances in one engine call; returns their per-instance Score."""
        return self._scored(self._batch(cands, ref_lists))

    def update(self, cands: Sequence, ref_lists: Sequence) -> scoring.Score:
        """``add_batch`` under Paddle's metric name."""
        return self.add_batch(cands, ref_lists)

    def scores(self) -> scoring.Score:
        """Macro-averaged precision, recall and F, as floats."""
        return self._acc.scores(self._sync())

    def per_instance(self) -> scoring.Score:
        """Per-instance P, R, F (float64 arrays, in the order added) on this process."""
        return self._acc.per_instance()
