"""A valid model answer (the shape the encoder schema asks for) to build test cases from."""

import copy

ANSWER = {
    "roles": [
        {"name": "SRC", "description": "authoritative source"},
        {"name": "DER", "description": "derived representation"},
        {"name": "CON", "description": "consumer that makes a claim"},
    ],
    "relations": [
        ["derives_from", "DER", "SRC"],
        ["trusts_as_authoritative", "CON", "DER"],
        ["skips_check", "CON", "SRC"],
        ["diverges_from", "DER", "SRC"],
    ],
    "causal_chain": [
        ["diverges_from(DER,SRC)", "causes", "false_claim(CON)"],
        ["skips_check(CON,SRC)", "enables", "false_claim(CON)"],
    ],
    "violated_invariant": "claims about state are read from the authoritative source",
    "symptom": "confident assertion contradicted by later evidence",
    "fix_operator": "reconcile(CON, DER, SRC) before assert",
    "levels": {
        "L1": "Cache read in place of source caused wrong status",
        "L2": "Derived copy treated as authoritative; divergence propagated",
        "L3": "Proxy mistaken for referent",
    },
    "surface": {"domain": "monitoring", "entities": ["Intel feed", "cached summary"]},
}
TEXT = "The Intel feed was believed stale because the cached summary was read, not the feed."


def answer(**changes) -> dict:
    a = copy.deepcopy(ANSWER)
    a.update(copy.deepcopy(changes))
    return a
