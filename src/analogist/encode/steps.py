"""The staged encoder's prompts and schemas: one small, constrained step at a time.

A small model cannot write a whole signature in one go (issue 12: 18 of 20 rejected), so the work
is split into four steps, each asked with a JSON schema that a grammar-constrained backend
enforces:

1. ``roles`` — the parts of the mechanism: each one's entity as the text names it and what it
   does in general words. Roles are numbered R1, R2, ... by the encoder (never named by the
   model, so it cannot declare one twice or copy the example's names). For a target whose entity
   table is given, the entity is an enum of that table.
2. ``relations`` — for each role declared in step 1, its main relation to another role (no
   "none": offered one, a small model picks it for every role): the relation is an enum of the binary vocabulary, written as each term's definition
   ("A needs B to be working ..."), the other role an enum of the other declared roles. One slot per role cannot be padded (a grammar-constrained model otherwise fills
   every allowed slot) and cannot relate a role to itself.
3. ``causal_chain`` — links ``cause --link--> effect``; causes and effects are vocabulary terms
   over the roles, links an enum of the causal terms.
4. ``levels`` — symptom, violated invariant, the fix as an operator over roles, and L1–L3
   (L0 is the text itself and is never asked for).

Every step shares one system prompt (rules, vocabulary, one worked example) and the user message
starts with the episode, so llama.cpp's prompt cache reuses the common prefix across the steps of
an episode and across episodes. The worked example is a responsibility gap (two parties each
assume the other will act) — a mechanism that matches none of PARB's motifs (``docs/parb.md``).

Opt-in versions, each measured against v4 on the same episodes (``docs/models.md``): v5 (concrete
sentences), v6 (a mechanism sentence before the roles, the mechanism's actors as roles, a free
"does" sentence before each role's relation, the enum shuffled per role with a fixed seed), v7
(v6 with one relations call per role), v8 (v7 with term names as the enum), v9 (v4 with the
relations chosen by likelihood instead of generated: :mod:`analogist.encode.scored`).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from analogist.signature.vocabulary import Vocabulary

# Two ways to ask for relations, both measured on the example memory (docs/results.md):
# staged-v4 (the default): one slot per role, a definition with placeholders A and B, and the
# other role; staged-v5: one slot per role, an enum of concrete sentences about the episode's own
# parts. With the 1.5B model v5 scored worse (it repeats one predicate for every role), so v4
# stays the default; v5 is kept, opt-in, so the measurement can be repeated with other models.
# staged-v6 (opt-in): v4's slot per role, but each slot first says in the model's own words what
# the role does to which other role, then picks the term from an enum shuffled per role with a
# fixed seed (no listed-order answers), and the roles step asks for the mechanism's actors.
# staged-v7 (opt-in): v6, with each role's relation asked in its own call (a model that answers
# all roles in one object copies its first choice into every slot; the calls share the prompt
# prefix, so each costs only its last lines).
# staged-v8 (opt-in): v7 with the vocabulary's term names as the enum (as staged-v2 did) instead
# of definitions with placeholders; the system prompt still defines every term.
# staged-v9 (opt-in): v4's roles, chain and levels; the relations are not generated but chosen
# by likelihood (analogist.encode.scored): each term's definition as a statement about the role,
# scored against the episode and calibrated by its score without the episode. Needs a backend
# that scores (local or llama).
STAGED_PROMPT_VERSION = "staged-v4"
# staged-v10 (opt-in): v9 calibrated by the statements' scores without the episode (PMI).
PROMPT_VERSIONS = (
    "staged-v4",
    "staged-v5",
    "staged-v6",
    "staged-v7",
    "staged-v8",
    "staged-v9",
    "staged-v10",
    "staged-v11",
    "staged-v12",
)
# staged-v12 (opt-in): v4's steps with far fewer generated tokens (analogist.encode.staged_v12):
# bounded fields, short relation phrases, the chain and the levels in one call.
MERGED_VERSIONS = ("staged-v12",)  # causal chain and levels asked in one call (chain_levels)
# staged-v11 (opt-in): v10 with the roles chosen by likelihood among the text's noun phrases
# (analogist.encode.scored_roles) instead of generated.
SCORED_VERSIONS = ("staged-v9", "staged-v10", "staged-v11")  # relations scored, not generated
ROLE_SCORED_VERSIONS = ("staged-v11",)  # roles scored among candidates, not generated
# The version whose prompts a version's generated steps are: staged-v9 generates roles, chain and
# levels with v4's very requests (same prompt version, so a v4 run's logged answers serve it).
GENERATED_BY = {"staged-v9": "staged-v4", "staged-v10": "staged-v4", "staged-v11": "staged-v4"}


def step_version(version: str, step: str) -> str:
    """The prompt version of ``step`` under encoder ``version`` (see GENERATED_BY)."""
    return version if step == "relations" else GENERATED_BY.get(version, version)


SLOT_VERSIONS = (
    "staged-v4",
    "staged-v6",
    "staged-v7",
    "staged-v8",
    "staged-v12",
)  # one slot per role
ACTOR_VERSIONS = ("staged-v6", "staged-v7", "staged-v8")  # the mechanism sentence, actors as roles
PER_ROLE_VERSIONS = ("staged-v7", "staged-v8")  # one relations call per role
STEPS = ("roles", "relations", "causal_chain", "levels")
MAX_STEP_ROLES, MAX_STEP_LINKS, MAX_FIX_ARGS = 5, 4, 3

EXAMPLE_TEXT = (
    "The certificate for the billing portal expired on a Saturday and customers could not pay "
    "for six hours. The platform team believed the security team renewed certificates, and the "
    "security team believed renewals belonged to whoever ran the portal; neither had the renewal "
    "on its list."
)
EXAMPLE: dict[str, Any] = {
    "roles": {
        "domain": "web operations",
        "roles": [
            {"entity": "the platform team", "part": "party that counts on another party to act"},
            {"entity": "the security team", "part": "second party that counts on the first to act"},
            {"entity": "the certificate", "part": "duty that lapses unless someone acts on it"},
        ],
    },
    "relations": {"relations": [["skips_check", "R1", "R3"], ["assumes", "R2", "R1"]]},
    "causal_chain": {
        "links": [
            {
                "cause": ["assumes", "R2", "R1"],
                "link": "enables",
                "effect": ["skips_check", "R1", "R3"],
            },
            {"cause": ["skips_check", "R1", "R3"], "link": "causes", "effect": ["fails", "R3"]},
        ]
    },
    "levels": {
        "symptom": "a routine duty silently lapsed though everyone thought it was covered",
        "violated_invariant": "every recurring duty has exactly one named owner",
        "fix": {"operator": "assign_owner", "args": ["R3", "R1"]},
        "L1": "Each team assumed the other renewed the certificate, so nobody did",
        "L2": "A shared duty without a named owner lapsed because each party relied on the other",
        "L3": "Mutual assumption of responsibility leaves a duty undone",
    },
}

_RULES = """You describe the mechanism of one episode as a structural signature, one small step at
a time. Roles are the parts that take part in the mechanism (a person, team, component, stock,
signal, rule), numbered R1, R2, ... Write only what THIS episode says; never copy the example.
Relations (A, B are roles):
{binary}
States of one role X:
{unary}
Causal links: {links}"""


def _example_block(vocab: Vocabulary, version: str) -> str:
    ex = EXAMPLE
    roles = "; ".join(
        f"R{i} = {r['entity']} ({r['part']})" for i, r in enumerate(ex["roles"]["roles"], 1)
    )
    names = {f"R{i}": r["entity"] for i, r in enumerate(ex["roles"]["roles"], 1)}
    rels = "; ".join(
        fact(r) if version in SLOT_VERSIONS else f"{fact(r)}: {_example_sentence(vocab, r, names)}"
        for r in ex["relations"]["relations"]
    )
    chain = "; ".join(link_text(x) for x in ex["causal_chain"]["links"])
    lv = ex["levels"]
    if version in MERGED_VERSIONS:
        return (
            "Worked example (made up; its mechanism is not the one you will be given):\n"
            f"Episode: {EXAMPLE_TEXT}\n"
            f"1 roles: {roles}\n2 relations: {rels}\n3 causal chain: {chain}; fix: "
            f"{lv['fix']['operator']}({', '.join(lv['fix']['args'])}); L2: {_V12_L2}; "
            f"L3: {lv['L3']}"
        )
    return (
        "Worked example (made up; its mechanism is not the one you will be given):\n"
        f"Episode: {EXAMPLE_TEXT}\n"
        f"1 roles: {roles}\n2 relations: {rels}\n3 causal chain: {chain}\n"
        f"4 symptom: {lv['symptom']}; invariant: {lv['violated_invariant']}; fix: "
        f"{lv['fix']['operator']}({', '.join(lv['fix']['args'])}); L1: {lv['L1']}; "
        f"L2: {lv['L2']}; L3: {lv['L3']}"
    )


def system_prompt(vocab: Vocabulary, version: str = STAGED_PROMPT_VERSION) -> str:
    """The one system prompt every step shares (so its KV cache is reused)."""
    live = [t for t in vocab if t.merged_into is None]
    binary = "\n".join(
        f"- {t.term}(A,B): {t.definition}" for t in live if t.arity == 2 and t.kind != "causal"
    )
    binary += "\n" + "\n".join(
        f"- {t.term}(A,B): {t.definition}" for t in live if t.arity == 2 and t.kind == "causal"
    )
    unary = "\n".join(f"- {t.term}(X): {t.definition}" for t in live if t.arity == 1)
    links = ", ".join(t.term for t in live if t.kind == "causal")
    return (
        _RULES.format(binary=binary, unary=unary, links=links)
        + "\n\n"
        + _example_block(vocab, version)
    )


def _example_sentence(vocab: Vocabulary, rel: Sequence[str], names: Mapping[str, str]) -> str:
    t = vocab.resolve(rel[0])
    return sentence(t.definition, names[rel[1]], names[rel[2]]) if t is not None else fact(rel)


def fact(rel: Sequence[str]) -> str:
    return f"{rel[0]}({','.join(rel[1:])})"


def link_text(link: Mapping[str, Any]) -> str:
    return f"{fact(link['cause'])} --{link['link']}--> {fact(link['effect'])}"


_INSTRUCTIONS = {
    "roles": (
        "Step 1: list the 2 to 5 parts that play a role in this episode's mechanism. "
        "entity: its name as the episode writes it; part: what it does in the mechanism, "
        "in general words. Also give the domain in one or two words."
    ),
    "relations": (
        "Step 2: for each role, the one fact about how it acts on another role that "
        "the episode states most clearly: a relation from the list, written as its "
        "definition with A replaced by that role's name and B by the other role's."
    ),
    "causal_chain": (
        "Step 3: write the causal chain, 1 to 4 links from the first cause to what "
        "went wrong (or what was achieved), using the relations and states above."
    ),
    "levels": (
        "Step 4: the symptom and the violated invariant (general words), the fix as an "
        "operator over roles (a lowercase verb_noun name), and three abstraction levels: "
        "L1 the implementation pattern, L2 the system mechanism, L3 the abstract "
        "relational pattern. L2 and L3 use general words only: no names from the episode."
    ),
}


_V4_INSTRUCTIONS = {
    **_INSTRUCTIONS,
    "relations": (
        "Step 2: for each role A, the relation from A to one other role B that the "
        'episode states most clearly ("to" is B).'
    ),
}


_V12_L2 = "A shared duty without a named owner lapsed"
_V12_INSTRUCTIONS = {
    "roles": (
        "Step 1: list the 2 to 4 parts that play a role in this episode's mechanism. "
        "entity: its name as the episode writes it (a few words); part: what it does in the "
        "mechanism, in at most six general words. Also give the domain in one or two words."
    ),
    "relations": _V4_INSTRUCTIONS["relations"],
    "chain_levels": (
        "Step 3: the causal chain, 1 to 3 links from the first cause to what went wrong (or "
        "what was achieved), using the relations and states above; the fix as an operator "
        "over roles (a lowercase verb_noun name); L2 the system mechanism and L3 the abstract "
        "relational pattern, one short sentence each in general words: no names from the "
        "episode."
    ),
}


_V6_INSTRUCTIONS = {
    **_INSTRUCTIONS,
    "roles": (
        "Step 1: first, in one or two sentences of general words, say what made this "
        "episode happen: who or what acted on what, and why it went wrong or right "
        '("mechanism"). Then list the 2 to 4 actors of that mechanism: '
        "who or what acts, what they act on, use or rely on, and what drives, controls or "
        "connects them. Name groups, things and rules (the buyers, the approval rule, the "
        "warehouse), not numbers, times, symptoms or people's ages. entity: a short "
        "name using the episode's own words; part: its part in the mechanism, in general "
        "words. Also give the domain in one or two words."
    ),
    "relations": (
        "Step 2: for each role A, first say in a few plain words what A does to, or "
        'needs from, one other role B ("does"), then B ("to"), then the relation '
        "from the list that says the same thing. Read the whole list before you choose."
    ),
}


_V7_INSTRUCTIONS = {
    **_V6_INSTRUCTIONS,
    "relations": (
        "Step 2: the relation from role {role} ({entity}) to one other role B that the "
        "episode states most clearly: first say in a few plain words what {role} does "
        'to, or needs from, B ("does"), then B ("to"), then the relation from the '
        "list that says the same thing. Read the whole list before you choose."
    ),
}


def _instructions(version: str) -> dict[str, str]:
    return {
        "staged-v4": _V4_INSTRUCTIONS,
        "staged-v6": _V6_INSTRUCTIONS,
        "staged-v7": _V7_INSTRUCTIONS,
        "staged-v8": _V7_INSTRUCTIONS,
        "staged-v12": _V12_INSTRUCTIONS,
    }.get(version, _INSTRUCTIONS)


def step_instruction(version: str, step: str) -> str:
    """The instruction of ``step`` under prompt ``version``."""
    return _instructions(version)[step]


def role_relation_instruction(role: str, entity: str) -> str:
    """staged-v7: the relations instruction for one role (one call per role)."""
    return _V7_INSTRUCTIONS["relations"].format(role=role, entity=entity)


def step_messages(
    vocab: Vocabulary,
    step: str,
    head: str,
    so_far: Sequence[str],
    problems: Sequence[str] = (),
    previous: Any = None,
    version: str = STAGED_PROMPT_VERSION,
    instruction: str | None = None,
) -> list[dict]:
    """The request for one step: the shared system prompt, then the episode (``head``), what the
    earlier steps produced, the step's instruction and, in a repair, the rejected answer and
    exactly what to fix."""
    instructions = _instructions(version)
    parts = [head, *so_far, instruction or instructions[step]]
    if problems:
        parts.append(
            "Your previous answer was "
            + json.dumps(previous, sort_keys=True)[:600]
            + "\nIt was rejected. Fix exactly this:\n"
            + "\n".join(f"- {p}" for p in problems)
        )
    return [
        {"role": "system", "content": system_prompt(vocab, version)},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def episode_head(text: str, kind: str | None, outcome: str | None, *, target: bool) -> str:
    if target:
        return f"Current situation ({kind or 'kind unknown'}):\n{text}"
    head = f"Episode ({kind}):\n{text}"
    return head + (f"\nOutcome: {outcome}" if outcome else "")


# ----------------------------------------------------------------------------- schemas
def _text(max_len: int) -> dict:
    return {"type": "string", "minLength": 3, "maxLength": max_len}


def _tuple(items: list[dict]) -> dict:
    return {
        "type": "array",
        "prefixItems": items,
        "items": False,
        "minItems": len(items),
        "maxItems": len(items),
    }


def roles_schema(entities: Sequence[str] | None = None, *, mechanism: bool = False) -> dict:
    """Step 1. ``entities``: the target's entity names when the item gives them (an enum).
    ``mechanism`` (staged-v6): a general-words account of the mechanism comes first, so the
    model has said who acts on what before it lists the roles."""
    entity = {"enum": list(entities)} if entities else _text(60)
    first = {"mechanism": _text(240)} if mechanism else {}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [*first, "domain", "roles"],
        "properties": {
            **first,
            "domain": {"type": "string", "minLength": 2, "maxLength": 40},
            "roles": {
                "type": "array",
                "minItems": 2,
                "maxItems": MAX_STEP_ROLES,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["entity", "part"],
                    "properties": {"entity": entity, "part": _text(80)},
                },
            },
        },
    }


_PLACEHOLDER = re.compile(r"\b[AB]\b")


def sentence(definition: str, a: str, b: str) -> str:
    """A binary term's definition with its placeholders A and B replaced by two roles' names:
    'A needs B to be working ...' -> 'the web tier needs the database to be working ...'."""
    body = definition.strip().rstrip(".")
    return _PLACEHOLDER.sub(lambda m: a if m.group(0) == "A" else b, body)


def fact_sentences(
    vocab: Vocabulary, roles: Sequence[tuple[str, str]]
) -> dict[str, dict[str, list[str]]]:
    """Per role A, every relation from A to another declared role as a concrete sentence ->
    ``[term, A, B]``.

    ``roles``: (role name, entity) pairs in declaration order. A small model judges a sentence
    about the episode's own parts ("the requests use up capacity or supply of Postgres") far
    better than a term name or a definition with placeholders (staged-v4 picked those in listed
    order); the sentences are the vocabulary's own definitions, so mapping one back guesses
    nothing. A sentence that two facts share keeps the first."""
    out: dict[str, dict[str, list[str]]] = {}
    for ra, ea in roles:
        mine: dict[str, list[str]] = out.setdefault(ra, {})
        for t in vocab:
            if t.merged_into is not None or t.arity != 2:
                continue
            for rb, eb in roles:
                if rb != ra:
                    mine.setdefault(sentence(t.definition, ea, eb), [t.term, ra, rb])
    return out


def relations_schema(sentences: Mapping[str, Mapping[str, Sequence[str]]]) -> dict:
    """Step 2: one slot per role (so nothing repeats and nothing is padded): the fact about that
    role that the episode states most clearly, an enum of the sentences whose subject it is."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(sentences),
        "properties": {r: {"enum": list(opts)} for r, opts in sentences.items()},
    }


def relation_phrases(vocab: Vocabulary) -> dict[str, str]:
    """staged-v4: each binary term as its definition with placeholders ("A needs B to be
    working ...") -> the term (a definition that two terms share falls back to the name)."""
    out: dict[str, str] = {}
    for t in vocab:
        if t.merged_into is None and t.arity == 2:
            phrase = "A " + t.definition.strip().rstrip(".").removeprefix("A ")
            out[t.term if phrase in out else phrase] = t.term
    return out


def relation_slots_schema(vocab: Vocabulary, roles: Sequence[str]) -> dict:
    """staged-v4: one slot per role A: the relation from A and the other role B, both enums."""
    return role_slots_schema(list(relation_phrases(vocab)), roles)


def role_slots_schema(preds: Sequence[str], roles: Sequence[str]) -> dict:
    """One slot per role A: ``relation`` (one of ``preds``) and ``to`` (another role), enums."""
    slot = {
        r: {
            "type": "object",
            "additionalProperties": False,
            "required": ["relation", "to"],
            "properties": {
                "relation": {"enum": list(preds)},
                "to": {"enum": [o for o in roles if o != r]},
            },
        }
        for r in roles
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(roles),
        "properties": slot,
    }


def reasoned_slots_schema(vocab: Vocabulary, roles: Sequence[str], seed: str) -> dict:
    """staged-v6: per role A, ``does`` (a short free sentence: what A does to another role), then
    ``to`` (the other role) and ``relation`` (a definition with placeholders, as in v4), in that
    order so the model has written its reading before it commits to a term. Each role's enum is
    shuffled by ``random.Random(f"{seed}:{role}")``: same seed, same order; no list position is
    favoured across roles."""
    slot = {r: reasoned_slot(vocab, roles, r, seed) for r in roles}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(roles),
        "properties": slot,
    }


def term_options(vocab: Vocabulary, version: str) -> dict[str, str]:
    """The relation enum's options -> terms: definitions with placeholders (v4, v6, v7) or the
    binary term names themselves (v8)."""
    if version == "staged-v8":
        return {t.term: t.term for t in vocab if t.merged_into is None and t.arity == 2}
    return relation_phrases(vocab)


def reasoned_slot(
    vocab: Vocabulary, roles: Sequence[str], role: str, seed: str, version: str = "staged-v7"
) -> dict:
    """One role's slot of :func:`reasoned_slots_schema` (staged-v7 and v8 ask it alone)."""
    order = list(term_options(vocab, version))
    random.Random(f"{seed}:{role}").shuffle(order)
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["does", "to", "relation"],
        "properties": {
            "does": _text(90),
            "to": {"enum": [o for o in roles if o != role]},
            "relation": {"enum": order},
        },
    }


def chain_schema(vocab: Vocabulary, roles: Sequence[str], max_items: int) -> dict:
    """Step 3: each end is a vocabulary term over the roles (as a list), links a causal enum."""
    live = [t for t in vocab if t.merged_into is None]
    role = {"enum": list(roles)}
    term = {
        "anyOf": [
            _tuple([{"enum": [t.term for t in live if t.arity == 1]}, role]),
            _tuple([{"enum": [t.term for t in live if t.arity == 2]}, role, role]),
        ]
    }
    links = [t.term for t in live if t.kind == "causal"]
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["links"],
        "properties": {
            "links": {
                "type": "array",
                "minItems": 1,
                "maxItems": max_items,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["cause", "link", "effect"],
                    "properties": {"cause": term, "link": {"enum": links}, "effect": term},
                },
            }
        },
    }


def levels_schema(roles: Sequence[str]) -> dict:
    """Step 4: prose fields bounded in length; the fix's arguments an enum of the roles."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["symptom", "violated_invariant", "fix", "L1", "L2", "L3"],
        "properties": {
            "symptom": _text(160),
            "violated_invariant": _text(160),
            "fix": {
                "type": "object",
                "additionalProperties": False,
                "required": ["operator", "args"],
                "properties": {
                    "operator": {"type": "string", "pattern": "^[a-z][a-z_]{1,30}$"},
                    "args": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": MAX_FIX_ARGS,
                        "items": {"enum": list(roles)},
                    },
                },
            },
            "L1": _text(160),
            "L2": _text(160),
            "L3": _text(120),
        },
    }
