"""Integer-indexed view of a description, built once and reused by every match.

SME works over *items*: entities and expressions (and the functors in them). The engine numbers
the items of a description ("nodes") and precomputes what each phase asks of them: functor bins
for seeding (the SME v4 note, 2.1.1, sorts expressions into bins by functor so that seeding is
near-linear), arguments and parents for growing and propagating, the root statements, and for
every node the roots whose structure contains it (for base partitions and inferences).

An index is cached per description (weakly: it holds no reference back to the description), so
matching one target against many bases, or re-running a match with other parameters, does not
rebuild it.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field

from analogist.signature.description import Arg, Description, Expr

KIND_CODES = {"relation": 0, "function": 1, "attribute": 2, "logical": 3}
FUNCTION = KIND_CODES["function"]


@dataclass(frozen=True, eq=False)
class DescriptionIndex:
    """Nodes of one description and the relations among them.

    Attributes:
        name: the description's name (for messages).
        items: node id -> the entity name or :class:`Expr`.
        node_of: the inverse of ``items``.
        is_entity: node id -> whether it is an entity.
        functor: node id -> functor name ("" for entities).
        kind: node id -> predicate kind code (:data:`KIND_CODES`), -1 for entities.
        commutative: node id -> whether its arguments match as a set.
        ubiquitous: node id -> whether its functor is never a seed.
        args: node id -> argument node ids.
        parents: node id -> ids of the expressions it is an argument of.
        height: node id -> 0 for entities, else 1 + the highest argument's height.
        bins: functor -> expression node ids with that functor.
        roots: root expression node ids, in description order.
        symmetric: node id -> whether its predicate is symmetric.
        n_ary: node id -> whether its predicate is n-ary.
        lisp_bins_list: SME v4's functor bins in its own order (newest bin first, newest
            expression first within a bin); the order in which SME seeds hypotheses.
        lisp_bins: the same as a dict.
        lisp_parents: node id -> parent expressions in SME's list order (newest first,
            repeated when the node is an argument twice).
        canonical: node id -> the item rebuilt from its arguments' nodes (SME's ``lisp-form``;
            differs from ``items`` only when a symmetric sub-expression was written in both
            argument orders). ``items`` keeps the first-written form (SME's ``user-form``).
    """

    name: str
    items: tuple[Arg, ...]
    node_of: Mapping[Arg, int]
    is_entity: tuple[bool, ...]
    functor: tuple[str, ...]
    kind: tuple[int, ...]
    commutative: tuple[bool, ...]
    ubiquitous: tuple[bool, ...]
    args: tuple[tuple[int, ...], ...]
    parents: tuple[tuple[int, ...], ...]
    height: tuple[int, ...]
    bins: Mapping[str, tuple[int, ...]]
    roots: tuple[int, ...]
    symmetric: tuple[bool, ...] = ()
    n_ary: tuple[bool, ...] = ()
    lisp_bins_list: tuple[tuple[str, tuple[int, ...]], ...] = ()
    lisp_bins: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    lisp_parents: tuple[tuple[int, ...], ...] = ()
    canonical: tuple[Arg, ...] = ()
    _lisp_roots: dict[int, tuple[int, ...]] = field(default_factory=dict, repr=False)
    _under: dict[int, frozenset[int]] = field(default_factory=dict, repr=False)
    _self_scores: dict[tuple, float] = field(default_factory=dict, repr=False)
    _root_scores: dict[tuple, dict[int, float]] = field(default_factory=dict, repr=False)

    def lisp_roots(self, node: int) -> tuple[int, ...]:
        """SME's ``roots`` of a node: the parentless expressions above it, in SME's order."""
        found = self._lisp_roots.get(node)
        if found is None:
            parents = self.lisp_parents[node]
            if not parents:
                found = (node,)
            else:
                acc: list[int] = []
                for p in parents:
                    for r in self.lisp_roots(p):
                        if r not in acc:
                            acc.append(r)
                found = tuple(reversed(acc))  # pushnew builds the list front-first
            self._lisp_roots[node] = found
        return found

    def under_root(self, root: int) -> frozenset[int]:
        """Every node in the structure of ``root`` (itself included); memoised."""
        found = self._under.get(root)
        if found is None:
            seen = {root}
            stack = [root]
            while stack:
                for a in self.args[stack.pop()]:
                    if a not in seen:
                        seen.add(a)
                        stack.append(a)
            found = self._under[root] = frozenset(seen)
        return found

    def self_match(self, root: int, trickle_down: float, same_functor: float,
                   cap: float | None) -> dict[int, float]:
        """Trickle-down scores of the nodes under ``root`` when it is matched to itself;
        memoised per root and setting (used for inference extrapolation)."""
        key = (root, trickle_down, same_functor, cap)
        found = self._root_scores.get(key)
        if found is None:
            members = self.under_root(root)
            found = {}
            for node in sorted(members, key=self.height.__getitem__, reverse=True):
                local = 0.0 if self.is_entity[node] else same_functor
                inherited = sum([found[p] for p in self.parents[node] if p in members])
                s = local + trickle_down * inherited
                found[node] = s if cap is None else min(s, cap)
            self._root_scores[key] = found
        return found

    def self_score(self, trickle_down: float, same_functor: float,
                   cap: float | None) -> float:
        """Score of matching the description onto an identical copy; memoised per setting.

        It is the trickle-down sum over the description's own expression graph, the score SME
        gives the identity mapping, used to normalise mapping scores.
        """
        key = (trickle_down, same_functor, cap)
        found = self._self_scores.get(key)
        if found is None:
            scores = [0.0] * len(self.items)
            for node in range(len(self.items) - 1, -1, -1):  # parents before arguments
                local = 0.0 if self.is_entity[node] else same_functor
                s = local + trickle_down * sum([scores[q] for q in self.parents[node]])
                scores[node] = s if cap is None else min(s, cap)
            found = self._self_scores[key] = sum(scores)
        return found


_CACHE: weakref.WeakKeyDictionary[Description, DescriptionIndex] = weakref.WeakKeyDictionary()


def index_description(description: Description) -> DescriptionIndex:
    """The (cached) index of ``description``."""
    found = _CACHE.get(description)
    if found is not None:
        return found
    index = _build(description)
    _CACHE[description] = index
    return index


def _build(d: Description) -> DescriptionIndex:
    """One pass over the description in definition order (children first).

    Nodes are as SME v4 defines them: an expression equal to an earlier one up to the order
    of a symmetric predicate's arguments (at any depth) is that earlier expression
    (``user-forms-equal``), so ``(near a b)`` and ``(near b a)`` are one node."""
    items: list[Arg] = [e.name for e in d.entities]
    node_of: dict[Arg, int] = {item: i for i, item in enumerate(items)}
    n_entities = len(items)
    preds = d.predicates
    typing: dict[str, tuple[int, bool, bool, bool, bool]] = {}
    functor: list[str] = [""] * n_entities
    kind: list[int] = [-1] * n_entities
    comm: list[bool] = [False] * n_entities
    ubiq: list[bool] = [False] * n_entities
    symm: list[bool] = [False] * n_entities
    nary: list[bool] = [False] * n_entities
    args: list[tuple[int, ...]] = [()] * n_entities
    height: list[int] = [0] * n_entities
    lisp_parents: list[list[int]] = [[] for _ in range(n_entities)]
    has_parent: list[bool] = [False] * n_entities
    bins: dict[str, list[int]] = {}
    seen: dict[tuple, int] = {}
    any_symmetric = False
    for expr in d.expressions:
        f = expr.functor
        t = typing.get(f)
        if t is None:
            info = preds[f]
            t = typing[f] = (KIND_CODES[info.kind], info.commutative, info.ubiquitous,
                             info.symmetric, info.n_ary)
        arg_ids = tuple([node_of[a] for a in expr.args])
        key = (f, arg_ids)
        found = seen.get(key)
        if found is None and t[3]:
            found = seen.get((f, arg_ids[::-1]))
        if found is not None:
            node_of[expr] = found
            continue
        i = len(items)
        seen[key] = node_of[expr] = i
        items.append(expr)
        functor.append(f)
        kind.append(t[0])
        comm.append(t[1])
        ubiq.append(t[2])
        symm.append(t[3])
        any_symmetric = any_symmetric or t[3]
        nary.append(t[4])
        args.append(arg_ids)
        lisp_parents.append([])
        has_parent.append(False)
        h = 0
        for a in arg_ids:
            lisp_parents[a].append(i)
            has_parent[a] = True
            h = max(h, height[a])
        height.append(h + 1 if arg_ids else 0)
        b = bins.get(f)
        if b is None:
            bins[f] = [i]
        else:
            b.append(i)
    n = len(items)
    parents: list[tuple[int, ...]] = [tuple(dict.fromkeys(p)) for p in lisp_parents]
    roots = tuple(i for i in range(n_entities, n) if not has_parent[i])
    lisp_bins_list = tuple((f, tuple(reversed(v))) for f, v in reversed(bins.items()))
    canonical: list[Arg] = items
    if any_symmetric:
        canonical = list(items)
        for i in range(n_entities, n):
            expr = items[i]  # type: ignore[assignment]
            rebuilt = tuple(canonical[a] for a in args[i])
            if rebuilt != expr.args:
                canonical[i] = Expr(expr.functor, rebuilt)  # type: ignore[arg-type]
    return DescriptionIndex(
        name=d.name, items=tuple(items), node_of=node_of,
        is_entity=tuple(i < n_entities for i in range(n)), functor=tuple(functor),
        kind=tuple(kind), commutative=tuple(comm), ubiquitous=tuple(ubiq), args=tuple(args),
        parents=tuple(parents), height=tuple(height),
        bins={f: tuple(v) for f, v in bins.items()}, roots=roots,
        symmetric=tuple(symm), n_ary=tuple(nary), lisp_bins_list=lisp_bins_list,
        lisp_bins=dict(lisp_bins_list),
        lisp_parents=tuple([tuple(p[::-1]) for p in lisp_parents]),
        canonical=tuple(canonical),
    )
