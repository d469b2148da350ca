"""A memory that uses every exported table, and helpers to compare two memories row for row
(for the export/import tests in tests/store and tests/cli)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

from analogist.memory import Memory
from analogist.store import CallRecord, Store, TransferOutcome
from analogist.store.consolidation import MergeTerm, PutLearned, PutSchema
from analogist.store.signature_rows import rows_of_json
from analogist.store.transfer_tables import RELATIONS_MIGRATION, TABLES, layout
from tests.retrieve import cases

QUERIES = ("proxy", "ledger", "a cached copy was trusted as the source", "race")


def fill(store: Store) -> None:
    """Episodes with signatures, vectors and fingerprints (through Memory.add), one episode
    deleted (a rowid gap), a text-only episode, analogy runs with ledger rows, a schema, a
    consolidation run with a vocabulary merge, learned rows, model calls and bench rows."""
    m = Memory(store)
    m.add(cases.lines(*cases.ALL))
    m.add(['{"id": "gone", "kind": "observation", "text": "deleted later"}'])
    m.add(['{"id": "note", "kind": "observation", "text": "unicode \u00e9\u4e2d \\" quote"}'])
    m.delete(["gone"])
    run = {
        "run_id": "r1",
        "target_id": "proxy",
        "trigger": {"tier": 2},
        "candidates": [{"episode_id": "ledger", "found_by": ["S0"]}],
        "critic": {"verdict": "accept"},
        "structural_score": 0.125,
        "cost": {"tokens": 7, "model_calls": 1},
    }
    store.log_run(run, TransferOutcome("reconcile(a)", "resolved", delta=-0.5))
    store.log_run({**run, "run_id": "r2", "structural_score": None})
    store.put_schema("sc0", {"name": "proxy shape"}, ["proxy", "ledger"], times_used=3)
    store.apply_consolidation(
        "c1",
        [
            PutSchema("sc1", {"name": "x"}, ("proxy",), times_verified=1),
            PutLearned("operator", "op1", {"w": 1.5}),
            PutLearned("trigger_policy", "default", {"threshold": 0.25}),
            MergeTerm("correlates_with", "observes"),
        ],
        store.max_log_rowid(),
        1,
        {"n": 4},
    )
    store.calls.record(
        CallRecord(
            cache_key="k1",
            provider="scripted",
            model="m",
            request={"q": "é"},
            response_text="answer",
            parsed={"a": [1, 2]},
            input_tokens=3,
            output_tokens=4,
            latency_ms=1.25,
        )
    )
    store.calls.record(CallRecord(cache_key="k2", provider="p", model="m", request={}, error="x"))
    store.start_bench_run("b1", "hash", {"arms": ["E"]})
    store.put_bench_result("b1", ("E", "engine", "item1", 0, ""), {"nav": 0.5}, {"src": "x"})
    store.finish_bench_run("b1")
    m.close()


def dump(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every exported table's rows with their rowids, in rowid order."""
    out = {}
    for t in TABLES:
        cols = ", ".join(c.name for c in t.stored)
        rows = store.conn.execute(f"SELECT {cols} FROM {t.name} ORDER BY {t.key}").fetchall()
        out[t.name] = [tuple(bytes(v) if isinstance(v, memoryview) else v for v in r) for r in rows]
    return out


def searches(
    store: Store, skip: frozenset[str] = frozenset()
) -> list[list[tuple[str, str, float, int]]]:
    """Each query's hits (channel, id, score rounded, rank) over all channels but ``skip``."""
    m = Memory(store)
    out = []
    for q in QUERIES:
        pool = m.search(q)
        out.append(
            sorted(
                (ch, h.episode_id, round(h.score, 6), h.rank)
                for ch, hits in pool.hits.items()
                if ch not in skip
                for h in hits
            )
        )
    m.close()
    return out


def legacy_export(data: bytes) -> bytes:
    """``data`` as an analogist before ``0007_relations_column`` exported it: relation rows
    as records of a ``sig_relations`` table after the signatures, which lack the column."""
    lines = data.splitlines()
    header = json.loads(lines[0])
    records, relations = [], []
    for raw in lines[1:]:
        rec = json.loads(raw)
        if rec["table"] == "signatures":
            eid, text = rec["row"]["episode_id"], rec["row"].pop("relations_json")
            for r in rows_of_json(eid, text):
                names = ("episode_id", "predicate", "arg1_role", "arg2_role", "args_json")
                row = dict(zip(names + ("in_causal_chain",), r, strict=True))
                relations.append({"table": "sig_relations", "row": {"rowid": 0, **row}})
        records.append(rec)
    for i, rec in enumerate(relations, 1):
        rec["row"]["rowid"] = i
    at = max(i for i, r in enumerate(records) if r["table"] == "signatures") + 1
    records[at:at] = relations
    body = [json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in records]
    old = layout([])
    header["schema"] = [m for m in header["schema"] if m != RELATIONS_MIGRATION]
    counts = Counter(r["table"] for r in records)
    header["tables"] = {
        t: {"rows": counts[t], "columns": list(old[t].names)} for t in old if counts[t]
    }
    header["records"] = len(records)
    header["checksum"] = "sha256:" + hashlib.sha256(b"".join(body)).hexdigest()
    return json.dumps(header).encode() + b"\n" + b"".join(body)
