"""Channel S3: the schema library, searched before raw episodes (spec §3.2, §7).

Comparison induces schemas (Gick & Holyoak 1983): the abstract relational structure two or
more mapped episodes share. A stored schema is signature-like JSON — roles, relations, causal
chain, optional fix operator and levels — plus its member episodes. Because a schema is an
abstraction, it is matched by *containment*: the fraction of the schema's MAC content vector
(:func:`~analogist.retrieve.mac.mac_features`) that the target also has. A matching schema
yields its member episodes, each labelled with provenance ``S3:<schema_id>``.

The library is small, so it is scanned in full and reloaded whenever the ``schemas`` table
changes. By default a schema with an excluded member is skipped whole: a schema induced
from the target (or its derivatives) would leak it back (spec §16.3).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from analogist.errors import SignatureError
from analogist.retrieve.base import ChannelUnavailable, Hit, Target, ranked
from analogist.retrieve.mac import mac_features
from analogist.signature.model import Signature, parse_signature
from analogist.signature.vocabulary import Vocabulary

if TYPE_CHECKING:
    from analogist.retrieve.indexes import Indexes

_STRUCTURE_KEYS = ("roles", "relations", "causal_chain", "fix_operator", "violated_invariant",
                   "symptom", "verified", "kind")


@dataclass(frozen=True)
class Schema:
    """An induced schema: an abstract structure and the episodes it was induced from.

    Attributes:
        schema_id: its id (provenance label ``S3:<schema_id>``).
        structure: the validated structure, as a :class:`Signature` whose episode_id is the
            schema id (so fingerprints, MAC vectors and the mapper all accept it).
        members: member episode ids, in the order given.
    """

    schema_id: str
    structure: Signature
    members: tuple[str, ...]
    times_used: int = 0
    times_verified: int = 0
    levels: Mapping[str, str] = field(default_factory=dict)

    @property
    def verified(self) -> bool:
        return self.structure.verified

    def to_json(self) -> dict:
        """The schema JSON as stored (members and counts live in their own columns)."""
        d = self.structure.to_json()
        body = {k: d[k] for k in _STRUCTURE_KEYS if k in d}
        return {"schema_id": self.schema_id, **body, "levels": dict(self.levels)}


def parse_schema(
    raw: Mapping[str, Any], members: Sequence[str], vocab: Vocabulary, *,
    times_used: int = 0, times_verified: int = 0,
) -> Schema:
    """Validate schema JSON (``schema_id``, ``roles``, ``relations``, ``causal_chain``,
    optional ``fix_operator`` and ``levels``) against the vocabulary.

    Raises:
        SignatureError: naming the schema and the field, as for signatures.
    """
    sid = raw.get("schema_id")
    if not isinstance(sid, str) or not sid:
        raise SignatureError(None, "schema_id", "a schema needs a string schema_id")
    unknown = sorted(set(raw) - {"schema_id", "levels", *_STRUCTURE_KEYS})
    if unknown:
        raise SignatureError(sid, unknown[0], "unknown schema field")
    given = raw.get("levels") or {}
    if not isinstance(given, Mapping):
        raise SignatureError(sid, "levels", 'must be an object like {"L3": "..."}')
    levels = dict(given)
    if "L0" not in levels:  # a schema has no literal account; its most concrete level stands in
        levels["L0"] = levels.get("L1") or levels.get("L2") or levels.get("L3") or f"schema {sid}"
    body = {k: raw[k] for k in _STRUCTURE_KEYS if k in raw}
    body.setdefault("kind", "observation")
    sig = parse_signature({**body, "episode_id": sid, "levels": levels}, vocab)
    if not members:
        raise SignatureError(sid, "members", "a schema needs at least one member episode")
    return Schema(sid, sig, tuple(members), times_used, times_verified, dict(given))


@dataclass
class SchemaLibrary:
    """Loaded schemas with their MAC vectors (built by :class:`Indexes`)."""

    schemas: list[Schema] = field(default_factory=list)
    vectors: list[Counter] = field(default_factory=list)
    invalid: list[tuple[str, str]] = field(default_factory=list)

    def add(self, schema: Schema, commutative: frozenset[str]) -> None:
        self.schemas.append(schema)
        self.vectors.append(mac_features(schema.structure, commutative))


def coverage(target: Counter, schema: Counter) -> float:
    """Fraction of the schema's feature mass that the target also has (in [0, 1])."""
    total = sum(schema.values())
    if total == 0:
        return 0.0
    return sum(min(n, target.get(f, 0)) for f, n in schema.items()) / total


@dataclass(frozen=True)
class SchemaChannel:
    """S3: schemas the target instantiates, expanded into their member episodes.

    Attributes:
        min_coverage: minimum share of the schema's structure present in the target.
        verified_only: consider only schemas marked verified.
        skip_if_member_excluded: drop a schema having any excluded member (leak guard).
        name: channel name in the pool.
    """

    min_coverage: float = 0.6
    verified_only: bool = False
    skip_if_member_excluded: bool = True
    name: str = "S3"
    needs: str = "signature"
    source: Indexes | None = field(default=None, compare=False, repr=False)

    def search(self, target: Target, k: int, exclude: frozenset[str] = frozenset()) -> list[Hit]:
        if self.source is None or target.signature is None:
            raise ChannelUnavailable("S3 needs a memory index and a target signature")
        lib = self.source.schemas()
        if not lib.schemas:
            if lib.invalid:
                err = lib.invalid[0][1]
                raise ChannelUnavailable(
                    f"no usable schemas: {len(lib.invalid)} stored schema(s) fail validation "
                    f"(first: {err}); fix or delete them")
            raise ChannelUnavailable("the schema library is empty (no schemas induced yet)")
        query = mac_features(target.signature, self.source.commutative)
        matched = []
        for schema, vec in zip(lib.schemas, lib.vectors):
            if self.verified_only and not schema.verified:
                continue
            if self.skip_if_member_excluded and exclude.intersection(schema.members):
                continue
            cov = coverage(query, vec)
            if cov >= self.min_coverage:
                matched.append((cov, schema.times_verified, schema))
        matched.sort(key=lambda m: (-m[0], -m[1], m[2].schema_id))
        found, seen = [], set(exclude)
        for cov, _, schema in matched:
            for eid in schema.members:
                if eid not in seen:
                    seen.add(eid)
                    detail = {"schema_id": schema.schema_id, "coverage": round(cov, 6),
                              "verified": schema.verified}
                    found.append((eid, cov, detail))
        return ranked(self.name, found, k)
