"""In-database vector search on PostgreSQL with pgvector (channels S2.L2, S2.L3, M.emb).

Migration ``0005_vector_search`` (:mod:`~analogist.store.pg_migrations`, applied only where the
server offers the ``vector`` extension) adds ``sig_vectors.embedding vector``: the same float32
values as the ``BYTEA`` column, written by the store in the same statement (so in the same
transaction), sent in pgvector's binary form (exact, no text round trip).

**One dimension per search space.** The column has no fixed dimension because one table holds
the vectors of every embedder (384-d MiniLM, ``hashing:64`` ...). A search always asks for one
(level, embedder) pair, so each pair gets its own *partial expression* HNSW index, created
with the first row of that pair (or by the first search after an import):
``USING hnsw ((embedding::vector(DIM)) vector_cosine_ops) WHERE level = L AND embedder = E``.
The cast fixes the dimension pgvector's index needs, and the predicate makes the graph hold
exactly the rows one search ranks, so no post-filtering can cut results short (an index per
dimension shared by several embedders or levels would be filtered after the graph walk and
return fewer than k rows). Graph parameters: :data:`HNSW_M`, :data:`HNSW_EF_CONSTRUCTION`
(measured, see there); ``hnsw.ef_search`` is set from ``ANALOGIST_HNSW_EF`` per search, the
local graph's setting.

Exact search orders by the uncast column (no index has that expression), so the server scans
every row of the pair and sorts: the same answer an exact local scan gives.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Iterable
from typing import Any

import numpy as np

from analogist.errors import ConfigError

#: pgvector's limit on ``hnsw.ef_search``.
MAX_EF_SEARCH = 1000

#: Graph parameters of every pair's index (m, ef_construction): larger than the local graph's
#: (16, 128), which gave pgvector recall@10 0.870 on 20k hashing L3 vectors at ef_search 800
#: (0.817 at 200); (32, 256) gave 0.968 (0.949 at 200), at 2.5x the build time (11.9 against
#: 4.8 s on a loaded machine). The local graph re-scores candidates; pgvector does not need to
#: (its distances are exact) but walks a sparser graph at the same m.
HNSW_M, HNSW_EF_CONSTRUCTION = 32, 256


def build_params() -> tuple[int, int]:
    """(m, ef_construction) for indexes built from now on: the defaults above, or
    ``ANALOGIST_PG_HNSW`` (``m=16,ef_construction=64``; either alone). A lighter graph builds
    several times faster and finds fewer true neighbours: at 1M rows the defaults build at
    ~235 rows/s on 2 cores, about 70 minutes per (level, embedder) pair (docs/scale.md). An
    index keeps the parameters it was built with."""
    raw = os.environ.get("ANALOGIST_PG_HNSW", "").strip()
    got = {"m": HNSW_M, "ef_construction": HNSW_EF_CONSTRUCTION}
    for part in filter(None, (p.strip() for p in raw.split(","))):
        name, _, value = part.partition("=")
        if name.strip() not in got or not value.strip().isdigit():
            raise ConfigError(
                f"ANALOGIST_PG_HNSW={raw!r} must be m=N and/or ef_construction=N, "
                "e.g. m=16,ef_construction=64"
            )
        got[name.strip()] = int(value)
    m, efc = got["m"], got["ef_construction"]
    if not 2 <= m <= 100 or not 4 <= efc <= 1000 or efc < 2 * m:
        raise ConfigError(
            f"ANALOGIST_PG_HNSW={raw!r}: pgvector needs 2 <= m <= 100, 4 <= ef_construction "
            "<= 1000 and ef_construction >= 2 * m"
        )
    return m, efc


class PgVector(bytes):
    """A vector in pgvector's binary input form (dimension, 0, big-endian float32 values)."""


def encode(v: np.ndarray) -> PgVector:
    """The pgvector form of a float32 row (``sig_vectors.vector`` decoded, or a query)."""
    return PgVector(struct.pack(">HH", len(v), 0) + v.astype(">f4").tobytes())


def register(raw: Any) -> None:
    """Send :class:`PgVector` parameters to the server as ``vector`` values (binary)."""
    from psycopg.adapt import Dumper
    from psycopg.pq import Format
    from psycopg.types import TypeInfo

    info = TypeInfo.fetch(raw, "vector")
    if info is None:
        raise ConfigError("the vector extension is not installed in this database")

    class VectorDumper(Dumper):
        format = Format.BINARY
        oid = info.oid

        def dump(self, obj: Any) -> bytes:
            return bytes(obj)

    raw.adapters.register_dumper(PgVector, VectorDumper)


def index_name(level: str, embedder: str) -> str:
    """The HNSW index of one (level, embedder) pair (a hash: embedder names are free text)."""
    digest = hashlib.blake2b(f"{level}\0{embedder}".encode(), digest_size=8).hexdigest()
    return f"sig_vectors_hnsw_{digest}"


def _where(level: str, embedder: str) -> Any:
    from psycopg import sql

    return sql.SQL("level = {} AND embedder = {}").format(sql.Literal(level), sql.Literal(embedder))


def index_sql(level: str, embedder: str, dim: int) -> Any:
    """``CREATE INDEX IF NOT EXISTS`` for one pair's partial HNSW index."""
    from psycopg import sql

    return sql.SQL(
        "CREATE INDEX IF NOT EXISTS {} ON sig_vectors USING hnsw "
        "((embedding::vector({})) vector_cosine_ops) WITH (m = {}, ef_construction = {}) "
        "WHERE {}"
    ).format(
        sql.Identifier(index_name(level, embedder)),
        sql.Literal(int(dim)),
        *(sql.Literal(v) for v in build_params()),
        _where(level, embedder),
    )


def search_sql(level: str, embedder: str, dim: int, exact: bool) -> Any:
    """The top-k query (parameters: query vector twice, limit): (id, cosine, rowid) rows."""
    from psycopg import sql

    col = sql.SQL("embedding") if exact else sql.SQL("(embedding::vector({}))").format(dim)
    tie = sql.SQL(", rowid") if exact else sql.SQL("")
    return sql.SQL(
        "SELECT episode_id, 1 - ({col} <=> %s), rowid FROM sig_vectors WHERE {where} "
        "ORDER BY {col} <=> %s{tie} LIMIT %s"
    ).format(col=col, where=_where(level, embedder), tie=tie)


def ef_for(ef_search: int, wanted: int) -> int:
    """``hnsw.ef_search`` for a search that needs ``wanted`` rows (the graph returns at most
    ef_search); ConfigError (one line) above pgvector's limit."""
    if ef_search > MAX_EF_SEARCH:
        raise ConfigError(
            f"ANALOGIST_HNSW_EF={ef_search} exceeds pgvector's hnsw.ef_search limit "
            f"({MAX_EF_SEARCH}); set it to {MAX_EF_SEARCH} or less for a PostgreSQL memory"
        )
    return min(MAX_EF_SEARCH, max(ef_search, wanted))


def filtered(rows: Iterable[Any], k: int, exclude: frozenset[str]) -> list[tuple[str, float]]:
    """The best ``k`` (id, cosine) of (id, cosine, rowid) rows not in ``exclude``; equal
    cosines in insertion order (as the local index orders them)."""
    kept = sorted((r for r in rows if r[0] not in exclude), key=lambda r: (-r[1], r[2]))
    return [(str(r[0]), float(r[1])) for r in kept[:k]]
