"""``paddle-rougel report``: one self-contained HTML file that explains a score.

Inline CSS and SVG only (no script from elsewhere, no font, no image file, no
network at view time): the headline scores with bootstrap intervals and the
signature; per-group tables and bar charts (DuReader: question type, source,
answer length; text files: answer length and an optional key file); the
distribution of per-instance F; the worst instances with their LCS alignment
against the best reference highlighted; with two systems, per-group
differences with paired tests (p-values Holm-adjusted for the number of
groups) and the instances where the systems differ most, side by side.

The numbers are the command line's: the same accumulators, intervals
(``--confidence [LEVEL]``, default 0.95, ``--resamples`` resamples, ``--seed``: the options,
defaults, checks and formula of ``score --confidence``) and tests
(``compare``: paired bootstrap) as ``dureader --by ... --confidence`` and
``compare --by ...``.  Every figure in a table sits in an element with
``data-metric`` / ``data-group`` / ``data-system`` attributes (what the browser
test reads back).
"""
from __future__ import annotations

import html
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from . import cli, cli_dureader, cli_score
from .align import best_reference, marked_runs
from .cli import CliError, _pct
from .groups import LENGTH_ORDER, grouped, holm
from .metrics.dureader_rouge_l import BONUS_OPTIONS, dureader_from_options
from .settings import ROUGE_OPTIONS, TEXT_OPTIONS
from .fileio import check_distinct, output_fd, write_outputs

__all__ = ["cmd_report", "render"]

COLOURS = ("#3b6fb6", "#e07b24")
DIFF_SHOWN = 10  # instances shown where two systems differ most


# ------------------------------------------------------------------ data

class System:
    """One system's scored run: name, file, accumulators {metric: acc}, per-instance F."""

    def __init__(self, name: str, path: str, accs: Dict[str, Any], cands: List[Any]):
        self.name, self.path, self.accs, self.cands = name, path, accs, cands
        self.f = next(iter(accs.values())).per_instance().fmeasure


def _interval(name: str, acc, args) -> Dict[str, float]:
    return cli._interval_cell(args, name, acc, acc.score())  # score --confidence's cell


def _load(args):
    """(systems, items, groupings, settings, signature, summary) from the command's sources."""
    from .cli_report import dureader_keys, length_keys, line_keys, no_bonus

    out = [("-o", args.output)]
    if args.ref_file:
        preds = args.pred_file or []
        if not 1 <= len(preds) <= 2 or args.hyp or args.ref:
            raise CliError("report DuReader files with --ref_file R --pred_file A [--pred_file B]")
        if args.summary_level or args.by or getattr(args, "split", None):
            raise CliError("--summary-level, --split and --by are for text files (--hyp/--ref)")
        check_distinct(cli._inputs(args, "--ref_file") + [("--pred_file", p) for p in preds], out)
        values, origin = cli._choices(args, ROUGE_OPTIONS + TEXT_OPTIONS + BONUS_OPTIONS)
        settings, _ = cli._build(dureader_from_options, values, origin)
        contests = cli_dureader._read_contests(args, preds)
        systems = [System(n, p, cli_dureader._contest_metrics(c, values, origin, keep=True)[0], c.cands)
                   for n, p, c in zip("AB", preds, contests)]
        c0 = contests[0]
        tok = systems[0].accs["ROUGE-L"].tokenizer
        groupings = {by: dureader_keys(by, c0, tok) for by in ("question_type", "source", "length")}
        items = [{"id": str(q), "type": t, "refs": r} for q, t, r in zip(c0.qids, c0.types, c0.ref_lists)]
        metric = "rougeL+bleu4"
        summary = cli_dureader._counts(c0)
    else:
        hyps_files = args.hyp or []
        if not 1 <= len(hyps_files) <= 2 or not args.ref or args.pred_file:
            raise CliError("report text files with --ref R [--ref R2 ...] --hyp A [--hyp B], or "
                           "DuReader files with --ref_file R --pred_file A [--pred_file B]")
        inputs = [("--hyp", h) for h in hyps_files] + [("--ref", r) for r in args.ref]
        if args.by:
            inputs.append(("--by", args.by))
        check_distinct([(f, p) for f, p in inputs if p != "-"], out)
        no_bonus(args)
        values, origin, settings, acc_class, metric = cli_score._line_metric(args)
        name = "ROUGE-Lsum" if args.summary_level else "ROUGE-L"
        systems = []
        lines, refsets = cli_score._read_score_inputs(hyps_files, args.ref, args)
        for n, h, hyps in zip("AB", hyps_files, lines):
            acc = cli._build(lambda _: acc_class(settings, True), values, origin)
            cli_score._score_lines(acc, hyps, refsets, origin)
            systems.append(System(n, h, {name: acc}, hyps))
        if len(systems) == 2 and len(systems[0].f) != len(systems[1].f):
            raise CliError(f"{hyps_files[1]} has {len(systems[1].f)} lines but {hyps_files[0]} has "
                           f"{len(systems[0].f)}")
        n = len(systems[0].f)
        tok = systems[0].accs[name].tokenizer
        groupings = {"length": length_keys(refsets, tok)}
        if args.by:  # --by length: the built-in (warned about when a file of that name is here)
            groupings[args.by] = line_keys(args.by, n, refsets, tok)
        items = [{"id": f"line {i + 1}", "type": None, "refs": [rs[i] for rs in refsets]} for i in range(n)]
        for it in items:  # as score reads them (cli_score.line_text)
            it["refs"] = [cli_score.line_text(r) for r in it["refs"]]
        for s in systems:
            s.cands = [cli_score.line_text(c) for c in s.cands]
        summary = f"lines scored: {n}"
    if not len(systems[0].f):
        raise CliError("nothing to report: no instance was scored")
    sig = cli._signature(metric, settings, *cli._ci_signature(args))
    return systems, items, groupings, settings, sig, summary


# ------------------------------------------------------------------ HTML pieces

def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _num(v: Dict[str, Any], attrs: str) -> str:
    ci = "(1 instance: no interval)" if v["low"] is None else f'[{v["low"]:.2f}, {v["high"]:.2f}]'
    return f'<td class="num" {attrs}><b class="score">{v["score"]:.2f}</b> <span class="ci">{ci}</span></td>'


def _bar_chart(labels: Sequence[str], series: List[Tuple[str, List[Dict[str, float]]]], title: str) -> str:
    """Horizontal bars (0-100) with interval whiskers, one row of bars per group."""
    left, width, bar, gap = 120, 360, 14, 10
    row_h = bar * len(series) + gap
    height = 28 + row_h * len(labels) + 24
    x = lambda v: left + width * max(0.0, min(v, 100.0)) / 100.0  # noqa: E731
    out = [f'<svg class="chart" role="img" aria-label="{_e(title)}" width="{left + width + 70}" '
           f'height="{height}" viewBox="0 0 {left + width + 70} {height}">',
           f'<text x="0" y="14" class="t">{_e(title)}</text>']
    for t in range(0, 101, 25):
        out.append(f'<line x1="{x(t):.1f}" y1="22" x2="{x(t):.1f}" y2="{height - 18}" class="grid"/>'
                   f'<text x="{x(t):.1f}" y="{height - 4}" class="tick" text-anchor="middle">{t}</text>')
    for g, label in enumerate(labels):
        y0 = 26 + g * row_h
        out.append(f'<text x="{left - 6}" y="{y0 + row_h / 2:.1f}" class="lab" text-anchor="end">{_e(label)}</text>')
        for s, (name, values) in enumerate(series):
            v = values[g]
            y = y0 + s * bar
            ci = "no interval" if v["low"] is None else f'[{v["low"]:.2f}, {v["high"]:.2f}]'
            out.append(f'<rect x="{left}" y="{y}" width="{x(v["score"]) - left:.1f}" height="{bar - 2}" '
                       f'fill="{COLOURS[s]}"><title>{_e(name)} {_e(label)}: {v["score"]:.2f} {ci}</title></rect>')
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


def _marked_html(tokens: Any, marks: Sequence[bool]) -> str:
    sep = "" if isinstance(tokens, str) else " "
    parts = []
    for m, run in marked_runs(tokens, marks):
        text = _e(sep.join(map(str, run)))
        parts.append(f"<mark>{text}</mark>" if m else text)
    return sep.join(parts) or '<span class="empty">(empty)</span>'


def _aligned(cand: Any, refs: Sequence, settings) -> Tuple[str, str, str]:
    """(candidate HTML, best reference HTML, caption) with the counted LCS tokens marked."""
    k, a, fs = best_reference(cand, refs, settings)
    if hasattr(a, "hits"):  # ROUGE-Lsum: one line per sentence
        c = "<br>".join(_marked_html(s, m) for s, m in zip(a.cand, a.cand_marked())) or _marked_html("", [])
        r = "<br>".join(_marked_html(s, m) for s, m in zip(a.ref, a.ref_marked()))
        hits = f"{a.n_hits} union-LCS hits"
    else:
        c, r = _marked_html(a.cand, a.cand_marked()), _marked_html(a.ref, a.ref_marked())
        hits = f"LCS {a.lcs}"
    return c, r, f"best reference {k + 1} of {len(refs)} (pair F {fs[k]:.4f}, {hits})"


# ------------------------------------------------------------------ sections

def _headline(systems: List[System], sig: str, args, summary: str) -> str:
    names = list(systems[0].accs)
    rows = []
    for s in systems:
        cells = "".join(_num(_interval(m, s.accs[m], args), f'data-system="{s.name}" data-metric="{_e(m)}" '
                                                          'data-group="(all)"') for m in names)
        rows.append(f'<tr><th><span class="sw" style="background:{COLOURS["AB".index(s.name)]}"></span>'
                    f'{s.name}</th><td class="file">{_e(s.path)}</td><td class="num">{len(s.f)}</td>{cells}</tr>')
    head = "".join(f"<th>{_e(m)}</th>" for m in names)
    return (f'<section id="headline"><h2>Scores</h2><table class="scores"><thead><tr><th>system</th>'
            f'<th>file</th><th>count</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            f'<p class="note">x100; {cli._level(args.confidence)} percentile bootstrap intervals over '
            f'instances ({args.resamples} '
            f'resamples, seed {args.seed}). {_e(summary)}.</p>'
            f'<p class="sig" id="signature">{_e(sig)}</p></section>')


def _groups_section(systems: List[System], by: str, keys: Sequence, args) -> str:
    names = list(systems[0].accs)
    order = LENGTH_ORDER if by == "length" else None
    two = len(systems) == 2
    res = grouped([s.accs for s in systems], keys, args.confidence, args.resamples, args.seed, order, paired=two)
    labels = list(res)
    cell = {}
    for k, g in res.items():
        for s, per in zip(systems, g.systems):
            for m, grp in per.items():
                iv = grp.interval
                cell[s.name, m, k] = {"score": _pct(grp.score), "low": None if iv is None else _pct(iv.low),
                                      "high": None if iv is None else _pct(iv.high)}
    head = "".join(f"<th>{_e(m)} {s.name}</th>" for m in names for s in systems)
    rows = []
    for k in labels:
        cells = "".join(_num(cell[s.name, m, k], f'data-system="{s.name}" data-metric="{_e(m)}" '
                                                 f'data-group="{_e(k)}"') for m in names for s in systems)
        rows.append(f'<tr><th>{_e(k)}</th><td class="num">{res[k].count}</td>{cells}</tr>')
    out = [f'<section class="groups" id="by-{_e(by)}"><h2>By {_e(by.replace("_", " "))}</h2>'
           f'<table class="scores"><thead><tr><th>{_e(by)}</th><th>count</th>{head}</tr></thead>'
           f'<tbody>{"".join(rows)}</tbody></table><div class="charts">']
    for m in names:
        series = [(s.name, [cell[s.name, m, k] for k in labels]) for s in systems]
        out.append(_bar_chart([str(k) for k in labels], series, f"{m} by {by.replace('_', ' ')}"))
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
                rows.append(f'<tr><th>{_e(k)}</th><td>{_e(m)}</td><td class="num">{g.count}</td>'
                            f'<td class="num diff" {attrs} colspan="3">(1 instance: no test)</td></tr>')
                continue
            c, p_adj = g.comparisons[m], adjusted[k]
            sig = ' class="signif"' if p_adj < 0.05 else ""
            rows.append(f'<tr{sig}><th>{_e(k)}</th><td>{_e(m)}</td><td class="num">{g.count}</td>'
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
    kind = f' <span class="type">{_e(item["type"])}</span>' if item["type"] else ""
    return (f'<div class="inst"><div class="ih">{_e(label)}<b>{_e(item["id"])}</b>{kind} F '
            f'<b class="f">{f * 100:.2f}</b> <span class="cap">{_e(cap)}</span></div>'
            f'<div class="row"><span class="k">candidate</span><span class="txt">{c}</span></div>'
            f'<div class="row"><span class="k">reference</span><span class="txt">{r}</span></div></div>')


def _worst(systems: List[System], items: List[dict], settings, n: int) -> str:
    s = systems[0]
    idx = np.argsort(s.f, kind="stable")[:n]
    blocks = "".join(_instance_block(items[i], float(s.f[i]), s.cands[i], settings) for i in idx.tolist())
    return (f'<section id="worst"><h2>The {len(idx)} lowest-scoring instances of A</h2>'
            '<p class="note">Highlighted: the tokens of the LCS the score counts (rouge-score\'s tie '
            'rule), against the reference with the highest pair F.</p>' + blocks + "</section>")


def _differ(systems: List[System], items: List[dict], settings) -> str:
    a, b = systems
    d = b.f - a.f
    idx = np.argsort(-np.abs(d), kind="stable")[:DIFF_SHOWN]
    rows = []
    for i in idx.tolist():
        cells = "".join(f'<td>{_instance_block(items[i], float(s.f[i]), s.cands[i], settings, s.name + ": ")}</td>'
                        for s in systems)
        rows.append(f'<tr><td class="num">{d[i] * 100:+.2f}</td>{cells}</tr>')
    return ('<section id="differ"><h2>Where A and B differ most</h2><table class="side"><thead><tr>'
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
word-break:break-all;background:#f6f7f9;padding:6px}.note{color:#5b6570;font-size:13px}
.file{font-family:ui-monospace,monospace;font-size:12px}
.sw{display:inline-block;width:10px;height:10px;margin-right:6px}tr.signif td,tr.signif th{font-weight:600}
.charts{display:flex;flex-wrap:wrap;gap:16px}svg.chart{background:#fbfbfc;border:1px solid #eceef1}
svg .t{font-size:13px;font-weight:600}svg .lab,svg .val{font-size:12px}svg .tick{font-size:11px;fill:#5b6570}
svg .grid{stroke:#e3e6ea}svg .axis{stroke:#888}svg .whisk{stroke:#1d232b;stroke-width:1.5}
.inst{border:1px solid #e3e6ea;border-radius:4px;padding:6px 8px;margin:6px 0}
.ih{font-size:13px;margin-bottom:4px}.cap{color:#5b6570;font-size:12px}.type{background:#eef1f5;
padding:0 4px;border-radius:3px;font-size:12px}.row{display:flex;gap:8px}.k{color:#5b6570;width:72px;
flex:none;font-size:12px}.txt{word-break:break-all}mark{background:#b9e6b3;padding:0 1px}
table.side{border-collapse:collapse;width:100%}table.side td{vertical-align:top;width:48%}
table.side td.num{width:4%}.empty{color:#999}
"""


def render(systems: List[System], items: List[dict], groupings: Dict[str, Sequence], settings, sig: str,
           summary: str, args) -> str:
    """The report as one HTML document."""
    metric = list(systems[0].accs)[0]
    parts = [_headline(systems, sig, args, summary)]
    parts += [_groups_section(systems, by, keys, args) for by, keys in groupings.items()]
    parts.append('<section id="distribution"><h2>Distribution of per-instance ' + _e(metric) + ' F</h2>'
                 + _histogram(systems, metric) + "</section>")
    parts.append(_worst(systems, items, settings, args.worst))
    if len(systems) == 2:
        parts.append(_differ(systems, items, settings))
    legend = " ".join(f'<span class="sw" style="background:{COLOURS[i]}"></span>{s.name}: {_e(s.path)}'
                      for i, s in enumerate(systems))
    # the page reports its own errors (a failed load, a script error) into #status: what the
    # browser test reads back; no other script runs
    watch = ("<script>window.__errors=0;addEventListener('error',function(){window.__errors++},true);"
             "</script>")
    done = ("<script>var s=document.getElementById('status');s.setAttribute('data-errors',"
            "String(window.__errors));s.textContent='rendered, errors: '+window.__errors;</script>")
    return ("<!DOCTYPE html>\n<html lang=\"zh\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>paddle-rougel report</title><style>{_CSS}</style>{watch}</head><body>"
            f"<h1>paddle-rougel report</h1><p class=\"note\">{legend}</p>"
            + "".join(parts) +
            f'<p class="note" id="status" data-errors="-1">not rendered</p>{done}</body></html>\n')


def cmd_report(args) -> int:
    systems, items, groupings, settings, sig, summary = _load(args)
    page = render(systems, items, groupings, settings, sig, summary, args)
    args.results_to_stderr = output_fd(args.output) == 1  # -o -: the page is stdout
    write_outputs([(args.output, page)])
    cli._print_result(args, {"report": args.output, "systems": len(systems), "instances": len(items)},
                      "json", sig, [summary])
    return 0
