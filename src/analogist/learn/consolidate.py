"""Consolidation: one incremental, undoable pass over the analogy log and transfer ledger.

:func:`consolidate` reads the rows written since the previous run (its watermark), and

1. induces schemas from the verified analogies among them (:mod:`.induce`, SAGE-style);
2. updates relation telemetry and the evidence for vocabulary merges (:mod:`.vocabulary`),
   and applies the merges the caller accepted, with the derived rows of the stored signatures
   that name a merged term (:mod:`.merge`);
3. updates the fix-operator library and macro-actions from the new ledger rows
   (:mod:`.operators`).

Everything is written in one transaction with the before image of each changed row
(:mod:`analogist.store.consolidation`), so a run can be undone. Run twice with nothing new, it
changes nothing (idempotent); ``dry_run`` computes the same report and writes nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from analogist.errors import AnalogistError, NotFoundError
from analogist.learn import operators as ops
from analogist.learn.evidence import negative_runs, read_analogy, verdict
from analogist.learn.generalise import Generalisation, InductionPolicy, Pools
from analogist.learn.induce import InductionEvent, induce_one
from analogist.learn.merge import reindex_changes
from analogist.learn.vocabulary import (
    TELEMETRY,
    MergeProposal,
    interchangeable,
    matched_predicates,
    proposals_from_definitions,
    proposals_from_use,
)
from analogist.retrieve.schemas import parse_schema
from analogist.signature.fingerprint import WLFingerprint
from analogist.signature.model import Signature
from analogist.store import consolidation as rows
from analogist.store.interface import StoreInterface as Store


@dataclass(frozen=True)
class ConsolidationPolicy:
    """Every setting of a consolidation run (stored in its report).

    Attributes:
        induction: schema induction parameters.
        require_check: count only runs whose prediction check passed (else a run the critic
            accepted and no check refuted counts, with evidence ``critic``).
        min_evidence: interchangeable uses needed before a merge is proposed.
        definition_cosine: definition similarity that proposes a merge.
        min_macro_support: successful repetitions that make a sequence a macro-action.
    """

    induction: InductionPolicy = field(default_factory=InductionPolicy)
    require_check: bool = False
    min_evidence: int = 2
    definition_cosine: float = 0.92
    min_macro_support: int = 2

    def to_json(self) -> dict:
        return {
            "induction": self.induction.to_json(),
            "require_check": self.require_check,
            "min_evidence": self.min_evidence,
            "definition_cosine": self.definition_cosine,
            "min_macro_support": self.min_macro_support,
        }


@dataclass(frozen=True)
class ConsolidationReport:
    """What a consolidation run read, induced, assimilated, merged and learned."""

    run_id: str | None
    dry_run: bool
    runs_read: int
    ledger_read: int
    verdicts: dict[str, int]
    events: tuple[InductionEvent, ...]
    schemas: tuple[dict, ...]
    merges: tuple[tuple[str, str], ...]
    proposals: tuple[MergeProposal, ...]
    operators: tuple[dict, ...]
    macros: tuple[dict, ...]
    policy: dict
    note: str = ""
    reindexed: int = 0  # episodes whose relation rows and fingerprint a merge rewrote

    def to_json(self) -> dict:
        return {
            "run_id": self.run_id,
            "dry_run": self.dry_run,
            "runs_read": self.runs_read,
            "ledger_read": self.ledger_read,
            "verdicts": dict(self.verdicts),
            "events": [e.to_json() for e in self.events],
            "schemas": list(self.schemas),
            "merges": [list(m) for m in self.merges],
            "proposals": [p.to_json() for p in self.proposals],
            "operators": list(self.operators),
            "macros": list(self.macros),
            "policy": self.policy,
            "note": self.note,
            "reindexed": self.reindexed,
        }


class _Pass:
    """The state of one consolidation pass (read, then turned into changes)."""

    def __init__(self, store: Store, policy: ConsolidationPolicy):
        self.store, self.policy, self.vocab = store, policy, store.vocabulary
        self.pools = Pools(self.vocab, policy.induction)
        for row in store.list_schemas():
            if isinstance(row.schema_json.get("induction"), dict):
                g = Generalisation.from_json(row.schema_json)
                g.times_verified = row.times_verified
                self.pools.add_existing(g)
        self.changed: set[str] = set()
        self.events: list[InductionEvent] = []
        self.verdicts: Counter = Counter()
        self.telemetry: dict[str, Counter] = {}
        self.swaps: Counter = Counter()
        self.together: Counter = Counter()
        self.runs: dict[str, dict] = {}

    def signature(self, episode_id: str) -> Signature | None:
        try:
            return self.store.get_signature(episode_id)
        except NotFoundError:
            return None

    def read_run(self, run: dict, negative: set[str]) -> None:
        self.runs[str(run["run_id"])] = run
        v = verdict(run, str(run["run_id"]) in negative, self.policy.require_check)
        source = self.signature(run["source"]) if run.get("source") else None
        if run.get("source") and source is None:
            v = type(v)(v.run_id, "unreadable", "the source episode is no longer stored")
        self.verdicts[v.status] += 1
        if source is None or v.status not in ("verified", "rejected", "negative"):
            return
        stored = bool(run.get("target_id")) and self.store.has_episode(run["target_id"])
        try:
            a = read_analogy(run, source, self.vocab, v.why, stored)
        except AnalogistError:
            self.verdicts[v.status] -= 1
            self.verdicts["unreadable"] += 1
            return
        for pred in matched_predicates(a.source, a.target, a.role_map):
            self.telemetry.setdefault(pred, Counter())[v.status] += 1
        if v.status == "verified":
            swap, together = interchangeable(a.source, a.target, a.role_map)
            self.swaps.update({"|".join(k): n for k, n in swap.items()})
            self.together.update({"|".join(k): n for k, n in together.items()})
            self.events.append(induce_one(self.pools, a, self.changed))

    def owner(self, member: str) -> Generalisation | None:
        return next((g for g in self.pools.all() if member in g.members), None)


def _schema_changes(p: _Pass) -> tuple[list[rows.Change], list[dict]]:
    changes: list[rows.Change] = []
    summary = []
    pol = p.policy.induction
    for g in sorted(p.pools.all(), key=lambda g: g.schema_id):
        if g.schema_id not in p.changed or len(g.members) < pol.min_members:
            continue
        raw = g.to_json(pol)
        parse_schema(raw, g.members, p.vocab)  # the same validation as any schema
        stored = tuple(m for m in g.members if p.store.has_episode(m))
        changes.append(rows.PutSchema(g.schema_id, raw, stored, g.times_verified))
        facts = raw["induction"]["facts"]
        summary.append(
            {
                "schema_id": g.schema_id,
                "context": g.context,
                "members": list(g.members),
                "times_verified": g.times_verified,
                "facts": len(facts),
                "low": sum(f["low"] for f in facts),
            }
        )
    return changes, summary


def _counter_changes(kind: str, new: dict[str, Counter], store: Store) -> list[rows.Change]:
    old = store.learned_rows(kind)
    out: list[rows.Change] = []
    for key, counts in sorted(new.items()):
        body = dict(old.get(key, {}))
        for k, n in counts.items():
            body[k] = int(body.get(k, 0)) + int(n)
        out.append(rows.PutLearned(kind, key, body))
    return out


def _operator_changes(
    p: _Pass, ledger: list[dict]
) -> tuple[list[rows.Change], list[dict], list[dict]]:
    library: dict[str, Counter] = {}
    trails = p.store.learned_rows("trail")
    macros: Counter = Counter()
    touched: set[str] = set()
    for entry in ledger:
        rid = str(entry["run_id"])
        run = p.runs.get(rid) or p.store.find_run(rid) or {}
        source = run.get("source")
        g = p.owner(str(source)) if source else None
        role_map = (run.get("mapping") or {}).get("role_map") or {}
        op = ops.normalise(
            str(entry["action"]), role_map, g.bindings.get(str(source)) if g else None
        )
        schema = g.schema_id if g else ops.NO_SCHEMA
        outcome = ops.outcome_of(entry)
        library.setdefault(f"{schema}|{op}", Counter())[outcome] += 1
        target = str(run.get("target_id") or rid)
        touched.add(target)
        trail = trails.setdefault(target, {"schema": schema, "ops": []})
        trail["ops"] = [*trail["ops"], op]
        if outcome == "success":
            if len(trail["ops"]) >= 2:
                macros[f"{trail['schema']}|{' ; '.join(trail['ops'])}"] += 1
            trail["ops"] = []
    changes: list[rows.Change] = _counter_changes("operator", library, p.store)
    changes += [rows.PutLearned("trail", k, trails[k]) for k in sorted(touched)]
    changes += _counter_changes(
        "macro", {k: Counter(support=n) for k, n in macros.items()}, p.store
    )
    lib_rows = [
        {"key": c.key, **c.body}
        for c in changes
        if isinstance(c, rows.PutLearned) and c.kind == "operator"
    ]
    macro_rows = [
        {"key": c.key, **c.body, "macro": c.body.get("support", 0) >= p.policy.min_macro_support}
        for c in changes
        if isinstance(c, rows.PutLearned) and c.kind == "macro"
    ]
    return changes, lib_rows, macro_rows


def _run_id(
    wm: tuple[int, int], top: tuple[int, int], merges: Sequence[tuple[str, str]], n_before: int
) -> str:
    text = json.dumps([wm, top, list(merges), n_before])
    return "cons_" + hashlib.sha256(text.encode()).hexdigest()[:12]


def consolidate(
    store: Store,
    *,
    policy: ConsolidationPolicy | None = None,
    dry_run: bool = False,
    merges: Sequence[tuple[str, str]] = (),
    embedder: Any = None,
    wl: WLFingerprint | None = None,
) -> ConsolidationReport:
    """One consolidation pass over what was logged since the last one (module docstring).

    Args:
        store: the memory's store.
        policy: the settings (default :class:`ConsolidationPolicy`).
        dry_run: report what would change, write nothing.
        merges: accepted vocabulary merges, (old, into) pairs.
        embedder: embeds term definitions for definition-based merge proposals (None: skip).
        wl: the memory's fingerprint algorithm, for the fingerprints a merge rewrites
            (default ``WLFingerprint()``).

    Raises:
        VocabularyError: an accepted merge names an unknown term, mismatched arities or
            causal links, or would leave a stored signature unreadable.
    """
    policy = policy or ConsolidationPolicy()
    wm = store.consolidation_watermark()
    log = store.log_rows_after(wm[0])
    ledger = store.ledger_after(wm[1])
    vocab = store.vocabulary
    for old, into in merges:
        vocab = vocab.merge(old, into)  # validates before anything is read or written
    p = _Pass(store, policy)
    negative = negative_runs(store.ledger_for_runs([str(r["run_id"]) for _, r in log]))
    for _, run in log:
        p.read_run(run, negative)
    changes, schemas = _schema_changes(p)
    tele = {k: Counter({s: v[s] for s in TELEMETRY if v[s]}) for k, v in p.telemetry.items()}
    changes += _counter_changes("relation_telemetry", tele, store)
    evidence = {k: Counter(swaps=n) for k, n in p.swaps.items()}
    for k, n in p.together.items():
        evidence.setdefault(k, Counter())["together"] += n
    changes += _counter_changes("merge_evidence", evidence, store)
    op_changes, library, macros = _operator_changes(p, ledger)
    changes += op_changes
    changes += [rows.MergeTerm(old, into) for old, into in merges]
    reindex = reindex_changes(store, store.vocabulary, vocab, wl or WLFingerprint())
    changes += reindex
    top = (log[-1][0] if log else wm[0], int(ledger[-1]["id"]) if ledger else wm[1])
    proposals = merge_proposals(store, embedder, policy, pending=evidence)
    report = ConsolidationReport(
        None,
        dry_run,
        len(log),
        len(ledger),
        dict(p.verdicts),
        tuple(p.events),
        tuple(schemas),
        tuple(merges),
        tuple(proposals),
        tuple(library),
        tuple(macros),
        policy.to_json(),
        reindexed=len(reindex),
    )
    if not log and not ledger and not merges:
        return _with(
            report,
            note=f"nothing new since the last consolidation (log row {wm[0]}, ledger row {wm[1]})",
        )
    if dry_run:
        return _with(report, note="dry run: nothing was written")
    run_id = _run_id(wm, top, merges, len(store.consolidation_runs()))
    report = _with(report, run_id=run_id)
    store.apply_consolidation(run_id, changes, top[0], top[1], report.to_json())
    return report


def _with(report: ConsolidationReport, **kw: Any) -> ConsolidationReport:
    from dataclasses import replace

    return replace(report, **kw)


def merge_proposals(
    store: Store,
    embedder: Any = None,
    policy: ConsolidationPolicy | None = None,
    pending: dict[str, Counter] | None = None,
) -> list[MergeProposal]:
    """Merge proposals from the stored evidence (plus ``pending`` evidence not yet written)
    and, with an embedder, from near-identical definitions."""
    policy = policy or ConsolidationPolicy()
    stored = store.learned_rows("merge_evidence")
    swaps: Counter = Counter({k: int(v.get("swaps", 0)) for k, v in stored.items()})
    together: Counter = Counter({k: int(v.get("together", 0)) for k, v in stored.items()})
    for k, v in (pending or {}).items():
        swaps[k] += v.get("swaps", 0)
        together[k] += v.get("together", 0)
    counts, vocab = store.vocab_counts(), store.vocabulary
    out = proposals_from_use(swaps, together, counts, vocab, policy.min_evidence)
    if embedder is not None:
        seen = {(m.old, m.into) for m in out}
        out += [
            m
            for m in proposals_from_definitions(vocab, embedder, counts, policy.definition_cosine)
            if (m.old, m.into) not in seen
        ]
    return out
