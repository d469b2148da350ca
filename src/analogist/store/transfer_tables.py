"""Which tables an export (``analogist export``) carries, column by column, and which it leaves
to be rebuilt; how one column value is written to JSON and read back.

Every table the migrations create is listed exactly once: in :data:`TABLES` (exported row for
row, in ``rowid`` order, with the ``rowid`` itself, so insertion order, the consolidation
watermark over ``analogy_log`` rowids and ledger ids survive the move) or in :data:`DERIVED`
(rebuilt on import). ``tests/store/test_export.py`` fails when a migration adds a table that is
in neither, so a new table cannot silently drop out of exports.

TEXT columns are written exactly as stored (JSON held in a TEXT column stays a string), REAL as
a JSON number (Python's shortest round-trip spelling), BLOB as base64, so an import writes back
the very bytes the source held.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from functools import cached_property
from typing import Any

TEXT, INT, REAL, BLOB = "text", "int", "real", "blob"


@dataclass(frozen=True)
class Column:
    """One exported column: its name, its type, and whether it may be null."""

    name: str
    type: str
    nullable: bool = False


@dataclass(frozen=True)
class Table:
    """One exported table. ``key`` orders and pages the export: ``rowid`` (exported as a
    column of its own) or an integer primary key that is the rowid (``id``)."""

    name: str
    columns: tuple[Column, ...]
    key: str = "rowid"

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Every field of a record's ``row``: the key first, then the columns."""
        cols = tuple(c.name for c in self.columns)
        return cols if self.key in cols else (self.key, *cols)

    @cached_property
    def name_set(self) -> frozenset[str]:
        return frozenset(self.names)

    @cached_property
    def stored(self) -> tuple[Column, ...]:
        """The fields with their types (``rowid`` as a non-null integer)."""
        if self.key in {c.name for c in self.columns}:
            return self.columns
        return (Column(self.key, INT), *self.columns)


def _t(name: str) -> Column:
    return Column(name, TEXT)


def _tn(name: str) -> Column:
    return Column(name, TEXT, True)


def _i(name: str) -> Column:
    return Column(name, INT)


# Export order respects foreign keys (episodes before their signature rows, runs before
# their results); an import requires the same order.
TABLES: tuple[Table, ...] = (
    Table(
        "vocab",
        (
            _t("term"),
            _t("definition"),
            _t("kind"),
            _i("arity"),
            _i("polarity"),
            _i("commutative"),
            _t("synonyms_json"),
            _tn("merged_into"),
            _i("count"),
        ),
    ),
    Table(
        "episodes",
        (
            _t("id"),
            _t("kind"),
            _t("text"),
            _tn("outcome"),
            _tn("time"),
            _tn("provenance"),
            _t("added_at"),
        ),
    ),
    Table(
        "signatures",
        (
            _t("episode_id"),
            _t("kind"),
            _t("signature_json"),
            _tn("writer_model"),
            _tn("written_at"),
            _i("verified"),
            _t("domain"),
            _t("relations_json"),
        ),
    ),
    Table(
        "sig_fingerprint",
        (_t("episode_id"), _t("wl_hash"), _t("wl_version"), _t("features_json")),
    ),
    Table(
        "sig_vectors",
        (_t("episode_id"), _t("level"), _t("embedder"), _i("dim"), Column("vector", BLOB)),
    ),
    Table(
        "schemas",
        (
            _t("schema_id"),
            _t("schema_json"),
            _t("member_episodes"),
            _i("times_used"),
            _i("times_verified"),
            _t("created_at"),
        ),
    ),
    Table(
        "analogy_log",
        (
            _t("run_id"),
            _tn("target_id"),
            _t("trigger"),
            _t("candidate_ids"),
            _t("candidate_channels"),
            _tn("mapping_json"),
            Column("structural_score", REAL, True),
            _tn("critic_verdict"),
            _t("transferred_elements"),
            _tn("predicted_observable"),
            _tn("verification_result"),
            Column("outcome_delta", REAL, True),
            _i("token_cost"),
            _i("tier"),
            _i("model_calls"),
            Column("wall_ms", REAL),
            _t("run_json"),
            _t("created_at"),
        ),
    ),
    Table(
        "transfer_ledger",
        (
            _i("id"),
            _t("run_id"),
            _t("action"),
            _t("outcome"),
            _tn("control"),
            Column("delta", REAL, True),
            _i("negative"),
            _t("created_at"),
        ),
        key="id",
    ),
    Table(
        "consolidation_runs",
        (
            _t("run_id"),
            _t("created_at"),
            _i("log_rowid"),
            _i("ledger_id"),
            _t("report_json"),
            _tn("undone_at"),
        ),
    ),
    Table(
        "consolidation_undo",
        (_t("run_id"), _i("seq"), _t("target"), _t("key"), _tn("before_json")),
    ),
    Table(
        "learned",
        (_t("kind"), _t("key"), _t("body_json"), _t("run_id"), _t("updated_at")),
    ),
    Table(
        "llm_calls",
        (
            _i("id"),
            _t("cache_key"),
            _t("provider"),
            _tn("base_url"),
            _t("model"),
            _tn("prompt_version"),
            _i("replicate"),
            _t("request_json"),
            _tn("response_text"),
            _tn("parsed_json"),
            Column("input_tokens", INT, True),
            Column("output_tokens", INT, True),
            Column("latency_ms", REAL, True),
            _i("attempt"),
            _tn("error"),
            _t("created_at"),
        ),
        key="id",
    ),
    Table(
        "bench_runs",
        (
            _t("run_id"),
            _t("bench_hash"),
            _t("config_json"),
            _t("status"),
            _t("created_at"),
            _tn("finished_at"),
        ),
    ),
    Table(
        "bench_results",
        (
            _t("run_id"),
            _t("arm"),
            _t("answerer"),
            _t("item_id"),
            _i("seed"),
            _t("condition"),
            _t("score_json"),
            _t("answer_json"),
            _t("created_at"),
        ),
    ),
)

BY_NAME: dict[str, Table] = {t.name: t for t in TABLES}

#: The migration that moved relation rows into ``signatures.relations_json``.
RELATIONS_MIGRATION = "0007_relations_column"
#: How an export from a schema before it carries relation rows: a table of their own (after
#: ``signatures``, whose records then have no ``relations_json``). An import reads them and
#: appends each to its signature's column, in file order (``transfer_import``).
LEGACY_RELATIONS = Table(
    "sig_relations",
    (
        _t("episode_id"),
        _t("predicate"),
        _tn("arg1_role"),
        _tn("arg2_role"),
        _t("args_json"),
        _i("in_causal_chain"),
    ),
)


def layout(schema: tuple[str, ...] | list[str]) -> dict[str, Table]:
    """The tables an export from a source with migrations ``schema`` holds, by name, in file
    order: :data:`TABLES`, or before ``0007_relations_column`` the legacy layout."""
    if RELATIONS_MIGRATION in schema:
        return dict(BY_NAME)
    out: dict[str, Table] = {}
    for t in TABLES:
        if t.name != "signatures":
            out[t.name] = t
            continue
        out[t.name] = Table(t.name, tuple(c for c in t.columns if c.name != "relations_json"))
        out[LEGACY_RELATIONS.name] = LEGACY_RELATIONS
    return out


#: Tables not exported, and how an import rebuilds them.
DERIVED: dict[str, str] = {
    "episodes_fts": "full-text index of episodes.text, rebuilt row for row on import",
    "index_state": "persisted-index counters, bumped by the import so any old snapshot rebuilds",
    "schema_migrations": "the target's own; the header lists the source's migrations",
}


def encode(col: Column, value: Any) -> Any:
    """A stored value as JSON: bytes as base64, REAL as a float (SQLite may hand back an int)."""
    if value is None:
        return None
    if col.type == BLOB:
        return base64.b64encode(bytes(value)).decode("ascii")
    if col.type == REAL:
        return float(value)
    return value


def decode(col: Column, value: Any) -> Any:
    """A JSON value back to what the column stores.

    Raises:
        ValueError: the value does not fit the column (the message says how).
    """
    if value is None:
        if col.nullable:
            return None
        raise ValueError(f"column {col.name!r} is null but must be {_what(col)}")
    if col.type == TEXT and isinstance(value, str):
        return value
    if col.type == INT and isinstance(value, int) and not isinstance(value, bool):
        if -(2**63) <= value < 2**63:
            return value
        raise ValueError(f"column {col.name!r}: {value} does not fit a 64-bit integer")
    if col.type == REAL and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if col.type == BLOB and isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"column {col.name!r} is not valid base64") from None
    return _type_error(col, value)


def _type_error(col: Column, value: Any) -> Any:
    kinds = {bool: "true/false", int: "an integer", float: "a number", str: "a string"}
    shown = kinds.get(type(value), "an object" if isinstance(value, dict) else "a list")
    raise ValueError(f"column {col.name!r} is {shown} but must be {_what(col)}")


def _what(col: Column) -> str:
    return {
        TEXT: "a string",
        INT: "an integer",
        REAL: "a number",
        BLOB: "a base64 string",
    }[col.type]
