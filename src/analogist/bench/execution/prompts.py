"""The ``model`` answerer's side of the conversation: the prompt texts, the renderers that turn an
arm's context into them, the answer schema, and the lenient reading of the answer.

Everything rendered here is a pure function of what the model may see: the item's inputs, the target
signature the runner passed in, and the machinery's output. Nothing reads an item's key. Every
list is rendered in a fixed order (inputs order, rank order or sorted ids) and nothing carries
a time stamp or a run id, so the same context always gives the same prompt byte for byte — the
call log's cache key depends on it.

Prompt layout (the user message; sections appear only when the arm puts them there)::

    QUESTION / TARGET / TARGET ENTITIES                       every arm
    TARGET STRUCTURE                                          arms with structural channels
    SOURCE EPISODE(S) / CANDIDATE EPISODES / CANDIDATE
      INFERENCES / OPERATOR MENU                              what the item itself gives
    HINT                                                      A1 and every arm above it
    RETRIEVED FROM MEMORY                                     B, B′, C, C′, H, D, E, G, E+R
    MAPPING TABLES                                            D, E, G, E+R
    VERIFICATION                                              E, G, E+R
    ANSWER FORMAT                                             every arm

The answer schema is as tight as the item allows, so a grammar-constrained model cannot invent
ids: ``source`` is an enum of the shown episode ids or null ("no source"), role-mapping values and
fix arguments are enums of the target's entity ids, the operator an enum of the menu, and
``confidence`` one of five stated levels (a small model otherwise always writes 1.0).

Prompts always fit the context: :func:`estimate_tokens` bounds a prompt's tokens from its length
(3 characters per token, below what BPE tokenizers average on English and on the nonce words of
PARB skins), and the answerer cuts episode texts to the first of :data:`TEXT_CAPS` that fits,
recording it in the answer's notes.

Reading is lenient: a malformed or missing field is "no claim" for that field and a line in
``problems``; nothing here raises on a bad answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

PROMPT_VERSION = "model-answer-v2"
CONFIDENCE_LEVELS = (0.1, 0.3, 0.5, 0.7, 0.9)
TEXT_CAPS = (900, 600, 400, 250, 150)
CHARS_PER_TOKEN = 3

HINT = "Consider related past cases: is there an earlier case with the same underlying structure?"

SYSTEM = (
    "You answer questions about analogies between incident reports. A stored episode is a valid "
    "structural analogue of the target when the same causal structure holds in both: the same "
    "parts play the same roles, with the same dependencies, the same causes and effects and the "
    "same signs (what enables, what prevents), whatever the topic or wording. Use only episodes "
    "shown to you by id. Reply with one JSON object and nothing else."
)

# which answer fields each family asks for besides "source" and "confidence" (spec §16.1);
# role_mapping everywhere, since role-mapping F1 is scored on every item with a keyed mapping
FIELDS: dict[str, tuple[str, ...]] = {
    "F1": ("role_mapping", "fix"),
    "F2": ("accept", "role_mapping"),
    "F3": ("role_mapping",),
    "F4": ("role_mapping", "fix"),
    "F5": ("role_mapping", "decisions"),
    "F6": ("accept", "role_mapping"),
    "F7": ("role_mapping", "fix"),
    "F8": ("role_mapping",),
}

_FIELD_TEXT = {
    "source": '"source": the id of the shown episode that is a valid structural analogue of the '
    "target and that you use, or null when no shown episode is one",
    "accept": '"accept": for each of {ids}: true when that episode is a valid structural '
    "analogue of the target, false when it is not",
    "role_mapping": '"role_mapping": each role (R1, R2, ...) in the signature of the episode you '
    "name as source -> the id of the target entity that plays it; {{}} when you "
    "name none",
    "decisions": '"decisions": for each of {ids}: "transfer" when the inference carries over to '
    'the target, "withhold" when it must not be carried over',
    "fix": '"fix": {{"operator": name, "args": [target entity ids, in the operator\'s parameter '
    "order]}} — the fix to apply to the target{menu} — or null when you propose none",
    "confidence": '"confidence": how likely the analogy you propose (or your "no source") is '
    "right: 0.9 every role and causal link corresponds and nothing in the target "
    "contradicts it; 0.7 the main chain corresponds; 0.5 it partly corresponds; 0.3 "
    "doubtful; 0.1 a guess",
}


def estimate_tokens(messages: Sequence[Mapping[str, str]]) -> int:
    """An upper-bound token count of chat messages (see the module docstring), plus a few tokens
    of chat template per message."""
    return sum(len(m["content"]) // CHARS_PER_TOKEN + 8 for m in messages)


def section(title: str, lines: Sequence[str]) -> str:
    return "\n".join([title, *lines])


def _role_text(raw: Any) -> str:
    return raw.get("description", "") if isinstance(raw, Mapping) else str(raw)


def _fact(rel: Sequence[str]) -> str:
    return f"{rel[0]}({', '.join(rel[1:])})"


def _link(link: Sequence[str]) -> str:
    return f"{link[0]} --{link[1]}--> {link[2]}"


def signature_lines(sig: Mapping[str, Any]) -> list[str]:
    """A stored signature as text: roles (with the entity each binds), relations, causal chain
    and fix. Abstract levels, symptom and invariant are left out: they are prose, not structure."""
    bindings = (sig.get("surface") or {}).get("bindings") or {}
    roles = [
        f"{r} = {bindings[r]} ({_role_text(d)})" if r in bindings else f"{r} ({_role_text(d)})"
        for r, d in sorted((sig.get("roles") or {}).items())
    ]
    out = ["  signature:", "    roles: " + "; ".join(roles)]
    out.append("    relations: " + "; ".join(_fact(r) for r in sig.get("relations") or []))
    out.append("    causal chain: " + "; ".join(_link(c) for c in sig.get("causal_chain") or []))
    if sig.get("fix_operator"):
        out.append(f"    fix: {sig['fix_operator']}")
    return out


def cut(text: str, limit: int | None) -> str:
    """``text``, or its first ``limit`` characters at a word boundary and " [cut]"."""
    if limit is None or len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + " [cut]"


def episode_block(
    record: Mapping[str, Any], *, signature: bool, note: str = "", max_text: int | None = None
) -> list[str]:
    """One episode: id (and how it was found), text (cut to ``max_text`` chars when set),
    outcome and, when shown, its signature."""
    head = f"[{record['id']}]" + (f" {note}" if note else "")
    out = [head, f"  text: {cut(record.get('text', ''), max_text)}"]
    if record.get("outcome"):
        out.append(f"  outcome: {record['outcome']}")
    if signature and record.get("signature"):
        out += signature_lines(record["signature"])
    return out


def target_lines(target: Mapping[str, Any]) -> list[str]:
    return [target.get("text", "")]


def entity_lines(target: Mapping[str, Any]) -> list[str]:
    return [f"{eid}: {name}" for eid, name in sorted((target.get("entities") or {}).items())]


def structure_lines(relations: Sequence[str], chain: Sequence[str]) -> list[str]:
    """The target signature's structure over entity ids (roles' descriptions are left out so a
    mapping cannot be read off matching descriptions)."""
    return [
        "relations: " + ("; ".join(relations) or "(none)"),
        "causal chain: " + ("; ".join(chain) or "(none)"),
    ]


def inference_lines(inferences: Sequence[Mapping[str, Any]]) -> list[str]:
    out = []
    for inf in inferences:
        claim = inf.get("claim")
        if isinstance(claim, str):
            text = claim
        elif inf.get("kind") == "link" and isinstance(claim, list) and len(claim) == 3:
            text = _link(claim)
        else:
            text = _fact(claim) if claim else "?"
        out.append(f"{inf['id']} [{inf.get('kind', '?')}] {text}")
    return out


def operator_lines(operators: Sequence[Mapping[str, Any]]) -> list[str]:
    return [
        f"{op['name']}({', '.join(op.get('params', []))}): {op.get('summary', '')}"
        for op in operators
    ]


def found_note(c: Mapping[str, Any]) -> str:
    """How a pool candidate was found: ``found by S0, S1 (structural rank 1)``."""
    ranks = [
        f"{name.replace('_', ' ')} {c[name]}"
        for name in ("structural_rank", "semantic_rank")
        if c.get(name) is not None
    ]
    return f"found by {', '.join(c.get('found_by', []))}" + (
        f" ({', '.join(ranks)})" if ranks else ""
    )


def mapping_table(m: Any) -> dict[str, Any]:
    """A :class:`~analogist.verify.roles.RoleMapping` as the rows a mapping table shows."""
    a = m.checks.alignment
    return {
        "role_map": dict(m.role_map),
        "checks": m.checks.to_json(),
        "matched": [str(s) for s, _ in a.matches],
        "differs": [f"{s} ≠ {t}" for s, t in a.alignable_differences],
        "source_only": [str(f) for f in a.source_only + a.non_alignable_source],
        "target_only": [str(f) for f in a.target_only + a.non_alignable_target],
    }


def mapping_lines(source_id: str, mapping: Mapping[str, Any] | None) -> list[str]:
    """The forced role-mapping table of one candidate (the structure mapper's best reading)."""
    if mapping is None:
        return [f"[{source_id}] the structure mapper found no mapping onto the target"]
    c = mapping["checks"]
    coherent = "coherent" if c["coherent"] else "incoherent"
    rows = [
        f"[{source_id}] structural score {c['score']:.2f} ({coherent})",
        "  MAPPED     "
        + (", ".join(f"{s}→{t}" for s, t in sorted(mapping["role_map"].items())) or "(nothing)"),
        "  MATCHED    " + ("; ".join(mapping["matched"]) or "(none)"),
    ]
    if mapping["differs"]:
        rows.append("  DIFFERS    " + "; ".join(mapping["differs"]))
    rows.append("  UNMATCHED SOURCE  " + ("; ".join(mapping["source_only"]) or "(none)"))
    rows.append("  TARGET ONLY       " + ("; ".join(mapping["target_only"]) or "(none)"))
    return rows


def verification_lines(run: Mapping[str, Any]) -> list[str]:
    """The likeness/difference/unknown record of the machinery's run (spec §10.1), its critic
    and its check, as the engine wrote them."""
    out = [
        f"RE-REPRESENTATION attempt {a['rerep']}: "
        + (
            "re-described the target one level up; relations now: "
            + "; ".join(_fact(r) for r in (a.get("signature") or {}).get("relations", []))
            if a.get("ok")
            else f"no re-description ({a.get('reason')})"
        )
        for a in run.get("attempts", [])
        if "rerep" in a
    ]
    rec = run.get("record")
    if not rec:
        rejected = [
            m
            for a in run.get("attempts", [])
            for m in a.get("mapped", [])
            if (m.get("critic") or {}).get("verdict") == "reject"
        ]
        for m in rejected:
            out.append(f"REJECTED  source={m['source']}: {'; '.join(m['critic']['reasons'])}")
        why = (
            "every mapped candidate failed verification"
            if rejected
            else "no candidate's mapping reached the acceptance threshold"
            if run.get("candidates")
            else "there was no candidate to verify"
        )
        out.append(f"ANALOGY   none: {why}")
        return out
    out.append(f"ANALOGY   source={rec['source']}")
    out.append("MAPPED    " + (", ".join(f"{s}→{t}" for s, t in rec["mapped"]) or "(nothing)"))
    out.append("MATCHES   " + (", ".join(rec["matches"]) or "(none)"))
    for d in rec.get("differences", []):
        out.append(f"DIFFERS   {d}")
    out += [f"FAILS     {f}: unknown in target" for f in rec["fails"]] or ["FAILS     (none)"]
    out += [f"BLOCKERS  target has {b}" for b in rec["blockers"]] or ["BLOCKERS  (none)"]
    out += [
        f"TRANSFER  {t['inference']} → {t['decision']}  ({t['reason']})" for t in rec["transfer"]
    ] or ["TRANSFER  (nothing to transfer)"]
    out.append(f"PREDICT   {rec.get('predict') or '(no observable prediction)'}")
    check = rec.get("check") or "(no check available)"
    result = rec.get("check_result") or {}
    if result.get("passed") is not None:
        check += f" → {'passed' if result['passed'] else 'failed'} ({result.get('observed', '')})"
    out.append(f"CHECK     {check}")
    critic = run.get("critic")
    if critic:
        out.append(f"CRITIC    {critic['verdict']}: {'; '.join(critic.get('reasons', []))}")
    return out


def answer_lines(
    family: str,
    accept_ids: Sequence[str],
    inference_ids: Sequence[str],
    has_menu: bool,
    signatures: bool = True,
) -> list[str]:
    """The ANSWER FORMAT section: one line per key the family asks for. Without ``signatures``
    (arms that show none) there are no roles to map, and the line says so."""
    out = ["Reply with one JSON object with exactly these keys:"]
    for key in ("source", *FIELDS[family], "confidence"):
        if key == "role_mapping" and not signatures:
            out.append('- "role_mapping": {} (no signature is shown, so there are no roles to map)')
            continue
        text = _FIELD_TEXT[key].format(
            ids=", ".join(accept_ids if key == "accept" else inference_ids) or "(none)",
            menu=", chosen from the operator menu" if has_menu else "",
        )
        out.append(f"- {text}")
    return out


def answer_schema(
    family: str,
    accept_ids: Sequence[str],
    inference_ids: Sequence[str],
    *,
    shown: Sequence[str] | None = None,
    entities: Sequence[str] | None = None,
    operators: Sequence[str] | None = None,
    roles: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The JSON schema of the answer (LoggedLLM validates it and asks once for a repair).

    ``shown`` (episode ids), ``entities`` (target entity ids) and ``operators`` (the menu), when
    given, become enums, so a constrained model can only name what it was shown; with ``roles``
    (the role names of the signatures shown; empty when none is shown) the role mapping may use
    only those keys, each at most once, so a constrained model cannot write keys without end."""
    props: dict[str, Any] = {
        "source": ({"enum": [*shown, None]} if shown is not None else {"type": ["string", "null"]}),
        "confidence": {"enum": list(CONFIDENCE_LEVELS)},
    }
    entity = {"enum": list(entities)} if entities else {"type": "string"}
    fields = FIELDS[family]
    if "accept" in fields:
        props["accept"] = {
            "type": "object",
            "properties": {i: {"type": "boolean"} for i in accept_ids},
            "required": list(accept_ids),
        }
    if "role_mapping" in fields:
        props["role_mapping"] = (
            {
                "type": "object",
                "properties": {r: entity for r in roles},
                "additionalProperties": False,
            }
            if roles is not None
            else {"type": "object", "additionalProperties": entity}
        )
    if "decisions" in fields:
        props["decisions"] = {
            "type": "object",
            "properties": {i: {"enum": ["transfer", "withhold"]} for i in inference_ids},
            "required": list(inference_ids),
        }
    if "fix" in fields:
        props["fix"] = {
            "anyOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "properties": {
                        "operator": {"enum": list(operators)} if operators else {"type": "string"},
                        "args": {"type": "array", "maxItems": 4, "items": entity},
                    },
                    "required": ["operator", "args"],
                },
            ]
        }
    order = ["source", *fields, "confidence"]  # a grammar writes keys in this order: rate last
    return {"type": "object", "properties": {k: props[k] for k in order}, "required": order}


def read_answer(
    family: str,
    parsed: Any,
    shown: Sequence[str],
    accept_ids: Sequence[str],
    inference_ids: Sequence[str],
    problems: list[str],
) -> dict[str, Any]:
    """The :class:`~analogist.bench.execution.answer.Answer` fields from the parsed JSON.

    ``source`` counts only when it is a shown episode id (a parametric analogue or an unseen id
    is no claim); anything malformed is no claim for its field and a line in ``problems``.
    """
    if parsed is not None and not isinstance(parsed, dict):
        problems.append(f"answer is {type(parsed).__name__}, not a JSON object")
    p = parsed if isinstance(parsed, dict) else {}
    wanted = set(FIELDS[family])
    if p:
        missing = [k for k in ("source", *FIELDS[family], "confidence") if k not in p]
        if missing:
            problems.append(f"missing key(s) {missing}: no claim for them")
    source = p.get("source")
    claimed = source if isinstance(source, str) and source in shown else None
    if source is not None and claimed is None:
        problems.append(f"source {source!r} is not a shown episode id: no claim")
    judged = _judged(p.get("accept"), accept_ids, claimed, problems) if "accept" in wanted else {}
    role_map = (
        _str_map(p.get("role_mapping"), "role_mapping", problems)
        if "role_mapping" in wanted
        else {}
    )
    decisions = (
        _decisions(p.get("decisions"), inference_ids, problems) if "decisions" in wanted else {}
    )
    action = _action(p.get("fix"), problems) if "fix" in wanted else None
    conf = p.get("confidence")
    confidence = None
    if isinstance(conf, (int, float)) and not isinstance(conf, bool):
        confidence = min(1.0, max(0.0, float(conf)))
    elif "confidence" in p:
        problems.append(f"confidence {conf!r} is not a number")
    return {
        "claimed_source": claimed,
        "judged": judged,
        "role_map": role_map,
        "decisions": decisions,
        "action": action,
        "confidence": confidence,
        "conclusion": " ".join([action[0], *action[1]]) if action else None,
    }


def _judged(
    raw: Any, ids: Sequence[str], claimed: str | None, problems: list[str]
) -> dict[str, bool]:
    """An explicit true/false per offered id; where it is missing, naming the id as the source
    counts as accepting it."""
    raw = raw if isinstance(raw, dict) else {}
    out = {}
    for i in ids:
        v = raw.get(i)
        if not isinstance(v, bool):
            if i in raw:
                problems.append(f"accept[{i!r}] is {v!r}, not true/false")
            v = claimed == i
        out[i] = v
    return out


def _str_map(raw: Any, name: str, problems: list[str]) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        problems.append(f"{name} is not an object: ignored")
        return {}
    bad = sorted(str(k) for k, v in raw.items() if not isinstance(v, str))
    if bad:
        problems.append(f"{name}: non-string values for {bad} ignored")
    return {str(k): v for k, v in sorted(raw.items()) if isinstance(v, str)}


def _decisions(raw: Any, ids: Sequence[str], problems: list[str]) -> dict[str, bool]:
    raw = raw if isinstance(raw, dict) else {}
    out = {}
    for i in ids:
        v = raw.get(i)
        if v in ("transfer", "withhold"):
            out[i] = v == "transfer"
        else:
            problems.append(f"decisions[{i!r}] is {v!r}: no decision")
    return out


def _action(raw: Any, problems: list[str]) -> tuple[str, tuple[str, ...]] | None:
    if raw is None:
        return None
    ok = (
        isinstance(raw, dict)
        and isinstance(raw.get("operator"), str)
        and raw["operator"]
        and isinstance(raw.get("args"), list)
        and all(isinstance(a, str) for a in raw["args"])
    )
    if not ok:
        problems.append(f"fix {json.dumps(raw, sort_keys=True)[:120]} is malformed: no action")
        return None
    return raw["operator"], tuple(raw["args"])
