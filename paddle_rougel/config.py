"""Scoring settings for the command line: YAML presets, overrides and signatures.

A config file is a YAML mapping with any of these keys (all optional):

* ``gamma``: F = (1 + g^2) P R / (R + g^2 P) (paddlenlp, DuReader); default 1.2;
* ``alpha``: instead of gamma, ROUGE-1.5.5's 1/F = alpha/P + (1 - alpha)/R;
  a negative alpha selects tensor2tensor's formula (as :func:`paddle_rougel.rouge_l`);
* ``multi_ref``: ``max_pr`` | ``best`` | ``avg`` (see :class:`paddle_rougel.RougeL`);
* ``tokenize``: ``char`` | ``whitespace`` | ``jieba`` (the ``score`` command);
* ``normalize``: ``nows`` (drop every whitespace character, the DuReader rule) | ``none``;
* ``bonus``: ``{alpha: 1.0, beta: 1.0}``, the DuReader yes/no and entity bonus weights.

``--config`` takes a path or a preset name (``dureader``, ``paddlenlp``,
``rouge155``, ``t2t``): a bare name (no directory part, no ``.yaml``/``.yml``)
is read only from the package's own data (``paddle_rougel/presets``, copied
from the repository's ``configs/`` at build time), never from the current
directory or elsewhere; anything else is a path.  Explicit command-line flags
override the file.

>>> s = Settings()
>>> s.signature("rougeL+bleu4", with_bonus=True).rsplit("|", 1)[0]
'rougeL+bleu4|gamma:1.2|multi_ref:max_pr|tok:char|norm:nows|bonus:a1.0,b1.0'
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Dict
from typing import Any, Optional

__all__ = ["Settings", "ConfigError", "load_config", "preset_dir", "PRESETS"]

PRESETS = ("dureader", "paddlenlp", "rouge155", "t2t")
TOKENIZERS = ("char", "whitespace", "jieba")
NORMALIZERS = ("nows", "none")
MULTI_REF = ("max_pr", "best", "avg")


class ConfigError(ValueError):
    """A bad config file or setting (the CLI prints it as a one-line error)."""


@dataclass
class Settings:
    """Every setting that changes a score."""

    gamma: Optional[float] = 1.2
    alpha: Optional[float] = None  # set -> used instead of gamma
    multi_ref: str = "max_pr"
    tokenize: str = "char"
    normalize: str = "nows"
    bonus_alpha: float = 1.0
    bonus_beta: float = 1.0
    # where each numeric setting came from ("--gamma", "x.yaml: 'gamma'"), for error messages
    origin: Dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def f_name(self) -> str:
        if self.alpha is None:
            return f"gamma:{self.gamma}"
        return "f:t2t" if self.alpha < 0 else f"alpha:{self.alpha}"

    def signature(self, metric: str, with_bonus: bool = False, tokenize: Optional[str] = None,
                  engine: Optional[str] = None) -> str:
        """One line naming every setting that changes the number (as sacreBLEU's).

        ``engine`` (``c`` | ``python``), when given, is appended last as
        ``engine:NAME``: it never changes the number (both engines are exact)
        but tells the reader what ran; ``merge`` ignores it when comparing.
        """
        from . import __version__

        parts = [metric, self.f_name(), f"multi_ref:{self.multi_ref}",
                 f"tok:{tokenize or self.tokenize}", f"norm:{self.normalize}"]
        if with_bonus:
            parts.append(f"bonus:a{self.bonus_alpha},b{self.bonus_beta}")
        parts.append(f"v:{__version__}")
        if engine:
            parts.append(f"engine:{engine}")
        return "|".join(parts)

    def rouge_gamma(self) -> float:
        """gamma for the gamma-parameterised metrics (an alpha in (0, 1] converts exactly)."""
        if self.alpha is None:
            return float(self.gamma)
        if not 0 < self.alpha <= 1:
            raise ConfigError(f"alpha {self.alpha} has no gamma equivalent (the DuReader metric "
                              "needs 0 < alpha <= 1, or a gamma)")
        g = math.sqrt((1.0 - self.alpha) / self.alpha)
        if not math.isfinite(g):  # alpha so small that 1/alpha is inf
            where = self.origin.get("alpha", "alpha")
            raise ConfigError(f"{where}: {self.alpha} is too small (gamma = sqrt((1 - alpha) / alpha) "
                              "is not finite)")
        return g


def preset_dir():
    """The shipped presets: package data ``paddle_rougel/presets`` (an ``importlib.resources``
    Traversable; setup.py copies the repository's ``configs/*.yaml`` there at build time)."""
    from importlib.resources import files

    return files(__package__).joinpath("presets")


def _number(v: Any, key: str, where: str) -> float:
    try:  # float() of a huge YAML integer overflows rather than giving inf
        ok = not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(float(v))
    except OverflowError:
        ok = False
    if not ok:
        shown = repr(v) if len(repr(v)) <= 40 else repr(v)[:40] + "..."
        raise ConfigError(f"{where}: {key!r} must be a finite number, got {shown}")
    return float(v)


def _choice(v: Any, key: str, where: str, allowed) -> str:
    if v not in allowed:
        raise ConfigError(f"{where}: {key!r} must be one of {', '.join(allowed)}, got {v!r}")
    return v


def is_preset_name(spec: str) -> bool:
    """A bare name (no directory part, no YAML suffix): looked up among the presets only."""
    return not any(sep and sep in spec for sep in ("/", os.sep, os.altsep)) \
        and not spec.endswith((".yaml", ".yml"))


def resolve_config_path(spec: str) -> str:
    """The file to read for ``--config spec``: a preset's file in the package data for a bare
    name (and nothing else: a file of that name elsewhere is never read), else the path as given."""
    if not is_preset_name(spec):
        if not os.path.isfile(spec):
            raise ConfigError(f"config {spec!r}: no such file")
        return spec
    if spec not in PRESETS:
        raise ConfigError(f"config {spec!r}: no such file or preset (presets: {', '.join(PRESETS)}; "
                          f"a file is named by a path, e.g. ./{spec})")
    entry = preset_dir().joinpath(spec + ".yaml")
    if not entry.is_file():  # a build that skipped setup.py's preset copy
        raise ConfigError(f"config {spec!r}: the preset file is missing from this installation of "
                          "paddle_rougel (reinstall it; `pip install -e .` in a checkout)")
    try:
        return os.fspath(entry)  # a real file for every file-system install
    except TypeError:
        raise ConfigError(f"config {spec!r}: presets need paddle_rougel installed as files, not in an "
                          "archive (or pass the path of a YAML file)") from None


def load_config(spec: str, base: Optional[Settings] = None) -> Settings:
    """Read a YAML config (path or preset name) into Settings (unknown keys are errors)."""
    import yaml

    path = resolve_config_path(spec)
    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except UnicodeDecodeError as e:  # before ValueError: a binary file
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except (yaml.YAMLError, ValueError, OverflowError, RecursionError) as e:
        # ValueError: PyYAML's constructors (e.g. a timestamp with month 13)
        raise ConfigError(f"{path}: invalid YAML ({' '.join(str(e).split()) or type(e).__name__})") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read ({e.strerror or e})") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config must be a YAML mapping, got {type(data).__name__}")
    s = base or Settings()
    known = {"gamma", "alpha", "multi_ref", "tokenize", "normalize", "bonus"}
    for key in data:
        if key not in known:
            raise ConfigError(f"{path}: unknown key {key!r} (known: {', '.join(sorted(known))})")
    if "gamma" in data and "alpha" in data:
        raise ConfigError(f"{path}: give 'gamma' or 'alpha', not both")
    if "gamma" in data:
        g = _number(data["gamma"], "gamma", path)
        if g < 0:
            raise ConfigError(f"{path}: 'gamma' must be >= 0, got {g}")
        s.gamma, s.alpha = g, None
        s.origin["gamma"] = f"{path}: 'gamma'"
    if "alpha" in data:
        a = _number(data["alpha"], "alpha", path)
        if a > 1:
            raise ConfigError(f"{path}: 'alpha' must be <= 1 (negative = tensor2tensor), got {a}")
        s.alpha, s.gamma = a, None
        s.origin["alpha"] = f"{path}: 'alpha'"
    if "multi_ref" in data:
        s.multi_ref = _choice(data["multi_ref"], "multi_ref", path, MULTI_REF)
    if "tokenize" in data:
        s.tokenize = _choice(data["tokenize"], "tokenize", path, TOKENIZERS)
    if "normalize" in data:
        s.normalize = _choice(data["normalize"], "normalize", path, NORMALIZERS)
    if "bonus" in data:
        b = data["bonus"]
        if not isinstance(b, dict):
            raise ConfigError(f"{path}: 'bonus' must be a mapping like {{alpha: 1.0, beta: 1.0}}")
        for key in b:
            if key not in ("alpha", "beta"):
                raise ConfigError(f"{path}: unknown key 'bonus.{key}' (known: bonus.alpha, bonus.beta)")
        for key in ("alpha", "beta"):
            if key in b:
                setattr(s, "bonus_" + key, _number(b[key], "bonus." + key, path))
                s.origin["bonus_" + key] = f"{path}: 'bonus.{key}'"
    return s


