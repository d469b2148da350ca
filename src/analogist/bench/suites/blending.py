"""PARB blending suite (spec §15 ``blend-worker``, Phase 7, H6): does E+Bld add verified novelty
without adding false transfers?

Items are F3 items (target plus a memory snapshot) from the PARB generator, in three conditions:

- ``split``: the target is a motif's true structure and no stored episode holds all of it. The
  generator's valid source is replaced by two *fragments* of the same structure: each keeps a
  proper subset of the motif's facts (the two overlap in at least one fact and together cover
  all of them; both reach the symptom), is rendered from exactly those facts (two skins, so two
  domains), and records a fix that resolves its *own* fragment world (an honest world, checked
  by simulation; the motif's fix first, then its alternatives). The key names the blend of the
  two fragments (either anchor) as the source and each fragment as a keyed match.
- ``split_decoy``: the same fragments of the true structure, but the target is one of the
  motif's minimal-pair decoys and has no valid source: a blend rebuilds the near miss, so
  blending must not add false or harmful transfers here.
- ``plain``: unchanged F3 items (a third without a valid source): blends there are noise.

Both arms are answered by the engine (gold target encoder, labelled); the answer keys are read
only by scoring. E+Bld is arm E with :class:`~analogist.reason.blend.BlendPolicy` on. A score's
``novel`` is set from the system's own run: the useful analogy's source is a generated blend
(found by BLD, by no channel). Figures per condition and pooled: NAV, novel useful rate,
negative-transfer rate, false accepts, items solved only with a blend; paired BCa intervals
E+Bld − E; H6 from :func:`analogist.bench.analysis.hypotheses.evaluate` on the pooled items.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from functools import cache
from typing import Any

from analogist.bench.analysis.check import check_fix
from analogist.bench.analysis.score_answer import score
from analogist.bench.analysis.score_record import Score
from analogist.bench.execution.answer import Answer, target_signature
from analogist.bench.execution.arms import ARMS, Arm
from analogist.bench.execution.engine_answer import EngineAnswerer
from analogist.bench.generation.asides import Dealer
from analogist.bench.generation.cases import Shown, episode, make_case
from analogist.bench.generation.family_retrieval import build_f3, retrieval_parts
from analogist.bench.generation.items import CHECK_SEEDS, Context, Item, Slot, variants
from analogist.bench.generation.motif import Motif
from analogist.bench.generation.motifs import motif, split_motifs
from analogist.bench.generation.signatures import gold_signature
from analogist.bench.generation.world import World
from analogist.errors import BenchError
from analogist.reason.analogizer import AnalogizerConfig
from analogist.reason.blend import DEFAULT_POLICY, BlendPolicy, is_blend
from analogist.signature import parse_term

KIND = "blending"
CONDITIONS = ("split", "split_decoy", "plain")
SIZES = {"small": 6, "mvp": 24, "full": 72}  # items per condition


@dataclass(frozen=True)
class BlendArm(Arm):
    """An arm whose pipeline also proposes blends (E+Bld)."""

    blend: BlendPolicy = DEFAULT_POLICY

    @property
    def pipeline(self) -> AnalogizerConfig:
        return replace(super().pipeline, blend=self.blend)


E_BLD = BlendArm(
    **{
        **asdict(ARMS["E"]),
        "name": "E+Bld",
        "purpose": "E plus the gated blend generator (spec §15, Phase 7)",
    }
)


@dataclass(frozen=True)
class BlendingConfig:
    """The blending suite's settings (stored with its run)."""

    seed: int = 0
    split: str = "dev"
    items: int = 24
    n_boot: int = 1000
    confirm: bool = False

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def sized(cls, size: str, **kw: Any) -> BlendingConfig:
        if size not in SIZES:
            raise BenchError(f"unknown size {size!r}; use one of {', '.join(SIZES)}")
        return cls(items=SIZES[size], **kw)


# -- fragments ---------------------------------------------------------------------------
def fragment_motif(motif: Motif, keep: Sequence[str]) -> Motif:
    """``motif`` cut down to the facts in ``keep``: their relations and causal links only
    (links renumbered), and the symptom node is the fragment's last sink."""
    kept = [k for k in motif.facts if k in keep]
    elements = {e for k in kept for e in motif.facts[k]}
    links = [i for i in range(len(motif.chain)) if f"c{i + 1}" in elements]
    renumber = {f"c{i + 1}": f"c{j + 1}" for j, i in enumerate(links)}
    chain = tuple(motif.chain[i] for i in links)
    causes = {c for c, _, _ in chain}
    sinks = [e for _, _, e in chain if e not in causes] or [chain[-1][2]]
    return replace(
        motif,
        relations=tuple(r for r in motif.relations if r in elements),
        chain=chain,
        symptom_node=sinks[-1],
        facts={k: tuple(renumber.get(e, e) for e in motif.facts[k]) for k in kept},
    )


@cache
def _fix_of(motif_name: str, keep: tuple[str, ...]) -> str | None:
    return fragment_fix(fragment_motif(motif(motif_name), keep))


def fragment_fix(frag: Motif, seed: int = 0) -> str | None:
    """A fix that resolves the fragment's own world under every check seed: the motif's fix,
    else its alternatives (None: none does, so the fragment is not an honest episode)."""
    world = World(frag, "true", gold_signature(frag))
    for fix in (frag.fix, *frag.alt_fixes):
        if all(world.simulate(fix, seed + i).result == "resolved" for i in range(CHECK_SEEDS)):
            return fix
    return None


def _is_link(element: str) -> bool:
    return element[:1] == "c" and element[1:].isdigit()


def splits(motif: Motif) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Pairs of proper, overlapping fact subsets that cover the motif and both keep a link
    into its symptom (so each fragment tells a real failure with the motif's symptom)."""
    keys = list(motif.facts)
    into = {
        k
        for k in keys
        for e in motif.facts[k]
        if _is_link(e) and motif.chain[int(e[1:]) - 1][2] == motif.symptom_node
    }
    subsets = [
        s for n in range(1, len(keys)) for s in itertools.combinations(keys, n) if into & set(s)
    ]
    return [
        (a, b)
        for a, b in itertools.combinations(subsets, 2)
        if set(a) | set(b) == set(keys) and set(a) & set(b)
    ]


def _fragments(ctx: Context, source: Shown, avoid: tuple) -> tuple[Shown, Shown] | None:
    m, options = source.case.motif, splits(source.case.motif)
    ctx.rng.shuffle(options)
    for keep_a, keep_b in options:
        fa, fb = fragment_motif(m, keep_a), fragment_motif(m, keep_b)
        fix_a, fix_b = _fix_of(m.name, keep_a), _fix_of(m.name, keep_b)
        if fix_a is None or fix_b is None:
            continue
        skins = [s for s in m.skins if s.kind == "ordinary" and s not in avoid]
        skin_b = skins[ctx.rng.randrange(len(skins))] if skins else source.case.skin
        c = source.case
        case_a = make_case(fa, "true", c.skin, c.seed, c.lexicon, fix_a, c.asides)
        asides = tuple(ctx.dealer.deal(skin_b.domain, skin_b.kind, len(c.asides)))
        case_b = make_case(fb, "true", skin_b, ctx.rng.randrange(10**9), None, fix_b, asides)
        shown: set[str] = set()
        return episode(case_a, ctx.rng, ctx.taken, shown), episode(
            case_b, ctx.rng, ctx.taken, shown
        )
    return None


def _split_item(ctx: Context, slot: Slot, decoy: bool) -> Item | None:
    m = slot.motif
    decoys = variants(m)[1:]
    variant = decoys[ctx.rng.randrange(len(decoys))] if decoy else "true"
    snapshot, tgt, key = retrieval_parts(ctx, slot, variant, with_source=not decoy)
    labels = dict(key["memory_roles"])
    whole = next((s for s in snapshot if s.case.motif is m and s.case.variant == "true"), None)
    if whole is None:
        return None
    frags = _fragments(ctx, whole, (tgt.case.skin, whole.case.skin))
    if frags is None:
        return None
    a, b = (f.record["id"] for f in frags)
    filler = next((s for s in snapshot if labels[s.record["id"]] == "other"), None)
    kept = [s for s in snapshot if s is not whole and s is not filler] + list(frags)
    kept.sort(key=lambda s: (s.record["time"], s.record["id"]))
    labels = {s.record["id"]: labels.get(s.record["id"], "fragment") for s in kept}
    key = {
        **key,
        "memory_roles": labels,
        "blend_inputs": [a, b],
        "condition": "split_decoy" if decoy else "split",
    }
    if not decoy:  # no stored episode is the source; each fragment is a partial match, and
        # a generated blend that rebuilds the target's structure is judged by scoring
        key.update(gold_source=None, keyed_matches=[a, b], has_valid_source=True, role_mapping={})
    inputs = {"target": tgt.record, "memory": [s.record for s in kept]}
    return ctx.item(slot, inputs, key)


def items(config: BlendingConfig, condition: str) -> list[Item]:
    """``config.items`` items of one condition over the split's motifs (seeded)."""
    pool = split_motifs(config.split)
    if condition != "plain":  # motifs that can be told as two honest fragments
        pool = tuple(
            m for m in pool if any(_fix_of(m.name, a) and _fix_of(m.name, b) for a, b in splits(m))
        )
    tag = f"blending|{condition}|{config.seed}"
    taken: set[str] = set()
    dealer = Dealer(tag)
    out: list[Item] = []
    i = 0
    while len(out) < config.items:
        if i > 4 * config.items + 40:
            raise BenchError(f"blending: only {len(out)} {condition} items could be built")
        ctx = Context(random.Random(f"{tag}|{i}"), config.split, pool, taken, dealer)
        slot = Slot("F3", pool[i % len(pool)], i, False)
        item = (
            build_f3(ctx, slot)
            if condition == "plain"
            else _split_item(ctx, slot, condition == "split_decoy")
        )
        i += 1
        if item is not None:
            out.append(item)
    return out


# -- running and scoring -------------------------------------------------------------------
def _probe(item: Item) -> Callable[[str, Sequence[str]], str] | None:
    check = item.key.get("check")
    return (lambda op, args: check_fix(check, op, args).result) if check else None


def _blend_facts(run: dict) -> dict[str, Any]:
    """What the run says about blends (from its own record): how many were proposed, which
    was chosen and its novelty record."""
    attempts = run.get("attempts", [])
    proposed = sum(len(a.get("blends", [])) for a in attempts)
    nov = next((a["novelty"] for a in attempts if "novelty" in a), None)
    return {
        "proposed": proposed,
        "chosen": run.get("source") if is_blend(run.get("source")) else None,
        "novelty": nov,
    }


def _facts(raw: Mapping[str, Any], names: Mapping[str, str]) -> set[tuple[str, ...]]:
    """A signature's relations and causal links as comparable tuples, roles renamed."""
    ren = dict(names)

    def term(text: str) -> str:
        return parse_term(text).rename(ren).canonical()

    rels = {(r[0], *(ren.get(a, a) for a in r[1:])) for r in raw.get("relations", [])}
    links = {(term(c), k, term(e)) for c, k, e in raw.get("causal_chain", [])}
    return rels | links


def rebuilds_target(
    blend: Mapping[str, Any], role_map: Mapping[str, str], key: Mapping[str, Any]
) -> bool:
    """Scoring only: whether a claimed blend, read through the run's own role map (blend role
    -> target entity id), has exactly the target's gold structure (then it is a valid source;
    the key could not name it, since the system generated it)."""
    to_gold = dict(key.get("target_roles") or {})
    names = {r: to_gold.get(e, e) for r, e in role_map.items()}
    gold = key.get("target_signature") or {}
    return bool(gold) and _facts(blend, names) == _facts(gold, {})


def _blend_signature(run: Mapping[str, Any], blend: str) -> dict | None:
    for a in run.get("attempts", []):
        for b in a.get("blends", []):
            if b.get("id") == blend:
                return b.get("signature")
    return None


def blend_score(item: Item, ans: Answer, arm: str, seed: int) -> Score:
    """The benchmark's score, plus what a generated source needs: a claimed blend that
    rebuilds the target's structure is a keyed match; ``novel`` marks a useful analogy whose
    source is a blend (the system's own record, no key)."""
    sc = score(item, ans, arm=arm, answerer="engine", seed=seed)
    claimed = ans.claimed_source
    if is_blend(claimed):
        raw = _blend_signature(ans.run or {}, str(claimed))
        if raw is not None and rebuilds_target(raw, ans.role_map, item.key):
            sc = replace(
                sc,
                has_valid_source=True,
                valid=True,
                keyed_matches=(*sc.keyed_matches, str(claimed)),
            )
    return replace(sc, novel=sc.useful and is_blend(claimed))


def run_blending(store: Any, config: BlendingConfig = BlendingConfig()) -> str:
    """Run E and E+Bld on every condition's items, store the scores as a bench run of kind
    ``blending`` (condition in the row key) and return its run id."""
    from analogist.retrieve.embedder_choice import configured_embedder

    embedder = configured_embedder().name  # the item memories' (S2 text channels), both arms
    bld = replace(E_BLD, blend=replace(E_BLD.blend, confirm=config.confirm))
    cfg = {"kind": KIND, **config.to_json(), "policy": bld.blend.to_json(), "embedder": embedder}
    run_id = "blend_" + hashlib.sha256(json.dumps(cfg, sort_keys=True).encode()).hexdigest()[:12]
    store.start_bench_run(run_id, run_id, cfg)
    arms = (
        ("E", EngineAnswerer(ARMS["E"], config.seed)),
        ("E+Bld", EngineAnswerer(bld, config.seed)),
    )
    vocab = store.vocabulary
    for cond in CONDITIONS:
        for item in items(config, cond):
            target = target_signature(item.key, vocab)
            for arm, who in arms:
                ans = who.answer(item.family, item.inputs, target, probe=_probe(item))
                sc = blend_score(item, ans, arm, config.seed)
                store.put_bench_result(
                    run_id,
                    (arm, "engine", item.item_id, config.seed, cond),
                    sc.to_json(),
                    {**ans.to_json(), "blending": _blend_facts(dict(ans.run or {}))},
                )
    store.finish_bench_run(run_id)
    return run_id
