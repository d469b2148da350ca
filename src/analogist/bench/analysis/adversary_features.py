"""Features and labelled examples for the adversarial shortcut audit (:mod:`.adversary`).

Everything here reads what a system under test sees (an item's ``inputs``); the key is read only
to label examples (which option is right) and to build the labelled structure reference. Feature
names carry their group: ``s:`` surface (one record, or one record against the target text),
``t:`` transductive (recurrence across the bench or inside the item) and ``x:`` structure as
the text expresses it (how many facts of the source a role takes part in against how many
sentences of the target mention an entity; whether a claim's predicate is one of the source's):
reading those is reading structure, so they feed only the ``text-structure`` reference, never
an attacking adversary. Choice tasks add each feature centred within its unit (``s:c:``, …).
"""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np

from analogist.bench.execution.answer import rename_target
from analogist.bench.execution.iso import isomorphism, name_free_form
from analogist.bench.generation.items import Item
from analogist.bench.generation.render import jaccard, negations
from analogist.signature import parse_term
from analogist.signature.terms import TermSyntaxError

TASKS = ("F2", "retrieval", "has_match", "F6", "F5", "roles")
NAMED = (
    "longer_outcome",
    "more_sentences",
    "qualifier_present",
    "fix_arity",
    "combined",
    "same_skin_bindings",
    "string_identity_across_skins",
    "most_frequent_structure",
    "inference_projection",
)
LINK_KINDS = (
    "causes",
    "enables",
    "prevents",
    "amplifies",
    "propagates",
    "confounds",
    "blocks",
    "masks",
    "invalidates",
)
NGRAM_BUCKETS = 96
OUTCOME_BUCKETS = 32
FIX_BUCKETS = 16
_SENT = re.compile(r"(?<=[.!?])\s+")
_CLAUSE = re.compile(
    r"[,;:]|\b(?:and|but|because|while|which|so|until|when|whenever|though|"
    r"although|since|unless)\b"
)
_FIX = re.compile(r"^\s*([A-Za-z_]\w*)\s*\(([^)]*)\)\s*(.*)$", re.DOTALL)
_NUM = re.compile(r"\d+(?:[.,:]\d+)*")
_WORD = re.compile(r"[a-z0-9']+")


@dataclass
class Example:
    """One task's labelled rows (one row per option, or per yes/no decision).

    ``item`` is "bench index:item id" (the bootstrap's cluster), ``unit`` the decision a row
    belongs to (choice tasks), ``named`` the fixed cheats' raw scores and ``reference`` the
    exact-isomorphism reference's score.
    """

    task: str
    family: str
    kind: str
    names: list[str]
    x: np.ndarray
    label: np.ndarray
    unit: np.ndarray
    item: list[str]
    bench: np.ndarray
    named: dict[str, np.ndarray] = field(default_factory=dict)
    reference: np.ndarray | None = None


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENT.split(text.strip()) if s.strip()]


def fix_parts(fix: str | None) -> tuple[str, int, str]:
    """(functor, arity, qualifier) of a recorded fix like ``repair(R1) before assert``."""
    m = _FIX.match(fix or "")
    if not m:
        return "", 0, ""
    args = [a for a in m.group(2).split(",") if a.strip()]
    return m.group(1), len(args), m.group(3).strip()


def _bucket(token: str, n: int) -> int:
    return zlib.crc32(token.encode()) % n


def _ngrams(text: str) -> list[str]:
    toks = _WORD.findall(text.lower())
    return toks + [f"{a} {b}" for a, b in pairwise(toks)]


def _strings(ep: Mapping[str, Any]) -> dict[str, Any]:
    sig = ep.get("signature") or {}
    levels = sig.get("levels") or {}
    functor, _, qual = fix_parts(sig.get("fix_operator"))
    return {
        "text": ep.get("text", ""),
        "outcome": ep.get("outcome", ""),
        "symptom": sig.get("symptom", ""),
        "invariant": sig.get("violated_invariant", ""),
        "qualifier": qual,
        "functor": functor,
        "fix": sig.get("fix_operator", ""),
        "L1": levels.get("L1", ""),
        "L2": levels.get("L2", ""),
        "L3": levels.get("L3", ""),
        "roles": [
            str(v.get("description", v)) if isinstance(v, dict) else str(v)
            for v in (sig.get("roles") or {}).values()
        ],
    }


def _episodes(it: Item) -> list[dict]:
    out = list(it.inputs.get("candidates", [])) + list(it.inputs.get("memory", []))
    if it.inputs.get("source"):
        out.append(it.inputs["source"])
    return out


class BenchContext:
    """Bench-wide recurrence counts (the transductive view of one bench)."""

    def __init__(self, items: Sequence[Item]):
        self.strings: Counter = Counter()
        self.sentences: Counter = Counter()
        self.structures: Counter = Counter()
        self.names: Counter = Counter()
        self.claims: Counter = Counter()
        seen: set[str] = set()
        for it in items:
            for s in set(sentences(it.inputs.get("target", {}).get("text", ""))):
                self.sentences[s] += 1
            for inf in it.inputs.get("inferences", []):
                self.claims[_claim_pattern(inf)] += 1
            for ep in _episodes(it):
                if ep["id"] in seen:
                    continue
                seen.add(ep["id"])
                st = _strings(ep)
                for k, v in st.items():
                    for s in v if isinstance(v, list) else [v]:
                        if s:
                            self.strings[(k, s)] += 1
                for s in set(sentences(ep.get("text", ""))):
                    self.sentences[s] += 1
                sig = ep.get("signature") or {}
                if sig.get("relations") is not None:
                    self.structures[name_free_form(sig)] += 1
                for name in ((sig.get("surface") or {}).get("bindings") or {}).values():
                    self.names[name] += 1


def _claim_pattern(inf: Mapping[str, Any]) -> str:
    claim = inf.get("claim")
    if isinstance(claim, str):
        return f"{inf.get('kind')}:{claim.split('(')[0]}"
    if (
        isinstance(claim, list)
        and len(claim) == 3
        and isinstance(claim[0], str)
        and "(" in claim[0]
    ):
        return f"{inf.get('kind')}:{claim[0].split('(')[0]}|{claim[1]}|{claim[2].split('(')[0]}"
    return f"{inf.get('kind')}:{claim[0] if claim else ''}/{len(claim or []) - 1}"


def _lg(x: float) -> float:
    return math.log1p(max(0.0, x))


def _bindings(ep: Mapping[str, Any]) -> dict[str, str]:
    return dict(((ep.get("signature") or {}).get("surface") or {}).get("bindings") or {})


def _same_skin(ep: Mapping[str, Any], target: Mapping[str, Any]) -> bool:
    names = set(target.get("entities", {}).values())
    return bool(names & set(_bindings(ep).values()))


def _count_shape(text: str) -> dict[str, float]:
    return {
        "chars": len(text),
        "words": len(text.split()),
        "sents": len(sentences(text)),
        "clauses": len(_CLAUSE.findall(text.lower())),
        "neg": negations(text),
        "digits": sum(c.isdigit() for c in text),
        "numbers": len(_NUM.findall(text)),
    }


def episode_features(
    ep: Mapping[str, Any], target: Mapping[str, Any], item_eps: Sequence[dict], ctx: BenchContext
) -> dict[str, float]:
    """Surface and transductive features of one stored episode shown with a target."""
    sig = ep.get("signature") or {}
    st = _strings(ep)
    f: dict[str, float] = {}
    for field_name in ("text", "outcome"):
        for k, v in _count_shape(st[field_name]).items():
            f[f"s:{field_name}_{k}"] = v
    functor, arity, qual = fix_parts(sig.get("fix_operator"))
    f["s:has_outcome"] = float(bool(st["outcome"]))
    f["s:qualifier_present"] = float(bool(qual))
    f["s:qualifier_words"] = len(qual.split())
    f["s:fix_arity"] = arity
    f["s:n_roles"] = len(sig.get("roles") or {})
    rels = sig.get("relations") or []
    chain = sig.get("causal_chain") or []
    f["s:n_relations"] = len(rels)
    f["s:n_links"] = len(chain)
    f["s:mean_relation_arity"] = float(np.mean([len(r) - 1 for r in rels])) if rels else 0.0
    kinds = Counter(link[1] for link in chain if len(link) == 3)
    for k in LINK_KINDS:
        f[f"s:links_{k}"] = kinds.get(k, 0)
    f["s:links_other"] = sum(v for k, v in kinds.items() if k not in LINK_KINDS)
    for k in ("symptom", "invariant", "L1", "L2", "L3"):
        f[f"s:{k}_chars"] = len(st[k])
        f[f"s:has_{k}"] = float(bool(st[k]))
    f["s:role_desc_chars"] = float(np.mean([len(r) for r in st["roles"]])) if st["roles"] else 0.0
    f["s:n_bindings"] = len(_bindings(ep))
    for k in ("surface", "levels", "fix_operator", "episode_id", "kind"):
        f[f"s:sig_has_{k}"] = float(k in sig)
    for k in ("outcome", "time", "provenance", "kind"):
        f[f"s:ep_has_{k}"] = float(k in ep)
    f["s:kind_failure"] = float(ep.get("kind") == "failure")
    t = str(ep.get("time", ""))
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})T(\d{2})", t)
    f["s:time_days"] = (
        (int(m.group(1)) - 2020) * 365 + int(m.group(2)) * 30 + int(m.group(3)) if m else 0
    )
    f["s:time_hour"] = int(m.group(4)) if m else 0
    ttext = target.get("text", "")
    f["s:target_jaccard"] = jaccard(ttext, st["text"])
    f["s:target_shared_sentences"] = len(set(sentences(ttext)) & set(sentences(st["text"])))
    names = set(target.get("entities", {}).values())
    f["s:same_skin"] = float(bool(names & set(_bindings(ep).values())))
    f["s:bindings_in_target_text"] = sum(n.lower() in ttext.lower() for n in _bindings(ep).values())
    grams = np.zeros(NGRAM_BUCKETS)
    for g in _ngrams(" ".join([st["text"], st["outcome"], qual])):
        grams[_bucket(g, NGRAM_BUCKETS)] += 1
    norm = np.linalg.norm(grams)
    for i, v in enumerate(grams / norm if norm else grams):
        f[f"s:ng{i}"] = float(v)
    # the outcome and qualifier on their own too: in the whole-note vector above their words
    # are diluted by the text's (a constant sentence added to one side's outcome scored 0.71)
    outcome = np.zeros(OUTCOME_BUCKETS)
    for g in _ngrams(" ".join([st["outcome"], qual])):
        outcome[_bucket(g, OUTCOME_BUCKETS)] += 1
    norm = np.linalg.norm(outcome)
    for i, v in enumerate(outcome / norm if norm else outcome):
        f[f"s:og{i}"] = float(v)
    fixv = np.zeros(FIX_BUCKETS)
    if functor:
        fixv[_bucket(functor, FIX_BUCKETS)] = 1.0
    for i, v in enumerate(fixv):
        f[f"s:fix{i}"] = float(v)
    # transductive: recurrence across the bench and inside the item
    for k in (
        "text",
        "outcome",
        "symptom",
        "invariant",
        "qualifier",
        "functor",
        "fix",
        "L1",
        "L2",
        "L3",
    ):
        f[f"t:count_{k}"] = _lg(ctx.strings[(k, st[k])]) if st[k] else 0.0
    rc = [ctx.strings[("roles", r)] for r in st["roles"]] or [0]
    f["t:role_desc_count_mean"] = _lg(float(np.mean(rc)))
    f["t:role_desc_count_max"] = _lg(max(rc))
    f["t:role_desc_count_min"] = _lg(min(rc))
    sents = sentences(st["text"]) or [""]
    sc = [ctx.sentences[s] for s in sents]
    f["t:sentence_count_mean"] = _lg(float(np.mean(sc)))
    f["t:sentence_count_max"] = _lg(max(sc))
    form = name_free_form(sig) if sig.get("relations") is not None else ""
    f["t:structure_count"] = _lg(ctx.structures[form]) if form else 0.0
    others = [o for o in item_eps if o["id"] != ep["id"]]
    other_forms = [name_free_form(o["signature"]) for o in others if o.get("signature")]
    f["t:item_same_structure"] = sum(x == form for x in other_forms)
    ranks = sorted({ctx.structures[x] for x in other_forms + [form]}, reverse=True)
    f["t:structure_rank_in_item"] = ranks.index(ctx.structures[form]) if form else len(ranks)
    mine = _string_set(st)
    f["t:item_shared_strings"] = sum(len(mine & _string_set(_strings(o))) for o in others)
    f["t:string_identity_across_skins"] = sum(
        len(mine & _string_set(_strings(o))) for o in others if _same_skin(o, target)
    )
    f["t:binding_name_count"] = _lg(
        float(np.mean([ctx.names[n] for n in _bindings(ep).values()] or [0]))
    )
    return f


def given_pair_features(source: Mapping[str, Any], target: Mapping[str, Any]) -> dict[str, float]:
    """Surface of a given source and its target side by side (F5, F6): the target text's shape,
    the source text's, and their differences, with the source's and target's sizes (facts,
    roles, entities), so "the target reads shorter than the source" is learnable."""
    sig = source.get("signature") or {}
    src, tgt = _count_shape(source.get("text", "")), _count_shape(target.get("text", ""))
    n_facts = len(sig.get("relations") or []) + len(sig.get("causal_chain") or [])
    n_ents = len(target.get("entities") or {})
    f = {f"s:pair_target_{k}": v for k, v in tgt.items()}
    f.update({f"s:pair_source_{k}": v for k, v in src.items()})
    f.update({f"s:pair_diff_{k}": src[k] - tgt[k] for k in src})
    f.update(
        {
            "s:pair_entities": n_ents,
            "s:pair_roles_minus_entities": len(sig.get("roles") or {}) - n_ents,
            "s:pair_facts": n_facts,
            "s:pair_facts_minus_target_sents": n_facts - tgt["sents"],
            "s:pair_jaccard": jaccard(source.get("text", ""), target.get("text", "")),
        }
    )
    return f


def _string_set(st: Mapping[str, Any]) -> set[tuple[str, str]]:
    out = {(k, st[k]) for k in ("symptom", "invariant", "qualifier", "L1", "L2", "L3") if st[k]}
    return out | {("roles", r) for r in st["roles"]}


def _named_episode(f: Mapping[str, float]) -> dict[str, float]:
    return {
        "longer_outcome": f["s:outcome_chars"],
        "more_sentences": f["s:text_sents"],
        "qualifier_present": f["s:qualifier_present"],
        "fix_arity": f["s:fix_arity"],
        "string_identity_across_skins": f["t:string_identity_across_skins"],
        "most_frequent_structure": f["t:structure_count"],
    }


def _combined(named: dict[str, np.ndarray]) -> np.ndarray:
    """The four surface cheats together: each standardised over the rows, then summed."""
    parts = []
    for k in ("longer_outcome", "more_sentences", "qualifier_present", "fix_arity"):
        v = named[k]
        sd = v.std()
        parts.append((v - v.mean()) / sd if sd > 0 else v * 0)
    return np.sum(parts, axis=0)


class _Builder:
    """Accumulates rows of one task."""

    def __init__(self, task: str, family: str, kind: str):
        self.task, self.family, self.kind = task, family, kind
        self.rows: list[dict[str, float]] = []
        self.labels: list[bool] = []
        self.units: list[int] = []
        self.items: list[str] = []
        self.benches: list[int] = []
        self.named: list[dict[str, float]] = []
        self.ref: list[float] = []
        self.n_units = 0

    def add_unit(
        self, bench: int, item: str, options: Sequence[tuple[dict, bool, dict, float]]
    ) -> None:
        if self.kind == "choice":
            if len(options) < 2 or sum(lab for _, lab, _, _ in options) != 1:
                return
            keys = sorted(options[0][0])
            mean = {k: sum(o[0][k] for o in options) / len(options) for k in keys}
            # Centred copies: the caller's dicts are shared with other tasks (has_match
            # aggregates the same options), so adding keys in place would mark every item
            # that has a gold episode with extra non-zero columns.
            options = [
                (
                    {**feats, **{k[:2] + "c:" + k[2:]: feats[k] - mean[k] for k in keys}},
                    lab,
                    named,
                    ref,
                )
                for feats, lab, named, ref in options
            ]
        for feats, lab, named, ref in options:
            self.rows.append(feats)
            self.labels.append(bool(lab))
            self.units.append(self.n_units)
            self.items.append(f"{bench}:{item}")
            self.benches.append(bench)
            self.named.append(named)
            self.ref.append(ref)
        self.n_units += 1

    def build(self) -> Example | None:
        if not self.rows or len(set(self.labels)) < 2:
            return None  # nothing to tell apart (e.g. every F7 memory holds a match)
        names = sorted({k for r in self.rows for k in r})
        x = np.array([[r.get(k, 0.0) for k in names] for r in self.rows], float)
        nk = sorted({k for r in self.named for k in r})
        named = {k: np.array([r.get(k, 0.0) for r in self.named], float) for k in nk}
        if {"longer_outcome", "more_sentences", "qualifier_present", "fix_arity"} <= set(named):
            named["combined"] = _combined(named)
        return Example(
            self.task,
            self.family,
            self.kind,
            names,
            x,
            np.array(self.labels),
            np.array(self.units),
            self.items,
            np.array(self.benches),
            named,
            np.array(self.ref, float),
        )


def _target_sig(it: Item) -> dict | None:
    if "target_signature" not in it.key or "target_roles" not in it.key:
        return None
    return rename_target(it.key["target_signature"], it.key["target_roles"])


def _iso(ep: Mapping[str, Any], tsig: Mapping[str, Any] | None) -> dict[str, str] | None:
    if tsig is None or not ep.get("signature"):
        return None
    return isomorphism(ep["signature"], tsig)


def _choice_options(
    eps: Sequence[dict], it: Item, ctx: BenchContext, gold: set[str]
) -> list[tuple[dict, bool, dict, float]]:
    target, tsig = it.inputs["target"], _target_sig(it)
    out = []
    for ep in eps:
        f = episode_features(ep, target, eps, ctx)
        out.append((f, ep["id"] in gold, _named_episode(f), float(_iso(ep, tsig) is not None)))
    return out


def _aggregate(options: Sequence[tuple[dict, bool, dict, float]]) -> tuple[dict, dict, float]:
    """An item-level row from its options: max and mean of every feature and cheat."""
    keys = sorted(options[0][0])
    f = {}
    for k in keys:
        vals = [o[0][k] for o in options]
        f[k[:2] + "max_" + k[2:]] = max(vals)
        f[k[:2] + "mean_" + k[2:]] = float(np.mean(vals))
    named = {k: max(o[2][k] for o in options) for k in options[0][2]}
    return f, named, max(o[3] for o in options)


def _role_options(
    it: Item, source: Mapping[str, Any], role: str, ctx: BenchContext, key: Mapping[str, str]
) -> list[tuple[dict, bool, dict, float]]:
    target = it.inputs["target"]
    ents = target.get("entities", {})
    sig = source.get("signature") or {}
    binding = _bindings(source).get(role, "")
    desc = (sig.get("roles") or {}).get(role, "")
    desc = desc.get("description", "") if isinstance(desc, dict) else str(desc)
    degree = sum(role in r[1:] for r in sig.get("relations") or []) + sum(
        role in " ".join(c) for c in sig.get("causal_chain") or []
    )
    others = [o for o in _episodes(it) if o["id"] != source.get("id")]
    tsents = sentences(target.get("text", ""))
    iso = _iso(source, _target_sig(it)) or {}
    proj = _projection(it.inputs.get("inferences", []), sig, role)
    out = []
    for idx, (eid, name) in enumerate(sorted(ents.items())):
        mentions = sum(name.lower() in s.lower() for s in tsents)
        same_skin = 0.0
        for o in others:
            osig = o.get("signature") or {}
            for orole, oname in _bindings(o).items():
                od = (osig.get("roles") or {}).get(orole, "")
                od = od.get("description", "") if isinstance(od, dict) else str(od)
                if oname == name and od and od == desc:
                    same_skin += 1
        f = {
            "s:name_jaccard": jaccard(binding, name),
            "s:entity_words": len(name.split()),
            "s:binding_words": len(binding.split()),
            "s:word_len_diff": abs(len(name.split()) - len(binding.split())),
            "x:target_mentions": mentions,
            "x:role_degree": degree,
            "x:degree_minus_mentions": degree - mentions,
            "s:entity_index": idx,
            "s:n_entities": len(ents),
            "s:name_in_source_text": float(name.lower() in source.get("text", "").lower()),
            "t:same_skin_bindings": same_skin,
            "t:inference_projection": proj.get(eid, 0.0),
            "t:name_count": _lg(ctx.names[name]),
        }
        named = {"same_skin_bindings": same_skin, "inference_projection": proj.get(eid, 0.0)}
        out.append((f, key.get(role) == eid, named, float(iso.get(role) == eid)))
    return out


def _projection(
    inferences: Iterable[Mapping[str, Any]], sig: Mapping[str, Any], role: str
) -> dict[str, float]:
    """Entity id -> how many shown inference claims put it where ``role`` sits in a source fact
    with the same predicate (claims written through the gold mapping give it away)."""
    facts: list[tuple[str, tuple[str, ...]]] = [
        (r[0], tuple(r[1:])) for r in sig.get("relations") or []
    ]
    for c, _, e in sig.get("causal_chain") or []:
        for t in (c, e):
            facts += _claim_terms(t)
    out: dict[str, float] = defaultdict(float)
    for inf in inferences:
        for functor, args in _claim_terms(inf.get("claim")):
            for pred, sargs in facts:
                if pred == functor and len(sargs) == len(args):
                    for s, a in zip(sargs, args):
                        if s == role:
                            out[a] += 1
    return out


def _claim_terms(claim: Any) -> list[tuple[str, tuple[str, ...]]]:
    texts: list[str] = []
    if isinstance(claim, str):
        texts = [claim]
    elif (
        isinstance(claim, list)
        and len(claim) == 3
        and isinstance(claim[0], str)
        and "(" in claim[0]
    ):
        texts = [claim[0], claim[2]]
    elif isinstance(claim, list) and claim:
        return [(claim[0], tuple(str(a) for a in claim[1:]))]
    out = []
    for t in texts:
        try:
            term = parse_term(t)
        except TermSyntaxError:  # a malformed shown term says nothing
            term = None
        if term is not None:
            out.append((term.functor, tuple(str(a) for a in term.args)))
    return out


def _inference_row(
    inf: Mapping[str, Any],
    i: int,
    n: int,
    source: Mapping[str, Any],
    target: Mapping[str, Any],
    ctx: BenchContext,
    iso: bool,
) -> dict[str, float]:
    claim = inf.get("claim")
    kind = inf.get("kind", "")
    terms = _claim_terms(claim)
    sig = source.get("signature") or {}
    preds = {r[0] for r in sig.get("relations") or []}
    link = claim[1] if isinstance(claim, list) and len(claim) == 3 and "(" in str(claim[0]) else ""
    ents = {a for _, args in terms for a in args}
    names = [target.get("entities", {}).get(e, "") for e in ents]
    text = target.get("text", "").lower()
    f = {
        "s:kind_relation": float(kind == "relation"),
        "s:kind_link": float(kind == "link"),
        "s:kind_fix": float(kind == "fix"),
        "s:position": i / max(1, n - 1),
        "s:n_inferences": n,
        "s:n_args": len(ents),
        "s:claim_chars": len(str(claim)),
        "x:pred_in_source": float(any(t[0] in preds for t in terms)),
        "s:names_in_text": float(
            np.mean([bool(x) and x.lower() in text for x in names] or [False])
        ),
    }
    for k in LINK_KINDS:
        f[f"s:link_{k}"] = float(link == k)
    f["t:claim_pattern_count"] = _lg(ctx.claims[_claim_pattern(inf)])
    return f


def build_examples(
    benches: Sequence[Sequence[Item]], tasks: Sequence[str] = TASKS
) -> list[Example]:
    """Labelled examples for every (task, family) present in ``benches``."""
    builders: dict[tuple[str, str], _Builder] = {}

    def b(task: str, family: str, kind: str) -> _Builder:
        return builders.setdefault((task, family), _Builder(task, family, kind))

    for bi, items in enumerate(benches):
        ctx = BenchContext(items)
        for it in items:
            fam, key, inputs = it.family, it.key, it.inputs
            gold = {key["gold_source"]} if key.get("gold_source") else set()
            if "F2" in tasks and fam == "F2":
                valid = {c for c, v in (key.get("valid") or {}).items() if v}
                b("F2", fam, "choice").add_unit(
                    bi, it.item_id, _choice_options(inputs["candidates"], it, ctx, valid)
                )
            if inputs.get("memory"):
                opts = _choice_options(inputs["memory"], it, ctx, gold)
                if "retrieval" in tasks and gold:
                    b("retrieval", fam, "choice").add_unit(bi, it.item_id, opts)
                if "has_match" in tasks:
                    f, named, ref = _aggregate(opts)
                    b("has_match", fam, "binary").add_unit(
                        bi, it.item_id, [(f, bool(key.get("has_valid_source")), named, ref)]
                    )
            if "F6" in tasks and fam == "F6" and inputs.get("source"):
                src = inputs["source"]
                f = {
                    **episode_features(src, inputs["target"], [src], ctx),
                    **given_pair_features(src, inputs["target"]),
                }
                iso = _iso(src, _target_sig(it)) is not None
                b("F6", fam, "binary").add_unit(
                    bi,
                    it.item_id,
                    [(f, bool(key.get("offered_is_valid")), _named_episode(f), float(iso))],
                )
            if "F5" in tasks and fam == "F5" and inputs.get("inferences"):
                src = inputs["source"]
                iso = _iso(src, _target_sig(it)) is not None
                infs = inputs["inferences"]
                for i, inf in enumerate(infs):
                    if inf["id"] not in (key.get("decisions") or {}):
                        continue
                    f = {
                        **_inference_row(inf, i, len(infs), src, inputs["target"], ctx, iso),
                        **given_pair_features(src, inputs["target"]),
                    }
                    b("F5", fam, "binary").add_unit(
                        bi,
                        it.item_id,
                        [(f, key["decisions"][inf["id"]] == "transfer", {}, float(iso))],
                    )
            if "roles" in tasks and key.get("role_mapping"):
                src = _keyed_source(it)
                if src is not None:
                    for role in sorted(key["role_mapping"]):
                        b("roles", fam, "choice").add_unit(
                            bi, it.item_id, _role_options(it, src, role, ctx, key["role_mapping"])
                        )
    out = [bl.build() for _, bl in sorted(builders.items())]
    return [e for e in out if e is not None]


def _keyed_source(it: Item) -> dict | None:
    """The episode the role key refers to: the given source, else the gold candidate."""
    if it.inputs.get("source"):
        return it.inputs["source"]
    gold = it.key.get("gold_source")
    for ep in _episodes(it):
        if ep["id"] == gold:
            return ep
    return None
