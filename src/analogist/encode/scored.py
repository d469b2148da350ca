"""staged-v9's relations step: each role's relation chosen by likelihood, not generated.

A small model asked to pick a relation from an enum picks by list position or copies its first
choice (issue 12, staged-v4 … v8). Scoring given texts asks it only what it does best: how
likely a sentence is. For each role A declared by the roles step:

1. **Which relation.** Every non-causal binary term's definition becomes a statement whose
   subject is A's entity and whose other party is left generic: "In this episode, the export |
   uses up capacity or supply of another part." The model scores each continuation (after
   ``|``) following the episode. A definition's raw score mostly says how common its wording is
   (what made v4 answer in listed order), and that prior is the same whichever role is the
   subject; so each term's score is centred on its mean over the episode's roles, and A gets the
   term whose statement the episode makes likelier for A than for its other roles (a contrast
   over subjects: contextual calibration at no extra cost). Every role gets one relation, as in
   v4's one slot per role.
2. **To which role.** The winning definition is scored with each other declared role's entity
   as the other party, after the episode and without it (``N/A`` with a generic subject); the
   other role with the highest difference (pointwise mutual information: the names' own
   priors cancel) is chosen.

A first version calibrated step 1 against the statements scored without the episode, with a
generic subject ("one part") so the scores could be shared across roles and episodes; after a
named subject, "another part" is always less likely than after "one part", every PMI came out
negative and the rule "no relation unless PMI > 0" rejected the first episode (docs/models.md).

The episode's statements share its prompt prefix, so the backend evaluates the episode once per
encoding. Every score goes through the call log
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
    """What the relations step chose for one role, with the evidence.

    Attributes:
        role / entity: the role and its entity.
        term: the chosen term.
        other: the chosen other role.
        score: the term's score for this role minus its mean over the episode's roles (nats).
        partner_pmi: the other role's score after the episode minus without it.
        ranked: the three best terms with their centred scores, best first.
    """

    role: str
    entity: str
    term: str
    other: str
    score: float
    partner_pmi: float
    ranked: tuple[tuple[str, float], ...] = ()

    def describe(self) -> str:
        top = ", ".join(f"{t} {p:+.1f}" for t, p in self.ranked)
        return (
            f"{self.role} ({self.entity}): {self.term}({self.role},{self.other}) "
            f"score {self.score:+.1f}, partner PMI {self.partner_pmi:+.1f} (best {top})"
        )


def tail(definition: str, subject: str, other: str) -> str:
    """The definition as a statement about ``subject`` and ``other``, without the subject:
    'A uses up capacity or supply of B.' -> ' uses up capacity or supply of the pool.'"""
    full = sentence(definition, subject, other) + "."
    if not full.startswith(subject):
        raise ValueError(f"definition {definition!r} does not start with its subject A")
    return full[len(subject) :]


def binary_terms(vocab: Vocabulary) -> list[tuple[str, str]]:
    """(term, definition) of every live binary term that is not causal, in vocabulary order
    (causal terms link facts in the chain step; 11 of the example memory's 261 gold
    relations use one)."""
    return [
        (t.term, t.definition)
        for t in vocab
        if t.merged_into is None and t.arity == 2 and t.kind != "causal"
    ]


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
        """One :class:`RelationChoice` per (role, entity) in ``roles`` (at least two), in order."""
        if len(roles) < 2:
            raise ValueError("relations need at least two roles")
        lps = [  # all of the episode's statements first: one shared prompt prefix
            self._score(head, ent, [tail(d, ent, OTHER) for _, d in self.terms]) for _, ent in roles
        ]
        mean = [sum(col) / len(col) for col in zip(*lps)]  # each term's score over the roles
        definitions = dict(self.terms)
        # best first; an exact tie keeps vocabulary order (only a scripted model ties)
        picks = [
            sorted(((t, a - m) for (t, _), a, m in zip(self.terms, lp, mean)), key=lambda x: -x[1])
            for lp in lps
        ]
        others = [[(r, e) for r, e in roles if r != role] for role, _ in roles]
        # the episode's prompts first, then the no-episode ones (each run shares its prefix)
        ctx = [
            self._score(head, ent, [tail(definitions[p[0][0]], ent, e) for _, e in o])
            for (_, ent), p, o in zip(roles, picks, others)
        ]
        null = [
            self._score(NULL_HEAD, SUBJECT, [tail(definitions[p[0][0]], SUBJECT, e) for _, e in o])
            for p, o in zip(picks, others)
        ]
        out = []
        for (role, ent), p, o, a, b in zip(roles, picks, others, ctx, null):
            gain, other = max(((x - y, r) for (r, _), x, y in zip(o, a, b)), key=lambda g: g[0])
            ranked = tuple((t, round(v, 3)) for t, v in p[:3])
            out.append(RelationChoice(role, ent, p[0][0], other, p[0][1], gain, ranked))
        return out
