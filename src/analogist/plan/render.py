"""Text for ``analogist plan``: the skeleton table and the final plan with its provenance."""

from __future__ import annotations

from analogist.plan.loop import PlanOutcome


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    w = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return ["  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in [head, *rows]]


def render_outcome(out: PlanOutcome) -> str:
    """Sources considered, the projected skeleton step by step, and the repaired plan."""
    lines = [f"target {out.target_id}"]
    for c in out.considered:
        sme = f"SME normalised {c.mapping.normalized:.3f}" if c.mapping else "SME: no mapping"
        lines.append(f"  considered {c.episode_id}  found by {','.join(c.found_by)}  {sme}")
    if out.source_id is None or out.skeleton is None:
        lines.append(f"no source used: {out.repair.reason or 'none'}")
    else:
        assert out.mapping is not None
        roles = ", ".join(f"{s}->{t}" for s, t in out.mapping.role_map)
        lines += [
            f"source {out.source_id} (SME normalised {out.mapping.normalized:.3f}); roles {roles}",
            "",
            "projected skeleton:",
        ]
        rows = [
            [
                str(s.index),
                str(s.source),
                str(s.step or "-"),
                s.status,
                ", ".join(s.missing) or s.why,
            ]
            for s in out.skeleton.steps
        ]
        lines += _table(["#", "source step", "projected step", "status", "missing / why"], rows)
    rep = out.repair
    lines += [
        "",
        f"plan ({rep.mode}; {'valid' if rep.valid else 'NOT valid'} against the domain; "
        f"{rep.expansions} expansions in {rep.searches} searches; {len(rep.steps)} steps)"
        + (f": {rep.reason}" if rep.reason else ""),
    ]
    rows = [
        [
            str(i + 1),
            s.operator,
            s.provenance,
            "" if s.skeleton_index is None else str(s.skeleton_index),
        ]
        for i, s in enumerate(rep.steps)
    ]
    lines += _table(["n", "operator", "provenance", "skeleton step"], rows)
    lines += [f"dropped skeleton step {i}: {why}" for i, why in rep.dropped]
    if out.run_id:
        lines.append(f"logged as {out.run_id} (`analogist log {out.run_id}`)")
    return "\n".join(lines) + "\n"
