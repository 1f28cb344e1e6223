"""``paddle-rougel merge``: combine state files (``--save-state``, or ``json.dump`` of a metric's
``state_dict()``) into the score of all their data.  Each state is read by its metric's
accumulator (named in the registry, :mod:`paddle_rougel.metrics`), which checks structure,
settings, field names, shapes and values.  The scores print as ``score`` / ``dureader`` print them
(a ROUGE type's F, P and R: :func:`paddle_rougel.cli.common.type_scores`), in the first file's order (the
order of the ``--rouge-types`` that made it).  ``--confidence [LEVEL]`` draws ``score
--confidence``'s interval of each score over the instances the states keep (written by ``score
--confidence --save-state``), the files' instances in their order.
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Tuple

from paddle_rougel.metrics import from_state
from paddle_rougel.api.config import read_config
from paddle_rougel.core.signature import signature as settings_signature
from paddle_rougel.metrics import METRICS

from .common import CliError, build, check_finite, check_input, pct, type_scores
from .lineio import read_json
from .output import STATE_FORMAT, print_result, scores_result
from .procio import printable
from .signatures import ci_parts, signature

__all__ = ["cmd_merge", "derived_parts", "derived_signature"]


def _load_state_file(path: str) -> Dict[str, Any]:
    obj = read_json(path)
    if isinstance(obj, dict) and "metrics" in obj:
        fmt, metrics = obj.get("format", STATE_FORMAT), obj["metrics"]
        if fmt != STATE_FORMAT:
            raise CliError(f"{path}: format {fmt!r} is not {STATE_FORMAT!r} (made by another version?)")
        if not isinstance(metrics, dict) or not metrics:
            raise CliError(f"{path}: 'metrics' must be a non-empty object of metric states")
        states = dict(metrics)
        sig = obj.get("signature")
        if sig is not None and not isinstance(sig, str):
            raise CliError(f"{path}: 'signature' must be a string")
    elif isinstance(obj, dict) and "metric" in obj and "states" in obj:
        states = {_state_key(obj): obj}
        sig = None
    else:
        raise CliError(f"{path}: not a paddle-rougel state file (from `dureader --save-state` "
                       "or json.dump(metric.state_dict()))")
    return {"states": states, "signature": sig}


def _state_key(state: dict) -> str:
    """The state-file key of a bare ``state_dict()`` (its metric's, or the metric name when it is
    unknown or its settings are bad: the merge then refuses it with the reason)."""
    spec = METRICS.get(state["metric"]) if isinstance(state["metric"], str) else None
    if spec is None:
        return str(state["metric"])
    try:
        return spec.state_key_of(spec.settings.from_config(state.get("config", {})))
    except (TypeError, ValueError):
        return str(state["metric"])


def _split_engine(sig: str) -> Tuple[str, List[str]]:
    """The settings part of a signature, and the engines named in it (never compared).  A
    ``ci:`` part (the interval ``score --confidence`` drew) changes no state: left out too."""
    parts = [p for p in sig.split("|") if not p.startswith("ci:")]
    return ("|".join(p for p in parts if not p.startswith("engine:")),
            [p[len("engine:"):] for p in parts if p.startswith("engine:")])


def _merged_metrics(files) -> Dict[str, Any]:
    """One accumulator per metric key: the first file's state, the others merged in.
    The accumulators check structure, settings, field names, shapes and values."""
    first_path, first = files[0]
    keys = list(first["states"])  # the first file's order: the order its scores print in
    accs: Dict[str, Any] = {}
    for path, f in files:
        if sorted(f["states"]) != sorted(keys):
            raise CliError(f"{path}: holds metrics {sorted(f['states'])} but {first_path} holds {sorted(keys)}")
        for key in keys:
            st, where = f["states"][key], f"{path}: metrics.{key}"
            try:
                if key not in accs:
                    accs[key] = from_state(st, where)  # its messages start with `where`
                else:
                    accs[key].merge(st)
            except (ValueError, KeyError, TypeError, OverflowError) as e:
                msg = printable(str(e)) or type(e).__name__
                if key in accs and not msg.startswith(where):
                    msg = f"{where}: cannot merge with {first_path}: {msg}"
                raise CliError(msg) from None
    return accs


def _check_merge_config(accs: Dict[str, Any], spec: str) -> None:
    """The states' settings must be the ones ``spec`` gives (the same builders as scoring; the
    settings a state's own name fixes, ROUGE-N's n and BLEU's n_size, are taken from it)."""
    config = read_config(spec)  # once: a deprecated key warns once
    values = {k: v for k, (v, _) in config.items()}
    origin = {k: w for k, (_, w) in config.items()}
    for acc in accs.values():
        ms = acc.spec
        fixed = {k: getattr(acc.settings, k) for k in ms.label_fields()}
        want = build(lambda v: ms.from_options({**v, **fixed}), values, origin)
        if want != acc.settings:
            raise CliError(f"the states' settings {acc.settings.config()} differ from {spec}: "
                           f"{want.config()}")


def _merged_scores(accs: Dict[str, Any], where: str) -> Dict[str, float]:
    """The scores as the command that wrote the states prints them (``score``: each type's F, P
    and R; ``dureader``: ROUGE-L and BLEU-4), 0-1."""
    result: Dict[str, float] = {}
    for acc in accs.values():
        name = acc.label
        if name in result:  # two states of one kind would print one number for two data sets
            raise CliError(f"{where}: holds two {name} states")
        try:
            result.update(type_scores({name: acc}))
        except OverflowError as e:
            raise CliError(f"{where}: cannot score with the settings {acc.settings.config()} ({e})") from None
    check_finite(result, "the states' sums or settings are out of range")
    return result


def _type_name(acc) -> str:
    """The name a state's metric has in a signature: its ROUGE type (``rouge2``, ``rougeL``), or
    the contest's ``rougeL`` / ``bleu4`` (as ``dureader`` prints them)."""
    ms = acc.spec
    fixed = {k: getattr(acc.settings, k) for k in ms.label_fields()}
    if ms.key is not None:
        return ms.key.format(**fixed)
    return "bleu{n_size}".format(**fixed) if "n_size" in fixed else "rougeL"


def derived_parts(accs: Dict[str, Any]) -> List[tuple]:
    """The signature builder's parts, derived from the merged states' own settings (never from
    what a file says): each metric's name, spec, the parameters its name says, and settings."""
    parts = []
    for acc in accs.values():
        name = _type_name(acc)
        params = {k: getattr(acc.settings, k) for k in acc.spec.label_fields()}
        if "n_size" in params:  # BLEU's n is said by its name, as ROUGE-N's
            params["n"] = params.pop("n_size")
        parts.append((name, acc.spec, params, acc.settings))
    return parts


def derived_signature(accs: Dict[str, Any]) -> str:
    """The settings part of the signature, derived from the merged states' own settings: the
    metrics' names joined by ``+``, then every setting once, as ``score``
    (:func:`paddle_rougel.functional.signature`) and ``dureader`` print them."""
    return settings_signature(derived_parts(accs))


def _merge_signature(metrics: Dict[str, Any], sigs: Dict[str, str], extra: List[str]) -> str:
    """The derived signature (:func:`derived_signature`), ``extra`` (the interval drawn), the
    version and the engines the files name; a file whose stored signature says other settings
    than its states is refused (a signature is never trusted: it would be printed as the settings
    of the number)."""
    derived = derived_signature(metrics)
    for path, sig in sigs.items():
        said = "|".join(p for p in _split_engine(sig)[0].split("|") if not p.startswith("v:"))
        if said != derived:
            raise CliError(f"{path}: its signature {said!r} contradicts its states' settings, which give "
                           f"{derived!r} (a state file edited by hand?)")
    engines = sorted({e for s in sigs.values() for e in _split_engine(s)[1]})
    return signature(derived_parts(metrics), extra, "+".join(engines) if engines else None)


def _distinct_inputs(paths: List[str]) -> None:
    """The same state file twice (or a link to it) would count its data twice."""
    seen: Dict[Tuple[int, int], str] = {}
    for p in paths:
        check_input(p)
        st = os.stat(p)
        key = (st.st_dev, st.st_ino)
        if key in seen:
            raise CliError(f"{p} is the same file as {seen[key]} (its data would be counted twice)")
        seen[key] = p


def cmd_merge(opts) -> int:
    _distinct_inputs(opts.state_files)
    files = [(p, _load_state_file(p)) for p in opts.state_files]
    metrics = _merged_metrics(files)
    sigs = {p: f["signature"] for p, f in files if f["signature"] is not None}
    sig = _merge_signature(metrics, sigs, ci_parts(opts))  # the interval: score's place for it
    if opts.config:
        _check_merge_config(metrics, opts.config)
    scores = _merged_scores(metrics, files[0][0] if len(files) == 1 else "the merged states")
    if opts.confidence is None:
        result, fmt = {k: pct(v) for k, v in scores.items()}, opts.format
    else:  # as score --confidence: each score's interval over the states' instances (in file order)
        by_label = {acc.label: acc for acc in metrics.values()}
        result, fmt = scores_result(opts, by_label, {name: scores[name] for name in by_label})
    print_result(opts, result, fmt, sig, [f"merged {len(files)} state files"])
    return 0
