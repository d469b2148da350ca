"""The PARB report as one self-contained HTML page: inline CSS and inline SVG, no scripts.

:func:`render_html` reads a results document (:mod:`analogist.bench.analysis.results`) and writes the
header (run, bench manifest, configuration, skipped arms), then per answerer: the arms × metrics
table (spec §18), interval plots of the headline metrics (§28), NAV sensitivity over (α, β)
(§19), the decoy ROC plot, the §21 comparisons and baselines, the H1–H6 verdicts (§22), the
§26 classification and the contamination controls (§17). Undefined values show as "–"; every
text from the document is escaped; the output depends only on the input (no clock, stable
ordering), so the same document always gives the same bytes.
"""

from __future__ import annotations

import re
from typing import Any

from analogist.bench.analysis.classify import RESULTS
from analogist.bench.analysis.conclusion import arm_tools, conclusion, definition, plain
from analogist.bench.analysis.hypotheses import ARMS
from analogist.bench.analysis.svg import (
    curve_plot,
    esc,
    fmt,
    interval_plot,
    nav_heatmaps,
    number,
    roc_plot,
)

#: (metric key, column heading) of the arms table.
KEY_METRICS = (
    ("nav", "NAV"),
    ("transfer_accuracy", "Transfer accuracy"),
    ("dprime", "d′"),
    ("recall@5[far]", "Recall@5 far"),
    ("claim_precision", "Claim precision"),
    ("no_match_specificity", "No-match specificity"),
    ("role_mapping_f1", "Role-mapping F1"),
    ("partial_transfer_balanced_accuracy", "Partial-transfer bal. acc."),
    ("negative_transfer_rate", "Negative-transfer rate"),
    ("brier", "Brier"),
    ("verification_survival", "Verification survival"),
)
#: (metric key, plot title, axis label) of the headline plots.
HEADLINE = (
    ("nav", "Net Analogical Value", "NAV = (U − αF − βN) / O, α = 1, β = 2"),
    ("transfer_accuracy", "Transfer accuracy", "share of transfer items whose action passes"),
    ("dprime", "Decoy discrimination d′", "d′ (0 = chance)"),
    ("recall@5[far]", "Recall@5 on far items", "share of far items with the source in the top 5"),
)
STATUS_CLASS = {
    "pass": "pass",
    "fail": "fail",
    "not run": "notrun",
    "classified": "pass",
    "insufficient data": "notrun",
    "undetermined": "notrun",
    "unclassified": "fail",
}

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;color:#222;margin:0;background:#fafafa}
main{max-width:1200px;margin:0 auto;padding:16px 24px 48px;background:#fff}
h1{font-size:1.5em;margin:.4em 0}h2{border-bottom:2px solid #1f5fa8;padding-bottom:4px;
margin-top:2em}h3{margin-top:1.6em}table{border-collapse:collapse;margin:.5em 0 1em;
font-size:.88em}th,td{border:1px solid #ddd;padding:4px 7px;text-align:left;vertical-align:top}
th{background:#f0f3f7}td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.ci{color:#666;font-size:.85em}.scroll{overflow-x:auto}dl{display:grid;
grid-template-columns:max-content auto;gap:2px 14px;margin:.5em 0}dt{font-weight:600}dd{margin:0}
.badge{display:inline-block;padding:1px 8px;border-radius:9px;font-weight:600;font-size:.85em}
.pass{background:#d7f0dc;color:#135d24}.fail{background:#f8d7da;color:#842029}
.notrun{background:#e9ecef;color:#495057}.plots{display:flex;flex-wrap:wrap;gap:18px}
figure{margin:0}figcaption{font-size:.82em;color:#555;max-width:560px}.muted{color:#666}
code{font-size:.85em;word-break:break-all}td.def{min-width:18em}.conclusion{line-height:1.5}
"""


def splice_section(html: str, section_id: str, section: str) -> str:
    """``html`` with ``section`` (a ``<section id="section_id">``) before ``</main>``, replacing
    an older section of that id; ``html`` unchanged when ``section`` is empty. How the suites
    (planning, learning, blending) add their part to one report.html."""
    if not section:
        return html
    old = re.compile(rf'<section id="{re.escape(section_id)}">.*?</section>\n?', re.DOTALL)
    html = old.sub("", html)
    return html.replace("</main>", section + "</main>", 1) if "</main>" in html else html + section


def _d(x: Any) -> dict:
    return x if isinstance(x, dict) else {}


def _l(x: Any) -> list:
    return x if isinstance(x, list) else []


def _txt(x: Any) -> str:
    return "–" if x is None or x == "" else esc(plain(x))


def _order(names: Any) -> list[str]:
    rank = {a: i for i, a in enumerate(ARMS)}
    return sorted((str(n) for n in names), key=lambda a: (rank.get(a, len(ARMS)), a))


def _ci(iv: Any, signed: bool = False) -> str:
    iv = _d(iv)
    return f"[{fmt(iv.get('low'), signed=signed)}, {fmt(iv.get('high'), signed=signed)}]"


def _iv_cell(iv: Any, signed: bool = False) -> str:
    if not isinstance(iv, dict) or number(iv.get("estimate")) is None:
        note = _d(iv).get("note")
        return f'<td class="num" title="{esc(note)}">–</td>' if note else '<td class="num">–</td>'
    tip = f"n={iv.get('n_items', '–')}, {iv.get('method', '–')}"
    if iv.get("note"):
        tip += f"; {iv['note']}"
    return (
        f'<td class="num" title="{esc(tip)}">{fmt(iv.get("estimate"), signed=signed)}'
        f'<br><span class="ci">{_ci(iv, signed)}</span></td>'
    )


def _table(head: list[str], rows: list[str], cls: str = "") -> str:
    h = "".join(f"<th>{esc(x)}</th>" for x in head)
    body = (
        "".join(f"<tr>{r}</tr>" for r in rows)
        or f'<tr><td colspan="{len(head)}" class="muted">none</td></tr>'
    )
    return f'<div class="scroll"><table class="{cls}"><tr>{h}</tr>{body}</table></div>'


def _dl(pairs: list[tuple[str, str]]) -> str:
    return "<dl>" + "".join(f"<dt>{esc(k)}</dt><dd>{v}</dd>" for k, v in pairs) + "</dl>"


def _badge(status: Any) -> str:
    cls = STATUS_CLASS.get(str(status), "notrun")
    return f'<span class="badge {cls}">{_txt(status)}</span>'


def _counts(x: Any) -> str:
    return ", ".join(f"{esc(k)} {_txt(v)}" for k, v in sorted(_d(x).items())) or "–"


def _list(x: Any) -> str:
    return ", ".join(esc(v) for v in _l(x)) or "–"


def _header(r: dict) -> str:
    b, c = _d(r.get("bench")), _d(r.get("config"))
    counts = _d(b.get("counts"))
    audit = _d(b.get("audit"))
    enc = c.get("encoder")
    enc_text = "gold (the generator's own signatures)" if enc == "gold" else _txt(enc)
    settings = ", ".join(f"{esc(k)}={_txt(v)}" for k, v in sorted(_d(c.get("settings")).items()))
    bench = _dl(
        [
            ("generator", f"{_txt(b.get('generator'))} {_txt(b.get('generator_version'))}"),
            ("seed", _txt(b.get("seed"))),
            ("split", _txt(b.get("split"))),
            ("size", _txt(b.get("size"))),
            ("items", _txt(counts.get("total"))),
            ("by family", _counts(counts.get("family"))),
            ("by skin", _counts(counts.get("skin_kind"))),
            ("by split", _counts(counts.get("split"))),
            ("bench id", f"<code>{_txt(b.get('bench_id'))}</code>"),
            (
                "quick audit",
                _txt(
                    {True: "passed", False: "FAILED"}.get(bool(audit["passed"]))
                    if isinstance(audit.get("passed"), bool)
                    else None
                )
                + " (adversarial audit: see below)",
            ),
        ]
    )
    config = _dl(
        [
            ("arms", _list(c.get("arms"))),
            ("answerers", _list(c.get("answerers"))),
            ("seeds", _list(c.get("seeds"))),
            ("model", _txt(c.get("model"))),
            ("models", _txt(c.get("models"))),
            ("targets encoded by", enc_text),
            ("settings", settings or "–"),
            ("contamination controls", fmt(c.get("contamination"))),
        ]
    )
    enc_line = f"<p><strong>targets encoded by: {enc_text}</strong></p>"
    skipped = _d(r.get("skipped"))
    rank = {a: i for i, a in enumerate(_order({k.rpartition("/")[0] for k in skipped}))}
    keys = sorted(skipped, key=lambda k: (rank[k.rpartition("/")[0]], k.rpartition("/")[2]))
    rows = [
        f"<td>{esc(k.rpartition('/')[0])}</td><td>{esc(k.rpartition('/')[2])}</td>"
        f"<td>{_txt(skipped[k])}</td>"
        for k in keys
    ]
    return (
        f"<h1>PARB report — run {_txt(r.get('run_id'))}</h1>"
        f"<p>status: {_badge(r.get('status'))} · results version {_txt(r.get('version'))}"
        f'</p><h2>Conclusion</h2><p class="conclusion">{esc(conclusion(r))}</p>'
        f"{enc_line}{_arm_definitions(r)}<h2>Bench</h2>{bench}<h2>Configuration</h2>{config}"
        f"<h3>Skipped arms / answerers</h3>{_table(['arm', 'answerer', 'reason'], rows)}"
    )


def _arm_definitions(r: dict) -> str:
    """Every arm the run asked for, in one line each, with the encoder and embedder it used."""
    names = _order(
        set(_l(_d(r.get("config")).get("arms")))
        | {a for b in _d(r.get("answerers")).values() for a in _d(_d(b).get("arms"))}
    )
    rows = [
        f"<th>{esc(a)}</th><td>{esc(definition(a))}</td><td>{esc(arm_tools(r, a))}</td>"
        for a in names
    ]
    return "<h2>Arms</h2>" + _table(["arm", "what it is", "encoder · embedder"], rows)


def _arms_table(arms: dict) -> str:
    rows = []
    for a in _order(arms):
        block = _d(arms[a])
        ms, cost = _d(block.get("metrics")), _d(_d(block.get("cost")).get("per_useful"))
        cells = "".join(_iv_cell(ms.get(k)) for k, _ in KEY_METRICS)
        per = " · ".join(fmt(cost.get(k), 1) for k in ("tokens", "calls", "wall_ms"))
        rows.append(
            f'<th>{esc(a)}</th><td class="def">{esc(definition(a))}</td><td class="num">{_txt(block.get("n_items"))}</td>'
            f'{cells}<td class="num">{per}</td>'
        )
    head = [
        "arm",
        "what it is",
        "items",
        *(h for _, h in KEY_METRICS),
        "per useful: tokens · calls · ms",
    ]
    return _table(head, rows)


def _plots(arms: dict) -> str:
    figs = []
    for key, title, axis in HEADLINE:
        rows = []
        for a in _order(arms):
            iv = _d(_d(_d(arms[a]).get("metrics")).get(key))
            rows.append(
                (a, number(iv.get("estimate")), number(iv.get("low")), number(iv.get("high")))
            )
        figs.append(
            f"<figure>{interval_plot(title, axis, rows)}<figcaption>Dot: estimate; "
            "whisker: bootstrap interval; dashed: zero.</figcaption></figure>"
        )
    return f'<div class="plots">{"".join(figs)}</div>'


def _sensitivity(arms: dict) -> str:
    data = [(a, _d(_d(arms[a]).get("nav_sensitivity"))) for a in _order(arms)]
    return (
        f"<figure>{nav_heatmaps('NAV over penalty weights (α, β)', data)}<figcaption>"
        "Rows α (weight of accepted false analogies), columns β (weight of negative "
        "transfer); blue above zero, red below, shading on one scale for all arms; the "
        "outlined cell is the pre-registered policy α = 1, β = 2.</figcaption></figure>"
    )


def _roc(arms: dict) -> str:
    pts, none = [], []
    for a in _order(arms):
        p = _d(_d(arms[a]).get("decoy_point"))
        fa, hr = number(p.get("false_alarm_rate")), number(p.get("hit_rate"))
        pts.append((a, fa, hr))
        if fa is None or hr is None:
            none.append(a)
    note = f" No point (undefined) for: {esc(', '.join(none))}." if none else ""
    return (
        f"<figure>{roc_plot('Decoy discrimination (ROC)', pts)}<figcaption>Each arm's "
        "acceptance of offered candidates: hit rate on valid analogues against false-alarm "
        f"rate on decoys; above the diagonal is better than chance.{note}</figcaption>"
        "</figure>"
    )


def _comparisons(rows: Any) -> str:
    out = []
    for c in _l(rows):
        c = _d(c)
        iv = c.get("interval")
        out.append(
            f"<td>{_txt(c.get('name'))}</td><td>{_txt(c.get('question'))}</td>"
            f"<td>{_txt(c.get('metric'))}</td>{_iv_cell(iv, signed=True)}"
            f"<td>{_txt(_d(iv).get('method'))}</td><td>{_txt(c.get('not_run'))}</td>"
        )
    return _table(
        ["comparison", "question", "metric", "estimate [interval]", "method", "not run because"],
        out,
    )


def _verdicts(rows: Any) -> str:
    out = []
    for v in _l(rows):
        v = _d(v)
        nums = "<br>".join(
            f"{_txt(_d(n).get('name'))} {_txt(_d(n).get('metric'))}: "
            + (
                f"{fmt(_d(n.get('interval')).get('estimate'), signed=True)} "
                f"{_ci(n.get('interval'), True)}"
                if isinstance(_d(n).get("interval"), dict)
                else f"not run ({_txt(_d(n).get('not_run'))})"
            )
            for n in _l(v.get("numbers"))
        )
        interp = f"<br><em>{esc(v['interpretation'])}</em>" if v.get("interpretation") else ""
        counts = ", ".join(f"{esc(f)}: {esc(n)}" for f, n in _d(v.get("family_counts")).items())
        out.append(
            f"<th>{_txt(v.get('hypothesis'))}</th><td>{_badge(v.get('status'))}</td>"
            f"<td>{_txt(v.get('reason'))}{interp}</td><td>{_txt(v.get('threshold'))}</td>"
            f'<td class="num">{counts or "–"}</td>'
            f'<td class="num">{_txt(v.get("min_items"))}</td>'
            f'<td class="ci">{nums or "–"}</td>'
        )
    return _table(
        ["hypothesis", "status", "reason", "keep if", "items per family", "minimum n", "numbers"],
        out,
    )


def _classification(c: dict) -> str:
    if not c:
        return '<p class="muted">No classification.</p>'
    result = _txt(c.get("result"))
    if c.get("title"):
        result += f" — {esc(c['title'])}"
    pairs = [
        ("status", _badge(c.get("status"))),
        ("result class", result),
        ("rule", _txt(c.get("rule"))),
        ("interpretation", _txt(c.get("interpretation"))),
        ("action", _txt(c.get("action"))),
    ]
    if c.get("status") != "classified" or len(_l(c.get("candidates"))) > 1:
        cands = [
            f"{esc(k)} — {esc(RESULTS[k][0])}" if k in RESULTS else esc(k)
            for k in _l(c.get("candidates"))
        ]
        pairs.append(("candidates", "<br>".join(cands) or "–"))
    facts = [
        f"<td>{_txt(_d(f).get('name'))}</td><td>{'unknown' if _d(f).get('value') is None else fmt(_d(f)['value'])}</td>"
        f"<td>{_txt(_d(f).get('evidence'))}</td>"
        for f in _l(c.get("facts"))
    ]
    return _dl(pairs) + _table(["fact", "value", "evidence"], facts)


def _contamination(c: dict) -> str:
    sd, les = _d(c.get("source_dependence")), _d(c.get("lesion"))
    acc = [
        f'<td>{esc(k)}</td><td class="num">{fmt(v)}</td>'
        for k, v in sorted(_d(sd.get("accuracy")).items())
    ]
    return (
        '<p class="muted">Measured on arm E\'s contamination runs.</p>'
        "<h4>Source dependence</h4>"
        + _table(["condition", "accuracy"], acc)
        + _dl(
            [
                ("items", _txt(sd.get("n_items"))),
                ("Δ correct − no source", fmt(sd.get("delta_correct_minus_none"), signed=True)),
                ("Δ correct − wrong source", fmt(sd.get("delta_correct_minus_wrong"), signed=True)),
            ]
        )
        + "<h4>Mapping lesion</h4>"
        + _dl(
            [
                ("lesioned answers", _txt(les.get("n"))),
                ("conclusion changed", _txt(les.get("conclusion_changed"))),
                ("share changed", fmt(les.get("share_changed"))),
            ]
        )
    )


def _point(iv: Any) -> tuple[Any, Any, Any]:
    d = _d(iv)
    return number(d.get("estimate")), number(d.get("low")), number(d.get("high"))


def _iso_and_noise(a: dict) -> str:
    """E − ISO (the isomorphism reference) and the NAV-versus-encoder-noise curves."""
    out = []
    rows = _d(a.get("e_minus_iso"))
    if rows:
        out += [
            "<h3>E against the isomorphism reference (E − ISO)</h3>",
            (
                '<p class="muted">ISO: exact name-free isomorphism between the encoded target '
                "and each candidate plus the source's recorded fix, scored like every arm.</p>"
            ),
            _comparisons(list(rows.values())),
        ]
        fams = _d(a.get("e_minus_iso_by_family"))
        if fams:
            out.append(
                _table(
                    ["family", "E − ISO NAV [interval]", "items"],
                    [
                        f"<td>{esc(f)}</td>{_iv_cell(iv, signed=True)}"
                        f'<td class="num">{_txt(_d(iv).get("n_items"))}</td>'
                        for f, iv in fams.items()
                    ],
                )
            )
    curve = _d(a.get("noise_curve"))
    if curve:
        series = [
            (arm, [(p["rate"], *_point(p.get("nav"))) for p in _l(pts)])
            for arm, pts in _d(curve.get("arms")).items()
        ]
        diff = [
            ("E − ISO", [(p["rate"], *_point(p.get("nav"))) for p in _l(curve.get("e_minus_iso"))])
        ]
        mark = number(curve.get("realistic"))
        out += [
            "<h3>Encoder noise</h3>",
            (
                '<p class="muted">Signatures of the target and of every stored episode '
                "corrupted at each rate (drop, add, mislabel, swap, merge, split; "
                "bench/execution/noise.py); 95% bootstrap intervals over items.</p>"
            ),
            '<div class="plots"><figure>',
            curve_plot("NAV against encoder noise", "corruption rate", "NAV", series, mark),
            "</figure><figure>",
            curve_plot(
                "E − ISO against encoder noise", "corruption rate", "NAV difference", diff, mark
            ),
            "</figure></div>",
        ]
    return "".join(out)


def _answerer(name: str, a: dict, skipped: dict) -> str:
    arms = _d(a.get("arms"))
    missing = [
        (k.rpartition("/")[0], v)
        for k, v in sorted(skipped.items())
        if k.rpartition("/")[2] == name and k.rpartition("/")[0] not in arms
    ]
    rank = {x: i for i, x in enumerate(_order(m for m, _ in missing))}
    missing.sort(key=lambda mv: rank[mv[0]])
    note = "".join(f"<li><strong>{esc(m)}</strong>: {_txt(v)}</li>" for m, v in missing)
    parts = [
        f'<section id="answerer-{esc(name)}"><h2>Answerer: {esc(name)}</h2>',
        f"<p>Not run for this answerer:</p><ul>{note}</ul>" if note else "",
        (
            '<h3>Metrics by arm</h3><p class="muted">Estimate with bootstrap interval '
            "[low, high]; hover a cell for n, method and notes.</p>"
        ),
        _arms_table(arms),
    ]
    if arms:
        parts += [
            "<h3>Headline metrics</h3>",
            _plots(arms),
            "<h3>NAV sensitivity</h3>",
            _sensitivity(arms),
            "<h3>Decoy discrimination</h3>",
            _roc(arms),
        ]
    parts += [
        _iso_and_noise(a),
        "<h3>Comparisons</h3>",
        _comparisons(a.get("comparisons")),
        "<h3>Baselines: each arm against A1 (NAV)</h3>",
        _comparisons(a.get("baselines")),
        "<h3>Hypotheses H1–H6</h3>",
        _verdicts(a.get("verdicts")),
        "<h3>Result class</h3>",
        _classification(_d(a.get("classification"))),
        "<h3>Contamination controls</h3>",
        _contamination(_d(a.get("contamination"))),
        "</section>",
    ]
    return "".join(parts)


def _audit(r: dict) -> str:
    """The bench's shortcut audits: the quick one (manifest) and the adversarial one (sidecar of
    ``analogist bench audit``): per task, the strongest attacker against chance."""
    quick = _d(_d(r.get("bench")).get("audit"))
    out = [
        "<h2>Shortcut audit of the bench</h2>",
        f"<p>Quick audit (manifest): {_badge('pass' if quick.get('passed') else 'fail') if quick else '–'}</p>",
    ]
    adv = _d(_d(r.get("adversarial_audit")).get("audit"))
    if not adv:
        out.append(
            '<p class="muted">The adversarial audit has not been run on this bench '
            "(<code>analogist bench audit DIR</code>).</p>"
        )
        return "".join(out)
    out.append(
        f"<p>Adversarial audit, split {_txt(adv.get('split'))} "
        f"({_txt(adv.get('protocol'))}): "
        f"{_badge('pass' if adv.get('passed') else 'fail')}</p>"
    )
    best: dict[tuple, dict] = {}
    for x in _l(adv.get("results")):
        x = _d(x)
        if x.get("kind") == "reference" or number(x.get("low")) is None:
            continue
        k = (x.get("task"), x.get("family"))
        if k not in best or x["low"] - x["chance"] > best[k]["low"] - best[k]["chance"]:
            best[k] = x
    rows = [
        f"<td>{_txt(t)}</td><td>{_txt(f)}</td><td>{_txt(x.get('adversary'))}</td>"
        f'<td class="num">{fmt(x.get("estimate"))} <span class="ci">[{fmt(x.get("low"))}, '
        f'{fmt(x.get("high"))}]</span></td><td class="num">{fmt(x.get("chance"))}</td>'
        f'<td class="num">{_txt(x.get("n_items"))}</td>'
        f"<td>{_badge('fail' if x.get('fails') else 'pass')}</td>"
        for (t, f), x in sorted(best.items(), key=lambda kv: str(kv[0]))
    ]
    out.append(
        _table(
            [
                "task",
                "family",
                "strongest attacker",
                "accuracy [95% CI]",
                "chance",
                "items",
                "verdict",
            ],
            rows,
        )
    )
    return "".join(out)


def render_html(results: dict) -> str:
    """The whole report page for one results document (see the module docstring)."""
    r = _d(results)
    answerers = _d(r.get("answerers"))
    body = [_header(r), _audit(r)]
    if not answerers:
        body.append('<h2>Answerers</h2><p class="muted">No answerer has scores in this run.</p>')
    for name in sorted(answerers, key=str):
        body.append(_answerer(str(name), _d(answerers[name]), _d(r.get("skipped"))))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>PARB report — {_txt(r.get('run_id'))}</title><style>{CSS}</style></head>"
        "<body><main>\n" + "\n".join(body) + "\n</main></body></html>\n"
    )
