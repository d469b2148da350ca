"""Facts of a signature over role variables: what a generalisation counts (SAGE's facts).

A signature contributes three kinds of fact: its relations (``depends_on(REQ,SRC)``), its
causal links (``gates(SCH,REQ) --causes--> consumes(REQ,SRC)``) and its fix operator, normalised
to the operator applied to roles (``add_jitter(SCH)``; the free-text qualifier is dropped).
Arguments are renamed through a binding (exemplar role -> generalisation variable), so facts of
different exemplars compare equal exactly when they say the same thing about corresponding
roles. Terms are spelled by the project's one canonical spelling (vocabulary term, commutative
arguments sorted, so ``races_with(A,B)`` is ``races_with(B,A)``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from analogist.signature.canonical import canonical_term
from analogist.signature.model import Signature
from analogist.signature.terms import Term, parse_term
from analogist.signature.vocabulary import Vocabulary

KINDS = ("relation", "causal", "fix")
ARROW = " --"


@dataclass(frozen=True, order=True)
class SchemaFact:
    """One fact over role variables.

    Attributes:
        kind: "relation", "causal" or "fix".
        text: its canonical spelling (``pred(A,B)``, ``c(A) --causes--> e(B)`` or ``op(A)``).
    """

    kind: str
    text: str

    def roles(self) -> tuple[str, ...]:
        """The role variables it mentions, in order."""
        if self.kind == "causal":
            cause, _, effect = split_link(self.text)
            return cause.roles() + effect.roles()
        return parse_term(self.text).roles()


def split_link(text: str) -> tuple[Term, str, Term]:
    """``c(A) --causes--> e(B)`` as (cause, link, effect)."""
    cause, rest = text.split(ARROW, 1)
    link, effect = rest.split("--> ", 1)
    return parse_term(cause), link, parse_term(effect)


def signature_facts(sig: Signature, names: Mapping[str, str], vocab: Vocabulary) -> set[SchemaFact]:
    """Every fact of ``sig`` with its roles renamed through ``names`` (missing names kept),
    each term in the one canonical spelling (:func:`~analogist.signature.canonical.canonical_term`:
    vocabulary term, commutative arguments sorted)."""
    out = {SchemaFact("relation", canonical_term(r.term(), vocab, names)) for r in sig.relations}
    for link in sig.causal_chain:
        cause = canonical_term(link.cause, vocab, names)
        effect = canonical_term(link.effect, vocab, names)
        out.add(SchemaFact("causal", f"{cause}{ARROW}{link.link}--> {effect}"))
    if sig.fix_operator is not None:
        out.add(SchemaFact("fix", canonical_term(sig.fix_operator.term, vocab, names)))
    return out


def structure_json(facts: list[SchemaFact]) -> dict:
    """Relations, causal chain and fix operator (the most frequent first) as signature JSON."""
    body: dict = {"relations": [], "causal_chain": []}
    for f in facts:
        if f.kind == "relation":
            t = parse_term(f.text)
            body["relations"].append([t.functor, *[str(a) for a in t.args]])
        elif f.kind == "causal":
            cause, link, effect = split_link(f.text)
            body["causal_chain"].append([cause.canonical(), link, effect.canonical()])
        elif "fix_operator" not in body:
            body["fix_operator"] = f.text
    return body
