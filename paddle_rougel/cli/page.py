"""The ``report`` command's page: one self-contained HTML file that explains a score, rendered
from data computed before (:func:`paddle_rougel.cli.report.compute`: the intervals, tests, Holm
adjustments, groups, histogram and alignments); nothing here computes a statistic.

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
(:mod:`paddle_rougel.cli.textmarks`).  Every figure in a table sits in an element with
``data-metric`` / ``data-group`` / ``data-system`` attributes (what the browser
test reads back).
"""
from __future__ import annotations

import html
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from paddle_rougel.api.align import marked_runs
from paddle_rougel.engine.lsum import split_sentences

from .common import pct
from .textmarks import FSI, PDI, bidi_safe, marked_text, token_spans

__all__ = ["render", "System", "Grouping", "user_html"]

COLOURS = ("#3b6fb6", "#e07b24")


# ------------------------------------------------------------------ data


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


# ------------------------------------------------------------------ HTML pieces

def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def user_html(x: Any) -> str:
    """A user string (id, key, file name, text) in HTML: isolated, escaped."""
    return f"<bdi>{_e(bidi_safe(x))}</bdi>"


_u = user_html


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


def _histogram(systems: List[System], metric: str, edges: Sequence[float], counts: List[Sequence[int]]) -> str:
    """Bars of the per-instance F's counts in ten bins (``edges``), per system."""
    top = max(1, max(int(max(c)) for c in counts))
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


def _aligned(cand: Any, refs: Sequence, settings, best) -> Tuple[str, str, str]:
    """(candidate HTML, best reference HTML, caption) with the counted LCS tokens marked in the
    texts as written (``best``: the best reference's ``(index, alignment, F of each reference)``);
    ``settings`` None (ROUGE-N alone): the first reference, nothing marked."""
    if settings is None:
        return _plain(cand), _plain(refs[0]), f"reference 1 of {len(refs)} (ROUGE-N: no alignment drawn)"
    k, a, fs = best
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

def _headline(systems: List[System], sig: str, summary: str, data: dict) -> str:
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
            f'<p class="note">x100; {data["level"]} percentile bootstrap intervals over '
            f'instances ({data["resamples"]} '
            f'resamples, seed {data["seed"]}). {_e(summary)}.</p>'
            + _overall_table(systems, data) +
            f'<p class="sig" id="signature">{_u(sig)}</p></section>')


def _overall_table(systems: List[System], data: dict) -> str:
    """B - A over all instances, per metric: ``compare``'s row (computed by ``report.compute``)."""
    overall: Optional[Dict[str, Any]] = data["overall"]
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
        rows.append(f'<tr{sig}><th>{_e(m)}</th><td class="num">{pct(c.score_a):.2f}</td>'
                    f'<td class="num">{pct(c.score_b):.2f}</td>'
                    f'<td class="num diff" {attrs}><b>{pct(c.difference):+.2f}</b> '
                    f'<span class="ci">[{pct(c.low):.2f}, {pct(c.high):.2f}]</span></td>'
                    f'<td class="num p" {attrs}>{round(c.p_value, 4):.4f}</td></tr>')
    return (f'<h3>B - A over all instances</h3><table class="scores diffs overall"><thead><tr><th>metric</th>'
            f'<th>A</th><th>B</th><th>B - A [{data["level"]} interval]</th><th>p</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table><p class="note">Paired bootstrap over all instances '
            f'({data["resamples"]} resamples, seed {data["seed"]}): the test and numbers of <code>paddle-rougel '
            'compare</code> with the same files and options; rows with p &lt; 0.05 are bold.</p>')


def _groups_section(systems: List[System], g: Grouping, gd: dict, data: dict) -> str:
    """A grouping's table, charts and (two systems) differences, from ``gd``: its ``labels``,
    ``count`` and ``cells`` by (system, metric, key), and ``diffs`` per metric."""
    names = list(systems[0].accs)
    two = len(systems) == 2
    labels, cell = gd["labels"], gd["cells"]
    head = "".join(f"<th>{_e(m)} {s.name}</th>" for m in names for s in systems)
    rows = []
    for k in labels:
        cells = "".join(_num(cell[s.name, m, k], f'data-system="{s.name}" data-metric="{_e(m)}" '
                                                 f'data-group="{_e(k)}"') for m in names for s in systems)
        rows.append(f'<tr><th>{_u(k)}</th><td class="num">{gd["count"][k]}</td>{cells}</tr>')
    wide = " wide" if len(names) * len(systems) >= 4 else ""  # the intervals under the scores
    out = [f'<section class="groups" id="by-{_e(g.by)}"><h2>{g.title}</h2>'
           f'<table class="scores{wide}"><thead><tr><th>{_e(g.column)}</th><th>count</th>{head}</tr></thead>'
           f'<tbody>{"".join(rows)}</tbody></table><div class="charts">']
    for m in names:
        series = [(s.name, [cell[s.name, m, k] for k in labels]) for s in systems]
        out.append(_bar_chart([str(k) for k in labels], series, f"{m} by {g.label}"))
    out.append("</div>")
    if two:
        out.append(_diff_table(gd["diffs"], names, data))
    out.append("</section>")
    return "".join(out)


def _diff_table(diffs: Dict[str, list], names: List[str], data: dict) -> str:
    """``diffs[metric]``: ``(key, count, comparison, Holm-adjusted p)`` per group (comparison None:
    one instance, not tested)."""
    rows = []
    for m in names:  # Holm over the tested groups, per metric (as `compare --by`)
        for k, count, c, p_adj in diffs[m]:
            attrs = f'data-metric="{_e(m)}" data-group="{_e(k)}"'
            if c is None:  # one instance: nothing to resample
                rows.append(f'<tr><th>{_u(k)}</th><td>{_e(m)}</td><td class="num">{count}</td>'
                            f'<td class="num diff" {attrs} colspan="3">(1 instance: no test)</td></tr>')
                continue
            sig = ' class="signif"' if p_adj < 0.05 else ""
            rows.append(f'<tr{sig}><th>{_u(k)}</th><td>{_e(m)}</td><td class="num">{count}</td>'
                        f'<td class="num diff" {attrs}>{pct(c.difference):+.2f} '
                        f'<span class="ci">[{pct(c.low):.2f}, {pct(c.high):.2f}]</span></td>'
                        f'<td class="num p" {attrs}>{round(c.p_value, 4):.4f}</td>'
                        f'<td class="num holm" {attrs}>{round(p_adj, 4):.4f}</td></tr>')
    return ('<h3>B - A per group</h3><table class="scores diffs"><thead><tr><th>group</th><th>metric</th>'
            f'<th>count</th><th>B - A [{data["level"]} interval]</th><th>p</th><th>p (Holm)</th>'
            '</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table><p class="note">Paired bootstrap ({data["resamples"]} '
            'resamples) on each group\'s instances; p (Holm): adjusted for the number of groups by '
            "Holm's step-down method; rows with p (Holm) &lt; 0.05 are bold.</p>")


def _instance_block(item: dict, f: float, cand: Any, settings, best, label: str = "") -> str:
    c, r, cap = _aligned(cand, item["refs"], settings, best)
    kind = f' <span class="type">{_u(item["type"])}</span>' if item["type"] else ""
    return (f'<div class="inst"><div class="ih">{_e(label)}<b>{_u(item["id"])}</b>{kind} F '
            f'<b class="f">{f * 100:.2f}</b> <span class="cap">{_e(cap)}</span></div>'
            f'<div class="row"><span class="k">candidate</span><span class="txt">{c}</span></div>'
            f'<div class="row"><span class="k">reference</span><span class="txt">{r}</span></div></div>')


def _worst(systems: List[System], items: List[dict], settings, worst: List[tuple]) -> str:
    """``worst``: ``(instance, its alignment)``, lowest F of A first."""
    s = systems[0]
    blocks = "".join(_instance_block(items[i], float(s.f[i]), s.cands[i], settings, best) for i, best in worst)
    how = ("Highlighted in the text as written: the tokens of the LCS the score counts (rouge-score's "
           "tie rule), against the reference with the highest pair F." if settings is not None else
           "ROUGE-N counts n-grams: no alignment is drawn.")
    return (f'<section id="worst"><h2>The {len(worst)} lowest-scoring instances of A ({_e(s.primary)} F)</h2>'
            f'<p class="note">{_e(how)}</p>' + blocks + "</section>")


def _differ(systems: List[System], items: List[dict], settings, differ: List[tuple]) -> str:
    """``differ``: ``(instance, B - A, each system's alignment)``, the largest differences first."""
    a = systems[0]
    rows = []
    for i, d, bests in differ:
        cells = "".join(f'<td>{_instance_block(items[i], float(s.f[i]), s.cands[i], settings, best, s.name + ": ")}</td>'
                        for s, best in zip(systems, bests))
        rows.append(f'<tr><td class="num">{d * 100:+.2f}</td>{cells}</tr>')
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


def render(systems: List[System], items: List[dict], groupings: List[Grouping], settings, sig: str,
           summary: str, data: dict) -> str:
    """The report as one HTML document, from the data ``report.compute`` made (``settings``: the
    alignments' text settings, None for ROUGE-N alone)."""
    metric = systems[0].primary
    parts = [_headline(systems, sig, summary, data)]
    parts += [_groups_section(systems, g, gd, data) for g, gd in zip(groupings, data["groups"])]
    parts.append('<section id="distribution"><h2>Distribution of per-instance ' + _e(metric) + ' F</h2>'
                 + _histogram(systems, metric, *data["histogram"]) + "</section>")
    parts.append(_worst(systems, items, settings, data["worst"]))
    if len(systems) == 2:
        parts.append(_differ(systems, items, settings, data["differ"]))
    legend = " ".join(f'<span class="sw" style="background:{COLOURS[i]}"></span>{s.name}: {_u(s.path)}'
                      for i, s in enumerate(systems))
    return ("<!DOCTYPE html>\n<html lang=\"zh\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>paddle-rougel report</title><style>{_CSS}</style></head><body>"
            f"<h1>paddle-rougel report</h1><p class=\"note\">{legend}</p>"
            + "".join(parts) + "</body></html>\n")
