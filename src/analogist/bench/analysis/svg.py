"""Inline SVG plots for the PARB HTML report (:mod:`analogist.bench.analysis.html`).

Plain strings, no dependencies, no scripts: an interval plot (one dot per arm with its
confidence interval as a whisker), small-multiple heatmaps of NAV over the (α, β) grid, and a
decoy ROC plot. Every text is escaped; every number is written with fixed precision so the same
input always gives the same bytes. A value of ``None`` (undefined) is drawn as "–".
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence

INK, MUTED, GRID, ACCENT = "#222", "#777", "#ddd", "#1f5fa8"
_POS, _NEG = (33, 102, 172), (178, 24, 43)
_KEY = re.compile(r"^a=([^,]+),b=(.+)$")

Num = float | None


def esc(x: object) -> str:
    return html.escape(str(x), quote=True)


def fmt(v: object, digits: int = 3, signed: bool = False) -> str:
    """A number to fixed precision ("–" when undefined); other values as escaped text."""
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        if not math.isfinite(v):
            return "–"
        if round(v, digits) == 0:
            v = 0.0  # no "-0.000"
        return f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"
    return esc(v)


def number(v: object) -> Num:
    return (
        float(v)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        else None
    )


def _n(x: float) -> str:
    return f"{x:.1f}"


def _text(
    x: float,
    y: float,
    s: str,
    *,
    anchor: str = "start",
    size: int = 11,
    color: str = INK,
    weight: str = "normal",
) -> str:
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}" font-size="{size}" '
        f'fill="{color}" font-weight="{weight}">{esc(s)}</text>'
    )


def _line(
    x1: float, y1: float, x2: float, y2: float, color: str = INK, width: float = 1, dash: str = ""
) -> str:
    d = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{color}" '
        f'stroke-width="{width}"{d}/>'
    )


def _svg(w: float, h: float, label: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(w)}" height="{_n(h)}" '
        f'viewBox="0 0 {_n(w)} {_n(h)}" role="img" aria-label="{esc(label)}" '
        f'font-family="sans-serif"><title>{esc(label)}</title>' + "".join(body) + "</svg>"
    )


def nice_range(values: Sequence[float]) -> tuple[float, float, float]:
    """(low, high, step) of an axis covering ``values`` and zero, on a 1-2-5 step."""
    lo, hi = min([0.0, *values]), max([0.0, *values])
    if hi - lo < 1e-12:
        hi = lo + 1.0
    raw = (hi - lo) / 5
    e = 10 ** math.floor(math.log10(raw))
    step = next(k * e for k in (1, 2, 5, 10) if k * e >= raw - 1e-12)
    return math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step, step


def interval_plot(title: str, axis: str, rows: Sequence[tuple[str, Num, Num, Num]]) -> str:
    """One row per (label, estimate, low, high): a dot, a whisker, a zero line, printed values."""
    left, right, top, row = 60.0, 170.0, 26.0, 24.0
    pw = 340.0
    w, h = left + pw + right, top + row * max(len(rows), 1) + 46
    vals = [v for r in rows for v in r[1:] if v is not None]
    lo, hi, step = nice_range(vals)
    x = lambda v: left + (v - lo) / (hi - lo) * pw
    bottom = top + row * max(len(rows), 1)
    body = [_text(left, 16, title, size=13, weight="bold")]
    for i in range(round((hi - lo) / step) + 1):
        t = lo + i * step
        body.append(_line(x(t), top, x(t), bottom, GRID))
        body.append(
            _text(
                x(t), bottom + 14, f"{round(t, 10) + 0.0:g}", anchor="middle", size=10, color=MUTED
            )
        )
    body.append(_line(x(0), top - 4, x(0), bottom, INK, 1.2, "4 3"))
    body.append(_line(left, bottom, left + pw, bottom, INK))
    body.append(_text(left + pw / 2, bottom + 32, axis, anchor="middle", size=11))
    for i, (label, est, low, high) in enumerate(rows):
        y = top + row * i + row / 2
        body.append(_text(left - 8, y + 4, label, anchor="end", weight="bold"))
        if low is not None and high is not None:
            body += [
                _line(x(low), y, x(high), y, ACCENT, 2),
                _line(x(low), y - 5, x(low), y + 5, ACCENT, 1.5),
                _line(x(high), y - 5, x(high), y + 5, ACCENT, 1.5),
            ]
        if est is not None:
            body.append(f'<circle cx="{_n(x(est))}" cy="{_n(y)}" r="4.5" fill="{ACCENT}"/>')
        body.append(
            _text(
                left + pw + 10,
                y + 4,
                f"{fmt(est)} [{fmt(low)}, {fmt(high)}]" if est is not None else "– (undefined)",
                size=10,
            )
        )
    if not rows:
        body.append(_text(left + pw / 2, top + row / 2 + 4, "no arms", anchor="middle"))
    return _svg(w, h, title, body)


def _grid(sens: dict) -> dict[tuple[float, float], Num]:
    out: dict[tuple[float, float], Num] = {}
    for k, v in sens.items():
        mt = _KEY.match(str(k))
        if mt:
            try:
                out[(float(mt.group(1)), float(mt.group(2)))] = number(v)
            except ValueError:
                continue
    return out


def _shade(v: Num, scale: float) -> tuple[str, str]:
    if v is None:
        return "#eee", MUTED
    t = min(abs(v) / scale, 1.0)
    c = _POS if v >= 0 else _NEG
    rgb = [round(255 + (ch - 255) * t) for ch in c]
    return "#{:02x}{:02x}{:02x}".format(*rgb), ("#fff" if t > 0.55 else INK)


def nav_heatmaps(title: str, arms: Sequence[tuple[str, dict]], policy=(1.0, 2.0)) -> str:
    """Per arm, NAV over α (rows) × β (columns); the pre-registered policy cell is outlined."""
    grids = [(a, _grid(s)) for a, s in arms]
    alphas = sorted({k[0] for _, g in grids for k in g})
    betas = sorted({k[1] for _, g in grids for k in g})
    vals = [abs(v) for _, g in grids for v in g.values() if v is not None]
    scale = max(vals) if vals and max(vals) > 0 else 1.0
    cw, ch, lab = 46.0, 22.0, 44.0
    pw, ph = lab + cw * max(len(betas), 1) + 16, 38 + ch * max(len(alphas), 1) + 12
    per = 4
    nrow = max(math.ceil(len(grids) / per), 1)
    w, h = pw * min(max(len(grids), 1), per) + 8, 24 + ph * nrow
    body = [_text(4, 16, title, size=13, weight="bold")]
    outline: list[str] = []
    for i, (arm, g) in enumerate(grids):
        ox, oy = 4 + pw * (i % per), 24 + ph * (i // per)
        body.append(_text(ox + lab, oy + 12, f"arm {arm}", weight="bold"))
        body.append(_text(ox + lab - 4, oy + 30, "α\\β", anchor="end", size=10, color=MUTED))
        for j, b in enumerate(betas):
            body.append(
                _text(
                    ox + lab + cw * j + cw / 2,
                    oy + 30,
                    f"{b:g}",
                    anchor="middle",
                    size=10,
                    color=MUTED,
                )
            )
        for r, a in enumerate(alphas):
            y = oy + 36 + ch * r
            body.append(_text(ox + lab - 4, y + 15, f"{a:g}", anchor="end", size=10, color=MUTED))
            for j, b in enumerate(betas):
                v = g.get((a, b))
                fill, ink = _shade(v, scale)
                cx = ox + lab + cw * j
                body.append(
                    f'<rect x="{_n(cx)}" y="{_n(y)}" width="{_n(cw)}" '
                    f'height="{_n(ch)}" fill="{fill}" stroke="#fff"/>'
                )
                if (a, b) == tuple(policy):
                    outline.append(
                        f'<rect x="{_n(cx)}" y="{_n(y)}" width="{_n(cw)}" '
                        f'height="{_n(ch)}" fill="none" stroke="{INK}" '
                        'stroke-width="2"/>'
                    )
                body.append(
                    _text(cx + cw / 2, y + 15, fmt(v, 2), anchor="middle", size=10, color=ink)
                )
    if not grids:
        body.append(_text(8, 44, "no arms"))
    return _svg(w, h, title, body + outline)


def roc_plot(title: str, points: Sequence[tuple[str, Num, Num]]) -> str:
    """(label, false-alarm rate, hit rate) per arm on the unit square, with the chance diagonal.

    Arms at the same point share one dot and one label ("C, D, E")."""
    left, top, side = 56.0, 28.0, 300.0
    w, h = left + side + 24, top + side + 48
    x = lambda v: left + v * side
    y = lambda v: top + (1 - v) * side
    body = [_text(left, 16, title, size=13, weight="bold")]
    for t in (0.0, 0.25, 0.5, 0.75, 1.0):
        body += [
            _line(x(t), top, x(t), top + side, GRID),
            _line(left, y(t), left + side, y(t), GRID),
            _text(x(t), top + side + 14, f"{t:g}", anchor="middle", size=10, color=MUTED),
            _text(left - 6, y(t) + 4, f"{t:g}", anchor="end", size=10, color=MUTED),
        ]
    body += [
        (
            f'<rect x="{_n(left)}" y="{_n(top)}" width="{_n(side)}" height="{_n(side)}" '
            f'fill="none" stroke="{INK}"/>'
        ),
        _line(x(0), y(0), x(1), y(1), MUTED, 1.2, "5 4"),
        _text(x(0.62), y(0.55), "chance (d′ = 0)", size=10, color=MUTED),
        _text(
            left + side / 2, top + side + 34, "false-alarm rate (decoys accepted)", anchor="middle"
        ),
        (
            f'<text x="14" y="{_n(top + side / 2)}" text-anchor="middle" font-size="11" '
            f'fill="{INK}" transform="rotate(-90 14 {_n(top + side / 2)})">'
            "hit rate (true analogues accepted)</text>"
        ),
    ]
    groups: dict[tuple[float, float], list[str]] = {}
    for label, fa, hr in points:
        if fa is not None and hr is not None:
            groups.setdefault((round(fa, 4), round(hr, 4)), []).append(label)
    for (fa, hr), labels in groups.items():
        px, py = x(min(max(fa, 0.0), 1.0)), y(min(max(hr, 0.0), 1.0))
        anchor, dx = ("end", -8) if fa > 0.6 else ("start", 8)
        dy = 16 if hr > 0.9 else -6
        body.append(f'<circle cx="{_n(px)}" cy="{_n(py)}" r="5" fill="{ACCENT}" stroke="#fff"/>')
        body.append(_text(px + dx, py + dy, ", ".join(labels), anchor=anchor, weight="bold"))
    return _svg(w, h, title, body)


SERIES = ("#1f5fa8", "#b2182b", "#1b7837", "#762a83", "#e08214", "#555555")


def curve_plot(
    title: str,
    x_axis: str,
    y_axis: str,
    series: Sequence[tuple[str, Sequence[tuple[float, Num, Num, Num]]]],
    mark: float | None = None,
) -> str:
    """Lines of (x, estimate, low, high) points per series, each point with its interval as a
    vertical whisker; ``mark`` draws a dashed vertical line (e.g. the realistic noise rate)."""
    left, top, pw, ph, legend = 56.0, 26.0, 360.0, 200.0, 120.0
    w, h = left + pw + legend, top + ph + 46
    xs = sorted({p[0] for _, pts in series for p in pts}) or [0.0, 1.0]
    ys = [v for _, pts in series for p in pts for v in p[1:] if v is not None]
    lo, hi, step = nice_range(ys or [0.0, 1.0])
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1
    px = lambda v: left + (v - x0) / (x1 - x0) * pw
    py = lambda v: top + ph - (v - lo) / (hi - lo) * ph
    body = [_text(left, 16, title, size=13, weight="bold")]
    for i in range(round((hi - lo) / step) + 1):
        t = lo + i * step
        body.append(_line(left, py(t), left + pw, py(t), GRID))
        body.append(
            _text(
                left - 6, py(t) + 4, f"{round(t, 10) + 0.0:g}", anchor="end", size=10, color=MUTED
            )
        )
    for v in xs:
        body.append(_text(px(v), top + ph + 14, f"{v:g}", anchor="middle", size=10, color=MUTED))
    if lo < 0 < hi:
        body.append(_line(left, py(0), left + pw, py(0), INK, 1.2, "4 3"))
    if mark is not None and x0 <= mark <= x1:
        body.append(_line(px(mark), top, px(mark), top + ph, MUTED, 1, "2 3"))
        body.append(_text(px(mark) + 3, top + 10, "realistic", size=9, color=MUTED))
    body += [
        _line(left, top + ph, left + pw, top + ph, INK),
        _line(left, top, left, top + ph, INK),
        _text(left + pw / 2, top + ph + 32, x_axis, anchor="middle"),
        _text(12, top + ph / 2, y_axis, anchor="middle", size=10),
    ]
    for k, (label, pts) in enumerate(series):
        color = SERIES[k % len(SERIES)]
        shift = (k - (len(series) - 1) / 2) * 4.0  # whiskers side by side, not on top
        path = [(px(x) + shift, py(e)) for x, e, _, _ in pts if e is not None]
        if len(path) > 1:
            d = " ".join(
                f"{'M' if i == 0 else 'L'}{_n(a)},{_n(b)}" for i, (a, b) in enumerate(path)
            )
            body.append(f'<path d="{d}" fill="none" stroke="{color}" stroke-width="1.6"/>')
        for x, e, low, high in pts:
            if low is not None and high is not None:
                body.append(_line(px(x) + shift, py(low), px(x) + shift, py(high), color, 1.2))
            if e is not None:
                body.append(
                    f'<circle cx="{_n(px(x) + shift)}" cy="{_n(py(e))}" r="3.5" fill="{color}"/>'
                )
        ly = top + 14 + 16 * k
        body += [
            _line(left + pw + 14, ly - 4, left + pw + 30, ly - 4, color, 2.5),
            _text(left + pw + 34, ly, label, size=11),
        ]
    return _svg(w, h, title, body)
