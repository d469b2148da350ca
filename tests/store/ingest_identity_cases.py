"""Seeded ingest inputs and what the ingest path derives from them, for a byte-identity check.

``tests/store/test_ingest_identity.py`` compares what the current code derives — parsed
signatures, WL fingerprint rows (plain and ``include_fix``), MAC vectors, hashing-embedder
vectors and the rows a bulk add stores — with digests recorded in
``tests/store/data/ingest_identity.json`` by the code before the ingest path was sped up
(commit e5a6ad4). The lines exercise what the fast paths must keep: synonyms, commutative
predicates, nested terms, spaced term spellings, fix operators, repeated structures under other
role names, and the example memory's real signatures.

Regenerate (only when a change of output is intended, and say so in the commit):
``python -m tests.store.ingest_identity_cases --write``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import sys
from importlib import resources
from pathlib import Path

from analogist.episode import parse_episode
from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder
from analogist.retrieve.mac import graph_mac_features
from analogist.signature.fingerprint import WLFingerprint
from analogist.signature.limits import load_json
from analogist.signature.vocabulary import default_vocabulary
from analogist.store import vector_blob

FIXTURE = Path(__file__).parent / "data" / "ingest_identity.json"
BINARY = [
    "derives_from",
    "copied_from",
    "depends_on",
    "requires",
    "gates",
    "sends_to",
    "feeds",
    "shares_resource",
    "incompatible_with",
    "races_with",
    "correlates_with",
    "trusts",
    "observes",
    "holds",
    "locks",
    "waits_for",
    "starves",
    "retries",
    "masks",
    "proxies_for",
]
CAUSAL = ["causes", "leads_to", "enables", "amplifies", "blocks", "masks", "prevents"]
STATES = ["fails", "crashes", "stale", "overloaded", "saturated", "delayed", "late", "silent"]
WORDS = [f"w{i}" for i in range(400)] + ["cache", "stale", "retry", "lock", "the", "a"]


def _term(rng: random.Random, roles: list[str], depth: int = 0) -> str:
    """A chain term: a state of a role, a binary relation, or a state of a nested term;
    sometimes written with spaces."""
    pick = rng.random()
    if pick < 0.4 or depth > 1:
        text = f"{rng.choice(STATES)}({rng.choice(roles)})"
    elif pick < 0.85:
        a, b = rng.sample(roles, 2)
        text = f"{rng.choice(BINARY)}({a},{b})"
    else:
        text = f"{rng.choice(STATES)}({_term(rng, roles, depth + 1)})"
    return text.replace(",", ", ") if rng.random() < 0.15 else text


def case_line(rng: random.Random, eid: str, shapes: list[dict]) -> str:
    """One JSONL line: a fresh structure, or one seen before with roles renamed and its
    relations shuffled (so the structure memo hits); an episode object or a bare signature."""
    if shapes and rng.random() < 0.35:
        base = rng.choice(shapes)
        names = sorted(base["roles"])
        rename = dict(zip(names, rng.sample([f"Q{i}" for i in range(30)], len(names))))
        relations = [[r[0], *(rename[a] for a in r[1:])] for r in base["relations"]]
        rng.shuffle(relations)
        chain = [
            [_rename(c, rename), link, _rename(e, rename)] for c, link, e in base["causal_chain"]
        ]
        roles = sorted(rename.values())
    else:
        roles = [f"R{i}" for i in rng.sample(range(20), rng.randint(2, 6))]
        relations = []
        for _ in range(rng.randint(1, 6)):
            a, b = rng.sample(roles, 2)
            relations.append([rng.choice(BINARY), a, b])
        chain = [
            [_term(rng, roles), rng.choice(CAUSAL), _term(rng, roles)]
            for _ in range(rng.randint(0, 4))
        ]
        shapes.append({"roles": roles, "relations": relations, "causal_chain": chain})
    words = " ".join(rng.choices(WORDS, k=rng.randint(3, 20)))
    sig: dict = {
        "episode_id": eid,
        "kind": "failure",
        "roles": {r: f"role {r}" for r in roles},
        "relations": relations,
        "causal_chain": chain,
        "levels": {"L0": words, "L2": " ".join(words.split()[:5]), "L3": words.split()[0]},
    }
    if rng.random() < 0.3:
        sig["fix_operator"] = f"isolate({rng.choice(roles)}) before use"
    if rng.random() < 0.2:
        del sig["levels"]["L3"]
    if rng.random() < 0.5:
        return json.dumps(sig)
    return json.dumps({"id": eid, "kind": "failure", "text": words, "signature": sig})


def _rename(text: str, rename: dict[str, str]) -> str:
    for old, new in sorted(rename.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(old, "\0" + new)
    return text.replace("\0", "")


def case_lines(n: int = 160, seed: int = 7) -> list[str]:
    """``n`` seeded lines, then the example memory's lines."""
    shapes: list[dict] = []
    rng = random.Random(seed)
    out = [case_line(rng, f"id_{i}", shapes) for i in range(n)]
    example = resources.files("analogist.data").joinpath("example_memory.jsonl")
    return out + [x for x in example.read_text(encoding="utf-8").splitlines() if x.strip()]


def _d(value: object) -> str:
    data = value if isinstance(value, bytes) else repr(value).encode()
    return hashlib.sha256(data).hexdigest()[:16]


def derived_digests(lines: list[str]) -> dict[str, dict[str, str]]:
    """Per episode: digests of the parsed episode, both fingerprint rows, the MAC vector and
    the three hashing-embedder vectors, each computed one episode at a time."""
    vocab, plain, fix = default_vocabulary(), WLFingerprint(), WLFingerprint(include_fix=True)
    emb, out = HashingEmbedder(), {}
    for line in lines:
        ep = parse_episode(load_json(line), vocab, depth_checked=True)
        sig = ep.signature
        assert sig is not None
        row = {"episode": _d((repr(ep), json.dumps(ep.to_json(), sort_keys=True)))}
        graph = plain.graph(sig, vocab)
        row["wl"] = _d(plain.of_graph(graph).as_row())
        row["wl_fix"] = _d(fix(sig, vocab).as_row())
        row["mac"] = _d(sorted(graph_mac_features(graph).items()))
        for level in ("L0", "L2", "L3"):
            text = ep.text if level == "L0" else sig.level(level)
            row[level] = _d(emb.embed([text]).tobytes()) if text else ""
        out[ep.id] = row
    return out


def stored_digests(lines: list[str], folder: Path) -> dict[str, str]:
    """Digests of every row a bulk :meth:`Memory.add` stores (tables that hold derived data,
    time columns left out). Answers are not recorded: they are a function of these rows and of
    the retrieval code, which changes apart from the ingest path (e.g. tie order)."""
    path = folder / "identity.db"
    with Memory(str(path), embedder=HashingEmbedder()) as m:
        report = m.add(lines)
        assert not report.rejected, report.rejected[:3]
    out = {}
    con = sqlite3.connect(path)
    try:
        for table in ("episodes", "signatures", "sig_relations", "sig_vectors", "sig_fingerprint"):
            # relations_json (0007) is compared as the rows the sig_relations view reads
            cols = [
                r[1]
                for r in con.execute(f"PRAGMA table_info({table})")
                if not r[1].endswith("_at") and r[1] != "relations_json"
            ]
            rows = con.execute(f"SELECT {', '.join(cols)} FROM {table} ORDER BY rowid").fetchall()
            if table == "sig_vectors":  # the values, dense float32, whatever form stores them
                at, dim = cols.index("vector"), cols.index("dim")
                rows = [
                    (*r[:at], vector_blob.decode(r[at], r[dim]).tobytes(), *r[at + 1 :])
                    for r in rows
                ]
            out[table] = _d(rows)
    finally:
        con.close()
    return out


def record(folder: Path) -> dict:
    lines = case_lines()
    return {"derived": derived_digests(lines), "stored": stored_digests(lines, folder)}


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        FIXTURE.parent.mkdir(exist_ok=True)
        FIXTURE.write_text(json.dumps(record(Path(tmp)), indent=0, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE}")
