"""Signature → Description: the predicate-calculus view the structure mapper consumes.

Roles become entities (typed by their role type when given); relations become first-order
facts; each causal link becomes a higher-order fact over the two terms it connects
(``(causes (diverges_from DER SRC) (false_claim CON))``), so SME's systematicity rewards mapped
causal structure; the fix operator becomes ``(fix (reconcile CON DER SRC))``. Every vocabulary
term is typed as a relation with its arity; commutative terms stay commutative.
"""

from __future__ import annotations

from analogist.signature.description import Description, Entity, Expr, PredicateInfo
from analogist.signature.model import Signature
from analogist.signature.terms import Term
from analogist.signature.vocabulary import Vocabulary

FIX = "fix"


def term_expr(t: Term) -> Expr:
    return Expr(t.functor, tuple(a if isinstance(a, str) else term_expr(a) for a in t.args))


def describe(sig: Signature, vocab: Vocabulary, *, with_fix: bool = True) -> Description:
    """The Description of one signature (see the module docstring for the encoding)."""
    preds: dict[str, PredicateInfo] = {
        t.term: PredicateInfo(t.term, "relation", t.arity, False, t.commutative) for t in vocab
    }
    facts: list[Expr] = [Expr(r.predicate, r.args) for r in sig.relations]
    for link in sig.causal_chain:
        facts.append(Expr(link.link, (term_expr(link.cause), term_expr(link.effect))))
    if with_fix and sig.fix_operator is not None:
        op = sig.fix_operator.term
        if op.functor in preds:  # an operator named like a vocabulary term is kept apart
            op = Term("op_" + op.functor, op.args)
        preds[op.functor] = PredicateInfo(op.functor, "relation", len(op.args))
        preds[FIX] = PredicateInfo(FIX, "relation", 1)
        facts.append(Expr(FIX, (term_expr(op),)))
    entities = tuple(Entity(r.name, r.type) for r in sig.roles)
    return Description(sig.episode_id, entities, tuple(dict.fromkeys(facts)), preds)
