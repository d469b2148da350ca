"""Prompts of the encoders, versioned: a changed prompt gets a new version, which is part of
every cache key and is recorded in each signature's ``writer_model``.

The storage-time prompt shows the model the vocabulary, the rules and one fixed, made-up
example — and the one episode being encoded, nothing else: no other episode, no target, no
retrieval result (spec §5, the tailorability problem).
"""

from __future__ import annotations

import json

from analogist.signature.vocabulary import Vocabulary

ENCODE_PROMPT_VERSION = "encode-v1"
TARGET_PROMPT_VERSION = "target-v1"
REABSTRACT_PROMPT_VERSION = "reabstract-v1"

_RULES = """You write structural signatures of episodes for an analogical memory. A signature
describes an episode's mechanism with abstract roles and a controlled relation vocabulary, so
that episodes from different domains with the same mechanism get the same signature.

Rules:
1. roles: 2-6 abstract roles with names in capitals (e.g. SRC, DER, CON) and a short
   description in general words (no product, person, place, file or system names).
2. relations: ["relation", "ROLE", ...] using ONLY the relations listed below, each with
   exactly the listed number of roles, and only roles you declared.
3. causal_chain: ["cause", "link", "effect"], where cause and effect are terms such as
   stale(DER) or diverges_from(DER,SRC) built from listed names, and link is one of: {links}.
4. violated_invariant and symptom: one short sentence each, in general words.
5. fix_operator: an operator over roles, e.g. reconcile(CON, DER, SRC) before assert.
6. levels: L1 the implementation pattern, L2 the system mechanism, L3 the abstract relational
   pattern. L2 and L3 must not contain any name from the episode: use general words only.
7. surface: the domain in a word or two and the concrete entities the episode names.
Answer with one JSON object and nothing else."""

EXAMPLE_EPISODE = (
    "The thermostat read its temperature from a sensor mounted above the oven, so during "
    "cooking it switched the heating off and the bedrooms went cold."
)
EXAMPLE_SIGNATURE = {
    "roles": [
        {"name": "CTL", "description": "controller that acts on a measurement"},
        {"name": "SEN", "description": "sensor that is the controller's only view"},
        {"name": "ENV", "description": "environment whose state is being controlled"},
    ],
    "relations": [
        ["observes", "SEN", "ENV"],
        ["trusts_as_authoritative", "CTL", "SEN"],
        ["diverges_from", "SEN", "ENV"],
    ],
    "causal_chain": [
        ["diverges_from(SEN,ENV)", "causes", "wrong_decision(CTL)"],
        ["trusts_as_authoritative(CTL,SEN)", "enables", "wrong_decision(CTL)"],
    ],
    "violated_invariant": "a measurement used for control represents the controlled state",
    "symptom": "the controlled state drifts while the controller acts confidently",
    "fix_operator": "reconcile(CTL, SEN, ENV) before acting",
    "levels": {
        "L1": "A sensor placed next to a local heat source misled the controller",
        "L2": "A control loop acted on a local reading that diverged from the controlled state",
        "L3": "The decision followed a proxy that had diverged from its referent",
    },
    "surface": {"domain": "home heating", "entities": ["thermostat", "oven", "bedrooms"]},
}


def vocabulary_listing(vocab: Vocabulary) -> str:
    """One line per live term: ``name(arity) kind: definition [also: synonyms]``."""
    lines = []
    for t in vocab:
        if t.merged_into is not None:
            continue
        also = f" [also: {', '.join(t.synonyms)}]" if t.synonyms else ""
        lines.append(f"- {t.term}({t.arity}) {t.kind}: {t.definition}{also}")
    return "\n".join(lines)


def system_prompt(vocab: Vocabulary) -> str:
    links = ", ".join(t.term for t in vocab.by_kind("causal"))
    return (
        _RULES.format(links=links)
        + "\n\nVocabulary:\n"
        + vocabulary_listing(vocab)
        + "\n\nExample (made up, not from memory):\nEpisode (failure): "
        + EXAMPLE_EPISODE
        + "\nSignature: "
        + json.dumps(EXAMPLE_SIGNATURE)
    )


def episode_messages(vocab: Vocabulary, text: str, kind: str, outcome: str | None) -> list[dict]:
    """Storage-time request: the rules and this one episode only."""
    head = f"Episode ({kind}" + (f"; outcome: {outcome}" if outcome else "") + "):"
    return [
        {"role": "system", "content": system_prompt(vocab)},
        {"role": "user", "content": f"{head}\n{text}\n\nWrite its signature as one JSON object."},
    ]


def target_messages(vocab: Vocabulary, text: str, kind: str | None) -> list[dict]:
    """Query-time request: the current situation only (its kind may be unknown)."""
    head = f"Current situation ({kind or 'kind unknown'}):"
    return [
        {"role": "system", "content": system_prompt(vocab)},
        {"role": "user", "content": f"{head}\n{text}\n\nWrite its signature as one JSON object."},
    ]


def repair_message(problems: list[str], unknown: list[str]) -> dict:
    """The encoder's one repair re-ask, quoting what failed validation."""
    text = "Your signature was rejected:\n" + "\n".join(f"- {p}" for p in problems)
    if unknown:
        text += (
            "\nFor each relation not in the vocabulary: replace it with the listed relation that "
            'means the same, or keep it and add "relation_mapping": {"its_name": '
            '"listed_relation"} if a listed relation means exactly the same; otherwise drop it.'
        )
    text += "\nReply with the corrected signature as one JSON object only."
    return {"role": "user", "content": text}


def reabstract_messages(vocab: Vocabulary, signature_json: dict, direction: str) -> list[dict]:
    """Ask for the same episode one abstraction level up (coarser) or down (finer)."""
    how = (
        "one level MORE abstract: keep the causal skeleton, drop relations that only describe "
        "this particular setting, and make L1-L3 more general"
        if direction == "up"
        else "one level LESS abstract: add the finer relations between the roles that the levels "
        "and the causal chain imply, splitting roles only when they clearly do different things"
    )
    body = {k: v for k, v in signature_json.items() if k not in ("episode_id", "kind", "verified")}
    return [
        {"role": "system", "content": system_prompt(vocab)},
        {
            "role": "user",
            "content": (
                f"Rewrite this signature {how}.\nSignature: {json.dumps(body)}\n\n"
                "Reply with the rewritten signature as one JSON object."
            ),
        },
    ]
