"""staged-v9's relations step: each role's relation chosen by likelihood, not generated.

A small model asked to pick a relation from an enum picks by list position or copies its first
choice (issue 12, staged-v4 … v8). Scoring given texts asks it only what it does best: how
likely a sentence is. For each role A declared by the roles step:

1. **Which relation.** Every binary term's definition becomes a statement whose subject is A's
   entity and whose other party is left generic: "In this episode, the export | uses up
   capacity or supply of another part." The model scores each continuation (after ``|``)
   following the episode; the same continuations are scored once without the episode ("In this
   episode, one part | uses up ...", the episode replaced by ``N/A``) and subtracted. That
   difference (pointwise mutual information with the episode) removes each definition's prior
   — short, common wordings are likely whatever the episode says — which is what made v4 answer
   in listed order. The term with the highest PMI wins; when none is above 0 (no definition is
   made more likely by the episode), A gets no relation.
2. **To which role.** The winning definition is scored with each other declared role's entity
   as the other party, after the episode and without it (the names' own priors cancel); the
   highest PMI is the other role.

The no-episode scores of step 1 are the same for every role and episode (one call per run, then
the call log answers). The episode's statements share its prompt prefix, so the backend
evaluates the episode once per encoding. Every score goes through the call log
(:meth:`~analogist.models.logged.LoggedLLM.score`), so a run replays without the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from analogist.encode.steps import sentence
from analogist.signature.vocabulary import Vocabulary

SYSTEM = "You read an episode report and state facts about how its parts act on each other."
NULL_HEAD = "Episode:\nN/A"
START = "In this episode, "
SUBJECT, OTHER = "one part", "another part"  # the generic parties of the calibration


@dataclass(frozen=True)
class RelationChoice:
    """What step 2 chose for one role, with the evidence.

    Attributes:
        role / entity: the role and its entity.
        term: the chosen term, None when no definition beats its prior (no relation).
        other: the other role, None with ``term``.
        pmi: the chosen term's PMI (nats; the best one even when it is <= 0).
        partner_pmi: the chosen other role's PMI for that term.
        ranked: the three best terms with their PMI, best first.
    """

    role: str
    entity: str
    term: str | None
    other: str | None
    pmi: float
    partner_pmi: float = 0.0
    ranked: tuple[tuple[str, float], ...] = ()

    def describe(self) -> str:
        top = ", ".join(f"{t} {p:+.1f}" for t, p in self.ranked)
        if self.term is None:
            return f"{self.role} ({self.entity}): none (best {top})"
        return (
            f"{self.role} ({self.entity}): {self.term}({self.role},{self.other}) "
            f"PMI {self.pmi:+.1f}, partner {self.partner_pmi:+.1f} (best {top})"
        )


def tail(definition: str, subject: str, other: str) -> str:
    """The definition as a statement about ``subject`` and ``other``, without the subject:
    'A uses up capacity or supply of B.' -> ' uses up capacity or supply of the pool.'"""
    full = sentence(definition, subject, other) + "."
    if not full.startswith(subject):
        raise ValueError(f"definition {definition!r} does not start with its subject A")
    return full[len(subject) :]


def binary_terms(vocab: Vocabulary) -> list[tuple[str, str]]:
    """(term, definition) of every live binary term, in vocabulary order."""
    return [(t.term, t.definition) for t in vocab if t.merged_into is None and t.arity == 2]


def messages(head: str, subject: str) -> list[dict[str, str]]:
    """The scoring prompt: the episode (``head``) and the start of the statement."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": head},
        {"role": "assistant", "content": START + subject},
    ]


class RelationScorer:
    """Chooses each role's relation by PMI (see the module docstring).

    Args:
        llm: a model that scores (``LoggedLLM`` over ``local:``/``llama:``, or scripted).
        vocab: the controlled vocabulary; its binary terms are the options.
        version: the prompt version, part of every call's cache key.

    Attributes:
        calls: scoring calls made so far (each answered by the model or the call log).
    """

    def __init__(self, llm: Any, vocab: Vocabulary, version: str):
        self.llm, self.version = llm, version
        self.terms = binary_terms(vocab)
        self.calls = 0

    def _score(self, head: str, subject: str, continuations: Sequence[str]) -> list[float]:
        self.calls += 1
        got = self.llm.score(
            messages(head, subject), continuations, prompt_version=f"{self.version}:relations"
        )
        return [s.logprob for s in got.scores]

    def choose(self, head: str, roles: Sequence[tuple[str, str]]) -> list[RelationChoice]:
        """One :class:`RelationChoice` per (role, entity) in ``roles``, in order."""
        prior = self._score(NULL_HEAD, SUBJECT, [tail(d, SUBJECT, OTHER) for _, d in self.terms])
        picks = []
        for _, ent in roles:  # all of the episode's statements first: one shared prompt prefix
            lp = self._score(head, ent, [tail(d, ent, OTHER) for _, d in self.terms])
            pmi = sorted(((a - b, t) for (t, _), a, b in zip(self.terms, lp, prior)), reverse=True)
            picks.append(pmi)
        definitions = dict(self.terms)
        todo = []  # (role, entity, term, others) that get a partner
        out: dict[str, RelationChoice] = {}
        for (role, ent), pmi in zip(roles, picks):
            best, term = pmi[0]
            ranked = tuple((t, round(p, 3)) for p, t in pmi[:3])
            others = [(r, e) for r, e in roles if r != role]
            out[role] = RelationChoice(role, ent, None, None, best, ranked=ranked)
            if best > 0 and others:
                todo.append((role, ent, term, others))
        # the episode's prompts first, then the calibration's (each batch shares its prefix)
        ctx = [
            self._score(head, ent, [tail(definitions[t], ent, e) for _, e in others])
            for _, ent, t, others in todo
        ]
        null = [
            self._score(NULL_HEAD, SUBJECT, [tail(definitions[t], SUBJECT, e) for _, e in others])
            for _, _, t, others in todo
        ]
        for (role, ent, term, others), a, b in zip(todo, ctx, null):
            gain, other = max(
                ((x - y, r) for (r, _), x, y in zip(others, a, b)), key=lambda g: g[0]
            )
            c = out[role]
            out[role] = RelationChoice(role, ent, term, other, c.pmi, gain, c.ranked)
        return [out[r] for r, _ in roles]
