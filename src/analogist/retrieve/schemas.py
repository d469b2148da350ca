"""Channel S3: the schema library, searched before raw episodes (spec §3.2, §7).

Comparison induces schemas (Gick & Holyoak 1983): the abstract relational structure two or
more mapped episodes share. A stored schema is signature-like JSON — roles, relations, causal
chain, optional fix operator and levels — plus its member episodes. Because a schema is an
abstraction, it is matched by *containment*: the fraction of the schema's MAC content vector
(:func:`~analogist.retrieve.mac.mac_features`) that the target also has. A matching schema
yields its member episodes, each labelled with provenance ``S3:<schema_id>``.

A matching schema also yields the stored episodes that *instantiate* it — those whose own MAC
vector covers at least ``min_instance`` of the schema's — after its members. So a schema
induced elsewhere (consolidation, :mod:`analogist.learn`) channels the search towards episodes
of its shape in any memory it is installed in; each hit says which schema found it and how
(``via``: member or instance).

Induced schemas carry their provenance under ``induction`` (context, members, bindings of
member roles to the schema's role variables, the analogy runs, and every fact with its
probability; low-probability facts are kept there, marked, and left out of the structure).

The library is small, so it is scanned in full and reloaded whenever the ``schemas`` table
changes. By default a schema with an excluded member is skipped whole: a schema induced
from the target (or its derivatives) would leak it back (spec §16.3).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from analogist.errors import SignatureError
from analogist.retrieve.base import ChannelUnavailable, Hit, Target, ranked
from analogist.retrieve.mac import mac_features
from analogist.signature.model import Signature, parse_signature
from analogist.signature.vocabulary import Vocabulary

if TYPE_CHECKING:
    from analogist.retrieve.indexes import Indexes

_STRUCTURE_KEYS = (
    "roles",
    "relations",
    "causal_chain",
    "fix_operator",
    "violated_invariant",
    "symptom",
    "verified",
    "kind",
)


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
    induction: Mapping[str, Any] | None = None

    @property
    def verified(self) -> bool:
        return self.structure.verified

    def to_json(self) -> dict:
        """The schema JSON as stored (members and counts live in their own columns)."""
        d = self.structure.to_json()
        body = {k: d[k] for k in _STRUCTURE_KEYS if k in d}
        out = {"schema_id": self.schema_id, **body, "levels": dict(self.levels)}
        if self.induction is not None:
            out["induction"] = dict(self.induction)
        return out


def parse_schema(
    raw: Mapping[str, Any],
    members: Sequence[str],
    vocab: Vocabulary,
    *,
    times_used: int = 0,
    times_verified: int = 0,
) -> Schema:
    """Validate schema JSON (``schema_id``, ``roles``, ``relations``, ``causal_chain``,
    optional ``fix_operator``, ``levels`` and ``induction``) against the vocabulary.

    An induced schema (one with ``induction``) may have no stored member: installed in another
    memory it finds that memory's instances of its shape.

    Raises:
        SignatureError: naming the schema and the field, as for signatures.
    """
    sid = raw.get("schema_id")
    if not isinstance(sid, str) or not sid:
        raise SignatureError(None, "schema_id", "a schema needs a string schema_id")
    unknown = sorted(set(raw) - {"schema_id", "levels", "induction", *_STRUCTURE_KEYS})
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
    induction = raw.get("induction")
    if induction is not None and not isinstance(induction, Mapping):
        raise SignatureError(sid, "induction", "must be an object (written by consolidation)")
    if not members and induction is None:
        raise SignatureError(sid, "members", "a schema needs at least one member episode")
    return Schema(
        sid,
        sig,
        tuple(members),
        times_used,
        times_verified,
        dict(given),
        dict(induction) if induction is not None else None,
    )


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
        min_instance: minimum share of the schema's structure a stored episode must have to
            be returned as an instance, lowered to the target's own share when that is less
            (None: members only).
        verified_only: consider only schemas marked verified.
        skip_if_member_excluded: drop a schema having any excluded member (leak guard).
        name: channel name in the pool.
    """

    min_coverage: float = 0.6
    min_instance: float | None = 0.8
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
                    f"(first: {err}); fix or delete them"
                )
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
            vec = lib.vectors[lib.schemas.index(schema)]
            for eid, via, fit in [
                *((m, "member", 1.0) for m in schema.members),
                *self._instances(vec, query, k, cov),
            ]:
                if eid not in seen:
                    seen.add(eid)
                    detail = {
                        "schema_id": schema.schema_id,
                        "coverage": round(cov, 6),
                        "verified": schema.verified,
                        "via": via,
                        "instance_fit": round(fit, 6),
                    }
                    found.append((eid, cov, detail))
        return ranked(self.name, found, k)

    def _instances(
        self, schema: Counter, query: Counter, k: int, target_fit: float
    ) -> list[tuple[str, str, float]]:
        """Stored episodes covering at least ``min_instance`` of the schema (or as much as the
        target does, when that is less), those that instantiate it *as the target does* first.

        Agreement is B / max(A, T) with A = Σ min(e, s), T = Σ min(t, s) and
        B = Σ min(e, t, s) over the schema's features s (episode e, target t): 1 exactly when
        the episode has the same part of the schema as the target. Ties: fit, then the MAC
        cosine with the target, then id.
        """
        if self.min_instance is None or self.source is None:
            return []
        index = self.source.mac()
        total = sum(schema.values())
        if not len(index) or not total:
            return []
        a = index.postings.accumulate(schema, "min")
        fit = a / np.float32(total)
        floor = min(self.min_instance, target_fit)
        docs = np.flatnonzero(fit >= np.float32(floor) - np.float32(1e-6))
        shared = Counter({f: min(n, query.get(f, 0)) for f, n in schema.items()})
        t = float(sum(shared.values()))
        b = index.postings.accumulate(+shared, "min")
        near = index.cosine(query)
        rows = [
            (
                index.ids[int(d)],
                round(float(b[d]) / max(float(a[d]), t, 1e-9), 6),
                round(float(fit[d]), 6),
                float(near[d]),
            )
            for d in docs
        ]
        rows.sort(key=lambda r: (-r[1], -r[2], -r[3], r[0]))
        return [(eid, "instance", f) for eid, _, f, _ in rows[: max(k, 1) * 4]]
