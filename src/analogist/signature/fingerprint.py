"""Weisfeiler–Lehman fingerprint of a signature graph (retrieval channel S0, spec §7).

A signature is turned into a small directed, edge-labelled graph whose labels carry structure
only, never surface words:

* one node per role, labelled ``role`` (not its name, not its description);
* one node per distinct term (each relation and each causal-chain term, nested terms too),
  labelled with its predicate; an edge from the term to each argument, labelled with the
  argument position (``*`` for a commutative predicate such as ``races_with``);
* each causal link ``cause --causes--> effect`` is an edge between the two term nodes,
  labelled with the link; a term used both as a relation and in the chain is one node;
* optionally (``include_fix``) a node labelled ``fix`` with positional edges to the fix
  operator's arguments (its argument structure only; the operator name is free text).

Then *h* rounds of WL relabelling (Shervashidze et al. 2011, "Weisfeiler-Lehman Graph
Kernels", JMLR 12): a node's new label is a stable hash (blake2b) of its label and the sorted
multiset of (direction, edge label, neighbour label). Every label of every round is counted
(the features); the sorted multiset of the last round's labels hashes to ``wl_hash`` (each
label embeds its node's earlier labels, so this equals hashing the whole histogram). Equal
hashes mean the graphs are WL-equivalent (for these small graphs, in practice isomorphic): an
*exact* structural hit. Feature overlap (:func:`weighted_jaccard` of :func:`near_features`)
gives *near* hits.

The hash is versioned (``wl1-h3``; ``-fix`` when the fix structure is included). Any change to
graph construction or hashing must bump ``WL_SCHEME``, so stored fingerprints of an older
version are recognised and recomputed rather than silently compared.

Complexity: O(h * (V + E) log d) per signature, where d is the largest degree.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from analogist.signature.model import Relation
from analogist.signature.terms import Term
from analogist.signature.vocabulary import Vocabulary, default_vocabulary

WL_SCHEME = "wl1"


class Structure(Protocol):
    """What the fingerprint reads: a :class:`~analogist.signature.Signature` or a schema."""

    @property
    def roles(self) -> tuple[Any, ...]: ...
    @property
    def relations(self) -> tuple[Any, ...]: ...
    @property
    def causal_chain(self) -> tuple[Any, ...]: ...
    @property
    def fix_operator(self) -> Any: ...


@dataclass(frozen=True)
class Fingerprint:
    """A WL fingerprint: the graph hash, its version and the count of every WL label.

    Feature keys are ``"<round>:<label>"``; round-0 labels are readable (``0:role``,
    ``0:p=derives_from``), later ones are 12-hex-digit hashes.
    """

    wl_hash: str
    version: str
    features: Counter

    def as_row(self) -> tuple[str, str, dict[str, int]]:
        """``(wl_hash, version, features)`` as :class:`analogist.store.Derived` expects."""
        return self.wl_hash, self.version, dict(self.features)


def _h(text: str, size: int = 6) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=size).hexdigest()


#: An empty 6-byte BLAKE2b state that :func:`wl_rounds` copies for each label it hashes.
_BLANK6 = hashlib.blake2b(digest_size=6)


_COMMUTATIVE: dict[int, tuple[Vocabulary, frozenset[str]]] = {}


def commutative_terms(vocab: Vocabulary | None) -> frozenset[str]:
    """Names of commutative predicates in ``vocab`` (cached per vocabulary object)."""
    vocab = vocab if vocab is not None else default_vocabulary()
    hit = _COMMUTATIVE.get(id(vocab))
    if hit is None or hit[0] is not vocab:
        hit = (vocab, frozenset(t.term for t in vocab if t.commutative))
        _COMMUTATIVE[id(vocab)] = hit
    return hit[1]


def term_key(t: Term, commutative: frozenset[str]) -> tuple:
    """A term's identity, arguments sorted for commutative predicates, so
    ``races_with(A,B)`` in the relations and ``races_with(B,A)`` in the chain are one node."""
    args = tuple(a if isinstance(a, str) else term_key(a, commutative) for a in t.args)
    if t.functor in commutative:
        args = tuple(sorted(args, key=repr))
    return (t.functor, args)


class _Graph:
    """Nodes with labels and labelled directed edges, keyed so shared terms merge."""

    def __init__(self, commutative: frozenset[str]):
        self.commutative = commutative
        self.labels: list[str] = []
        self.edges: list[tuple[int, int, str]] = []
        self.index: dict[tuple, int] = {}

    def node(self, key: tuple, label: str) -> int:
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self.labels)
            self.labels.append(label)
        return i

    def role(self, name: str) -> int:
        return self.node(("role", name), "role")

    def relation(self, functor: str, args: tuple[str, ...]) -> int:
        """:meth:`term` of ``functor(*args)`` whose arguments are all role names (a relation),
        without building the Term: the same key, node and edges."""
        comm = functor in self.commutative
        key = ("term", (functor, tuple(sorted(args, key=repr)) if comm else args))
        index = self.index
        i = index.get(key)
        if i is not None:
            return i
        i = index[key] = len(self.labels)
        self.labels.append("p=" + functor)
        edges = self.edges
        for pos, a in enumerate(args):
            j = index.get(("role", a))
            if j is None:
                j = self.node(("role", a), "role")
            edges.append((i, j, "*" if comm else str(pos)))
        return i

    def term(self, t: Term) -> int:
        key = ("term", term_key(t, self.commutative))
        if key in self.index:
            return self.index[key]
        i = self.node(key, "p=" + t.functor)
        comm = t.functor in self.commutative
        for pos, a in enumerate(t.args):
            j = self.role(a) if isinstance(a, str) else self.term(a)
            self.edges.append((i, j, "*" if comm else str(pos)))
        return i


class SignatureGraph(NamedTuple):
    """Node labels (``role``, ``p=<predicate>``, ``fix``) and (source, target, label) edges."""

    labels: list[str]
    edges: list[tuple[int, int, str]]


def signature_graph(
    s: Structure, commutative: frozenset[str] = frozenset(), include_fix: bool = False
) -> SignatureGraph:
    """The labelled graph of a signature (see the module docstring)."""
    g = _Graph(commutative)
    for r in s.roles:
        g.role(r.name)
    for rel in s.relations:
        if type(rel) is Relation and all(type(a) is str for a in rel.args):
            g.relation(rel.predicate, rel.args)
        else:
            g.term(rel.term())
    for link in s.causal_chain:
        g.edges.append((g.term(link.cause), g.term(link.effect), "L=" + link.link))
    if include_fix and s.fix_operator is not None:
        f = g.node(("fix", ""), "fix")
        for pos, a in enumerate(s.fix_operator.term.args):
            j = g.role(a) if isinstance(a, str) else g.term(a)
            g.edges.append((f, j, f"f{pos}"))
    return SignatureGraph(g.labels, g.edges)


def wl_rounds(
    labels: list[str], edges: Iterable[tuple[int, int, str]], iterations: int
) -> tuple[Counter, list[str]]:
    """Counts of every WL label over rounds 0..``iterations`` (keys ``"<round>:<label>"``),
    and the last round's labels."""
    n = len(labels)
    adj: list[list[tuple[str, int]]] = [[] for _ in range(n)]
    for i, j, lab in edges:
        adj[i].append((">" + lab + ":", j))
        adj[j].append(("<" + lab + ":", i))
    cur = labels
    out = ["0:" + x for x in cur]
    # A copy of an empty 6-byte BLAKE2b state, updated, gives the same digest as a new one
    # at ~60 % of its cost. (Memoising relabellings across graphs measured slower.)
    blank = _BLANK6
    for it in range(1, iterations + 1):
        nxt = []
        for v in range(n):
            neighbours = [d + cur[j] for d, j in adj[v]]
            neighbours.sort()
            h = blank.copy()
            h.update((cur[v] + "|" + ",".join(neighbours)).encode("utf-8"))
            nxt.append(h.hexdigest())
        cur = nxt
        prefix = f"{it}:"
        out += [prefix + x for x in cur]
    return Counter(out), cur


def wl_features(
    labels: list[str], edges: Iterable[tuple[int, int, str]], iterations: int
) -> Counter:
    """Counts of every WL label over rounds 0..``iterations``."""
    return wl_rounds(labels, edges, iterations)[0]


@dataclass(frozen=True)
class WLFingerprint:
    """The fingerprint algorithm; its fields are its parameters (recorded via ``version``).

    Attributes:
        iterations: WL rounds *h* (3 sees the neighbourhood of a causal chain of length 3).
        include_fix: add the fix operator's argument structure to the graph.

    >>> from analogist.signature import Signature, Role, Relation
    >>> s = Signature("e1", "failure", (Role("A", "a"), Role("B", "b")),
    ...               (Relation("depends_on", ("A", "B")),))
    >>> t = Signature("e2", "failure", (Role("X", "x"), Role("Y", "y")),
    ...               (Relation("depends_on", ("X", "Y")),))
    >>> WLFingerprint()(s).wl_hash == WLFingerprint()(t).wl_hash
    True
    """

    iterations: int = 3
    include_fix: bool = False

    @property
    def version(self) -> str:
        return f"{WL_SCHEME}-h{self.iterations}" + ("-fix" if self.include_fix else "")

    def __call__(self, s: Structure, vocab: Vocabulary | None = None) -> Fingerprint:
        return self.of_graph(self.graph(s, vocab))

    def graph(self, s: Structure, vocab: Vocabulary | None = None) -> SignatureGraph:
        """The graph this fingerprint hashes (shared with the MAC features by the memory)."""
        return signature_graph(s, commutative_terms(vocab), self.include_fix)

    def of_graph(self, graph: SignatureGraph) -> Fingerprint:
        """The fingerprint of an already built signature graph."""
        feats, last = wl_rounds(graph.labels, graph.edges, self.iterations)
        digest = _h(self.version + ";" + ",".join(sorted(last)), size=16)
        return Fingerprint(digest, self.version, feats)


def fingerprint(s: Structure, vocab: Vocabulary | None = None, iterations: int = 3) -> Fingerprint:
    """Shorthand for ``WLFingerprint(iterations)(s, vocab)``."""
    return WLFingerprint(iterations)(s, vocab)


ROLE_FEATURE = "0:role"


def features_json(features: Mapping[str, int]) -> str:
    """``json.dumps(dict(features), sort_keys=True)``, as ``sig_fingerprint.features_json``
    stores it, written directly: the keys are round numbers and hex digests or vocabulary
    names, so nothing needs escaping (checked on the result; otherwise ``json.dumps``)."""
    items = sorted(features.items())
    text = "{" + ", ".join([f'"{k}": {v}' for k, v in items]) + "}"
    plain = text.isascii() and text.isprintable() and "\\" not in text
    if plain and text.count('"') == 2 * len(items):
        return text
    return json.dumps(dict(items), sort_keys=True)


def near_features(features: Mapping[str, int]) -> dict[str, int]:
    """The features used for near matching: every WL label except round 0's ``role``.

    All rounds count, as in the WL subtree kernel: for these small, dense graphs one changed
    relation alters most labels of rounds >= 2, so round 0 (predicate counts) and round 1
    (local patterns) carry the graded similarity. ``0:role`` is left out because every graph
    has it (it would make every posting list the whole corpus) and it only counts roles.
    (S0's index reads them off the features as it adds them, skipping ``ROLE_FEATURE``.)
    """
    return {k: v for k, v in features.items() if k != ROLE_FEATURE}


def weighted_jaccard(a: Mapping[str, int], b: Mapping[str, int]) -> float:
    """Weighted Jaccard similarity of two feature counts: sum(min) / sum(max), in [0, 1]."""
    keys = set(a) | set(b)
    top = sum(max(a.get(k, 0), b.get(k, 0)) for k in keys)
    if top == 0:
        return 0.0
    return sum(min(a.get(k, 0), b.get(k, 0)) for k in keys) / top
