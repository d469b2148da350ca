"""staged-v11's roles step: the mechanism's parts chosen by likelihood among the text's phrases.

Asked to name a mechanism's parts, the 1.5B names surface entities ("Redis", "primary hit",
"CoreDNS") and copies text (staged-v4, v6). Here the model never writes a name: the candidates
are the episode's own noun phrases (:func:`analogist.encode.candidates.candidates`, or the
entity table's names at query time), and the model only scores them.

1. **Part scores.** A mechanism is made of functional parts — the resource others rely on, the
   part that uses it, the part that suffers, the part that watches or times the others, the
   change that starts the trouble (what the example memory's gold roles are) — each asked as a
   question (:data:`QUESTIONS`) whose answer, after the episode, is each candidate: "Which part
   is the shared resource ...? | ⟨candidate⟩." A name's raw score mostly says how short and
   common it is, and any name the episode mentions is far likelier after the episode than
   without it (staged-v9's lesson: PMI against a no-episode prompt favours the rarest name). So
   the candidates are also scored, after the same episode, as the answer to a neutral question
   ("Name one thing this episode mentions"), and a candidate's part score for a question is
   the difference. All prompts share the episode as their prefix.
2. **Choice.** A greedy matching, best part score first: each question names one part and each
   part answers one question, while the score is above 0, up to :data:`MAX_ROLES` (at least
   :data:`MIN_ROLES`: the relations step needs two). A candidate that names the same part as
   one already taken (:func:`~analogist.encode.candidates.same_part`: a shared head word, or
   one's words inside the other's) is merged into it. The question a role answered is its
   description.

Every score goes through the call log, so a run replays without the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from analogist.encode.candidates import same_part

SYSTEM = "You read an episode report and answer questions about how it happened."
# The functional parts a mechanism is made of (what the example memory's gold roles are: the
# requesters and the resource they share, the schedule that aligns them, the watcher and the
# signal it reads, ...), each a question whose answer is a candidate.
QUESTIONS = (
    (
        "resource",
        "shared resource, capacity or dependency that other parts rely on",
        "Which part is the shared resource, capacity or dependency that other parts rely on?",
    ),
    (
        "user",
        "part that uses, takes or demands the resource",
        "Which part uses, takes or demands it, or sends work to another part?",
    ),
    (
        "affected",
        "part that waits, suffers or fails as a result",
        "Which part waits, suffers or fails as a result?",
    ),
    (
        "control",
        "part that watches, checks, reports, controls or times the others",
        "Which part watches, checks, reports, controls or times the others?",
    ),
    (
        "trigger",
        "condition or change that starts the trouble",
        "Which condition or change starts the trouble?",
    ),
)
ANSWER = "Answer with its name as the episode writes it."
PART_START = "The part is"
MENTION_QUESTION = "Name one thing this episode mentions."
MENTION_START = "One thing this episode mentions is"
MAX_ROLES = 4
MIN_ROLES = 2


@dataclass(frozen=True)
class RoleChoice:
    """What the roles step chose, with the evidence.

    Attributes:
        chosen: (candidate, part label, part score) per chosen role, in the order chosen.
        merged: (candidate, the chosen one it was merged into) for candidates that won a
            question but name a part already taken.
        ranked: per question label, its best three candidates with their part scores (nats).
        candidates: how many candidates were scored.
    """

    chosen: tuple[tuple[str, str, float], ...]
    merged: tuple[tuple[str, str], ...]
    ranked: tuple[tuple[str, tuple[tuple[str, float], ...]], ...]
    candidates: int

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c for c, _, _ in self.chosen)

    def notes(self) -> tuple[str, ...]:
        got = ", ".join(f"{c} as {q} {s:+.1f}" for c, q, s in self.chosen)
        out = [f"chose {got} of {self.candidates} candidates"]
        for q, best in self.ranked:
            out.append(f"{q}: " + ", ".join(f"{c} {s:+.1f}" for c, s in best))
        out += [f"{c!r} merged into {k!r} (same part)" for c, k in self.merged]
        return tuple(out)


def messages(head: str, question: str, start: str) -> list[dict[str, str]]:
    """The scoring prompt: the episode (``head``), the question, and the answer's start."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"{head}\n\n{question} {ANSWER}"},
        {"role": "assistant", "content": start},
    ]


def answer(candidate: str) -> str:
    """A candidate as the continuation of the answer's start."""
    return f" {candidate}."


class RoleScorer:
    """Chooses an episode's roles among candidates by their part scores (module docstring).

    Args:
        llm: a model that scores (``LoggedLLM`` over ``local:``/``llama:``, or scripted).
        version: the prompt version, part of every call's cache key.

    Attributes:
        calls: scoring calls made so far (each answered by the model or the call log).
    """

    def __init__(self, llm: Any, version: str):
        self.llm, self.version = llm, version
        self.calls = 0

    def _score(self, head: str, question: str, start: str, cands: Sequence[str]) -> list[float]:
        self.calls += 1
        got = self.llm.score(
            messages(head, question, start),
            [answer(c) for c in cands],
            prompt_version=f"{self.version}:roles",
        )
        return [s.logprob for s in got.scores]

    def choose(self, head: str, cands: Sequence[str]) -> RoleChoice:
        """The roles among ``cands`` (at least two distinct candidates)."""
        cands = list(dict.fromkeys(cands))
        if len(cands) < MIN_ROLES:
            raise ValueError(f"at least {MIN_ROLES} candidates are needed, got {len(cands)}")
        mention = self._score(head, MENTION_QUESTION, MENTION_START, cands)
        table = []  # (part score, question index, candidate index)
        ranked = []
        for qi, (label, _, question) in enumerate(QUESTIONS):
            part = self._score(head, question, PART_START, cands)
            scores = [round(p - m, 3) for p, m in zip(part, mention)]
            table += [(s, qi, ci) for ci, s in enumerate(scores)]
            best = sorted(zip(cands, scores), key=lambda x: -x[1])[:3]
            ranked.append((label, tuple(best)))
        # greedy matching, best score first: each question names one part, each part answers
        # one question; an exact tie keeps question then text order (only a scripted model ties)
        chosen: list[tuple[str, str, float]] = []
        merged: list[tuple[str, str]] = []
        done: set[int] = set()
        for s, qi, ci in sorted(table, key=lambda x: (-x[0], x[1], x[2])):
            if len(chosen) >= MAX_ROLES or (s <= 0 and len(chosen) >= MIN_ROLES):
                break
            c = cands[ci]
            if qi in done or any(c == k for k, _, _ in chosen):
                continue
            into = next((k for k, _, _ in chosen if same_part(c, k)), None)
            if into is not None:
                if (c, into) not in merged:
                    merged.append((c, into))
                continue
            chosen.append((c, QUESTIONS[qi][1], s))
            done.add(qi)
        return RoleChoice(tuple(chosen), tuple(merged), tuple(ranked), len(cands))
