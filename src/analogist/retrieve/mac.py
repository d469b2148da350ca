"""Channel S1: predicate / role / causal-motif count vectors — the MAC stage of MAC/FAC.

MAC/FAC (Forbus, Gentner & Law 1995, "MAC/FAC: A Model of Similarity-Based Retrieval",
Cognitive Science 19) retrieves in two stages: a cheap, non-structural "many are called" pass
over *content vectors* (counts of the predicates in a description), then an expensive
structure-mapping "few are chosen" pass over the survivors. This module is the MAC pass; the
mapper is FAC. The content vector is richer than bare functor counts but still surface-free
(spec §7, channel S1):

* ``p:<predicate>`` — each distinct relation or causal-chain term;
* ``r:<slot>+<slot>`` — for each role, each pair of argument slots (``predicate@position``,
  ``*`` for a commutative predicate) it fills: the role's *type* as a pattern of use (e.g.
  ``derives_from@0+trusts_as_authoritative@1`` is "a derived thing that is trusted"),
  independent of the role's name. (Single slots are not counted apart: with role arguments
  they would only repeat ``p:`` once per position.)
* ``c:<cause functor>><link>><effect functor>`` — each causal link triple;
* ``len:<n>`` — the longest causal chain, in links.

Scores are cosines of count vectors, computed through an inverted index
(:class:`~analogist.retrieve.postings.Postings`). As in MAC, the channel keeps the best
candidate and those scoring within a set fraction of it (MAC used 10%, i.e. 0.9); ``k`` caps
the list. A snapshot's lists are searched by a prefix filter (:mod:`analogist.retrieve.prefix_filter`):
only the episodes that can still be kept are scored, with the scan's answer.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from analogist.retrieve.base import ChannelUnavailable, Hit, Target, ranked
from analogist.retrieve.frozen import IdTable, LayeredPostings
from analogist.retrieve.postings import Postings
from analogist.retrieve.prefix_filter import best_candidates, select
from analogist.signature.fingerprint import SignatureGraph, Structure, signature_graph
from analogist.work_arrays import work_array

if TYPE_CHECKING:
    from analogist.retrieve.indexes import Indexes


def _chain_length(links: Iterable[tuple[object, object]]) -> int:
    """Links on the longest simple path through the causal graph (exact DFS; chains are short)."""
    succ: dict[object, list[object]] = defaultdict(list)
    for a, b in links:
        succ[a].append(b)
    return max((_depth(succ, n, frozenset({n})) for n in list(succ)), default=0)


def _depth(succ: dict[object, list[object]], node: object, on_path: frozenset) -> int:
    """Links on the longest simple path from ``node`` avoiding ``on_path``. A module function,
    not a closure: a recursive closure refers to itself through its cell, and that reference
    cycle per signature stayed until the garbage collector ran (paused in a bulk add)."""
    best = 0
    for n in succ.get(node, ()):
        if n not in on_path:
            best = max(best, 1 + _depth(succ, n, on_path | {n}))
    return best


def graph_mac_features(graph: SignatureGraph) -> Counter:
    """The MAC content vector read off a signature graph (the one the WL fingerprint hashes).

    Term nodes are labelled ``p=<predicate>``; an edge from a term to a role node is an
    argument slot labelled with its position (``*`` when commutative); ``L=<link>`` edges are
    causal links. A fix-operator node, if present, is ignored.
    """
    labels, edges = graph
    # Every feature is listed once per occurrence and counted by one Counter call, in the
    # order the counts were once incremented one by one (so the vector's key order is too).
    keys = ["p:" + lab[2:] for lab in labels if lab.startswith("p=")]
    push = keys.append
    slots: dict[int, list[str]] = defaultdict(list)
    links = []
    for i, j, lab in edges:
        if lab.startswith("L="):
            push(f"c:{labels[i][2:]}>{lab[2:]}>{labels[j][2:]}")
            links.append((i, j))
        elif labels[j] == "role" and labels[i].startswith("p="):
            slots[j].append(f"{labels[i][2:]}@{lab}")
    for used in slots.values():
        used.sort()
        for a in range(len(used)):
            first = "r:" + used[a] + "+"
            keys += [first + other for other in used[a + 1 :]]
    if links:
        push(f"len:{_chain_length(links)}")
    return Counter(keys)


def mac_features(s: Structure, commutative: frozenset[str] = frozenset()) -> Counter:
    """The MAC content vector of a signature or schema (see the module docstring)."""
    return graph_mac_features(signature_graph(s, commutative))


class MacIndex:
    """Episode ids and their MAC vectors in an inverted index (possibly a frozen base plus a
    tail, see :mod:`analogist.retrieve.frozen`)."""

    def __init__(
        self, postings: LayeredPostings | Postings | None = None, ids: IdTable | None = None
    ) -> None:
        self.postings = postings if postings is not None else Postings()
        self.ids = ids if ids is not None else IdTable()

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, episode_id: str, features: Counter) -> None:
        self.add_many([(episode_id, features)])

    def add_many(self, rows: list[tuple[str, Counter]]) -> None:
        """:meth:`add` for a batch, the ids checked at once (none is added if one is there)."""
        dup = self.ids.first_present([eid for eid, _ in rows])
        if dup is not None:
            raise ValueError(f"episode {dup} is already in the MAC index; rebuild it instead")
        for _, features in rows:
            self.postings.add(features)
        self.ids.extend([eid for eid, _ in rows])

    def cosine(self, query: Counter) -> np.ndarray:
        """The cosine of ``query`` with every document (float32, in document order)."""
        dots = self.postings.accumulate(query, "dot")
        qnorm = float(np.sqrt(sum(v * v for v in query.values())))
        if qnorm == 0:
            return dots
        norms = self.postings.norms  # dots / (norms * qnorm), the product in a work array
        den = np.multiply(
            norms, np.float32(qnorm), out=work_array("mac_den", len(norms), np.float32)
        )
        return np.divide(dots, den, out=dots)

    def candidates(
        self,
        query: Counter,
        k: int,
        min_score: float,
        keep_fraction: float,
        exclude: frozenset[str] = frozenset(),
    ) -> tuple[np.ndarray, np.ndarray]:
        """(documents ascending, their cosines) holding every document outside ``exclude``
        that S1 keeps (:func:`~analogist.retrieve.prefix_filter.select`): a snapshot's documents by
        the prefix filter, those added since (and an index without a snapshot) by a scan; the cosines
        are the scan's, bit for bit."""
        banned = np.array(sorted(self.ids.positions(exclude)), np.int64)
        p = self.postings
        qnorm = float(np.sqrt(sum(v * v for v in query.values())))
        found: tuple[np.ndarray, np.ndarray] | None = None
        if isinstance(p, LayeredPostings):
            found = self._frozen_candidates(p, query, qnorm, k, min_score, keep_fraction, banned)
            n0 = p.frozen_docs
            if found is not None and p.tail.n_docs:  # documents added since: scanned
                tail = p.tail.accumulate(query, "dot")
                tail /= np.multiply(p.tail.norms, np.float32(qnorm))
                found = (
                    np.concatenate([found[0], np.arange(n0, p.n_docs, dtype=np.int64)]),
                    np.concatenate([found[1], tail]),
                )
        if found is None:
            scores = self.cosine(query)
            docs = np.arange(len(scores), dtype=np.int64)
        else:
            docs, scores = found
        if len(banned):
            keep = ~np.isin(docs, banned)
            docs, scores = docs[keep], scores[keep]
        return docs, scores

    @staticmethod
    def _frozen_candidates(
        p: LayeredPostings,
        query: Counter,
        qnorm: float,
        k: int,
        min_score: float,
        keep_fraction: float,
        banned: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """(documents ascending, cosines) of the base's and the delta's candidates, each layer
        through the prefix filter on its own, or scanned where it does not apply (as the tail
        is); None for an empty query (the caller's scan). A layer's threshold comes from true
        scores of its own documents, a lower bound of the whole memory's, so the union holds
        every document S1 keeps; a scanned layer's cosines are the whole scan's, bit for bit."""
        if qnorm == 0:
            return None
        docs, scores = [], []
        for layer, at in ((p.base, 0), (p.delta, p.base.n_docs)):
            if at and not layer.n_docs:
                continue
            mine = banned[(banned >= at) & (banned < at + layer.n_docs)] - at
            got = best_candidates(layer, query, qnorm, k, min_score, keep_fraction, mine)
            if got is None:
                dots = layer.accumulate(query, "dot")
                den = np.multiply(layer.norms, np.float32(qnorm))
                got = (np.arange(layer.n_docs, dtype=np.int64), np.divide(dots, den, out=dots))
            docs.append(got[0] + at)
            scores.append(got[1])
        if len(docs) == 1:
            return docs[0], scores[0]
        return np.concatenate(docs), np.concatenate(scores)


@dataclass(frozen=True)
class MacChannel:
    """S1: cosine over MAC content vectors, keeping the best and those near it.

    Attributes:
        keep_fraction: keep hits scoring at least this fraction of the best (MAC: 0.9).
        min_score: never keep a hit below this cosine.
        name: channel name in the pool.
    """

    keep_fraction: float = 0.6
    min_score: float = 0.2
    name: str = "S1"
    needs: str = "signature"
    source: Indexes | None = field(default=None, compare=False, repr=False)

    def search(self, target: Target, k: int, exclude: frozenset[str] = frozenset()) -> list[Hit]:
        if self.source is None or target.signature is None:
            raise ChannelUnavailable("S1 needs a memory index and a target signature")
        index = self.source.mac()
        if len(index) == 0:
            raise ChannelUnavailable("no signed episodes are stored yet")
        query = mac_features(target.signature, self.source.commutative)
        docs, scores = index.candidates(query, k, self.min_score, self.keep_fraction, exclude)
        top = select(docs, scores, k, self.min_score, self.keep_fraction)
        hits: list[tuple[str, float, dict]] = [
            (index.ids[int(docs[i])], round(float(scores[i]), 6), {}) for i in top
        ]
        return ranked(self.name, hits, k)
