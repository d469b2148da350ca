"""Small hand-built episodes for retrieval tests.

``proxy`` is the spec §4.1 example; ``ledger`` is its far structural twin (finance, no shared
words in L0, other role names); ``feed_lookalike`` shares the proxy's surface words but has a
starvation structure; ``proxy_partial`` is the proxy shape minus one relation and one link
(a near, not exact, structural match); the rest is unrelated noise.
"""

from __future__ import annotations

import json


def episode(
    eid, roles, relations, chain, levels, domain, *, kind="failure", fix=None, provenance=None
):
    sig = {
        "episode_id": eid,
        "kind": kind,
        "roles": roles,
        "relations": relations,
        "causal_chain": chain,
        "levels": levels,
        "surface": {"domain": domain, "entities": []},
        "verified": True,
    }
    if fix:
        sig["fix_operator"] = fix
    ep = {"id": eid, "kind": kind, "text": levels["L0"], "signature": sig}
    if provenance:
        ep["provenance"] = provenance
    return ep


PROXY = episode(
    "proxy",
    {"SRC": "authoritative source", "DER": "derived representation", "CON": "consumer"},
    [
        ["derives_from", "DER", "SRC"],
        ["trusts_as_authoritative", "CON", "DER"],
        ["skips_check", "CON", "SRC"],
        ["diverges_from", "DER", "SRC"],
    ],
    [
        ["diverges_from(DER,SRC)", "causes", "false_claim(CON)"],
        ["skips_check(CON,SRC)", "enables", "false_claim(CON)"],
    ],
    {
        "L0": "Intel feed believed stale because cached summary was read",
        "L1": "Cache read in place of source caused wrong status",
        "L2": "Derived copy treated as authoritative; divergence propagated",
        "L3": "Proxy mistaken for referent",
    },
    "monitoring",
    fix="reconcile(CON, DER, SRC) before assert",
)

LEDGER = episode(
    "ledger",
    {"BANK": "bank statement", "SHEET": "spreadsheet total", "CLERK": "closing accountant"},
    [
        ["skips_check", "CLERK", "BANK"],
        ["derives_from", "SHEET", "BANK"],
        ["diverges_from", "SHEET", "BANK"],
        ["trusts_as_authoritative", "CLERK", "SHEET"],
    ],
    [
        ["skips_check(CLERK,BANK)", "enables", "false_claim(CLERK)"],
        ["diverges_from(SHEET,BANK)", "causes", "false_claim(CLERK)"],
    ],
    {
        "L0": "Quarterly books closed on a spreadsheet total nobody reconciled with the bank",
        "L2": "Derived copy treated as authoritative while its divergence went unnoticed",
        "L3": "A proxy is mistaken for its referent",
    },
    "finance",
    fix="reconcile(CLERK, SHEET, BANK) before close",
)

FEED_LOOKALIKE = episode(
    "feed_lookalike",
    {"JOB": "bulk export job", "POOL": "connection pool", "FEED": "intel feed reader"},
    [["holds", "JOB", "POOL"], ["waits_for", "FEED", "POOL"], ["starves", "JOB", "FEED"]],
    [["starves(JOB,FEED)", "causes", "delayed(FEED)"]],
    {
        "L0": "Intel feed summary read was stale because cached feed was believed",
        "L2": "One holder monopolised a shared pool and a waiter was delayed",
        "L3": "Hog starves the queue",
    },
    "monitoring",
)

PROXY_PARTIAL = episode(
    "proxy_partial",
    {"MAP": "territory", "CHART": "printed chart", "PILOT": "navigator"},
    [
        ["derives_from", "CHART", "MAP"],
        ["trusts_as_authoritative", "PILOT", "CHART"],
        ["diverges_from", "CHART", "MAP"],
    ],
    [["diverges_from(CHART,MAP)", "causes", "false_claim(PILOT)"]],
    {
        "L0": "Navigator ran aground trusting an outdated printed chart",
        "L2": "Trusted derived copy diverged from what it described",
        "L3": "Map taken for territory",
    },
    "navigation",
)

RACE = episode(
    "race",
    {"W1": "writer one", "W2": "writer two", "ROW": "shared row"},
    [["races_with", "W1", "W2"], ["shares_resource", "W1", "W2"], ["depends_on", "W1", "ROW"]],
    [["races_with(W1,W2)", "causes", "corrupted(ROW)"]],
    {
        "L0": "Two deploy scripts overwrote the same database row at once",
        "L2": "Concurrent writers without ordering corrupted shared state",
        "L3": "Unordered concurrency",
    },
    "infrastructure",
)

RETRY = episode(
    "retry",
    {"CL": "clients", "SVC": "service"},
    [["retries", "CL", "SVC"], ["depends_on", "CL", "SVC"]],
    [
        ["retries(CL,SVC)", "amplifies", "overloaded(SVC)"],
        ["overloaded(SVC)", "causes", "fails(SVC)"],
    ],
    {
        "L0": "Mobile apps hammered the login service with retries after a blip",
        "L2": "Retry feedback loop amplified load on a struggling dependency",
        "L3": "Positive feedback on failure",
    },
    "infrastructure",
)

ALL = [PROXY, LEDGER, FEED_LOOKALIKE, PROXY_PARTIAL, RACE, RETRY]


def lines(*episodes) -> list[str]:
    return [json.dumps(e) for e in episodes]


def renamed_roles(ep: dict, mapping: dict[str, str], eid: str) -> dict:
    """The same episode with role names substituted everywhere (and a new id)."""
    text = json.dumps(ep)
    for old, new in mapping.items():
        text = text.replace(f'"{old}"', f'"{new}"').replace(f"({old},", f"({new},")
        text = text.replace(f",{old})", f",{new})").replace(f"({old})", f"({new})")
        text = text.replace(f", {old}", f", {new}").replace(f"({old}, ", f"({new}, ")
    out = json.loads(text)
    out["id"] = out["signature"]["episode_id"] = eid
    return out
