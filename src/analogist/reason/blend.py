"""Blending as a sandboxed novelty generator (spec §15 ``blend-worker``, Phase 7; arm E+Bld).

A *blend* combines the structure of two stored sources into one generated source signature, in
the sense of conceptual blending (Fauconnier & Turner): the two inputs are aligned by structure
mapping (the cross-space mapping); the facts they share under that alignment are the *generic
space*; the blend takes everything from one input (the *anchor*, whose fix and symptom frame it)
and projects *selectively* from the other: its facts that the anchor lacks, renamed into the
anchor's roles, never a fact that contradicts the anchor (an alignable difference: the anchor
wins), and only facts connected to the generic space (at least one role aligned).

The target is not read while a blend is built, so a blend cannot copy the target's structure:
it is judged afterwards like any retrieved source. Blends are proposals, not observations:

- each has provenance (``found_by = ("BLD",)``, its inputs, the generic space and what was
  projected) and an id ``bld:<anchor>:<other>``; its signature says ``writer_model =
  "blend:generated"``, ``verified = false`` and ``surface.generated = true``;
- blends are never written to the store as episodes;
- the analogizer maps them beside the retrieved sources and runs the same §8.2 checks, causal
  gate, critic and prediction check on them; nothing reaches a transfer by another path;
- parsimony: a blend may be chosen only when it maps better (by :attr:`BlendPolicy.margin`)
  than every stored source mapped (the critic's rejects included), so a generated source never
  displaces an observed one that does as well, nor slips past a verdict on one that maps
  better. A chosen blend that passes the critic and its check is
  recorded "verified novel", with the best single stored mapping it beat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from analogist.errors import SignatureError
from analogist.mapping.params import SMEParams
from analogist.retrieve.pool import Candidate
from analogist.signature.model import Signature, parse_signature
from analogist.signature.vocabulary import Vocabulary
from analogist.verify.align import Fact
from analogist.verify.roles import RoleMapping, map_signatures

BLD = "BLD"
DEFAULT_PARAMS = SMEParams()
PREFIX = "bld:"
WRITER = "blend:generated"


@dataclass(frozen=True)
class BlendPolicy:
    """How blends are proposed and when one may be chosen.

    Attributes:
        inputs: how many of the pool's first sources (in mapping order) are blended pairwise.
        min_generic: shared facts (generic space) two inputs need before they are blended.
        margin: how much higher a blend's structural score must be than every stored
            source's mapped (accepted or not) for the blend to be chosen (parsimony).
        model: cross-domain sources to ask the model for when the analogizer has one (0: none).
        confirm: keep a blend only when everything it projected from its second input is
            matched in the target (the projection is a hypothesis the target must exhibit;
            off by default, measured as an ablation in docs/blending.md).
    """

    inputs: int = 4
    min_generic: int = 1
    margin: float = 0.05
    model: int = 2
    confirm: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "inputs": self.inputs,
            "min_generic": self.min_generic,
            "margin": self.margin,
            "model": self.model,
            "confirm": self.confirm,
        }


DEFAULT_POLICY = BlendPolicy()


@dataclass(frozen=True)
class Blend:
    """One generated source: its signature and where it came from."""

    signature: Signature
    inputs: tuple[str, str]
    generic: tuple[str, ...]
    projected: tuple[str, ...]
    role_map: tuple[tuple[str, str], ...]

    @property
    def episode_id(self) -> str:
        return self.signature.episode_id

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.episode_id,
            "inputs": list(self.inputs),
            "anchor": self.inputs[0],
            "generic_space": list(self.generic),
            "projected": list(self.projected),
            "aligned_roles": dict(self.role_map),
            "generated": True,
        }

    def candidate(self) -> Candidate:
        """The blend's entry in the candidate pool (no channel rank: no channel found it)."""
        return Candidate(self.episode_id, (BLD,), {}, {}, None, None, {BLD: self.to_json()})


def is_blend(episode_id: str | None) -> bool:
    """Whether ``episode_id`` names a generated blend rather than a stored episode."""
    return bool(episode_id) and str(episode_id).startswith(PREFIX)


def blend_id(anchor: str, other: str) -> str:
    return f"{PREFIX}{anchor}:{other}"


def _fresh(role: str, taken: set[str]) -> str:
    name, i = f"X{role}", 2
    while name in taken:
        name, i = f"X{role}{i}", i + 1
    taken.add(name)
    return name


def _fact_json(f: Fact) -> list[str]:
    if f.kind == "link":
        assert f.cause is not None and f.effect is not None
        return [f.cause.canonical(), f.predicate, f.effect.canonical()]
    return [f.predicate, *f.args]


def blend_pair(
    anchor: Signature,
    other: Signature,
    vocab: Vocabulary,
    sme: SMEParams = DEFAULT_PARAMS,
    min_generic: int = 1,
) -> Blend | None:
    """The blend of ``other`` into ``anchor``, or None when they share too little structure
    (no generic space) or ``other`` adds nothing."""
    found = map_signatures(other, anchor, vocab, sme)
    if not found:
        return None
    a = found[0].checks.alignment
    generic = tuple(str(g) for _, g in a.matches)
    if len(generic) < min_generic:
        return None
    m = dict(a.role_map)
    taken = set(anchor.role_names)
    conflicts = {f.key(vocab) for f, _ in a.alignable_differences}
    projected: list[Fact] = [f.renamed(m) for f in a.source_only if f.key(vocab) not in conflicts]
    for f in a.non_alignable_source:  # connected to the generic space: one role aligned
        if any(r in m for r in f.roles()):
            for r in f.roles():
                if r not in m:
                    m[r] = _fresh(r, taken)
            projected.append(f.renamed(m))
    if not projected:
        return None
    described = {r.name: r.description for r in other.roles}
    roles = {r.name: r.description for r in anchor.roles}
    roles.update({new: described.get(old, old) for old, new in m.items() if new not in roles})
    raw: dict[str, Any] = {
        "episode_id": blend_id(anchor.episode_id, other.episode_id),
        "kind": anchor.kind if anchor.kind != "plan" else "failure",
        "roles": roles,
        "relations": [r.to_json() for r in anchor.relations]
        + [_fact_json(f) for f in projected if f.kind == "relation"],
        "causal_chain": [c.to_json() for c in anchor.causal_chain]
        + [_fact_json(f) for f in projected if f.kind == "link"],
        "levels": {
            "L0": f"Generated blend (not an observed episode): the structure of "
            f"{anchor.episode_id} with what {other.episode_id} adds to it."
        },
        "surface": {
            "domain": "blend",
            "entities": [],
            "generated": True,
            "inputs": [anchor.episode_id, other.episode_id],
        },
        "verified": False,
        "writer_model": WRITER,
    }
    for key in ("violated_invariant", "symptom"):
        if getattr(anchor, key) is not None:
            raw[key] = getattr(anchor, key)
    fix = anchor.fix_operator or other.fix_operator
    if fix is not None:
        term = fix.term if fix is anchor.fix_operator else fix.term.rename(m)
        raw["fix_operator"] = f"{term.canonical()} {fix.qualifier}".strip()
    try:
        sig = parse_signature(raw, vocab)
    except SignatureError:
        return None
    return Blend(
        sig,
        (anchor.episode_id, other.episode_id),
        generic,
        tuple(str(f) for f in projected),
        tuple(sorted(dict(a.role_map).items())),
    )


def propose(
    sources: Sequence[Signature],
    vocab: Vocabulary,
    sme: SMEParams = DEFAULT_PARAMS,
    policy: BlendPolicy = DEFAULT_POLICY,
) -> list[Blend]:
    """Blends of every ordered pair among the first ``policy.inputs`` stored sources (each
    input anchors once). Generated sources are never blended again."""
    inputs = [s for s in sources if not is_blend(s.episode_id)][: policy.inputs]
    out = []
    for anchor in inputs:
        for other in inputs:
            if other is not anchor:
                b = blend_pair(anchor, other, vocab, sme, policy.min_generic)
                if b is not None:
                    out.append(b)
    return out


def model_sources(
    target: Signature,
    llm: Any,
    vocab: Vocabulary,
    n: int,
    encode: Callable[[Any], Any] | None = None,
) -> tuple[list[Blend], str]:
    """Ask the model for known cases from other domains with the target's relational shape
    (channel P's prompt), then encode each case from its own text with the staged encoder,
    as any stored episode is encoded, so its structure is the case's, not a copy of the
    target's. Each is a generated source ``bld:model:<n>``; the note says what happened.
    ``encode`` replaces the staged encoder (episode -> result with ``signature``/``reason``)."""
    from analogist.encode import StagedEncoder
    from analogist.episode import Episode
    from analogist.retrieve.base import ChannelUnavailable, Target
    from analogist.retrieve.parametric import ParametricChannel

    who = f"model:{llm.provider}:{llm.model}"
    try:
        hits = ParametricChannel(llm, max_proposals=n).search(
            Target(target.level("L0") or target.episode_id, target), n
        )
    except ChannelUnavailable as e:
        return [], f"{who}: no proposals ({e})"
    out, failed = [], []
    encode = encode or StagedEncoder(llm, vocab).encode
    for h in hits:
        case = str(h.detail.get("case", ""))
        text = f"{case}. {h.detail.get('why', '')}".strip()
        result = encode(Episode(f"{PREFIX}model:{h.rank}", "failure", text))
        if result.signature is None:
            failed.append(f"{case!r}: {result.reason}")
            continue
        sig = replace(result.signature, verified=False, writer_model=WRITER)
        out.append(Blend(sig, (who, case), (), (f"case: {case}",), ()))
    note = f"{who}: {len(out)} of {len(hits)} proposed case(s) encoded"
    return out, note + (f"; not encoded: {'; '.join(failed)}" if failed else "")


@dataclass(frozen=True)
class BlendStage:
    """What blending added to one mapping attempt."""

    blends: tuple[Blend, ...]
    mappings: tuple[RoleMapping, ...]
    note: str = ""

    @property
    def signatures(self) -> list[Signature]:
        return [b.signature for b in self.blends]

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        return tuple(b.candidate() for b in self.blends)

    def trace(self) -> list[dict[str, Any]]:
        score = {m.source_id: m.score for m in self.mappings}
        return [
            {**b.to_json(), "score": score.get(b.episode_id), "signature": b.signature.to_json()}
            for b in self.blends
        ]


def blend_stage(
    target: Signature,
    sources: Sequence[Signature],
    vocab: Vocabulary,
    sme: SMEParams = DEFAULT_PARAMS,
    policy: BlendPolicy = DEFAULT_POLICY,
    llm: Any = None,
) -> BlendStage:
    """Propose blends from ``sources`` (and, with a model and ``policy.model``, cross-domain
    sources from the model) and map each onto ``target`` with the same mapper the retrieved
    sources go through (its best interpretation, as for them)."""
    blends = propose(sources, vocab, sme, policy)
    note = "model sources: off" if not policy.model else "model sources: no model configured"
    if policy.model and llm is not None:
        asked, note = model_sources(target, llm, vocab, policy.model)
        blends += asked
    kept, mappings = [], []
    for b in blends:
        found = map_signatures(b.signature, target, vocab, sme)
        if found and policy.confirm and not confirmed(b, found[0]):
            continue
        kept.append(b)
        if found:
            mappings.append(found[0])
    return BlendStage(tuple(kept), tuple(mappings), note)


def confirmed(blend: Blend, mapping: RoleMapping) -> bool:
    """Whether every fact ``blend`` projected from its second input is matched in the target."""
    matched = {str(f) for f, _ in mapping.checks.alignment.matches}
    return all(p in matched for p in blend.projected)


def parsimonious(
    mappings: Sequence[RoleMapping], margin: float, mapped: Sequence[RoleMapping] | None = None
) -> list[RoleMapping]:
    """``mappings`` without the blends that do not beat every stored source in ``mapped``
    (default: ``mappings``) by ``margin``. Pass every mapping tried, the critic's rejects
    included: a blend that maps worse than a rejected stored source has not found better
    structure, only a way around the verdict on it."""
    stored = [
        m.score for m in (mappings if mapped is None else mapped) if not is_blend(m.source_id)
    ]
    best = max(stored, default=None)
    return [
        m for m in mappings if not is_blend(m.source_id) or best is None or m.score >= best + margin
    ]


def novelty(
    chosen: RoleMapping,
    mappings: Sequence[RoleMapping],
    blends: Mapping[str, Blend],
    *,
    critic_ok: bool | None,
    check_passed: bool | None,
    transferred: int,
) -> dict:
    """The record of a chosen blend: "verified novel" when the critic accepted it, its check
    did not fail and something transferred; what made it novel (the best single stored
    source's score it beat, or that none was accepted)."""
    stored = [m for m in mappings if not is_blend(m.source_id)]
    best = max(stored, key=lambda m: (m.score, m.source_id), default=None)
    verified = critic_ok is not False and check_passed is not False and transferred > 0
    why = (
        "no stored episode mapped"
        if best is None
        else f"no single stored episode maps as well: {chosen.score:.3f} vs "
        f"{best.source_id} {best.score:.3f}"
    )
    b = blends.get(chosen.source_id)
    return {
        "blend": chosen.source_id,
        "inputs": list(b.inputs) if b else [],
        "status": "verified novel" if verified else "generated, not verified",
        "novel_because": why,
        "score": chosen.score,
        "best_stored": None if best is None else {"source": best.source_id, "score": best.score},
        "critic_accepted": critic_ok,
        "check_passed": check_passed,
        "transferred": transferred,
    }
