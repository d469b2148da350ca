"""Classify a PARB run into Result A–F of spec §26, or say why it cannot be classified yet.

Six facts are read from a :class:`~analogist.bench.analysis.hypotheses.HypothesisReport`, each True,
False or unknown (None, with the reason: an arm not run, a statistic undefined):

- **retrieval win** — H1 passes; otherwise C − B′ recall@5 on far items has a paired interval
  above zero (False when it does not); when B′ was not run, C − B on the same metric stands in
  (stated in the evidence, since B's context is not size-matched).
- **mapping win** — H2 passes (False when it fails).
- **verification win** — H3 passes (False when it fails).
- **beats A1** — some machinery arm (B, B′, C, H, D, E, E+R, E+Bld; not the oracle G, not the
  placebo C′) has a NAV − A1 paired interval above zero, or E beats A1 on private or on nonce
  synthetic items (H4's parts). False when A1 and at least one such arm were compared and none
  beats it.
- **private improves**, **synthetic improves** — H4's two parts (E − A1 NAV above zero).

Rules, first match wins:

1. Result E — not *beats A1*.
2. Result F — *private improves* and not *synthetic improves*.
3. Result C — *retrieval win* and *mapping win*.
4. Result A — *retrieval win* and not *mapping win*.
5. Result B — not *retrieval win* and *mapping win*.
6. Result D — neither win, and *verification win*.
7. Otherwise no class of §26 applies (an arm beats A1 without an attributable win); the run is
   reported as unclassified rather than forced into a class.

Unknown facts are never guessed: the rules are evaluated under every way the unknown facts
could turn out. If all give the same class, that class stands (an unknown fact that cannot
change it does not matter); otherwise the result is undetermined, with the classes still
possible and the unknown facts that separate them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from itertools import product

from analogist.bench.analysis.hypotheses import (
    RECALL5_FAR,
    HypothesisReport,
    beats,
    describe,
    unusable,
)

RESULTS: dict[str, tuple[str, str, str]] = {
    "A": (
        "structural retrieval wins, mapping adds little",
        "Piper had a memory access problem, not a mapping problem.",
        "Keep signatures/retrieval; simplify mapper.",
    ),
    "B": (
        "retrieval flat, forced mapping wins",
        (
            "Current memory already surfaces adequate candidates; explicit relational "
            "discipline prevents bad transfer."
        ),
        "Keep mapping/disanalogy; reconsider structural indexing.",
    ),
    "C": (
        "retrieval and mapping both win",
        "Explicit analogy machinery provides measurable added capability.",
        "Proceed to schemas, plan transfer, and live triggers.",
    ),
    "D": (
        "only verification wins",
        "Piper can already generate analogies, but needs protection against false transfer.",
        "Retain causal/disanalogy/verification gate; avoid unnecessary retrieval complexity.",
    ),
    "E": (
        "no arm beats the hinted bare LLM",
        "The explicit machinery is currently cost without value.",
        "Do not describe it as cognition. Remove or redesign it.",
    ),
    "F": (
        "private items improve but synthetic items do not",
        "Memory access, not general structural reasoning.",
        "Still useful, but label it accurately.",
    ),
}
RULES = {
    "E": "no machinery arm beats A1 on NAV (overall, private or nonce synthetic)",
    "F": "E beats A1 on private items but not on nonce synthetic items",
    "C": "retrieval win and mapping win",
    "A": "retrieval win without a mapping win",
    "B": "mapping win without a retrieval win",
    "D": "verification win without a retrieval or mapping win",
}
MACHINERY_ARMS = ("B", "B′", "C", "H", "D", "E", "E+R", "E+Bld")
FACTS = ("beats_a1", "private", "synthetic", "retrieval", "mapping", "verification")


@dataclass(frozen=True)
class Finding:
    """One input to the rules: its value (None = unknown) and the evidence or missing piece."""

    name: str
    value: bool | None
    evidence: str


@dataclass(frozen=True)
class Classification:
    """The §26 result for one answerer.

    Attributes:
        answerer: "model" or "engine".
        status: "classified", "undetermined" or "unclassified" (no §26 class applies).
        result: "A".."F" when classified, else None.
        rule: the rule that fired, or why no class could be fixed.
        title, interpretation, action: the spec's text for the result ('' when none).
        candidates: classes still possible when undetermined ("none" = no class applies).
        facts: the six facts with their evidence.
    """

    answerer: str
    status: str
    result: str | None
    rule: str
    title: str
    interpretation: str
    action: str
    candidates: tuple[str, ...]
    facts: tuple[Finding, ...]

    def to_json(self) -> dict:
        return asdict(self)


def classify(report: HypothesisReport) -> Classification:
    """Apply the rules of the module docstring to one answerer's hypothesis report."""
    facts = _facts(report)
    values = {f.name: f.value for f in facts}
    unknown = [n for n in FACTS if values[n] is None]
    combos = list(product((True, False), repeat=len(unknown)))
    by_combo = {c: _rule(values | dict(zip(unknown, c))) for c in combos}
    outcomes = set(by_combo.values())
    if len(outcomes) == 1:
        (cls,) = outcomes
        if cls is None:
            return Classification(
                report.answerer,
                "unclassified",
                None,
                "an arm beats A1 but no retrieval, mapping or verification win"
                " was found; §26 has no class for this",
                "",
                "",
                "",
                (),
                facts,
            )
        title, interpretation, action = RESULTS[cls]
        return Classification(
            report.answerer,
            "classified",
            cls,
            RULES[cls],
            title,
            interpretation,
            action,
            (cls,),
            facts,
        )
    candidates = tuple(sorted(c or "none" for c in outcomes))
    matters = [
        n
        for j, n in enumerate(unknown)
        if any(by_combo[c] != by_combo[c[:j] + (not c[j],) + c[j + 1 :]] for c in combos)
    ]
    why = "; ".join(f"{f.name} unknown ({f.evidence})" for f in facts if f.name in matters)
    return Classification(
        report.answerer,
        "undetermined",
        None,
        f"could be {' or '.join(candidates)}: {why}",
        "",
        "",
        "",
        candidates,
        facts,
    )


def _rule(f: dict[str, bool | None]) -> str | None:
    if not f["beats_a1"]:
        return "E"
    if f["private"] and not f["synthetic"]:
        return "F"
    if f["retrieval"]:
        return "C" if f["mapping"] else "A"
    if f["mapping"]:
        return "B"
    return "D" if f["verification"] else None


def _facts(report: HypothesisReport) -> tuple[Finding, ...]:
    h4 = report.verdict("H4").numbers
    private, synthetic = (
        Finding(name, beats(c), describe(c)) for name, c in zip(("private", "synthetic"), h4)
    )
    return (
        _beats_a1(report, private, synthetic),
        private,
        synthetic,
        _retrieval(report),
        _from_verdict(report, "mapping", "H2"),
        _from_verdict(report, "verification", "H3"),
    )


def _from_verdict(report: HypothesisReport, name: str, hypothesis: str) -> Finding:
    v = report.verdict(hypothesis)
    value = None if v.status in ("not run", "insufficient data") else v.status == "pass"
    return Finding(name, value, f"{hypothesis} {v.status}: {v.reason}")


def _retrieval(report: HypothesisReport) -> Finding:
    h1 = report.verdict("H1")
    if h1.status == "pass":
        return Finding("retrieval", True, f"H1 pass: {h1.reason}")
    missing = []
    for control, caveat in (("B′", ""), ("B", " (B′ not run: B stands in, context not matched)")):
        c = report.comparison(f"C - {control}", RECALL5_FAR.name)
        if c is not None and not unusable(c):
            return Finding("retrieval", beats(c), describe(c) + caveat)
        missing.append(unusable(c) if c is not None else f"C - {control} not computed")
    return Finding("retrieval", None, "; ".join(missing))


def _beats_a1(report: HypothesisReport, private: Finding, synthetic: Finding) -> Finding:
    arms = [c for c in report.baselines if c.name.split(" - ")[0] in MACHINERY_ARMS]
    usable = [c for c in arms if not unusable(c)]
    winners = [describe(c) for c in usable if beats(c)]
    winners += [f.evidence for f in (private, synthetic) if f.value]
    if winners:
        return Finding("beats_a1", True, "; ".join(winners))
    if "A1" not in report.arms_run:
        return Finding("beats_a1", None, f"arm A1 not run for answerer '{report.answerer}'")
    if not usable:
        return Finding("beats_a1", None, "no machinery arm could be compared with A1")
    return Finding("beats_a1", False, "; ".join(describe(c) for c in usable))
