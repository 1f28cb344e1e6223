"""Every setting that changes a metric's number: the shared machinery.

Each metric has one frozen settings class, in its metric module
(:mod:`paddle_rougel.metrics`).  It validates its values, names them in state
files (``config()`` / ``from_config()``: what must match for two states to
merge), and prints them in the signature (``signature()``), so a setting is
written once.  Here: the base classes, the F weighting shared by the ROUGE
metrics (:class:`Weighted`), and the options every metric shares (the F
weighting and the text settings); each metric's own options are in its
module.  ``SETTINGS`` (metric name -> class) and ``OPTIONS`` (config key ->
option) are the registry's (:mod:`paddle_rougel.metrics`): this leaf knows no metric.

>>> from paddle_rougel.metrics.rouge_l import RougeLSettings
>>> from paddle_rougel.metrics.dureader_rouge_l import DuReaderRougeLSettings
>>> s = RougeLSettings(gamma=1.0, multi_ref="best")
>>> s.signature()
'gamma:1.0|multi_ref:best|tok:char|norm:none|lc:no'
>>> RougeLSettings.from_config(s.config()) == s
True
>>> DuReaderRougeLSettings(yesno_weight=2.0).signature()
'gamma:1.2|multi_ref:max_pr|tok:char|norm:none|lc:no|bonus:yn2.0,ent1.0'
"""
from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional

import numpy as np

from . import scoring
from .text import TextSettings

__all__ = ["Weighted", "Option", "SettingsError", "check_weight",
           "suggest", "reject_unknown", "keywords_checked", "PEER_NAMES", "ROUGE_OPTIONS", "TEXT_OPTIONS", "SHARED_OPTIONS", "text_of"]

MAX_N_SIZE = 32  # BLEU orders; bounds what a tampered state file can make us allocate


class SettingsError(ValueError):
    """A setting that is out of range, of the wrong type, or unknown."""


# Other packages' names of our settings: a keyword we do not take is answered with ours
PEER_NAMES = {"use_stemmer": ("rouge-score", "stem"), "split_summaries": ("rouge-score", "split"),
              "tokenizer": ("rouge-score", "tokenize"), "use_aggregator": ("evaluate", "aggregate"),
              "rouge_keys": ("torchmetrics", "rouge_types"), "accumulate": ("torchmetrics", "multi_ref")}


def suggest(name: str, known) -> str:
    """' (did you mean 'gamma'?)' for a misspelt name, ' (rouge-score's name: here 'stem')' for
    another package's name of one of ``known``, else ''."""
    known = list(known)
    peer = PEER_NAMES.get(name)
    if peer is not None and peer[1] in known:
        return f" ({peer[0]}'s name: here {peer[1]!r})"
    close = difflib.get_close_matches(name, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def reject_unknown(kwargs: dict, fn: Callable, also: tuple = (), name: Optional[str] = None) -> None:
    """TypeError for keyword arguments ``fn`` does not take, with the closest name (of its
    parameters and ``also``: old names it still takes): the one wording of every public call.
    ``name``: the call as the user wrote it (default: ``fn``'s qualified name, a class for ``__init__``)."""
    if kwargs:
        known = [p for p in inspect.signature(fn).parameters if p not in ("self", "kwargs")] + list(also)
        key = sorted(kwargs)[0]
        if name is None:
            name = fn.__qualname__[:-len(".__init__")] if fn.__qualname__.endswith(".__init__") else fn.__qualname__
        raise TypeError(f"{name}() got an unexpected keyword argument {key!r}{suggest(key, known)}")


def keywords_checked(fn: Callable) -> Callable:
    """``fn`` whose unknown keyword arguments are a TypeError with a suggestion
    (:func:`reject_unknown`) instead of Python's bare one; the signature is ``fn``'s.

    >>> @keywords_checked
    ... def f(a, *, gamma=1.0):
    ...     return gamma
    >>> f(1, gama=2)
    Traceback (most recent call last):
    TypeError: f() got an unexpected keyword argument 'gama' (did you mean 'gamma'?)
    """
    params = list(inspect.signature(fn).parameters.values())
    names = frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
    method = bool(params) and params[0].name == "self"

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        if kwargs and not names.issuperset(kwargs):
            name = f"{type(args[0]).__name__}.{fn.__name__}" if method and args else None
            reject_unknown({k: v for k, v in kwargs.items() if k not in names}, fn, name=name)
        return fn(*args, **kwargs)
    return checked


def check_weight(x: Any, what: str) -> float:
    """A finite number >= 0 (bonus weights)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a number, got {type(x).__name__}")
    v = float(x)
    if not math.isfinite(v) or v < 0:
        raise SettingsError(f"{what} must be finite and >= 0, got {x!r}")
    return v


def option_id(v: Any, what: str) -> Optional[int]:
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what} must be an int or None, got {type(v).__name__}")
    return int(v)


class BaseSettings:
    """Shared behaviour: state identity and signature from the dataclass fields."""

    _LEGACY: Dict[str, str] = {}  # old config key -> field name

    def _check_text(self) -> None:
        if not isinstance(self.text, TextSettings):
            raise TypeError(f"text must be TextSettings, got {type(self.text).__name__}")

    def tokenizer(self):
        """The ``str -> tokens`` function of the text settings; None for the default (characters)."""
        return None if self.text.is_default else self.text.tokenizer()

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)  # frozen: only __post_init__ normalises

    def config(self) -> dict:
        """JSON-friendly identity, stored in state files."""
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = v.config() if isinstance(v, TextSettings) else v
        return out

    @classmethod
    def from_config(cls, cfg: Any, where: str = "config"):
        """Settings from ``config()`` output (older key names accepted); errors name ``where``."""
        if not isinstance(cfg, dict):
            raise SettingsError(f"{where}: expected a mapping of settings, got {type(cfg).__name__}")
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {}
        for key, val in cfg.items():
            field = cls._LEGACY.get(key, key) if key not in names else key
            if field not in names:
                raise SettingsError(f"{where}: unknown setting {key!r}{suggest(key, names)}")
            kw.setdefault(field, val)
        try:
            if isinstance(kw.get("text"), dict):
                kw["text"] = TextSettings(**kw["text"])
            return cls(**kw)
        except (TypeError, ValueError) as e:
            raise SettingsError(f"{where}: {e}") from None


class Weighted(BaseSettings):
    """The F weighting (gamma or alpha) and the multi-reference mode of the ROUGE metrics."""

    def _check_weighting(self) -> None:
        """gamma or alpha (exactly one; neither: gamma 1.2), and multi_ref."""
        try:
            w = scoring.weighting(self.gamma, self.alpha, default_gamma=1.2)
        except ValueError as e:
            raise SettingsError(str(e)) from None
        self._set("gamma", w.gamma)
        self._set("alpha", w.alpha)
        if self.multi_ref not in scoring.MULTI_REF_MODES:
            raise SettingsError(f"multi_ref must be one of {', '.join(scoring.MULTI_REF_MODES)}, "
                                f"got {self.multi_ref!r}")

    def f(self, p, r):
        """The F-measure of per-pair P and R under this weighting."""
        return scoring.f_measure(p, r, scoring.Weighting(self.gamma, self.alpha))

    def f_name(self) -> str:
        return scoring.Weighting(self.gamma, self.alpha).signature()


# ---------------------------------------------------------------- options
# The user-facing settings, one entry each: the config-file key (= the settings
# field), the command-line flags, and the parser of a value.  The command line
# and config files are built from this table and validated by constructing the
# settings objects above, so nothing here repeats a rule.

@dataclass(frozen=True)
class Option:
    key: str
    flags: tuple
    parse: Any             # str -> value, for command-line flags
    help: str
    choices: Optional[tuple] = None


def parse_bool(text: str) -> bool:
    low = str(text).lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected yes/no, got {text!r}")


def _stem(text: str):
    """``--stem``: yes/no (rouge-score's Porter), or a stemmer name (rouge155, rouge155_nowordnet)."""
    if str(text) in ("rouge155", "rouge155_nowordnet"):
        return str(text)
    try:
        return parse_bool(text)
    except ValueError:
        raise ValueError(f"expected yes/no, rouge155 or rouge155_nowordnet, got {text!r}") from None


ROUGE_OPTIONS = (
    Option("gamma", ("--gamma",), float, "F = (1+g^2)PR / (R+g^2 P) (default 1.2)"),
    Option("alpha", ("--alpha",), float,
           "instead of gamma: 1/F = alpha/P + (1-alpha)/R; negative = tensor2tensor's formula"),
    Option("multi_ref", ("--multi-ref", "--multi_ref"), str,
           "how references combine: max_pr (default), best, avg, pooled (ROUGE-1.5.5 -f A), "
           "best_recall (ROUGE-1.5.5 -f B)", scoring.MULTI_REF_MODES),
)
TEXT_OPTIONS = (
    Option("tokenize", ("--tokenize",), str,
           "tokens of a text: char (default), whitespace, zh, jieba, rouge_score, rouge_chinese "
           "(rouge-chinese's words of jieba's, as LLaMA-Factory calls it)",
           ("char", "whitespace", "zh", "jieba", "rouge_score", "rouge_chinese")),
    Option("normalize", ("--normalize",), str,
           "nows: drop every whitespace character (default with char tokens); none", ("none", "nows")),
    Option("lowercase", ("--lowercase",), parse_bool, "lowercase before tokenizing (yes/no)"),
    Option("stem", ("--stem",), _stem, "rouge-score's Porter stemming (yes/no), or rouge155 / rouge155_nowordnet: "
           "ROUGE-1.5.5's -m (with --tokenize rouge_score)"),
)
SHARED_OPTIONS = ROUGE_OPTIONS + TEXT_OPTIONS  # every metric's own are in its module (its SPEC)


def text_of(values: dict) -> TextSettings:
    """The text settings of option values (the command line's default normalisation)."""
    kw = {k: values[k] for k in ("tokenize", "normalize", "lowercase", "stem") if k in values}
    if "normalize" not in kw:  # the sensible default: drop spaces only between characters
        kw["normalize"] = "nows" if kw.get("tokenize", "char") == "char" else "none"
    return TextSettings(**kw)




def weighting_of(values: dict) -> dict:
    """The F weighting of option values as settings keywords: an alpha replaces the default gamma."""
    kw = {k: values[k] for k in ("gamma", "alpha") if k in values}
    if kw.get("alpha") is not None:
        kw.setdefault("gamma", None)
    return kw


_Weighted = Weighted  # the name before the registry
