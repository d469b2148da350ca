"""Channel S0: Weisfeiler–Lehman structural fingerprints, exact and near (spec §7).

*Exact* hits share the target's WL hash (:mod:`analogist.signature.fingerprint`): the same
relational shape whatever the domain, found with one dictionary lookup. *Near* hits share
many WL labels — predicates and the neighbourhood patterns of roles and terms — scored by
weighted Jaccard over the label counts (the overlap the WL subtree kernel counts;
Shervashidze et al. 2011). On the spec's proxy example, shapes differing by one relation,
link or predicate score 0.18-0.32 and unrelated shapes 0, hence the 0.15 default.

Near search goes through an inverted index over WL labels
(:class:`~analogist.retrieve.postings.Postings`). The channel wants only the best ``k``, so it
runs an exact top-k search that reads the target's rarest labels and only as many as the
k-th best score so far requires (:mod:`analogist.retrieve.wl_near`; ~5 ms CPU at 1M on the
stand-in of ``bench/s0_near.py``). :meth:`FingerprintIndex.near` scores every document above
the threshold instead (the path before issue 16, ``near_scan=True``; ~25 ms at 1M); both
return the same hits. Exact lookups cost ~0.1 ms at any size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING

import numpy as np

from analogist.retrieve.base import ChannelUnavailable, Hit, Target, ranked
from analogist.retrieve.dense import top_indices
from analogist.retrieve.frozen import IdTable, LayeredPostings, key64
from analogist.retrieve.postings import Postings
from analogist.retrieve.wl_near import EPS, near_top
from analogist.signature.fingerprint import ROLE_FEATURE, near_features

if TYPE_CHECKING:
    from analogist.retrieve.indexes import Indexes


class FingerprintIndex:
    """WL hash -> episode ids, plus an inverted index over near-match features.

    Every part may be a frozen (memory-mapped) base with an in-memory tail
    (:mod:`analogist.retrieve.frozen`): ``hash_keys``/``hash_docs`` are the base's WL-hash keys,
    sorted, and their document numbers; ``hash_delta`` the same for the documents an
    incremental save added after the base (a delta layer, like the postings' and the ids');
    ``by_hash`` maps a WL hash to the tail's documents.
    """

    def __init__(
        self,
        version: str,
        postings: LayeredPostings | Postings | None = None,
        ids: IdTable | None = None,
        hash_keys: np.ndarray | None = None,
        hash_docs: np.ndarray | None = None,
        hash_delta: tuple[np.ndarray, np.ndarray] | None = None,
    ):
        self.version = version
        self.postings = postings if postings is not None else Postings()
        self.ids = ids if ids is not None else IdTable()
        self.hash_keys = hash_keys if hash_keys is not None else np.zeros(0, np.uint64)
        self.hash_docs = hash_docs if hash_docs is not None else np.zeros(0, np.int32)
        self.hash_delta = hash_delta or (np.zeros(0, np.uint64), np.zeros(0, np.int32))
        self.by_hash: dict[str, list[int]] = {}
        self.tail_hashes: list[str] = []
        self.stale = 0

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, episode_id: str, wl_hash: str, features: Mapping[str, int]) -> None:
        """Append one episode."""
        self.add_many([(episode_id, wl_hash, features)])

    def add_many(self, rows: Sequence[tuple[str, str, Mapping[str, int]]]) -> None:
        """:meth:`add` for a batch of (id, WL hash, features), the ids checked at once (none is
        added if one is there). The postings take each one's :func:`near_features`, read from
        its features directly (``ROLE_FEATURE`` skipped) rather than copied without it."""
        dup = self.ids.first_present([r[0] for r in rows])
        if dup is not None:
            raise ValueError(f"episode {dup} is already fingerprinted; rebuild the index")
        for _, wl_hash, features in rows:
            doc = self.postings.add(features, ROLE_FEATURE)
            self.by_hash.setdefault(wl_hash, []).append(doc)
            self.tail_hashes.append(wl_hash)
        self.ids.extend([r[0] for r in rows])

    def exact(self, wl_hash: str) -> Iterator[str]:
        """Ids with exactly this WL hash, in the order they were added, produced lazily: a
        common shape can have thousands, and a query reads only the first few."""
        k = np.uint64(key64(wl_hash))
        frozen: list[int] = []
        for keys, docs in ((self.hash_keys, self.hash_docs), self.hash_delta):
            a = int(np.searchsorted(keys, k))
            b = int(np.searchsorted(keys, k, side="right"))
            frozen += np.asarray(docs[a:b]).tolist()
        for d in (*frozen, *self.by_hash.get(wl_hash, [])):
            yield self.ids[d]

    def near_top(
        self, features: Mapping[str, int], threshold: float, k: int, banned: list[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` best documents of :meth:`near` (ties to the earlier one) outside
        ``banned``, best first, read from the query's rarest labels only
        (:mod:`analogist.retrieve.wl_near`)."""
        return near_top(
            self.postings, near_features(features), threshold, k, np.asarray(banned, np.int64)
        )

    def near(
        self, features: Mapping[str, int], threshold: float, max_df: int | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(document numbers, weighted Jaccard) of documents at or above ``threshold``.

        A document reaching the threshold shares at least ``threshold * |q|`` of the query's
        mass, so the most frequent labels (df above ``max_df``) may be left out of the scan
        while their mass stays below that (the prefix filter of set-similarity joins,
        Chaudhuri et al. 2006): every document that can still qualify shares a scanned label,
        and the skipped labels are then added exactly for those, by binary search.
        """
        q = near_features(features)
        qsum = float(sum(q.values()))
        if qsum == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        p, skipped, mass = self.postings, [], 0.0
        for f in sorted(q, key=p.df, reverse=True):
            if max_df is None or p.df(f) <= max_df or mass + q[f] >= threshold * qsum:
                break
            skipped.append(f)
            mass += q[f]
        acc = p.accumulate({f: w for f, w in q.items() if f not in skipped}, "min")
        docs = np.flatnonzero(acc >= np.float32(threshold * qsum - mass - 1e-4))
        num = acc[docs].astype(np.float64)
        dsum = p.sums[docs].astype(np.float64)
        if skipped:
            upper = (num + mass) / np.maximum(qsum + dsum - num - mass, 1e-9)
            hopeful = upper >= threshold
            docs, num, dsum = docs[hopeful], num[hopeful], dsum[hopeful]
            for f in skipped:
                num = num + np.minimum(p.weights_of(f, docs), q[f])
        jac = num / np.maximum(qsum + dsum - num, 1e-9)
        ok = jac >= threshold - 1e-9
        return docs[ok], jac[ok]


@dataclass(frozen=True)
class FingerprintChannel:
    """S0: exact WL-hash matches first (score 1.0), then near matches by feature overlap.

    Attributes:
        near: also return near matches.
        near_threshold: minimum weighted Jaccard of WL labels for a near hit.
        near_scan: score every document above the threshold and keep the best (the path
            before issue 16's top-k search, :meth:`FingerprintIndex.near`); False reads only
            the query's rarest labels (:meth:`FingerprintIndex.near_top`). Both are exact and
            return the same hits; the scan costs 4-7x more CPU on the 1M stand-in.
        max_df_fraction: with ``near_scan``, labels in more than this fraction of documents
            may be skipped by the prefix filter (the result stays exact); None scans every label.
        name: channel name in the pool.
    """

    near: bool = True
    near_threshold: float = 0.15
    near_scan: bool = False
    max_df_fraction: float | None = 0.02
    name: str = "S0"
    needs: str = "signature"
    source: Indexes | None = field(default=None, compare=False, repr=False)

    def search(self, target: Target, k: int, exclude: frozenset[str] = frozenset()) -> list[Hit]:
        if self.source is None or target.signature is None:
            raise ChannelUnavailable("S0 needs a memory index and a target signature")
        index = self.source.fingerprints()
        if len(index) == 0:
            why = (
                f" ({index.stale} stored under another WL version; run reindex)"
                if index.stale
                else ""
            )
            raise ChannelUnavailable(f"no fingerprinted episodes are stored{why}")
        fp = self.source.fingerprint(target.signature)
        same = index.exact(fp.wl_hash)
        exact = list(islice((e for e in same if e not in exclude), k))
        found: list[tuple[str, float, dict]] = [(e, 1.0, {"match": "exact"}) for e in exact]
        if self.near and len(found) < k:
            found += self._near(index, fp.features, k - len(found), exclude | set(exact))
        return ranked(self.name, found, k)

    def _near(
        self, index: FingerprintIndex, features: Counter, k: int, exclude: frozenset[str] | set[str]
    ) -> list[tuple[str, float, dict]]:
        banned = index.ids.positions(exclude)
        if self.near_scan or self.near_threshold <= EPS:
            n = len(index)
            max_df = (
                None if self.max_df_fraction is None else max(64, int(self.max_df_fraction * n))
            )
            docs, jac = index.near(features, self.near_threshold, max_df)
            if banned and len(docs):
                keep = ~np.isin(docs, banned)
                docs, jac = docs[keep], jac[keep]
            top = top_indices(jac, k)
            docs, jac = docs[top], jac[top]
        else:
            docs, jac = index.near_top(features, self.near_threshold, k, banned)
        return [
            (index.ids[int(d)], round(float(s), 6), {"match": "near"}) for d, s in zip(docs, jac)
        ]
