"""Config files: the metrics' settings read from YAML, and the shipped presets.

A config file is a YAML mapping whose keys are the settings' names (all
optional; see :data:`paddle_rougel.metrics.OPTIONS`, the one table of them):

* ``gamma``: F = (1 + g^2) P R / (R + g^2 P) (paddlenlp, DuReader); default 1.2;
* ``alpha``: instead of gamma, ROUGE-1.5.5's 1/F = alpha/P + (1 - alpha)/R;
  a negative alpha selects tensor2tensor's formula (as :func:`paddle_rougel.rouge_l`);
* ``multi_ref``: ``max_pr`` | ``best`` | ``avg`` | ``pooled`` | ``best_recall`` (see
  :class:`paddle_rougel.RougeL`);
* ``tokenize``, ``normalize``, ``lowercase``, ``stem``: the text settings
  (:mod:`paddle_rougel.text`); ``normalize`` defaults to ``nows`` with ``char``
  tokens (the DuReader rule) and to ``none`` with word tokens;
* ``yesno_weight``, ``entity_weight``: the DuReader bonus weights (the older
  spelling ``bonus: {alpha: .., beta: ..}`` is read too, with a DeprecationWarning naming the
  file, the key and its new name; both spellings of one weight in a file are an error).

``--config`` takes a path or a preset name (``dureader``, ``paddlenlp``,
``rouge155``, ``rouge_chinese``, ``rouge_score``, ``t2t``): a bare name (no directory part, no ``.yaml``/``.yml``)
is read only from the package's own data (``paddle_rougel/presets``, copied
from the repository's ``configs/`` at build time), never from the current
directory or elsewhere; anything else is a path.  Explicit command-line flags
override the file.  Values are checked here for their type; ranges and
combinations are checked by the settings classes, one place for each rule.

In Python, :func:`preset` gives a preset's settings as keyword arguments of
:func:`paddle_rougel.compute` (which also takes ``preset=name``).

YAML aliases (``*name``, merge keys ``<<: *name`` included) are refused: a
config is a handful of scalars, and aliases let a few hundred bytes stand
for a tree of billions of nodes ("billion laughs").  A rejected value is
shown by :func:`shown`, which formats at most a few items of a few levels
(never the whole value) and cuts the text at 40 characters.

>>> import os
>>> sorted(read_config("rouge155"))
['alpha', 'multi_ref', 'tokenize']
>>> preset("rouge_chinese")
{'gamma': 1.0, 'multi_ref': 'max_pr', 'tokenize': 'rouge_chinese', 'normalize': 'none', 'distinct': True}
"""
from __future__ import annotations

import math
import os
import reprlib
import warnings
from typing import Any, Dict, Tuple

from ..core.settings import suggest

__all__ = ["ConfigError", "read_config", "preset_dir", "PRESETS", "resolve_config_path", "preset", "shown"]

PRESETS = ("dureader", "paddlenlp", "rouge155", "rouge_chinese", "rouge_score", "t2t")
# the settings compute() takes; the DuReader bonus weights apply to the contest scorer only
COMPUTE_KEYS = ("gamma", "alpha", "multi_ref", "tokenize", "normalize", "lowercase", "stem", "split",
                "distinct")
_LEGACY_BONUS = {"alpha": "yesno_weight", "beta": "entity_weight"}


class ConfigError(ValueError):
    """A bad config file or setting (the CLI prints it as a one-line error)."""


def preset_dir():
    """The shipped presets: package data ``paddle_rougel/presets`` (an ``importlib.resources``
    Traversable; setup.py copies the repository's ``configs/*.yaml`` there at build time)."""
    from importlib.resources import files

    return files("paddle_rougel").joinpath("presets")


_SHOWN = reprlib.Repr()  # a few items of a few levels: the work and the text are bounded
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxlong, _SHOWN.maxother = 3, 40, 40, 40
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = _SHOWN.maxset = _SHOWN.maxfrozenset = 4


def shown(v: Any, limit: int = 40) -> str:
    """A rejected value for an error message: at most ``limit`` characters (then ``...``),
    formatted without building the whole ``repr`` (a shared YAML tree, a huge integer).

    >>> tree = "lol"
    >>> for _ in range(9):
    ...     tree = [tree] * 10          # 10**9 leaves; repr() would need gigabytes
    >>> shown(tree)
    '[[[[...], [...], [...], [...], ...], [[....'
    """
    try:
        text = _SHOWN.repr(v)
    except ValueError:  # an int past int()'s digit limit
        text = f"<{type(v).__name__} of {v.bit_length()} bits>" if isinstance(v, int) \
            else f"<{type(v).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


def _typed(v: Any, key: str, where: str) -> Any:
    """A value of the option's type (finite numbers, bools, choices); ranges are the settings' job."""
    from ..metrics import OPTIONS

    opt = OPTIONS[key]
    if opt.parse is float:
        try:  # float() of a huge YAML integer overflows rather than giving inf
            ok = not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(float(v))
        except OverflowError:
            ok = False
        if not ok:
            raise ConfigError(f"{where}: {key!r} must be a finite number, got {shown(v)}")
        return float(v)
    if opt.parse is str:
        if not isinstance(v, str) or v not in opt.choices:
            raise ConfigError(f"{where}: {key!r} must be one of {', '.join(opt.choices)}, got {shown(v)}")
        return v
    if not isinstance(v, bool):
        raise ConfigError(f"{where}: {key!r} must be true or false, got {shown(v)}")
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


_LOADER = None


def _loader(yaml):
    """PyYAML's SafeLoader, refusing aliases (made once, on first use: yaml is imported lazily)."""
    global _LOADER
    if _LOADER is None:
        class NoAliasLoader(yaml.SafeLoader):
            def compose_node(self, parent, index):
                if self.check_event(yaml.AliasEvent):
                    event = self.peek_event()
                    raise ConfigError(f"{self.name}: line {event.start_mark.line + 1}: YAML aliases "
                                      f"(*{shown(event.anchor, 20)}) are not allowed in a config file; "
                                      "write the value out")
                return super().compose_node(parent, index)

        _LOADER = NoAliasLoader
    return _LOADER


def _load_yaml(path: str) -> dict:
    import yaml

    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.load(f, Loader=_loader(yaml))  # a SafeLoader without aliases
    except ConfigError:
        raise
    except UnicodeDecodeError:  # before ValueError: a binary file
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except (yaml.YAMLError, ValueError, OverflowError, RecursionError) as e:
        # ValueError: PyYAML's constructors (e.g. a timestamp with month 13)
        raise ConfigError(f"{path}: invalid YAML ({' '.join(str(e).split()) or type(e).__name__})") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read ({e.strerror or e})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config must be a YAML mapping, got {type(data).__name__}")
    return data


def read_config(spec: str) -> Dict[str, Tuple[Any, str]]:
    """A YAML config (path or preset name) as ``{key: (value, where)}``; unknown keys are errors."""
    from ..metrics import OPTIONS

    path = resolve_config_path(spec)
    data = _load_yaml(path)
    out: Dict[str, Tuple[Any, str]] = {}
    deprecated = []  # warned once the whole file is read (an error file prints the error alone)
    for key, val in data.items():
        if key == "bonus":  # the older spelling of the bonus weights
            if not isinstance(val, dict):
                raise ConfigError(f"{path}: 'bonus' must be a mapping like {{alpha: 1.0, beta: 1.0}}")
            for sub, v in val.items():
                if sub not in _LEGACY_BONUS:
                    raise ConfigError(f"{path}: unknown key 'bonus.{sub}' (known: bonus.alpha, bonus.beta)")
                where, new = f"{path}: 'bonus.{sub}'", _LEGACY_BONUS[sub]
                if new in data:  # not the later one silently winning
                    raise ConfigError(f"{path}: give {new!r} or 'bonus.{sub}', not both ('bonus.{sub}' "
                                      "is its deprecated spelling)")
                out[new] = (_typed(v, new, where), where)
                what = "yes/no" if sub == "alpha" else "entity"
                deprecated.append(f"{where} is deprecated: use {new!r} (the DuReader {what} bonus weight)")
            continue
        if key not in OPTIONS:
            raise ConfigError(f"{path}: unknown key {key!r}{suggest(str(key), OPTIONS)} "
                              f"(known: {', '.join(OPTIONS)})")
        out[key] = (_typed(val, key, path), f"{path}: {key!r}")
    if "gamma" in out and "alpha" in out:  # scoring.weighting's rule, named by file
        raise ConfigError(f"{path}: give 'gamma' or 'alpha', not both")
    for msg in deprecated:
        warnings.warn(msg, DeprecationWarning, stacklevel=2)
    return out


def preset(name: str) -> Dict[str, Any]:
    """A shipped preset's settings as keyword arguments of :func:`paddle_rougel.compute`
    (the DuReader bonus weights of ``dureader`` / ``paddlenlp`` are left out: they apply to
    the contest scorer, whose yes/no and entity inputs compute does not take)."""
    if not isinstance(name, str) or name not in PRESETS:
        raise ConfigError(f"preset must be one of {', '.join(PRESETS)}, got {shown(name)}"
                          f"{suggest(name, PRESETS) if isinstance(name, str) else ''}")
    values = read_config(name)
    return {k: values[k][0] for k in COMPUTE_KEYS if k in values}
