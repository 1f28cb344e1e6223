"""Every setting that changes a metric's number, owned by the metric.

Each metric has one frozen settings class.  It validates its values, names
them in state files (``config()`` / ``from_config()``: what must match for
two states to merge), and prints them in the signature (``signature()``), so
a setting is written once.  ``SETTINGS`` maps a metric name (as state files
spell it) to its class.

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
import math
from dataclasses import dataclass, field
from typing import Any, Dict, Optional

import numpy as np

from . import scoring
from .text import TextSettings

__all__ = ["RougeLSettings", "DuReaderRougeLSettings", "BleuSettings", "SETTINGS",
           "SettingsError", "check_weight", "suggest"]

MAX_N_SIZE = 32  # BLEU orders; bounds what a tampered state file can make us allocate


class SettingsError(ValueError):
    """A setting that is out of range, of the wrong type, or unknown."""


def suggest(name: str, known) -> str:
    """' (did you mean 'gamma'?)' for a misspelt name, else ''."""
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_weight(x: Any, what: str) -> float:
    """A finite number >= 0 (bonus weights)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a number, got {type(x).__name__}")
    v = float(x)
    if not math.isfinite(v) or v < 0:
        raise SettingsError(f"{what} must be finite and >= 0, got {x!r}")
    return v


def _opt_id(v: Any, what: str) -> Optional[int]:
    if v is None:
        return None
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what} must be an int or None, got {type(v).__name__}")
    return int(v)


class _Settings:
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


class _Weighted(_Settings):
    """The F weighting (gamma or alpha) and the multi-reference mode of ROUGE-L and ROUGE-Lsum."""

    def _check_weighting(self) -> None:
        """gamma or alpha (exactly one), and multi_ref: shared by ROUGE-L and ROUGE-Lsum."""
        if self.alpha is not None:
            if self.gamma is not None:
                raise SettingsError("give gamma or alpha, not both")
            self._set("alpha", scoring.check_alpha(self.alpha))
        else:
            self._set("gamma", scoring.check_gamma(1.2 if self.gamma is None else self.gamma))
        if self.multi_ref not in scoring.MULTI_REF_MODES:
            raise SettingsError(f"multi_ref must be one of {', '.join(scoring.MULTI_REF_MODES)}, "
                                f"got {self.multi_ref!r}")

    def f(self, p, r):
        """The F-measure of per-pair P and R under this weighting."""
        if self.alpha is None:
            return scoring.f_gamma(p, r, self.gamma)
        if self.alpha < 0:
            return scoring.f_t2t(p, r)
        return scoring.f_alpha(p, r, self.alpha)

    def f_name(self) -> str:
        if self.alpha is None:
            return f"gamma:{self.gamma}"
        return "f:t2t" if self.alpha < 0 else f"alpha:{self.alpha}"


@dataclass(frozen=True)
class RougeLSettings(_Weighted):
    """ROUGE-L: the F weighting, how references combine, and the device-path cuts.

    F weighting: ``gamma`` (paddlenlp, DuReader: F = (1+g^2)PR / (R+g^2 P)), or
    ``alpha`` with ``gamma=None`` (ROUGE-1.5.5: 1/F = alpha/P + (1-alpha)/R;
    negative = tensor2tensor's formula).
    """

    gamma: Optional[float] = 1.2
    alpha: Optional[float] = None
    multi_ref: str = "max_pr"
    pad_id: Optional[int] = None
    eos_id: Optional[int] = None
    paddlenlp_compat: bool = False
    text: TextSettings = field(default_factory=TextSettings)

    def __post_init__(self):
        self._check_text()
        self._check_weighting()
        self._set("pad_id", _opt_id(self.pad_id, "pad_id"))
        self._set("eos_id", _opt_id(self.eos_id, "eos_id"))
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


@dataclass(frozen=True)
class DuReaderRougeLSettings(RougeLSettings):
    """ROUGE-L with the DuReader yes/no and entity bonus weights (gamma weighting only)."""

    yesno_weight: float = 1.0
    entity_weight: float = 1.0
    _LEGACY = {"beta": "entity_weight"}  # "alpha": see from_config

    def __post_init__(self):
        if self.alpha is not None:
            raise SettingsError("the DuReader metric weights F by gamma; alpha is not supported "
                                "(alpha a equals gamma sqrt((1 - a) / a))")
        super().__post_init__()
        self._set("yesno_weight", check_weight(self.yesno_weight, "yesno_weight (alpha)"))
        self._set("entity_weight", check_weight(self.entity_weight, "entity_weight (beta)"))

    @classmethod
    def from_config(cls, cfg: Any, where: str = "config"):
        # state files before the rename spelt the yes/no bonus weight "alpha"
        if isinstance(cfg, dict) and "alpha" in cfg and "yesno_weight" not in cfg:
            cfg = dict(cfg)
            cfg["yesno_weight"] = cfg.pop("alpha")
        return super().from_config(cfg, where)

    def signature(self) -> str:
        return f"{super().signature()}|bonus:yn{self.yesno_weight},ent{self.entity_weight}"


@dataclass(frozen=True)
class BleuSettings(_Settings):
    """BLEU-n_size with the DuReader yes/no and entity bonus weights."""

    n_size: int = 4
    yesno_weight: float = 1.0
    entity_weight: float = 1.0
    text: TextSettings = field(default_factory=TextSettings)
    _LEGACY = {"alpha": "yesno_weight", "beta": "entity_weight"}

    def __post_init__(self):
        self._check_text()
        n = self.n_size
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) \
                or not 1 <= n <= MAX_N_SIZE:
            raise SettingsError(f"n_size must be an int from 1 to {MAX_N_SIZE}, got {n!r}")
        self._set("n_size", int(n))
        self._set("yesno_weight", check_weight(self.yesno_weight, "yesno_weight (alpha)"))
        self._set("entity_weight", check_weight(self.entity_weight, "entity_weight (beta)"))

    def signature(self) -> str:
        return (f"n:{self.n_size}|{self.text.signature()}|"
                f"bonus:yn{self.yesno_weight},ent{self.entity_weight}")


SETTINGS = {"RougeL": RougeLSettings, "RougeLForDuReader": DuReaderRougeLSettings,
            "BLEUForDuReader": BleuSettings}


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


def _bool(text: str) -> bool:
    low = str(text).lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected yes/no, got {text!r}")


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
           "tokens of a text: char (default), whitespace, zh, jieba, rouge_score",
           ("char", "whitespace", "zh", "jieba", "rouge_score")),
    Option("normalize", ("--normalize",), str,
           "nows: drop every whitespace character (default with char tokens); none", ("none", "nows")),
    Option("lowercase", ("--lowercase",), _bool, "lowercase before tokenizing (yes/no)"),
    Option("stem", ("--stem",), _bool, "rouge-score's Porter stemming (with --tokenize rouge_score)"),
)
BONUS_OPTIONS = (
    Option("yesno_weight", ("--yesno-weight", "--yesno_weight"), float,
           "DuReader yes/no bonus weight (default 1.0; old name: --alpha)"),
    Option("entity_weight", ("--entity-weight", "--entity_weight"), float,
           "DuReader entity bonus weight (default 1.0; old name: --beta)"),
)
SUMMARY_OPTIONS = (
    Option("split", ("--split",), str,
           "ROUGE-Lsum sentences: newline (default; in a line file, <n> separates sentences), "
           "zh (after 。！？；), en (after . ! ? and a space)", ("newline", "zh", "en")),
)
OPTIONS = {o.key: o for o in ROUGE_OPTIONS + TEXT_OPTIONS + BONUS_OPTIONS + SUMMARY_OPTIONS}


def _text_of(values: dict) -> TextSettings:
    kw = {k: values[k] for k in ("tokenize", "normalize", "lowercase", "stem") if k in values}
    if "normalize" not in kw:  # the sensible default: drop spaces only between characters
        kw["normalize"] = "nows" if kw.get("tokenize", "char") == "char" else "none"
    return TextSettings(**kw)


def rouge_from_options(values: dict) -> RougeLSettings:
    """RougeLSettings from option values (key -> value; missing keys take their defaults)."""
    kw = {k: values[k] for k in ("gamma", "alpha", "multi_ref") if k in values}
    if kw.get("alpha") is not None:
        kw["gamma"] = None
    return RougeLSettings(text=_text_of(values), **kw)


def dureader_from_options(values: dict):
    """(DuReaderRougeLSettings, BleuSettings) of the contest from option values.

    An alpha in (0, 1] becomes the equal gamma (the DuReader metric is weighted by gamma)."""
    gamma = values.get("gamma")
    alpha = values.get("alpha")
    if alpha is not None:
        a = scoring.check_alpha(alpha)
        if not 0 < a <= 1:
            raise SettingsError(f"alpha {alpha} has no gamma equivalent (the DuReader metric needs "
                                "0 < alpha <= 1, or a gamma)")
        gamma = scoring.gamma_from_alpha(a)
        if not math.isfinite(gamma):
            raise SettingsError(f"alpha {alpha} is too small (gamma = sqrt((1 - alpha) / alpha) "
                                "is not finite)")
    text = _text_of(values)
    bonus = {k: values[k] for k in ("yesno_weight", "entity_weight") if k in values}
    rouge = DuReaderRougeLSettings(gamma=1.2 if gamma is None else gamma, text=text,
                                   multi_ref=values.get("multi_ref", "max_pr"), **bonus)
    return rouge, BleuSettings(n_size=4, text=text, **bonus)


# ---------------------------------------------------------------- ROUGE-Lsum

@dataclass(frozen=True)
class RougeLsumSettings(_Weighted):
    """ROUGE-Lsum (summary-level union LCS): the F weighting and reference combination of
    ROUGE-L, how a text is split into sentences (``split``: see :mod:`paddle_rougel.lsum`),
    and the text settings, applied to each sentence.

    >>> s = RougeLsumSettings(gamma=1.0, multi_ref="best", split="zh")
    >>> s.signature()
    'gamma:1.0|multi_ref:best|split:zh|tok:char|norm:none|lc:no'
    >>> RougeLsumSettings.from_config(s.config()) == s
    True
    """

    gamma: Optional[float] = 1.2
    alpha: Optional[float] = None
    multi_ref: str = "max_pr"
    split: str = "newline"
    text: TextSettings = field(default_factory=TextSettings)

    def __post_init__(self):
        from .lsum import SPLITS

        self._check_text()
        self._check_weighting()
        if self.split not in SPLITS:
            raise SettingsError(f"split must be one of {', '.join(SPLITS)}, got {self.split!r}")

    def text_mode(self) -> Optional[str]:
        """How the C text path can read ``str`` summaries untouched: ``"rouge_score"``
        (rouge-score's own handling: newline split, its tokenizer, no stemming),
        ``"char"`` (the defaults: newline split, every character a token), or None
        (other settings: split and tokenize in Python)."""
        if self.split != "newline":
            return None
        if self.text == TextSettings(tokenize="rouge_score"):
            return "rouge_score"
        return "char" if self.text == TextSettings() else None

    def raw_text(self) -> bool:
        """``str`` summaries can go to the C text path untouched (see ``text_mode``)."""
        return self.text_mode() is not None

    def signature(self) -> str:
        return "|".join([self.f_name(), f"multi_ref:{self.multi_ref}", f"split:{self.split}",
                         self.text.signature()])


SETTINGS["RougeLsum"] = RougeLsumSettings


def lsum_from_options(values: dict) -> "RougeLsumSettings":
    """RougeLsumSettings (summary-level) from option values, as :func:`rouge_from_options`."""
    kw = {k: values[k] for k in ("gamma", "alpha", "multi_ref", "split") if k in values}
    if kw.get("alpha") is not None:
        kw["gamma"] = None
    return RougeLsumSettings(text=_text_of(values), **kw)
