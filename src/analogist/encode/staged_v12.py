"""staged-v12 (opt-in): staged-v4's steps and semantics with far fewer generated tokens.

Generation is most of an encoder call's cost (``docs/results.md``: ~143 generated tokens per
call, 4.5 calls per episode), so v12 bounds what each step may write, by schema (the grammar
enforces ``maxLength`` / ``maxItems``, so a bound is a hard cap), and drops what nothing
downstream reads:

- roles: as v4 (the entity as the text names it, what it does in general words), with at most
  4 parts (v4: 5; 1 of the example memory's 70 gold signatures has 5), the entity and the part at
  most 32 characters and the domain at most 20. The model names roles R1, R2, ... in every step,
  also for a target with an entity table (an entity id costs ~7 tokens each time it is written;
  the encoder puts the ids back when it builds the signature);
- relations: as v4 (one slot per role: the relation written as its definition, and the other
  role), but each definition only up to the first words that tell it from every other
  (:func:`short_phrases`): a grammar-constrained model has chosen the term by then, and every
  further forced character is still a generated token;
- causal chain and levels in ONE call (``chain_levels``): 1 to 3 links (each a list ``[cause,
  link, effect]``: the keys of v4's link objects cost ~9 tokens a link), the fix, and L2 / L3
  (at most 80 / 60 characters; S2 retrieval embeds them). The symptom, the violated invariant and
  L1 are not asked for: no answer prompt, score or retrieval channel reads them (they appear only
  in ``show`` output and in a blend's prose). A repair re-asks only the part that failed.

Each step's ``max_tokens`` comes from its schema's longest allowed answer
(:func:`max_tokens_for`), so a runaway answer is cut where the schema already ends.
``bench/encoder_budget.py`` prints the bounds in the model's own tokens beside what v4 generated.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from analogist.encode import steps as S
from analogist.signature.vocabulary import Vocabulary

VERSION = "staged-v12"
STEPS = ("roles", "relations", "chain_levels")
MAX_ROLES, MAX_LINKS = 4, 3
ENTITY_CHARS, PART_CHARS, DOMAIN_CHARS, L2_CHARS, L3_CHARS = 32, 32, 20, 80, 60
OPERATOR_PATTERN = "^[a-z][a-z_]{1,23}$"
MIN_PHRASE_WORDS = 3
# Prose used to fill a free-text field to its bound when measuring the longest answer.
FILLER = "a shared duty without a named owner lapsed because each party relied on the other to act "


def _text(max_len: int) -> dict:
    return {"type": "string", "minLength": 3, "maxLength": max_len}


def roles_schema(entities: Sequence[str] | None = None) -> dict:
    """Step 1: v4's roles step with every free-text field bounded tighter."""
    entity = {"enum": list(entities)} if entities else _text(ENTITY_CHARS)
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["domain", "roles"],
        "properties": {
            "domain": {"type": "string", "minLength": 2, "maxLength": DOMAIN_CHARS},
            "roles": {
                "type": "array",
                "minItems": 2,
                "maxItems": MAX_ROLES,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["entity", "part"],
                    "properties": {"entity": entity, "part": _text(PART_CHARS)},
                },
            },
        },
    }


def short_phrases(vocab: Vocabulary) -> dict[str, str]:
    """Each binary term's definition (placeholders A, B) cut after the first words that no other
    definition starts with (at least :data:`MIN_PHRASE_WORDS`) -> the term:
    'A needs B to be working ...' -> 'A needs B'."""
    full: dict[str, str] = {}
    for t in vocab:
        if t.merged_into is None and t.arity == 2:
            body = t.definition.strip().rstrip(".")
            body = body if re.match(r"A\b|A's\b", body) else "A " + body
            full.setdefault(body, t.term)
    out: dict[str, str] = {}
    for phrase, term in full.items():
        words = phrase.split()
        n = min(MIN_PHRASE_WORDS, len(words))
        while n < len(words) and any(o != phrase and o.split()[:n] == words[:n] for o in full):
            n += 1
        out[" ".join(words[:n]).rstrip(",;:")] = term
    return out


def relations_schema(vocab: Vocabulary, roles: Sequence[str]) -> dict:
    """Step 2: v4's slot per role (relation, then the other role) with the short phrases."""
    return S.role_slots_schema(list(short_phrases(vocab)), roles)


def link_objects(links: Any) -> list[dict]:
    """v12's links, each ``[cause, link, effect]``, as v4's ``{"cause", "link", "effect"}``."""
    out = []
    for x in links if isinstance(links, list) else []:
        if isinstance(x, list) and len(x) == 3:
            out.append({"cause": x[0], "link": x[1], "effect": x[2]})
    return out


def levels_part(roles: Sequence[str]) -> dict:
    """The levels half of step 3: the fix over roles, L2 and L3 (S2 embeds them)."""
    return {
        "fix": {
            "type": "object",
            "additionalProperties": False,
            "required": ["operator", "args"],
            "properties": {
                "operator": {"type": "string", "pattern": OPERATOR_PATTERN},
                "args": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": S.MAX_FIX_ARGS,
                    "items": {"enum": list(roles)},
                },
            },
        },
        "L2": _text(L2_CHARS),
        "L3": _text(L3_CHARS),
    }


def chain_levels_schema(
    vocab: Vocabulary, roles: Sequence[str], *, chain: bool = True, levels: bool = True
) -> dict:
    """Step 3: the causal chain and the levels in one object (a repair asks only the failed
    half: ``chain`` / ``levels`` False leaves that half out)."""
    props: dict[str, Any] = {}
    if chain:
        links = S.chain_schema(vocab, roles, MAX_LINKS)["properties"]["links"]
        link = links["items"]["properties"]
        props["links"] = {**links, "items": S._tuple([link["cause"], link["link"], link["effect"]])}
    if levels:
        props.update(levels_part(roles))
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(props),
        "properties": props,
    }


# ----------------------------------------------------------------------------- bounds
_PATTERN_LEN = re.compile(r"^\^\[[^\]]+\]\[[^\]]+\]\{\d+,(\d+)\}\$$")


def longest_answer(schema: dict, cost: Callable[[str], int] = len, filler: str = FILLER) -> Any:
    """The longest answer ``schema`` allows, by ``cost`` of its JSON text (characters by default,
    the model's tokens in ``bench/encoder_budget.py``): every optional item present, every array
    at ``maxItems``, every string at ``maxLength`` (filled with prose), the costliest enum option
    and ``anyOf`` branch. Handles the schema forms the staged encoder uses; anything else is a
    ValueError, never a guess."""
    if "enum" in schema:
        return max(schema["enum"], key=lambda o: cost(json.dumps(o)))
    if "anyOf" in schema:
        options = [longest_answer(b, cost, filler) for b in schema["anyOf"]]
        return max(options, key=lambda o: cost(json.dumps(o)))
    kind = schema.get("type")
    if kind == "object":
        return {k: longest_answer(v, cost, filler) for k, v in schema["properties"].items()}
    if kind == "array":
        if "prefixItems" in schema:
            return [longest_answer(i, cost, filler) for i in schema["prefixItems"]]
        return [longest_answer(schema["items"], cost, filler)] * schema["maxItems"]
    if kind == "string":
        if "maxLength" in schema:
            n = schema["maxLength"]
        elif (m := _PATTERN_LEN.match(schema.get("pattern", ""))) is not None:
            n = 1 + int(m.group(1))
        else:
            raise ValueError(f"unbounded string in schema: {schema}")
        text = (filler * (n // len(filler) + 1))[:n]
        return text if "pattern" not in schema else re.sub(r"\W", "_", text)
    raise ValueError(f"schema form not handled: {sorted(schema)}")


def max_tokens_for(schema: dict) -> int:
    """A step's ``max_tokens``: its longest allowed answer at 2 characters a token (the
    tokenizers measured run 2.5-4 on these answers) plus room for the grammar's whitespace."""
    return math.ceil(len(json.dumps(longest_answer(schema))) / 2) + 32
