"""Re-representation (spec §9): when mapping fails, re-abstract the target and try again.

The loop is bounded (at most two attempts) and every attempt is logged. Without a model the
engine has two deterministic ways up one level, tried in this order:

1. :func:`collapse_relays` — read a two-hop relay as one hop: a role ``P`` that appears only in
   ``r(A, P)`` and ``r(P, B)`` (same predicate) is dropped and ``r(A, B)`` written instead, also
   inside causal-chain terms. This is the granularity step: a finer account that inserted an
   intermediary matches a coarser one only after the intermediary is abstracted away.
2. :func:`analogist.encode.reabstract.skeleton_up` — keep only the causal skeleton.

With a model, the model re-encodes one level up or down (:func:`analogist.encode.reabstract`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from analogist.encode.reabstract import Reabstraction, reabstract
from analogist.signature.model import CausalLink, Relation, Signature
from analogist.signature.terms import Term
from analogist.signature.vocabulary import Vocabulary

RELAY_WRITER = "engine:collapse-relays-v1"


def _relay_roles(sig: Signature) -> dict[str, tuple[Relation, Relation]]:
    """Roles that only relay one predicate: used exactly in r(A,P) and r(P,B), and in no
    causal-chain term other than those two."""
    uses: Counter = Counter(a for r in sig.relations for a in r.args)
    fix_roles = set(sig.fix_operator.term.roles()) if sig.fix_operator else set()
    out = {}
    for role in sig.role_names:
        if uses[role] != 2 or role in fix_roles:
            continue
        ins = [r for r in sig.relations if len(r.args) == 2 and r.args[1] == role]
        outs = [r for r in sig.relations if len(r.args) == 2 and r.args[0] == role]
        if len(ins) == 1 and len(outs) == 1 and ins[0].predicate == outs[0].predicate:
            relay = {ins[0].term(), outs[0].term()}
            elsewhere = any(
                role in t.roles()
                for link in sig.causal_chain
                for t in (link.cause, link.effect)
                if t not in relay
            )
            if not elsewhere:
                out[role] = (ins[0], outs[0])
    return out


def _rewrite(t: Term, first: Term, second: Term, merged: Term) -> Term:
    if t in (first, second):
        return merged
    return Term(
        t.functor,
        tuple(a if isinstance(a, str) else _rewrite(a, first, second, merged) for a in t.args),
    )


def _collapse_one(sig: Signature, role: str, a: Relation, b: Relation) -> Signature:
    merged = Relation(a.predicate, (a.args[0], b.args[1]))
    relations = tuple(dict.fromkeys(merged if r == a else r for r in sig.relations if r != b))
    ta, tb, tm = a.term(), b.term(), merged.term()
    chain: list[CausalLink] = []
    for c in sig.causal_chain:
        link = CausalLink(_rewrite(c.cause, ta, tb, tm), c.link, _rewrite(c.effect, ta, tb, tm))
        if link.cause != link.effect and link not in chain:
            chain.append(link)
    roles = tuple(r for r in sig.roles if r.name != role)
    return replace(sig, roles=roles, relations=relations, causal_chain=tuple(chain))


def collapse_relays(sig: Signature) -> Reabstraction:
    """Collapse relay roles one at a time until none is left (see module docstring)."""
    collapsed: list[str] = []
    while True:
        relays = _relay_roles(sig)
        if not relays:
            break
        role = min(relays)
        sig = _collapse_one(sig, role, *relays[role])
        collapsed.append(role)
    if not collapsed:
        return Reabstraction("up", None, "no relay role to collapse", RELAY_WRITER)
    new = replace(sig, verified=False, writer_model=RELAY_WRITER)
    return Reabstraction("up", new, f"collapsed relay role(s) {', '.join(collapsed)}", RELAY_WRITER)


def engine_up(sig: Signature, vocab: Vocabulary) -> Reabstraction:
    """One deterministic step up: collapse relays, else keep the causal skeleton."""
    first = collapse_relays(sig)
    return first if first.ok else reabstract(sig, "up", vocab=vocab)


def re_represent(sig: Signature, attempt: int, vocab: Vocabulary, llm=None) -> Reabstraction:
    """The signature for re-representation attempt 1 or 2 (up first; with a model, then down)."""
    if llm is not None:
        return reabstract(sig, "up" if attempt == 1 else "down", llm=llm, vocab=vocab)
    return engine_up(sig, vocab)
