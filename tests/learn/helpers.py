"""Small hand-written signatures and a memory with logged analogies, for the learn tests."""

from __future__ import annotations

import json

from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder
from analogist.reason.analogizer import Analogizer
from analogist.reason.run import AnalogyRun


def sig(
    eid: str,
    roles: tuple[str, str, str],
    *,
    extra: bool = False,
    kind: str = "failure",
    fix: str = "add_spare",
) -> dict:
    """A three-role signature: X depends on Y, Z gates X, Y failing fails X; ``extra`` adds
    shares_resource(X, Z)."""
    x, y, z = roles
    rels = [["depends_on", x, y], ["gates", z, x]]
    if extra:
        rels.append(["shares_resource", x, z])
    return {
        "episode_id": eid,
        "kind": kind,
        "roles": {x: "the dependent system", y: "the single upstream", z: "the gatekeeper"},
        "relations": rels,
        "causal_chain": [[f"fails({y})", "causes", f"fails({x})"]],
        "fix_operator": f"{fix}({y}) before the next outage",
        "levels": {"L0": f"episode {eid}", "L3": "one upstream takes the system down"},
        "surface": {"domain": eid.split("_")[1], "entities": []},
        "verified": True,
    }


def other(eid: str) -> dict:
    """A structurally unrelated signature (an overloaded shared resource)."""
    return {
        "episode_id": eid,
        "kind": "failure",
        "roles": {"REQ": "requesters", "SRC": "resource", "SCH": "schedule"},
        "relations": [
            ["consumes", "REQ", "SRC"],
            ["gates", "SCH", "REQ"],
            ["depends_on", "REQ", "SRC"],
        ],
        "causal_chain": [
            ["consumes(REQ,SRC)", "causes", "overloaded(SRC)"],
            ["overloaded(SRC)", "causes", "unavailable(SRC)"],
        ],
        "fix_operator": "add_jitter(SCH)",
        "levels": {"L0": f"episode {eid}"},
        "surface": {"domain": "x", "entities": []},
        "verified": True,
    }


def episode(s: dict) -> str:
    return json.dumps(
        {"id": s["episode_id"], "kind": s["kind"], "text": s["levels"]["L0"], "signature": s}
    )


def memory(*sigs: dict) -> Memory:
    m = Memory(":memory:", embedder=HashingEmbedder())
    report = m.add([episode(s) for s in sigs])
    assert not report.rejected, report.rejected
    return m


def analogize(m: Memory, target: str, *, source: str | None = None) -> AnalogyRun:
    """One logged analogizer run on a stored target (``source``: given instead of retrieved)."""
    given = [m.store.get_signature(source)] if source else None
    return Analogizer(m).run(m.store.get_signature(target), exclude=[target], sources=given)
