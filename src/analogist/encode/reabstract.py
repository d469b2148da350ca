"""Re-abstraction: the same episode's signature one level up (coarser) or down (finer).

The re-representation loop (spec §9) retries a failed mapping at another abstraction level.
With a model, :func:`reabstract` asks it to rewrite the signature (same checks and repair as
the encoder, and again only this one signature is shown). Without a model there is a
deterministic engine for ``up``: keep the causal skeleton — the causal chain, the relations its
terms mention, relations of kind ``causal`` — and drop the role-specific detail (other
structural, epistemic, temporal and resource relations), along with roles nothing mentions any
more; the text levels shift up one (L1 <- L2, L2 <- L3). ``down`` needs information the
signature does not hold, so the engine declines with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from analogist.encode import prompts
from analogist.encode.encoder import ModelEncoder
from analogist.models.llm import LLM
from analogist.signature.model import Relation, Signature
from analogist.signature.terms import Term
from analogist.signature.vocabulary import Vocabulary, default_vocabulary

Direction = Literal["up", "down"]
ENGINE_WRITER = "engine:reabstract#" + prompts.REABSTRACT_PROMPT_VERSION


@dataclass(frozen=True)
class Reabstraction:
    """A re-abstracted signature, or None and the reason there is none."""

    direction: str
    signature: Signature | None
    reason: str | None = None
    writer: str = ""

    @property
    def ok(self) -> bool:
        return self.signature is not None

    def to_json(self) -> dict:
        return {
            "direction": self.direction,
            "ok": self.ok,
            "writer": self.writer,
            "signature": self.signature.to_json() if self.signature else None,
            "reason": self.reason,
        }


def reabstract(
    sig: Signature, direction: Direction, *, llm: LLM | None = None, vocab: Vocabulary | None = None
) -> Reabstraction:
    """``sig`` one abstraction level ``up`` or ``down``; by the model when one is given."""
    if direction not in ("up", "down"):
        raise ValueError(f"direction must be 'up' or 'down', got {direction!r}")
    vocab = vocab or default_vocabulary()
    if llm is not None:
        return _by_model(sig, direction, llm, vocab)
    if direction == "down":
        return Reabstraction(
            direction,
            None,
            (
                "a finer signature needs details this signature does not hold; pass a model "
                "(--model / ANALOGIST_MODEL) to re-encode it one level down"
            ),
            ENGINE_WRITER,
        )
    return skeleton_up(sig, vocab)


def _by_model(sig: Signature, direction: str, llm: LLM, vocab: Vocabulary) -> Reabstraction:
    encoder = ModelEncoder(llm, vocab)
    msgs = prompts.reabstract_messages(vocab, sig.to_json(), direction)
    result = encoder.rewrite(msgs, sig, prompts.REABSTRACT_PROMPT_VERSION)
    if result.signature is None:
        return Reabstraction(direction, None, result.reason, result.writer)
    new = replace(
        result.signature,
        surface=sig.surface,
        levels={**result.signature.levels, "L0": sig.level("L0")},
    )
    return Reabstraction(direction, new, None, result.writer)


def _functors(t: Term) -> list[Term]:
    out = [t]
    for a in t.args:
        if isinstance(a, Term):
            out.extend(_functors(a))
    return out


def skeleton_up(sig: Signature, vocab: Vocabulary) -> Reabstraction:
    """The deterministic ``up`` step (see the module docstring)."""
    if not sig.causal_chain:
        return Reabstraction(
            "up",
            None,
            (
                "no causal chain to keep: the engine can only coarsen to the causal skeleton; "
                "pass a model to re-abstract"
            ),
            ENGINE_WRITER,
        )

    def fact(predicate: str, args: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        term = vocab.resolve(predicate)
        return predicate, (tuple(sorted(args)) if term is not None and term.commutative else args)

    in_chain = {
        fact(t.functor, t.roles())
        for link in sig.causal_chain
        for end in (link.cause, link.effect)
        for t in _functors(end)
    }

    def keep(r: Relation) -> bool:
        term = vocab.resolve(r.predicate)
        return fact(r.predicate, r.args) in in_chain or (term is not None and term.is_causal_link)

    kept = tuple(r for r in sig.relations if keep(r))
    if len(kept) == len(sig.relations):
        return Reabstraction(
            "up",
            None,
            (
                "already at the causal skeleton: every relation takes part in the causal chain; "
                "nothing coarser without a model"
            ),
            ENGINE_WRITER,
        )
    used = {a for r in kept for a in r.args}
    used |= {
        a for link in sig.causal_chain for end in (link.cause, link.effect) for a in end.roles()
    }
    if sig.fix_operator is not None:
        used |= set(sig.fix_operator.term.roles())
    levels = dict(sig.levels)
    for lower, upper in (("L1", "L2"), ("L2", "L3")):
        if sig.level(upper):
            levels[lower] = sig.level(upper)
    new = replace(
        sig,
        roles=tuple(r for r in sig.roles if r.name in used),
        relations=kept,
        levels=levels,
        verified=False,
        writer_model=ENGINE_WRITER,
    )
    dropped = ", ".join(sorted({r.predicate for r in sig.relations if r not in kept}))
    return Reabstraction(
        "up", new, f"dropped relations outside the causal skeleton: {dropped}", ENGINE_WRITER
    )
