"""The JSON schema a model fills in when it writes a signature, generated from the vocabulary.

Relation names are an enum per arity (every name the vocabulary resolves explicitly: terms,
their listed synonyms and merged names), causal links are an enum, and causal-chain terms must
start with a vocabulary name, so a grammar-constrained backend cannot invent a relation. The
shape is grammar-friendly (lists of fixed-length tuples, bounded sizes) and is what
:mod:`analogist.encode.encoder` turns into a spec §4.1 signature.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from analogist.signature.vocabulary import Vocabulary

ROLE_PATTERN = "^[A-Z][A-Z0-9_]{0,11}$"
_ROLE = "[A-Z][A-Z0-9_]*"
_ARGS = rf"{_ROLE}(, ?{_ROLE})*"
MAX_ROLES, MAX_RELATIONS, MAX_LINKS = 6, 10, 5


def explicit_names(vocab: Vocabulary) -> dict[str, str]:
    """Every name that resolves to a live term, mapped to that term (term, synonym, merged)."""
    out: dict[str, str] = {}
    for t in vocab:
        for name in (t.term, *t.synonyms):
            live = vocab.resolve(name)
            if live is not None:
                out[name] = live.term
    return out


def _names_by_arity(vocab: Vocabulary, extra: Iterable[str]) -> dict[int, list[str]]:
    by: dict[int, list[str]] = {}
    for name, term in explicit_names(vocab).items():
        t = vocab.resolve(term)
        if t is not None:
            by.setdefault(t.arity, []).append(name)
    for name in extra:
        for names in by.values():
            if name not in names:
                names.append(name)
    return dict(sorted(by.items()))


def _tuple(first: dict, rest: list[dict]) -> dict:
    items = [first, *rest]
    return {
        "type": "array",
        "prefixItems": items,
        "items": False,
        "minItems": len(items),
        "maxItems": len(items),
    }


def signature_schema(vocab: Vocabulary, *, unknown: Iterable[str] = ()) -> dict[str, Any]:
    """The schema for one model-written signature.

    Args:
        vocab: the controlled vocabulary.
        unknown: names the model used that are not in the vocabulary; in a repair re-ask they
            stay writable, but only together with an explicit ``relation_mapping`` to a term.
    """
    unknown = sorted(set(unknown))
    role = {"type": "string", "pattern": ROLE_PATTERN}
    relation_items = [
        _tuple({"enum": names}, [role] * arity)
        for arity, names in _names_by_arity(vocab, unknown).items()
    ]
    functors = sorted(set(explicit_names(vocab)) | set(unknown))
    term = {
        "type": "string",
        "pattern": rf"^({'|'.join(re.escape(f) for f in functors)})\({_ARGS}\)$",
    }
    links = [n for n, t in explicit_names(vocab).items() if vocab.get(t).is_causal_link]
    text = {"type": "string", "minLength": 3, "maxLength": 240}
    props: dict[str, Any] = {
        "roles": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_ROLES,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name", "description"],
                "properties": {"name": role, "description": text},
            },
        },
        "relations": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_RELATIONS,
            "items": {"anyOf": relation_items},
        },
        "causal_chain": {
            "type": "array",
            "maxItems": MAX_LINKS,
            "items": _tuple(term, [{"enum": links}, term]),
        },
        "violated_invariant": text,
        "symptom": text,
        "fix_operator": {
            "type": "string",
            "pattern": rf"^[a-z][a-z0-9_]*\({_ARGS}\)( .{{1,80}})?$",
        },
        "levels": {
            "type": "object",
            "additionalProperties": False,
            "required": ["L1", "L2", "L3"],
            "properties": {"L1": text, "L2": text, "L3": text},
        },
        "surface": {
            "type": "object",
            "additionalProperties": False,
            "required": ["domain", "entities"],
            "properties": {
                "domain": {"type": "string", "maxLength": 60},
                "entities": {
                    "type": "array",
                    "maxItems": 10,
                    "items": {"type": "string", "maxLength": 60},
                },
            },
        },
    }
    required = ["roles", "relations", "causal_chain", "levels", "surface"]
    if unknown:
        live = sorted({t for t in explicit_names(vocab).values()})
        props["relation_mapping"] = {
            "type": "object",
            "additionalProperties": False,
            "properties": {name: {"enum": live} for name in unknown},
        }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": required,
        "properties": props,
    }
