"""The causal support of a transferred action: the part of the source's causal chain the fix
acts through, and whether it is mapped in the target.

The fix operator names the roles it intervenes on. Its *intervention points* are the chain's
root terms that mention only those roles (when the chain is one feedback loop with no root,
every term over those roles). From each point the action's effect travels along source links to
the symptom (a term with no outgoing link) or round a feedback loop. The action is supported
when:

- no causal link the target has and the source lacks touches that path (a mediator turned
  confounder, a reversed edge);
- every intervention point that the target mentions has a path mapped link by link (same
  cause, same effect, same sign), and a point the source asserts as a relation holds in the
  target too;
- at least one point has such a path. A point the target does not mention at all is *unknown*,
  not contradicted: it is left to the prediction check (spec §10.1, "cache is stale → NO;
  PREDICT direct sensor read will disagree").

A missing side condition off the path does not withhold the action (partial analogy); a broken
link on it does. Lee & Holyoak (2008): causal support, not mere overlap, licenses inference.
"""

from __future__ import annotations

from dataclasses import dataclass

from analogist.signature.model import Signature
from analogist.signature.vocabulary import Vocabulary
from analogist.verify.checks import StructuralChecks, polarity


@dataclass(frozen=True)
class Support:
    """Whether the action's causal support is mapped, and why not when it is not."""

    supported: bool
    points: tuple[str, ...]
    reason: str


def _mapped_links(c: StructuralChecks, vocab: Vocabulary) -> set[tuple[str, str]]:
    out = {
        (s.cause.canonical(), s.effect.canonical())
        for s, _ in c.alignment.matches
        if s.kind == "link"
    }
    out |= {
        (s.cause.canonical(), s.effect.canonical())
        for s, t in c.alignment.alignable_differences
        if s.kind == "link" and polarity(s, vocab) == polarity(t, vocab)
    }
    return out


def _complete_path(start: str, edges: dict[str, list[str]], mapped: set[tuple[str, str]]) -> bool:
    """A path from ``start`` along mapped links that ends at a sink or closes a loop."""
    stack = [(start, frozenset([start]))]
    while stack:
        node, seen = stack.pop()
        nxt = edges.get(node, [])
        if not nxt:
            return True
        for n in nxt:
            if (node, n) not in mapped:
                continue
            if n in seen:
                return True
            stack.append((n, seen | {n}))
    return False


def _reachable(points: list[str], edges: dict[str, list[str]]) -> set[str]:
    seen, stack = set(points), list(points)
    while stack:
        for n in edges.get(stack.pop(), []):
            if n not in seen:
                seen.add(n)
                stack.append(n)
    return seen


def action_support(
    source: Signature, target: Signature, c: StructuralChecks, vocab: Vocabulary
) -> Support:
    """Check the support of the source's fix operator under mapping ``c`` (module docstring)."""
    if source.fix_operator is None or not source.causal_chain:
        return Support(False, (), "the source has no fix or no causal chain to support it")
    fix_roles = set(source.fix_operator.term.roles())
    edges: dict[str, list[str]] = {}
    terms, has_in = {}, set()
    for link in source.causal_chain:
        a, b = link.cause.canonical(), link.effect.canonical()
        edges.setdefault(a, []).append(b)
        terms[a], terms[b] = link.cause, link.effect
        has_in.add(b)
    over_fix = [t for t, term in terms.items() if set(term.roles()) <= fix_roles]
    points = [t for t in over_fix if t not in has_in] or over_fix
    if not points:
        return Support(False, (), "no causal-chain term is over the fix's roles")
    mapped = _mapped_links(c, vocab)
    asserted_src = {f"{r.predicate}({','.join(r.args)})" for r in source.relations}
    m = c.alignment.mapping
    asserted_tgt = {f"{r.predicate}({','.join(r.args)})" for r in target.relations}
    reach = _reachable(points, edges)
    on_path = {terms[t].rename(m).canonical() for t in reach}
    for f in c.alignment.target_only + c.alignment.non_alignable_target:
        if f.kind == "link" and {f.cause.canonical(), f.effect.canonical()} & on_path:
            return Support(
                False,
                tuple(points),
                f"the target has a causal link the source lacks on the fix's path: {f}",
            )
    present = asserted_tgt | {
        t.canonical() for link in target.causal_chain for t in (link.cause, link.effect)
    }
    complete, unknown = [], []
    for p in points:
        here = terms[p].rename(m).canonical()
        if p in asserted_src and here not in asserted_tgt and here in present:
            return Support(False, tuple(points), f"{p} does not hold in the target")
        if here not in present:
            unknown.append(p)
        elif _complete_path(p, edges, mapped):
            complete.append(p)
        else:
            return Support(
                False, tuple(points), f"the path from {p} to the symptom is broken in the target"
            )
    if not complete:
        return Support(
            False, tuple(points), "no path from the fix to the symptom is mapped link by link"
        )
    why = f"mapped path(s) from {', '.join(complete)} to the symptom"
    if unknown:
        why += f"; unknown in the target: {', '.join(unknown)} (check by prediction)"
    return Support(True, tuple(points), why)
