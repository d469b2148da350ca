"""The vocab table: the store's own copy of the vocabulary, with usage counts (spec §6, §12)."""

from __future__ import annotations

import json
import sqlite3

from analogist.signature.vocabulary import VocabTerm, Vocabulary


def save_vocabulary(conn: sqlite3.Connection, vocab: Vocabulary) -> None:
    """Insert or update every term's definition; usage counts are kept as they are."""
    conn.executemany(
        "INSERT INTO vocab (term, definition, kind, arity, polarity, commutative, synonyms_json, "
        "merged_into) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(term) DO UPDATE SET "
        "definition=excluded.definition, kind=excluded.kind, arity=excluded.arity, "
        "polarity=excluded.polarity, commutative=excluded.commutative, "
        "synonyms_json=excluded.synonyms_json, merged_into=excluded.merged_into",
        [
            (
                t.term,
                t.definition,
                t.kind,
                t.arity,
                t.polarity,
                int(t.commutative),
                json.dumps(list(t.synonyms)),
                t.merged_into,
            )
            for t in vocab
        ],
    )


def load_vocabulary(conn: sqlite3.Connection) -> Vocabulary:
    rows = conn.execute(
        "SELECT term, definition, kind, arity, polarity, commutative, synonyms_json, merged_into "
        "FROM vocab ORDER BY rowid"
    ).fetchall()
    return Vocabulary(
        tuple(
            VocabTerm(
                term=r["term"],
                kind=r["kind"],
                arity=r["arity"],
                definition=r["definition"],
                polarity=r["polarity"],
                synonyms=tuple(json.loads(r["synonyms_json"])),
                merged_into=r["merged_into"],
                commutative=bool(r["commutative"]),
            )
            for r in rows
        )
    )


def term_counts(conn: sqlite3.Connection) -> dict[str, int]:
    return {r[0]: r[1] for r in conn.execute("SELECT term, count FROM vocab")}
