"""ROUGE-L: the longest common subsequence of a candidate and a reference.

Everything of the metric: :class:`RougeLSettings`, :class:`RougeLAccumulator`
(the LCS of each pair by :mod:`paddle_rougel.engine`, then P, R, F per
instance), :class:`RougeL` (the ``paddle.metric.Metric``, a drop-in for
``paddlenlp.metrics.RougeL``, with the network-output path), :func:`rouge_l`
(TF-Text's per-pair call) and its ``SPEC``.

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

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import numpy as np

from ..engine import convert, host as engine
from ..core import scoring
from ..core.scoring import RougeLOutput
from .accumulators import PrfAccumulator
from ..core.hints import Hinter
from ..engine.inputs import Batch, check_tokens, make_batch, pair_lists, pairs_batch, plain_instance, str_pairs_batch
from .metric import PaddleMetric, copied, reject_unknown, paddle_module
from ..core.settings import SettingsError, Weighted, option_id, keywords_checked, text_of, weighting_of
from ..core.text import TextSettings
from .spec import MetricSpec

__all__ = ["RougeLSettings", "TextPrfAccumulator", "RougeLAccumulator", "RougeL", "rouge_l", "RougeLOutput", "SPEC"]


# ----------------------------------------------------------------- settings

@dataclass(frozen=True)
class RougeLSettings(Weighted):
    """ROUGE-L: the F weighting, how references combine, and the device-path cuts.

    F weighting: ``gamma`` (paddlenlp, DuReader: F = (1+g^2)PR / (R+g^2 P)), or
    ``alpha`` with ``gamma=None`` (ROUGE-1.5.5: 1/F = alpha/P + (1-alpha)/R;
    negative = tensor2tensor's formula).
    """

    gamma: Optional[float] = None  # None: 1.2, unless alpha is given
    alpha: Optional[float] = None
    multi_ref: str = "max_pr"
    pad_id: Optional[int] = None
    eos_id: Optional[int] = None
    paddlenlp_compat: bool = False
    text: TextSettings = field(default_factory=TextSettings)

    def __post_init__(self):
        self._check_text()
        self._check_weighting()
        self._set("pad_id", option_id(self.pad_id, "pad_id"))
        self._set("eos_id", option_id(self.eos_id, "eos_id"))
        if not isinstance(self.paddlenlp_compat, (bool, np.bool_)):
            raise TypeError(f"paddlenlp_compat must be a bool, got {type(self.paddlenlp_compat).__name__}")
        self._set("paddlenlp_compat", bool(self.paddlenlp_compat))
        if self.paddlenlp_compat and (self.pad_id is not None or self.eos_id is not None):
            raise SettingsError("paddlenlp_compat=True reproduces paddlenlp's conversion, which has "
                                "no pad_id / eos_id: leave them None")

    def signature(self) -> str:
        parts = [self.f_name(), f"multi_ref:{self.multi_ref}", self.text.signature()]
        if self.pad_id is not None or self.eos_id is not None:
            parts.append(f"cut:pad{self.pad_id},eos{self.eos_id}")
        if self.paddlenlp_compat:
            parts.append("cut:paddlenlp")
        return "|".join(parts)


def rouge_from_options(values: dict) -> RougeLSettings:
    """RougeLSettings from option values (key -> value; missing keys take their defaults)."""
    kw = {k: values[k] for k in ("multi_ref",) if k in values}
    return RougeLSettings(text=text_of(values), **weighting_of(values), **kw)


# --------------------------------------------------------------- accumulator

class TextPrfAccumulator(PrfAccumulator):
    """Per-pair (hits, candidate size, reference size) scored as P, R, F from texts or token lists:
    what ROUGE-L and ROUGE-N share (their inputs as ``compute`` gives them, the network-output
    path's ``add_lcs``); each says in ``_score`` what the hits are."""

    reads_words = True  # batches may keep strs for the C word reader (inputs.make_batch(words=True))

    def compute_batch(self, predictions: Sequence, references: Sequence, base: int = 0) -> Batch:
        """The batch of :func:`paddle_rougel.compute`'s inputs: each reference item one
        reference of the prediction's kind (a str, a token list) or a list of them."""
        batch = str_pairs_batch(predictions, references, self.tokenizer)  # strs, one reference each
        if batch is not None:
            self.hint(predictions, references)
            return batch
        if _one_reference_each(predictions, references):  # 1-tuples at C speed
            ref_lists = list(zip(references))
        else:
            ref_lists = [_ref_list(p, r, i) for i, (p, r) in enumerate(zip(predictions, references))]
        return make_batch(predictions, ref_lists, tokenizer=self.tokenizer, hint=self.hint, words=True,
                          snapshot=False, base=base)

    def add_lcs(self, lcs, cand_len, ref_len) -> scoring.Score:
        """Fold per-instance (hits, cand_len, ref_len) of one reference each (the device path:
        ROUGE-L's LCS, ROUGE-N's clipped n-gram matches and n-gram counts)."""
        p, r = scoring.precision_recall(lcs, cand_len, ref_len)
        s = scoring.Score(p, r, self.settings.f(p, r))
        with self._lock:
            self.flush()
            self._fold(self._deltas(s), (s, None))
        return s


class RougeLAccumulator(TextPrfAccumulator):
    """Mean per-instance ROUGE-L F (and macro P, R): sums of P, R, F and the count."""

    def _pair_bonus(self, res: engine.LcsResult, batch: Batch):
        return None  # the DuReader subclass adds its bonus here

    def _score(self, batch: Batch):
        return self.score_lcs(engine.lcs_batch(batch.cands, batch.ref_lists, words=batch.words), batch)

    def score_lcs(self, res: engine.LcsResult, batch: Batch):
        """Field increments and per-instance result from the batch's ``engine.LcsResult``
        (``compute`` reads it with ROUGE-N's counts in one pass and hands it here)."""
        bonus = self._pair_bonus(res, batch)
        s = self._prf(res.lcs, res.cand_len, res.ref_len, res.ref_count, 0.0 if bonus is None else bonus)
        local = (s, None if bonus is None else _per_instance_max(bonus, res.offsets))
        return self._deltas(s), local


def _ref_list(pred: Any, refs: Any, i: int) -> Any:
    """One prediction's references: a single reference of the prediction's kind, or a list of them."""
    if isinstance(refs, str) or refs is None:
        return [refs]
    if isinstance(pred, str):
        return refs  # a str prediction: a list here is a list of references
    items = refs.tolist() if isinstance(refs, np.ndarray) and refs.ndim == 1 else refs
    try:
        first = next(iter(items), None)
    except TypeError:
        return [refs]  # not iterable: make_batch names the problem
    # token lists: a list whose items are sequences (not str tokens) is a list of references
    if isinstance(first, (list, tuple, np.ndarray)):
        return refs
    return [check_tokens(refs, f"instance {i}, reference 0")]


_SEQS = {list, tuple}


def _one_reference_each(predictions: Sequence, references: Sequence) -> bool:
    """What _ref_list decides item by item, for the two common cases at once: every reference
    a str, or every prediction and reference a list/tuple of tokens that are not sequences."""
    rtypes = set(map(type, references))
    if rtypes <= {str}:
        return True
    if not (rtypes <= _SEQS and set(map(type, predictions)) <= _SEQS):
        return False
    return not {type(r[0]) for r in references if r} & {list, tuple, np.ndarray}


def _per_instance_max(bonus: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    if len(offsets) <= 1:
        return np.zeros(0, dtype=np.float64)
    return np.maximum.reduceat(bonus, offsets[:-1])


# ------------------------------------------------------------ paddle metric

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
            reference with the highest F, as rouge-score), ``"avg"``,
            ``"pooled"`` (ROUGE-1.5.5's default ``-f A``: hits and lengths
            summed over the references, R = sum(hits) / sum(len(ref)),
            P = sum(hits) / (k len(cand))), ``"best_recall"`` (ROUGE-1.5.5's
            ``-f B``: the reference with the highest R, first on ties, and its P).
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
        acc = self._acc
        if acc.tokenizer is None and acc.hint.done:  # the hot path of acc.instance, inlined
            batch = plain_instance(cand, ref_list)
            if batch is not None:
                return acc.add(batch)
        acc.add(acc.instance(cand, ref_list))

    def add_batch(self, cands: Sequence, ref_lists: Sequence) -> scoring.Score:
        """Score many instances in one engine call; returns their per-instance Score.

        >>> m = RougeL(gamma=1.0)
        >>> s = m.add_batch(["abcd", "xy"], [["abce"], ["xy", "yx"]])
        >>> [round(float(v), 4) for v in s.fmeasure], round(m.score(), 4)
        ([0.75, 1.0], 0.875)
        """
        return self._scored(self._acc.batch(cands, ref_lists))

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
        unchanged (``update`` converts them), and so they are in a static graph
        (``paddle.enable_static()``): hapi builds ``compute`` into the program once, then
        fetches its outputs and hands them to ``update`` as numpy, which applies the same
        rules and engine as the host path (paddlenlp's pattern), so the numbers are the
        dygraph numbers.
        """
        paddle = paddle_module()
        output, label, seq_mask = self._split_args(args)
        if self.trans_func is not None or not paddle.in_dynamic_mode():
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
                f"A network with several outputs: {type(self).__name__}(num_outputs=N, output_index=i)")
        label = args[k]
        if _is_float(label):
            raise TypeError(
                f"compute(): argument {k} (the label, after {k} network output(s)) holds floats: "
                f"if the network returns {k + 1} or more outputs (e.g. logits and hidden states), "
                f"pass {type(self).__name__}(num_outputs=..., output_index=...)")
        return args[self.output_index], label, (args[k + 1] if n_labels == 2 else None)

    def _packed(self, output, label, seq_mask):
        """(lcs, cand_len, ref_len) per row: numpy on the host, a tensor on an accelerator.

        numpy data: the rules in numpy, then the C engine.  A tensor: the rules
        with Paddle ops on its place (the logits are never copied), then the C
        engine on the [B, T] ids when that place is the CPU, else the Paddle-op LCS.
        """
        paddle = paddle_module()
        s = self._acc.settings
        cuts = dict(pad_id=s.pad_id, eos_id=s.eos_id, mask_logits=s.paddlenlp_compat)
        if not isinstance(output, paddle.Tensor):  # numpy data (or lists): the host
            canon = None if self._vtable is None else self._vtable.current()
            return self._host_figures(*convert.host_tokens(output, label, seq_mask, canon=canon, **cuts))
        with paddle.no_grad():
            out = convert.as_tensor(output, "output")
            canon = None if self._vtable is None else self._vtable.tensor(out.place)
            cand, cv, ref, rv = convert.prepare(out, label, seq_mask, canon=canon, **cuts)
            if convert.on_host(out):
                return self._host_figures(*convert.rows(cand.numpy(), cv.numpy(), ref.numpy(), rv.numpy()))
            return self._device_figures(cand, cv, ref, rv)

    def _host_figures(self, cands: list, refs: list) -> np.ndarray:
        """[B, 3] int64 per row (hits, candidate size, reference size) of row-aligned ids."""
        return _host_lcs(cands, refs)

    def _device_figures(self, cand, cv, ref, rv):
        """The same on the tensors' device: the Paddle-op LCS."""
        from ..engine import device

        paddle = paddle_module()
        lcs = device.lcs_masked(cand, cv, ref, rv)
        return paddle.stack([lcs, cv.astype("int64").sum(axis=1), rv.astype("int64").sum(axis=1)], axis=1)

    def update(self, output, label=None, seq_mask=None):
        """Accumulate a batch.  Two call patterns, told apart by arity:

        * hapi: ``update(packed)``, one argument, the [B, 3] integer array of
          ``compute`` (lcs, cand_len, ref_len): folded into the state only.
          ``compute``'s own return value (a list, which hapi unpacks) is
          taken too: ``m.update(m.compute(output, label))``;
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
            if isinstance(output, (list, tuple)):  # compute()'s list, not unpacked as hapi does
                if self.trans_func is not None and len(output) in (2, 3):
                    return self.update(*output)  # [output, label(, seq_mask)], passed through
                if len(output) == 1 and len(getattr(output[0], "shape", ())) == 2:
                    output = output[0]  # [packed]; a list of rows [[l, c, r]] stays as it is
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
        return copied(self._acc.add_lcs(arr[:, 0], arr[:, 1], arr[:, 2]))


# -------------------------------------------------------------- functional

@keywords_checked
def rouge_l(hypotheses: Sequence, references: Sequence, alpha: Optional[float] = None, *,
            gamma: Optional[float] = None, tokenize: Any = "char", normalize: str = "none",
            lowercase: Optional[bool] = None, stem: bool = False) -> RougeLOutput:
    """ROUGE-L F, P and R of each (hypothesis, reference) pair.

    Args:
        hypotheses: N token sequences (a str is a sequence of characters).
        references: N token sequences, one per hypothesis.
        alpha: None (0.5), a weight in [0, 1] (1 -> F = P, 0 -> F = R), or a
            negative number for tensor2tensor mode. alpha > 1 is a ValueError.
        gamma: instead of alpha, the metrics' weighting (alpha = 1 / (1 + gamma^2)).
        tokenize, normalize, lowercase, stem: how a ``str`` becomes tokens
            (:mod:`paddle_rougel.text`; default: its characters as given).

    Returns:
        ``RougeLOutput(f_measure, p_measure, r_measure)``, float64 arrays [N].
        A pair with an empty side scores 0, 0, 0.
    """
    w = scoring.weighting(gamma, alpha, default_alpha=0.5)
    hypotheses, references = pair_lists("rouge_l", hypotheses, references)
    text = TextSettings(tokenize, normalize, lowercase, stem)
    tok = RougeLSettings(text=text).tokenizer()
    hint = Hinter(text)
    res = engine.lcs_pairs(hypotheses, references) if tok is None else None  # strs: one C call
    if res is not None:
        hint(hypotheses, references)
        p, r = scoring.precision_recall(res.lcs, res.cand_len, res.ref_len)
        return RougeLOutput(scoring.f_measure(p, r, w), p, r)
    batch = pairs_batch(hypotheses, references, tok, hint)
    res = engine.lcs_batch(batch.cands, batch.ref_lists, words=batch.words)
    p, r = scoring.precision_recall(res.lcs, res.cand_len, res.ref_len)
    return RougeLOutput(scoring.f_measure(p, r, w), p, r)


SPEC = MetricSpec(
    name="RougeL", key="rougeL", label="ROUGE-L", state_key="rouge_l",
    settings=RougeLSettings, accumulator=RougeLAccumulator, paddle_class=RougeL, functional=rouge_l,
    from_options=rouge_from_options, doc="longest common subsequence, per sentence")
