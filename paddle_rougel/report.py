"""``paddle-rougel report``: one self-contained HTML file that explains a score.

Inline CSS and SVG only (no script, no font, no image file, no network at view
time): the headline scores with bootstrap intervals and the
signature; per-group tables and bar charts (DuReader: question type, source,
answer length; text files: answer length and an optional key file); the
distribution of per-instance F; the worst instances with their LCS alignment
against the best reference highlighted; with two systems, per-group
differences with paired tests (p-values Holm-adjusted for the number of
groups), B - A over all instances in the headline (``compare``'s test and numbers) and the
instances where the systems differ most, side by side.  Text files: every type of
``--rouge-types`` (``score``'s flag and default).

Every user string (ids, types, sources, keys, file names, texts)
is isolated (``<bdi>``; in SVG, FSI ... PDI) so that a right-to-left override in it cannot
reorder the page's own text; texts are shown as written, the counted tokens marked in them
(:mod:`paddle_rougel.textmarks`).

The numbers are the command line's: the same accumulators, intervals
(``--confidence [LEVEL]``, default 0.95, ``--resamples`` resamples, ``--seed``: the options,
defaults, checks and formula of ``score --confidence``) and tests
(``compare``: paired bootstrap) as ``dureader --by ... --confidence`` and
``compare --by ...``; the statistics are computed before the page is written
(:func:`compute`).  Every figure in a table sits in an element with
``data-metric`` / ``data-group`` / ``data-system`` attributes (what the browser
test reads back).
"""
from __future__ import annotations

import html
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import cli, cli_dureader, cli_score
from .api.align import best_reference, marked_runs
from .cli import CliError, _pct
from .api.groups import LENGTH_ORDER, grouped, holm
from .engine.lsum import split_sentences
from .metrics.dureader_rouge_l import BONUS_OPTIONS, dureader_from_options
from .core.settings import ROUGE_OPTIONS, TEXT_OPTIONS
from .fileio import check_distinct, output_fd, write_outputs
from .textmarks import FSI, PDI, bidi_safe, marked_text, token_spans

__all__ = ["cmd_report", "compute", "render", "System", "Grouping"]

COLOURS = ("#3b6fb6", "#e07b24")
DIFF_SHOWN = 10  # instances shown where two systems differ most


# ------------------------------------------------------------------ data

LCS_TYPES = ("ROUGE-L", "ROUGE-Lsum")  # the types whose counted tokens an alignment shows


class System:
    """One system's scored run: name, file, accumulators {metric: acc}, and the per-instance F
    of its ``primary`` metric (the first LCS type, else the first type): the histogram's and
    the instance lists' order."""

    def __init__(self, name: str, path: str, accs: Dict[str, Any], cands: List[Any],
                 primary: Optional[str] = None):
        self.name, self.path, self.accs, self.cands = name, path, accs, cands
        self.primary = primary or next(iter(accs))
        self.f = accs[self.primary].per_instance().fmeasure


class Grouping(NamedTuple):
    """A section of groups: ``by`` (section id), its title (HTML), the table's key column and
    the charts' wording ("ROUGE-L by <label>"), one key per instance."""

    by: str
    title: str
    column: str
    label: str
    keys: Sequence


def _builtin(by: str, keys: Sequence) -> Grouping:
    words = by.replace("_", " ")
    return Grouping(by, f"By {words}", by, words, keys)


def _key_file(path: str, keys: Sequence) -> Grouping:
    return Grouping("keys", f"By keys from {_u(path)}", "key", "key", keys)


def _load(args):
    """(systems, items, groupings, settings, signature, summary) from the command's sources;
    ``settings``: those of the alignment shown (the primary type's), None for ROUGE-N alone."""
    from .cli_report import dureader_keys

    out = [("-o", args.output)]
    if args.ref_file:
        preds = args.pred_file or []
        if not 1 <= len(preds) <= 2 or args.hyp or args.ref:
            raise CliError("report DuReader files with --ref_file R --pred_file A [--pred_file B]")
        if args.summary_level or args.by or getattr(args, "split", None) or args.rouge_types:
            raise CliError("--summary-level, --rouge-types, --split and --by are for text files (--hyp/--ref)")
        check_distinct(cli._inputs(args, "--ref_file") + [("--pred_file", p) for p in preds], out)
        values, origin = cli._choices(args, ROUGE_OPTIONS + TEXT_OPTIONS + BONUS_OPTIONS)
        settings, _ = cli._build(dureader_from_options, values, origin)
        contests = cli_dureader._read_contests(args, preds)
        systems = [System(n, p, cli_dureader._contest_metrics(c, values, origin, keep=True)[0], c.cands)
                   for n, p, c in zip("AB", preds, contests)]
        c0 = contests[0]
        tok = systems[0].accs["ROUGE-L"].tokenizer
        groupings = [_builtin(by, dureader_keys(by, c0, tok)) for by in ("question_type", "source", "length")]
        items = [{"id": q, "type": t, "refs": r} for q, t, r in zip(c0.qids, c0.types, c0.ref_lists)]
        sig = cli._signature("rougeL+bleu4", settings, *cli._ci_signature(args))
        summary = cli_dureader._counts(c0)
    else:
        systems, items, groupings, settings, sig = _load_text(args, out)
        summary = f"lines scored: {len(items)}"
    if not len(systems[0].f):
        raise CliError("nothing to report: no instance was scored")
    return systems, items, groupings, settings, sig, summary


def _load_text(args, out):
    """Text line files: every type of ``--rouge-types`` (``score``'s reading and numbers)."""
    from .cli_report import LINE_BY, line_keys, no_bonus

    hyps_files = args.hyp or []
    if not 1 <= len(hyps_files) <= 2 or not args.ref or args.pred_file:
        raise CliError("report text files with --ref R [--ref R2 ...] --hyp A [--hyp B], or "
                       "DuReader files with --ref_file R --pred_file A [--pred_file B]")
    inputs = [("--hyp", h) for h in hyps_files] + [("--ref", r) for r in args.ref]
    if args.by:
        inputs.append(("--by", args.by))
    check_distinct([(f, p) for f, p in inputs if p != "-"], out)
    no_bonus(args)
    values, origin, parts = cli_score.line_metrics(args)
    lines, refsets = cli_score.read_score_inputs(hyps_files, args.ref, args)
    systems = []
    for n, h, hyps in zip("AB", hyps_files, lines):
        accs = cli_score.line_accumulators(parts, values, origin, keep=True)
        cli_score.score_lines(accs, hyps, refsets, origin)
        primary = next((m for m in accs if m in LCS_TYPES), None)
        systems.append(System(n, h, accs, hyps, primary))
    if len(systems) == 2 and len(systems[0].f) != len(systems[1].f):
        raise CliError(f"{hyps_files[1]} has {len(systems[1].f)} lines but {hyps_files[0]} has "
                       f"{len(systems[0].f)}")
    n = len(systems[0].f)
    first = systems[0].accs[next(iter(systems[0].accs))]
    groupings = [_builtin("length", line_keys("length", n, refsets, first.tokenizer))]
    if args.by and args.by != LINE_BY:  # --by length is the built-in (warned about when a file of that name is here)
        groupings.append(_key_file(args.by, line_keys(args.by, n)))
    elif args.by:
        line_keys(args.by, n, refsets, first.tokenizer)  # the warning
    items = [{"id": f"line {i + 1}", "type": None, "refs": [rs[i] for rs in refsets]} for i in range(n)]
    for it in items:  # as score reads them (cli_score.line_text)
        it["refs"] = [cli_score.line_text(r) for r in it["refs"]]
    for s in systems:
        s.cands = [cli_score.line_text(c) for c in s.cands]
    primary = systems[0].primary
    settings = systems[0].accs[primary].settings if primary in LCS_TYPES else None
    sig = cli.run_signature(parts, *cli._ci_signature(args))
    return systems, items, groupings, settings, sig


# ------------------------------------------------------------------ HTML pieces

def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _u(x: Any) -> str:
    """A user string (id, key, file name, text) in HTML: isolated, escaped."""
    return f"<bdi>{_e(bidi_safe(x))}</bdi>"


def _su(x: Any) -> str:
    """A user string in SVG text or a tooltip (no <bdi> there): between FSI and PDI, escaped."""
    return _e(FSI + bidi_safe(x) + PDI)


def _num(v: Dict[str, Any], attrs: str) -> str:
    ci = "(1 instance: no interval)" if v["low"] is None else f'[{v["low"]:.2f}, {v["high"]:.2f}]'
    return f'<td class="num" {attrs}><b class="score">{v["score"]:.2f}</b> <span class="ci">{ci}</span></td>'


def _bar_chart(labels: Sequence[str], series: List[Tuple[str, List[Dict[str, float]]]], title: str) -> str:
    """Horizontal bars (0-100) with interval whiskers, one row of bars per group (``labels``:
    the groups' keys, user strings)."""
    left, width, bar, gap = 120, 360, 14, 10
    row_h = bar * len(series) + gap
    height = 28 + row_h * len(labels) + 24
    x = lambda v: left + width * max(0.0, min(v, 100.0)) / 100.0  # noqa: E731
    out = [f'<svg class="chart" role="img" aria-label="{_su(title)}" width="{left + width + 70}" '
           f'height="{height}" viewBox="0 0 {left + width + 70} {height}">',
           f'<text x="0" y="14" class="t">{_e(title)}</text>']
    for t in range(0, 101, 25):
        out.append(f'<line x1="{x(t):.1f}" y1="22" x2="{x(t):.1f}" y2="{height - 18}" class="grid"/>'
                   f'<text x="{x(t):.1f}" y="{height - 4}" class="tick" text-anchor="middle">{t}</text>')
    for g, label in enumerate(labels):
        y0 = 26 + g * row_h
        out.append(f'<text x="{left - 6}" y="{y0 + row_h / 2:.1f}" class="lab" text-anchor="end">{_su(label)}</text>')
        for s, (name, values) in enumerate(series):
            v = values[g]
            y = y0 + s * bar
            ci = "no interval" if v["low"] is None else f'[{v["low"]:.2f}, {v["high"]:.2f}]'
            out.append(f'<rect x="{left}" y="{y}" width="{x(v["score"]) - left:.1f}" height="{bar - 2}" '
                       f'fill="{COLOURS[s]}"><title>{_e(name)} {_su(label)}: {v["score"]:.2f} {ci}</title></rect>')
            if v["low"] is not None:
                out.append(f'<line x1="{x(v["low"]):.1f}" x2="{x(v["high"]):.1f}" y1="{y + bar / 2 - 1:.1f}" '
                           f'y2="{y + bar / 2 - 1:.1f}" class="whisk"/>')
            right = v["score"] if v["high"] is None else max(v["score"], v["high"])
            out.append(f'<text x="{x(right) + 4:.1f}" y="{y + bar - 4}" class="val">{v["score"]:.2f}</text>')
    out.append("</svg>")
    return "".join(out)


def _histogram(systems: List[System], metric: str) -> str:
    edges = np.linspace(0.0, 1.0, 11)
    counts = [np.histogram(s.f, bins=edges)[0] for s in systems]
    top = max(1, max(int(c.max()) for c in counts))
    left, width, height, base = 40, 520, 220, 190
    slot = width / 10
    bw = (slot - 6) / len(systems)
    out = [f'<svg class="chart" role="img" aria-label="distribution of per-instance {metric} F" '
           f'width="{left + width + 10}" height="{height}" viewBox="0 0 {left + width + 10} {height}" '
           '>',
           f'<line x1="{left}" y1="{base}" x2="{left + width}" y2="{base}" class="axis"/>',
           f'<text x="{left - 4}" y="20" class="tick" text-anchor="end">{top}</text>',
           f'<text x="{left - 4}" y="{base}" class="tick" text-anchor="end">0</text>']
    for b in range(10):
        x0 = left + b * slot + 3
        for s, c in enumerate(counts):
            h = (base - 20) * int(c[b]) / top
            out.append(f'<rect x="{x0 + s * bw:.1f}" y="{base - h:.1f}" width="{bw:.1f}" height="{h:.1f}" '
                       f'fill="{COLOURS[s]}" data-system="{systems[s].name}" data-bin="{b}" '
                       f'data-count="{int(c[b])}"><title>{systems[s].name}: {int(c[b])} with F in '
                       f'[{edges[b]:.1f}, {edges[b + 1]:.1f}{"]" if b == 9 else ")"}</title></rect>')
        out.append(f'<text x="{left + b * slot:.1f}" y="{base + 14}" class="tick" text-anchor="middle">'
                   f'{edges[b]:.1f}</text>')
    out.append(f'<text x="{left + width:.1f}" y="{base + 14}" class="tick" text-anchor="middle">1.0</text>'
               f'<text x="{left + width / 2:.1f}" y="{height - 2}" class="tick" text-anchor="middle">'
               f'per-instance {metric} F</text></svg>')
    return "".join(out)


def _runs_html(runs) -> str:
    return "".join(f"<mark>{_e(t)}</mark>" if m else _e(t) for m, t in runs)


def _marked_html(text: Any, tokens: Any, marks: Sequence[bool], text_settings) -> str:
    """One text (or sentence) as written, its counted tokens marked, isolated; the tokens
    themselves when they cannot be placed in it (textmarks.token_spans)."""
    spans = token_spans(text, tokens, text_settings) if isinstance(text, str) else None
    if spans is not None:
        safe = bidi_safe(text)  # same offsets after its FSI prefix (if any)
        pre = len(safe) - len(text)
        body = _e(safe[:pre]) + _runs_html(marked_text(safe[pre:], spans, marks))
    else:
        sep = "" if isinstance(tokens, str) else " "
        body = sep.join(f"<mark>{_e(bidi_safe(sep.join(map(str, run))))}</mark>" if m
                        else _e(bidi_safe(sep.join(map(str, run)))) for m, run in marked_runs(tokens, marks))
    return f"<bdi>{body}</bdi>" if body else '<span class="empty">(empty)</span>'


def _plain(text: Any) -> str:
    shown = text if isinstance(text, str) else " ".join(map(str, text))
    return _u(shown) if shown else '<span class="empty">(empty)</span>'


def _aligned(cand: Any, refs: Sequence, settings) -> Tuple[str, str, str]:
    """(candidate HTML, best reference HTML, caption) with the counted LCS tokens marked in the
    texts as written; ``settings`` None (ROUGE-N alone): the first reference, nothing marked."""
    if settings is None:
        return _plain(cand), _plain(refs[0]), f"reference 1 of {len(refs)} (ROUGE-N: no alignment drawn)"
    k, a, fs = best_reference(cand, refs, settings)
    text = settings.text
    if hasattr(a, "hits"):  # ROUGE-Lsum: one line per sentence
        split = settings.split

        def lines(x, sents, marks):  # each sentence as written (if they line up), else its tokens
            orig = split_sentences(x, split) if isinstance(x, str) else list(x)
            if len(orig) != len(sents):
                orig = [None] * len(sents)
            return "<br>".join(_marked_html(o, s, m, text) for o, s, m in zip(orig, sents, marks))
        c = lines(cand, a.cand, a.cand_marked()) or '<span class="empty">(empty)</span>'
        r = lines(refs[k], a.ref, a.ref_marked()) or '<span class="empty">(empty)</span>'
        hits = f"{a.n_hits} union-LCS hits"
    else:
        c = _marked_html(cand, a.cand, a.cand_marked(), text)
        r = _marked_html(refs[k], a.ref, a.ref_marked(), text)
        hits = f"LCS {a.lcs}"
    return c, r, f"best reference {k + 1} of {len(refs)} (pair F {fs[k]:.4f}, {hits})"


# ------------------------------------------------------------------ sections

def _headline(systems: List[System], sig: str, args, summary: str, data: dict) -> str:
    names = list(systems[0].accs)
    rows = []
    for s in systems:
        cells = "".join(_num(data["headline"][s.name, m], f'data-system="{s.name}" data-metric="{_e(m)}" '
                                                          'data-group="(all)"') for m in names)
        rows.append(f'<tr><th><span class="sw" style="background:{COLOURS["AB".index(s.name)]}"></span>'
                    f'{s.name}</th><td class="file">{_u(s.path)}</td><td class="num">{len(s.f)}</td>{cells}</tr>')
    head = "".join(f"<th>{_e(m)}</th>" for m in names)
    return (f'<section id="headline"><h2>Scores</h2><table class="scores"><thead><tr><th>system</th>'
            f'<th>file</th><th>count</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            f'<p class="note">x100; {cli._level(args.confidence)} percentile bootstrap intervals over '
            f'instances ({args.resamples} '
            f'resamples, seed {args.seed}). {_e(summary)}.</p>'
            + _overall_table(systems, data["overall"], args) +
            f'<p class="sig" id="signature">{_u(sig)}</p></section>')


def _overall_table(systems: List[System], overall: Optional[Dict[str, Any]], args) -> str:
    """B - A over all instances, per metric: ``compare``'s row (computed by :func:`compute`)."""
    if overall is None:
        return ""
    rows = []
    for m in systems[0].accs:
        attrs = f'data-metric="{_e(m)}" data-group="(all)"'
        c = overall.get(m)
        if c is None:  # one instance: nothing to resample
            rows.append(f'<tr><th>{_e(m)}</th><td class="num diff" {attrs} colspan="4">(1 instance: no test)'
                        '</td></tr>')
            continue
        sig = ' class="signif"' if c.p_value < 0.05 else ""
        rows.append(f'<tr{sig}><th>{_e(m)}</th><td class="num">{_pct(c.score_a):.2f}</td>'
                    f'<td class="num">{_pct(c.score_b):.2f}</td>'
                    f'<td class="num diff" {attrs}><b>{_pct(c.difference):+.2f}</b> '
                    f'<span class="ci">[{_pct(c.low):.2f}, {_pct(c.high):.2f}]</span></td>'
                    f'<td class="num p" {attrs}>{round(c.p_value, 4):.4f}</td></tr>')
    return (f'<h3>B - A over all instances</h3><table class="scores diffs overall"><thead><tr><th>metric</th>'
            f'<th>A</th><th>B</th><th>B - A [{cli._level(args.confidence)} interval]</th><th>p</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table><p class="note">Paired bootstrap over all instances '
            f'({args.resamples} resamples, seed {args.seed}): the test and numbers of <code>paddle-rougel '
            'compare</code> with the same files and options; rows with p &lt; 0.05 are bold.</p>')


def _cell(grp) -> Dict[str, Any]:
    """A group's score and interval, x100 (the interval None for a group of one instance)."""
    iv = grp.interval
    return {"score": _pct(grp.score), "low": None if iv is None else _pct(iv.low),
            "high": None if iv is None else _pct(iv.high)}


def _group_cells(res: Dict[Any, Any], systems: List[System]) -> Dict[tuple, Dict[str, Any]]:
    return {(s.name, m, k): _cell(grp) for k, g in res.items()
            for s, per in zip(systems, g.systems) for m, grp in per.items()}


def _groups_section(systems: List[System], g: Grouping, res: Dict[Any, Any], args) -> str:
    names = list(systems[0].accs)
    two = len(systems) == 2
    labels = list(res)
    cell = _group_cells(res, systems)
    head = "".join(f"<th>{_e(m)} {s.name}</th>" for m in names for s in systems)
    rows = []
    for k in labels:
        cells = "".join(_num(cell[s.name, m, k], f'data-system="{s.name}" data-metric="{_e(m)}" '
                                                 f'data-group="{_e(k)}"') for m in names for s in systems)
        rows.append(f'<tr><th>{_u(k)}</th><td class="num">{res[k].count}</td>{cells}</tr>')
    wide = " wide" if len(names) * len(systems) >= 4 else ""  # the intervals under the scores
    out = [f'<section class="groups" id="by-{_e(g.by)}"><h2>{g.title}</h2>'
           f'<table class="scores{wide}"><thead><tr><th>{_e(g.column)}</th><th>count</th>{head}</tr></thead>'
           f'<tbody>{"".join(rows)}</tbody></table><div class="charts">']
    for m in names:
        series = [(s.name, [cell[s.name, m, k] for k in labels]) for s in systems]
        out.append(_bar_chart([str(k) for k in labels], series, f"{m} by {g.label}"))
    out.append("</div>")
    if two:
        out.append(_diff_table(res, names, args))
    out.append("</section>")
    return "".join(out)


def _diff_table(res: Dict[Any, Any], names: List[str], args) -> str:
    rows = []
    for m in names:  # Holm over the tested groups, per metric (as `compare --by`)
        tested = [k for k, g in res.items() if m in g.comparisons]
        adjusted = dict(zip(tested, holm([res[k].comparisons[m].p_value for k in tested])))
        for k, g in res.items():
            attrs = f'data-metric="{_e(m)}" data-group="{_e(k)}"'
            if k not in adjusted:  # one instance: nothing to resample
                rows.append(f'<tr><th>{_u(k)}</th><td>{_e(m)}</td><td class="num">{g.count}</td>'
                            f'<td class="num diff" {attrs} colspan="3">(1 instance: no test)</td></tr>')
                continue
            c, p_adj = g.comparisons[m], adjusted[k]
            sig = ' class="signif"' if p_adj < 0.05 else ""
            rows.append(f'<tr{sig}><th>{_u(k)}</th><td>{_e(m)}</td><td class="num">{g.count}</td>'
                        f'<td class="num diff" {attrs}>{_pct(c.difference):+.2f} '
                        f'<span class="ci">[{_pct(c.low):.2f}, {_pct(c.high):.2f}]</span></td>'
                        f'<td class="num p" {attrs}>{round(c.p_value, 4):.4f}</td>'
                        f'<td class="num holm" {attrs}>{round(p_adj, 4):.4f}</td></tr>')
    return ('<h3>B - A per group</h3><table class="scores diffs"><thead><tr><th>group</th><th>metric</th>'
            f'<th>count</th><th>B - A [{cli._level(args.confidence)} interval]</th><th>p</th><th>p (Holm)</th>'
            '</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table><p class="note">Paired bootstrap ({args.resamples} '
            'resamples) on each group\'s instances; p (Holm): adjusted for the number of groups by '
            "Holm's step-down method; rows with p (Holm) &lt; 0.05 are bold.</p>")


def _instance_block(item: dict, f: float, cand: Any, settings, label: str = "") -> str:
    c, r, cap = _aligned(cand, item["refs"], settings)
    kind = f' <span class="type">{_u(item["type"])}</span>' if item["type"] else ""
    return (f'<div class="inst"><div class="ih">{_e(label)}<b>{_u(item["id"])}</b>{kind} F '
            f'<b class="f">{f * 100:.2f}</b> <span class="cap">{_e(cap)}</span></div>'
            f'<div class="row"><span class="k">candidate</span><span class="txt">{c}</span></div>'
            f'<div class="row"><span class="k">reference</span><span class="txt">{r}</span></div></div>')


def _worst(systems: List[System], items: List[dict], settings, n: int) -> str:
    s = systems[0]
    idx = np.argsort(s.f, kind="stable")[:n]
    blocks = "".join(_instance_block(items[i], float(s.f[i]), s.cands[i], settings) for i in idx.tolist())
    how = ("Highlighted in the text as written: the tokens of the LCS the score counts (rouge-score's "
           "tie rule), against the reference with the highest pair F." if settings is not None else
           "ROUGE-N counts n-grams: no alignment is drawn.")
    return (f'<section id="worst"><h2>The {len(idx)} lowest-scoring instances of A ({_e(s.primary)} F)</h2>'
            f'<p class="note">{_e(how)}</p>' + blocks + "</section>")


def _differ(systems: List[System], items: List[dict], settings) -> str:
    a, b = systems
    d = b.f - a.f
    idx = np.argsort(-np.abs(d), kind="stable")[:DIFF_SHOWN]
    rows = []
    for i in idx.tolist():
        cells = "".join(f'<td>{_instance_block(items[i], float(s.f[i]), s.cands[i], settings, s.name + ": ")}</td>'
                        for s in systems)
        rows.append(f'<tr><td class="num">{d[i] * 100:+.2f}</td>{cells}</tr>')
    return (f'<section id="differ"><h2>Where A and B differ most ({_e(a.primary)} F)</h2>'
            '<table class="side"><thead><tr>'
            '<th>B - A</th><th>A</th><th>B</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table></section>")


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC","Noto Sans",sans-serif;
margin:24px auto;max-width:1180px;padding:0 16px;color:#1d232b;background:#fff;line-height:1.4}
h1{font-size:26px;margin:0 0 4px}h2{font-size:20px;margin:28px 0 8px;border-bottom:2px solid #dfe3e8}
h3{font-size:16px;margin:16px 0 6px}
table.scores{border-collapse:collapse;margin:6px 0}table.scores th,table.scores td{padding:4px 10px;
border-bottom:1px solid #e3e6ea;text-align:left}table.scores thead th{background:#f2f4f7}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.ci{color:#5b6570;font-size:90%}.sig{font-family:ui-monospace,monospace;font-size:12px;color:#444;
overflow-wrap:anywhere;background:#f6f7f9;padding:6px}.note{color:#5b6570;font-size:13px}
.file{font-family:ui-monospace,monospace;font-size:12px;overflow-wrap:anywhere}
.sw{display:inline-block;width:10px;height:10px;margin-right:6px}tr.signif td,tr.signif th{font-weight:600}
.charts{display:flex;flex-wrap:wrap;gap:16px}svg.chart{background:#fbfbfc;border:1px solid #eceef1}
svg .t{font-size:13px;font-weight:600}svg .lab,svg .val{font-size:12px}svg .tick{font-size:11px;fill:#5b6570}
svg .grid{stroke:#e3e6ea}svg .axis{stroke:#888}svg .whisk{stroke:#1d232b;stroke-width:1.5}
.inst{border:1px solid #e3e6ea;border-radius:4px;padding:6px 8px;margin:6px 0}
.ih{font-size:13px;margin-bottom:4px}.cap{color:#5b6570;font-size:12px}.type{background:#eef1f5;
padding:0 4px;border-radius:3px;font-size:12px}.row{display:flex;gap:8px}.k{color:#5b6570;width:72px;
flex:none;font-size:12px}.txt{overflow-wrap:anywhere;min-width:0}mark{background:#b9e6b3;padding:0 1px}
table.side{border-collapse:collapse;width:100%}table.side td{vertical-align:top;width:48%}
table.side td.num{width:4%}.empty{color:#999}table.wide td.num{white-space:normal}table.wide .ci{display:inline-block}
"""


def compute(systems: List[System], groupings: List[Grouping], args) -> dict:
    """Every statistic the page shows, before it is written (:func:`paddle_rougel.groups.grouped`:
    one set of resampled sums per group for every metric of both systems).  All instances as one
    group give the headline: each score's interval (the draws and percentile interval of
    ``score --confidence``, :func:`paddle_rougel.stats.bootstrap`) and, with two systems, B - A
    with its paired bootstrap test (the draws and test of ``compare``,
    :func:`paddle_rougel.stats.paired_bootstrap`): their numbers, at the report's
    ``--confidence``, ``--resamples`` and ``--seed``.  Then each grouping's groups."""
    two = len(systems) == 2
    runs = [s.accs for s in systems]

    def stats(keys, order=None):
        return grouped(runs, keys, args.confidence, args.resamples, args.seed, order, paired=two)

    (whole,) = stats([0] * len(systems[0].f)).values()
    headline = {(s.name, m): _cell(grp) for s, per in zip(systems, whole.systems) for m, grp in per.items()}
    groups = [stats(g.keys, LENGTH_ORDER if g.by == "length" else None) for g in groupings]
    return {"headline": headline, "groups": groups, "overall": whole.comparisons if two else None}


def render(systems: List[System], items: List[dict], groupings: List[Grouping], settings, sig: str,
           summary: str, args, data: dict) -> str:
    """The report as one HTML document, from the statistics :func:`compute` made."""
    metric = systems[0].primary
    parts = [_headline(systems, sig, args, summary, data)]
    parts += [_groups_section(systems, g, res, args) for g, res in zip(groupings, data["groups"])]
    parts.append('<section id="distribution"><h2>Distribution of per-instance ' + _e(metric) + ' F</h2>'
                 + _histogram(systems, metric) + "</section>")
    parts.append(_worst(systems, items, settings, args.worst))
    if len(systems) == 2:
        parts.append(_differ(systems, items, settings))
    legend = " ".join(f'<span class="sw" style="background:{COLOURS[i]}"></span>{s.name}: {_u(s.path)}'
                      for i, s in enumerate(systems))
    return ("<!DOCTYPE html>\n<html lang=\"zh\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>paddle-rougel report</title><style>{_CSS}</style></head><body>"
            f"<h1>paddle-rougel report</h1><p class=\"note\">{legend}</p>"
            + "".join(parts) + "</body></html>\n")


def cmd_report(args) -> int:
    systems, items, groupings, settings, sig, summary = _load(args)
    data = compute(systems, groupings, args)  # the statistics first, then the page
    page = render(systems, items, groupings, settings, sig, summary, args, data)
    args.results_to_stderr = output_fd(args.output) == 1  # -o -: the page is stdout
    write_outputs([(args.output, page)])
    cli._print_result(args, {"report": args.output, "systems": len(systems), "instances": len(items)},
                      "json", sig, [summary])
    return 0
