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
   as the other party, after the episode; the likeliest statement names the other role. The
   statements differ only in that name, and the episode names every role, so the raw score is
   fair here. (Calibrating it against the statements without the episode, as step 1 first did,
   favoured the rarest name: "midnight warm-up job" is very unlikely without the episode, so
   its PMI was +26 to +31 nats and it became nearly every role's partner.)

A first version calibrated step 1 against the statements scored without the episode, with a
generic subject ("one part") so the scores could be shared across roles and episodes; after a
named subject, "another part" is always less likely than after "one part", every PMI came out
negative and the rule "no relation unless PMI > 0" rejected the first episode (docs/models.md).

staged-v10 (opt-in) is v9 with the calibration the literature uses: each term's statement
about A is also scored without the episode ("Episode: N/A", the same subject A and the same
words), and the difference (pointwise mutual information with the episode) ranks the terms; a
role whose best PMI is not above 0 gets no relation. It costs a second set of statements per role
(short prompts).

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
START = "In this episode, "
OTHER = "another part"  # the other party while the term is chosen
NULL_HEAD = "Episode:\nN/A"  # staged-v10's prompt without the episode
NULL_CALIBRATED = ("staged-v10", "staged-v11")


@dataclass(frozen=True)
class RelationChoice:
    """What the relations step chose for one role, with the evidence.

    Attributes:
        role / entity: the role and its entity.
        term: the chosen term; None (staged-v10) when no term's PMI is above 0.
        other: the chosen other role (None with ``term``).
        score: the term's score for this role minus its mean over the episode's roles (nats).
        partner_score: the log-probability of the statement naming the other role.
        ranked: the three best terms with their centred scores, best first.
    """

    role: str
    entity: str
    term: str | None
    other: str | None
    score: float
    partner_score: float
    ranked: tuple[tuple[str, float], ...] = ()

    def describe(self) -> str:
        top = ", ".join(f"{t} {p:+.1f}" for t, p in self.ranked)
        if self.term is None:
            return f"{self.role} ({self.entity}): none (best {top})"
        return (
            f"{self.role} ({self.entity}): {self.term}({self.role},{self.other}) "
            f"score {self.score:+.1f}, partner {self.partner_score:.1f} (best {top})"
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
        self.null_prompt = version in NULL_CALIBRATED

    def _score(self, head: str, subject: str, continuations: Sequence[str]) -> list[float]:
        self.calls += 1
        got = self.llm.score(
            messages(head, subject), continuations, prompt_version=f"{self.version}:relations"
        )
        return [s.logprob for s in got.scores]

    def _baselines(self, roles: Sequence[tuple[str, str]], lps: list[list[float]]) -> list:
        """Per role, what each term's score is compared with: v9 its mean over the roles, v10
        its score for the same subject without the episode."""
        if not self.null_prompt:
            mean = [sum(col) / len(col) for col in zip(*lps)]
            return [mean] * len(roles)
        return [
            self._score(NULL_HEAD, ent, [tail(d, ent, OTHER) for _, d in self.terms])
            for _, ent in roles
        ]

    def choose(self, head: str, roles: Sequence[tuple[str, str]]) -> list[RelationChoice]:
        """One :class:`RelationChoice` per (role, entity) in ``roles`` (at least two), in order."""
        if len(roles) < 2:
            raise ValueError("relations need at least two roles")
        lps = [  # all of the episode's statements first: one shared prompt prefix
            self._score(head, ent, [tail(d, ent, OTHER) for _, d in self.terms]) for _, ent in roles
        ]
        definitions = dict(self.terms)
        # best first; an exact tie keeps vocabulary order (only a scripted model ties)
        picks = [
            sorted(((t, a - m) for (t, _), a, m in zip(self.terms, lp, base)), key=lambda x: -x[1])
            for lp, base in zip(lps, self._baselines(roles, lps))
        ]
        others = [[(r, e) for r, e in roles if r != role] for role, _ in roles]
        # v10: a role whose best term the episode makes no likelier than without it gets none
        keep = [not self.null_prompt or p[0][1] > 0 for p in picks]
        ctx = [
            self._score(head, ent, [tail(definitions[p[0][0]], ent, e) for _, e in o]) if k else []
            for (_, ent), p, o, k in zip(roles, picks, others, keep)
        ]
        out = []
        for (role, ent), p, o, lp in zip(roles, picks, others, ctx):
            ranked = tuple((t, round(v, 3)) for t, v in p[:3])
            if not lp:
                out.append(RelationChoice(role, ent, None, None, p[0][1], 0.0, ranked))
                continue
            best, other = max(((x, r) for (r, _), x in zip(o, lp)), key=lambda g: g[0])
            out.append(RelationChoice(role, ent, p[0][0], other, p[0][1], best, ranked))
        return out
