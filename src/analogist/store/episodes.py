"""Episode and signature rows: the only place that writes or reads them with SQL."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain

from analogist.episode import Episode
from analogist.signature.model import Signature, parse_signature
from analogist.signature.vocabulary import Vocabulary
from analogist.store.db import utcnow
from analogist.store.signature_rows import signature_row, term_usage, terms_used

_SIG_INSERT = (
    "INSERT INTO signatures (episode_id, kind, signature_json, writer_model, written_at, "
    "verified, domain, relations_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def insert_episodes(conn: sqlite3.Connection, eps: Sequence[Episode]) -> int:
    """Insert new episodes with their signatures (relation rows included) and vocab counts,
    batched; return how many signature rows were written."""
    now = utcnow()
    conn.executemany(
        "INSERT INTO episodes (id, kind, text, outcome, time, provenance, added_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(e.id, e.kind, e.text, e.outcome, e.time, e.provenance, now) for e in eps],
    )
    conn.executemany(
        "INSERT INTO episodes_fts (id, text) VALUES (?, ?)", [(e.id, e.text) for e in eps]
    )
    sigs = [e.signature for e in eps if e.signature is not None]
    conn.executemany(_SIG_INSERT, [signature_row(s) for s in sigs])
    bump_counts(conn, Counter(chain.from_iterable(terms_used(s) for s in sigs)), +1)
    return len(sigs)


def put_signature(conn: sqlite3.Connection, sig: Signature) -> None:
    """Write a signature and its relation rows, replacing any earlier one; keep vocab counts."""
    delete_signature(conn, sig.episode_id)
    conn.execute(_SIG_INSERT, signature_row(sig))
    bump_counts(conn, term_usage(sig), +1)


def delete_signature(conn: sqlite3.Connection, episode_id: str) -> None:
    raw = get_signature_json(conn, episode_id)
    if raw is None:
        return
    bump_counts(conn, _usage_from_json(conn, raw), -1)
    conn.execute("DELETE FROM signatures WHERE episode_id = ?", (episode_id,))


def _usage_from_json(conn: sqlite3.Connection, raw: dict) -> Counter:
    from analogist.store.vocab import load_vocabulary

    return term_usage(parse_signature(raw, load_vocabulary(conn)))


def bump_counts(conn: sqlite3.Connection, usage: Counter, sign: int) -> None:
    conn.executemany(
        "UPDATE vocab SET count = MAX(0, count + ?) WHERE term = ?",
        [(sign * n, term) for term, n in usage.items()],
    )


def get_signature_json(conn: sqlite3.Connection, episode_id: str) -> dict | None:
    row = conn.execute(
        "SELECT signature_json FROM signatures WHERE episode_id = ?", (episode_id,)
    ).fetchone()
    return json.loads(row[0]) if row else None


def existing_ids(conn: sqlite3.Connection, ids: Iterable[str]) -> set[str]:
    ids = list(ids)
    found: set[str] = set()
    for i in range(0, len(ids), 500):
        chunk = ids[i : i + 500]
        q = f"SELECT id FROM episodes WHERE id IN ({','.join('?' * len(chunk))})"
        found.update(r[0] for r in conn.execute(q, chunk))
    return found


def row_to_episode(row: sqlite3.Row, vocab: Vocabulary) -> Episode:
    sig = None
    if row["signature_json"] is not None:
        sig = parse_signature(json.loads(row["signature_json"]), vocab)
    return Episode(
        row["id"], row["kind"], row["text"], row["outcome"], row["time"], row["provenance"], sig
    )


EPISODE_SELECT = (
    "SELECT e.id, e.kind, e.text, e.outcome, e.time, e.provenance, s.signature_json, "
    "s.domain FROM episodes e LEFT JOIN signatures s ON s.episode_id = e.id"
)
