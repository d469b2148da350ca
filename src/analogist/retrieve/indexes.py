"""The in-memory indexes every channel reads, built lazily from the store, kept current on add.

One :class:`Indexes` object belongs to a :class:`~analogist.memory.Memory`. Each index is
loaded from the store the first time a channel needs it (streamed in chunks), then updated
incrementally when the memory adds episodes, so a query never touches SQLite except for FTS5
(M.bm25) and the small schemas table. Vector indexes are cached per (level, embedder name).
Anything that may have changed the store behind the memory's back — another connection's
commit, an episode added through the store directly — is noticed through
:meth:`~analogist.store.StoreInterface.change_marker` and drops every cached index.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from analogist.episode import Episode
from analogist.errors import AnalogistError
from analogist.models.embedding import Embedder
from analogist.retrieve.dense import VectorIndex
from analogist.retrieve.mac import MacIndex, mac_features
from analogist.retrieve.provenance import DerivativeIndex
from analogist.retrieve.schemas import SchemaLibrary, parse_schema
from analogist.retrieve.wl import FingerprintIndex
from analogist.signature.fingerprint import Fingerprint, WLFingerprint, commutative_terms
from analogist.signature.model import Signature, parse_signature
from analogist.store import Derived, Store


class Indexes:
    """Lazily built S0/S1/S2/M/S3 indexes over one store.

    Args:
        store: the store to read.
        embedder: the embedder whose stored vectors S2 and M.emb search.
        wl: the fingerprint algorithm (its version selects which stored fingerprints count).
    """

    def __init__(self, store: Store, embedder: Embedder, wl: WLFingerprint | None = None):
        self.store = store
        self.embedder = embedder
        self.wl = wl or WLFingerprint()
        self._fp: FingerprintIndex | None = None
        self._mac: MacIndex | None = None
        self._vectors: dict[tuple[str, str], VectorIndex] = {}
        self._schemas: SchemaLibrary | None = None
        self._schemas_state: tuple | None = None
        self._derivatives: DerivativeIndex | None = None
        self._marker = store.change_marker()

    @property
    def commutative(self) -> frozenset[str]:
        return commutative_terms(self.store.vocabulary)

    def fingerprint(self, sig: Signature) -> Fingerprint:
        return self.wl(sig, self.store.vocabulary)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    # lazily built indexes -----------------------------------------------------
    def fingerprints(self) -> FingerprintIndex:
        if self._fp is None:
            idx = FingerprintIndex(self.wl.version)
            for rows in self.store.iter_fingerprints():
                for eid, wl_hash, version, feats in rows:
                    if version == idx.version:
                        idx.add(eid, wl_hash, feats)
                    else:
                        idx.stale += 1
            self._fp = idx
        return self._fp

    def mac(self) -> MacIndex:
        if self._mac is None:
            idx, vocab, comm = MacIndex(), self.store.vocabulary, self.commutative
            for rows in self.store.iter_signature_json():
                for eid, raw in rows:
                    idx.add(eid, mac_features(parse_signature(raw, vocab), comm))
            self._mac = idx
        return self._mac

    def vectors(self, level: str) -> VectorIndex:
        key = (level, self.embedder.name)
        if key not in self._vectors:
            idx = VectorIndex(self.embedder.dim)
            idx.add_chunks(self.store.iter_vectors(level, self.embedder.name))
            self._vectors[key] = idx
        return self._vectors[key]

    def schemas(self) -> SchemaLibrary:
        state = self.store.schemas_state()
        if self._schemas is None or state != self._schemas_state:
            lib, comm = SchemaLibrary(), self.commutative
            for row in self.store.list_schemas():
                try:
                    schema = parse_schema(row.schema_json, row.members, self.store.vocabulary,
                                          times_used=row.times_used,
                                          times_verified=row.times_verified)
                except AnalogistError as e:
                    lib.invalid.append((row.schema_id, str(e)))
                    continue
                lib.add(schema, comm)
            self._schemas, self._schemas_state = lib, state
        return self._schemas

    def derivatives(self) -> DerivativeIndex:
        if self._derivatives is None:
            self._derivatives = DerivativeIndex(self.store.iter_provenance())
        return self._derivatives

    # keeping them current ---------------------------------------------------------
    def on_add(
        self,
        episodes: Sequence[Episode],
        derived: Mapping[str, Derived],
        mac: Mapping[str, Counter] | None = None,
    ) -> None:
        """Fold newly stored episodes into every index already built (``mac``: their MAC
        vectors when already computed)."""
        if self._fp is not None:
            for eid, d in derived.items():
                if d.fingerprint is not None and d.fingerprint[1] == self._fp.version:
                    self._fp.add(eid, d.fingerprint[0], d.fingerprint[2])
        if self._mac is not None:
            comm = self.commutative
            for ep in episodes:
                if ep.signature is not None:
                    vec = mac.get(ep.id) if mac else None
                    self._mac.add(ep.id, vec if vec is not None else mac_features(ep.signature, comm))
        for (level, name), idx in self._vectors.items():
            rows = [(eid, v) for eid, d in derived.items()
                    for lv, emb, v in d.vectors if lv == level and emb == name]
            if rows:
                idx.add([r[0] for r in rows], np.stack([r[1] for r in rows]))
        if self._derivatives is not None:
            for ep in episodes:
                self._derivatives.add(ep.id, ep.provenance)
        self._marker = self.store.change_marker()

    def invalidate(self) -> None:
        """Drop every cached index; each is rebuilt from the store when next needed."""
        self._fp = self._mac = self._schemas = self._derivatives = None
        self._schemas_state = None
        self._vectors.clear()
        self._marker = self.store.change_marker()

    def refresh_if_changed(self) -> bool:
        """Invalidate when the store changed behind this object; True if it did."""
        if self.store.change_marker() != self._marker:
            self.invalidate()
            return True
        return False
