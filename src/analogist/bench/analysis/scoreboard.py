"""The cognition-scoreboard text: the conclusion paragraph, then Latest (PARB), Baseline and
Live use.

"Latest" reports the full pipeline (arm E) of each answerer that ran; "Baseline" reports A0,
A1 and B (current memory) — or why they were not run; "Live use" comes from the analogy log of
the database the report is written from (real invocations, never benchmark runs).
"""

from __future__ import annotations

import textwrap
from typing import Any

from analogist.bench.analysis.conclusion import conclusion

HEADLINE = (
    ("NAV", "nav"),
    ("Transfer accuracy", "transfer_accuracy"),
    ("Decoy d′", "dprime"),
    ("Recall@5 far", "recall@5[far]"),
    ("Negative transfer", "negative_transfer_rate"),
)


def _fmt(interval: dict | None) -> str:
    if not interval or interval.get("estimate") is None:
        return "–"
    est, lo, hi = interval["estimate"], interval.get("low"), interval.get("high")
    if lo is None or hi is None or lo == hi == est:
        return f"{est:.3f}"
    return f"{est:.3f} [{lo:.3f}, {hi:.3f}]"


def _arm_value(block: dict, arm: str, metric: str, skipped: dict, answerer: str) -> str:
    if arm in block.get("arms", {}):
        return _fmt(block["arms"][arm]["metrics"].get(metric))
    reason = skipped.get(f"{arm}/{answerer}", "not requested")
    return f"not run ({reason})"


def _short(interval: dict | None, signed: bool = False) -> str:
    if not interval or interval.get("estimate") is None:
        return "–"
    f = "{:+.2f}" if signed else "{:.2f}"
    est, lo, hi = interval["estimate"], interval.get("low"), interval.get("high")
    if lo is None or hi is None:
        return f.format(est)
    return f"{f.format(est)} [{f.format(lo)},{f.format(hi)}]"


def _audit_line(results: dict) -> str:
    """The bench's shortcut audits in one line: the quick one (manifest) and the adversarial
    one (sidecar written by ``analogist bench audit``)."""
    quick = (results.get("bench") or {}).get("audit") or {}
    text = f"quick {'passed' if quick.get('passed') else 'FAILED' if quick else '–'}; "
    adv = (results.get("adversarial_audit") or {}).get("audit")
    if not adv:
        return text + "adversarial not run on this bench (`analogist bench audit DIR`)"
    verdict = "passed" if adv.get("passed") else f"FAILED ({len(adv.get('failures', []))} win)"
    return text + f"adversarial {verdict}, split {adv.get('split')}, {adv.get('protocol')}"


def _iso_lines(block: dict) -> list[str]:
    """E − ISO: what the machinery adds over exact name-free isomorphism plus the source's fix."""
    rows = block.get("e_minus_iso") or {}
    nav = rows.get("nav")
    if not nav:
        return []
    if nav.get("interval") is None:
        return [f"  E − ISO NAV:       not run ({nav.get('not_run', '')})"]
    iv = nav["interval"]
    out = [
        (
            f"  E − ISO NAV:       {_short(iv, signed=True)} (n={iv.get('n_items')}, "
            "paired; ISO = exact name-free isomorphism + the source's fix)"
        )
    ]
    ta = rows.get("transfer_accuracy")
    if ta and ta.get("interval"):
        out.append(
            f"  E − ISO transfer:  {_short(ta['interval'], signed=True)} "
            f"(n={ta['interval'].get('n_items')})"
        )
    return out


def _noise_lines(answerer: str, curve: dict) -> list[str]:
    """The NAV-versus-encoder-noise table (rows: ISO, C, D, E, E − ISO; columns: rates)."""
    rates = curve.get("rates", [])
    head = "".join(f"{'noise ' + format(r, 'g'):<22}" for r in rates)
    lines = [
        (
            f"Encoder noise — NAV by corruption rate ({answerer} answerer; realistic rate "
            f"{curve.get('realistic', '?')}; 95% intervals)"
        ),
        f"  {'arm':<9}{head}",
    ]
    for arm, pts in curve.get("arms", {}).items():
        by_rate = {p["rate"]: p for p in pts}
        cells = "".join(f"{_short(by_rate.get(r, {}).get('nav')):<22}" for r in rates)
        lines.append(f"  {arm:<9}{cells}")
    diffs = {d["rate"]: d for d in curve.get("e_minus_iso", [])}
    if diffs:
        cells = "".join(f"{_short(diffs.get(r, {}).get('nav'), signed=True):<22}" for r in rates)
        lines.append(f"  {'E − ISO':<9}{cells}")
    return [line.rstrip() for line in lines]


def scoreboard(results: dict[str, Any], live: dict[str, Any] | None) -> str:
    """The scoreboard text for a results document and live-use counts."""
    bench = results.get("bench", {})
    cfg = results.get("config", {})
    lines = ["10 Analogical reasoning", "", *textwrap.wrap(conclusion(results), 100), ""]
    what = (
        f"bench {bench.get('generator_version', '?')} seed {bench.get('seed', '?')} "
        f"{bench.get('split', '?')}/{bench.get('size', '?')}, "
        f"targets encoded by {cfg.get('encoder', '?')}"
    )
    skipped = results.get("skipped", {})
    if cfg.get("models"):  # "answers: X; encodings: Y" (runner.models_text)
        lines.append(f"Models:       {cfg['models']}")
    lines += [f"Bench audit:  {_audit_line(results)}", ""]
    if not results.get("answerers"):
        lines += ["Latest — PARB", "  (no arm ran)", ""]
    for answerer, block in results.get("answerers", {}).items():
        lines.append(f"Latest — PARB ({answerer} answerer, arm E; {what})")
        for label, metric in HEADLINE:
            lines.append(f"  {label + ':':<19}{_arm_value(block, 'E', metric, skipped, answerer)}")
        lines += _iso_lines(block)
        lines += ["", f"Baseline — ({answerer} answerer)"]
        for label, arm in (("A0 NAV", "A0"), ("A1 NAV", "A1"), ("B current memory", "B")):
            lines.append(f"  {label + ':':<19}{_arm_value(block, arm, 'nav', skipped, answerer)}")
        c = block.get("classification", {})
        verdict = c.get("result") or c.get("status", "?")
        lines += [f"  Result class:      {verdict} — {c.get('title') or c.get('rule', '')}", ""]
    for answerer, block in results.get("answerers", {}).items():
        if block.get("noise_curve"):
            lines += _noise_lines(answerer, block["noise_curve"]) + [""]
    lines.append("Live use — last 7 days")
    if live is None:
        lines.append("  (no analogy log)")
    else:
        for label, key in (
            ("opportunities", "opportunities"),
            ("Tier 0 hits", "tier0_hits"),
            ("Tier 1 runs", "tier1_runs"),
            ("Tier 2 runs", "tier2_runs"),
            ("useful analogies", "useful"),
            ("false accepts", "false_accepts"),
            ("negative transfers", "negative_transfers"),
            ("median token cost", "median_token_cost"),
        ):
            value = live.get(key)
            lines.append(f"  {label + ':':<20}{'–' if value is None else value}")
    return "\n".join(lines) + "\n"
