"""Integer-indexed view of a description, built once and reused by every match.

SME works over *items*: entities and expressions (and the functors in them). The engine numbers
the items of a description ("nodes") and precomputes what each phase asks of them: functor bins
for seeding (the SME v4 note, 2.1.1, sorts expressions into bins by functor so that seeding is
near-linear), arguments and parents for growing and propagating, the root statements, and for
every node the roots whose structure contains it (for base partitions and inferences).

An index is cached on its description (it holds no reference back to it), so matching one
target against many bases, or re-running a match with other parameters, does not rebuild it.
"""

from __future__ import annotations

from typing import Final

from analogist.signature.description import Arg, Description, Expr, new_expr

KIND_CODES = {"relation": 0, "function": 1, "attribute": 2, "logical": 3}
FUNCTION: Final = 1  # KIND_CODES["function"]


class DescriptionIndex:
    """Nodes of one description and the relations among them (a plain slotted record:
    it is built once per description, in the hot path of a fresh comparison).

    Attributes:
        name: the description's name (for messages).
        items: node id -> the entity name or :class:`Expr`.
        node_of: item -> node id (the inverse of ``items``, every written form of a node
            included; built on first use, by the match filters).
        is_entity: node id -> whether it is an entity.
        functor: node id -> functor name ("" for entities).
        kind: node id -> predicate kind code (:data:`KIND_CODES`), -1 for entities.
        commutative: node id -> whether its arguments match as a set.
        ubiquitous: node id -> whether its functor is never a seed.
        symmetric: node id -> whether its predicate is symmetric.
        n_ary: node id -> whether its predicate is n-ary.
        args: node id -> argument node ids.
        height: node id -> 0 for entities, else 1 + the highest argument's height.
        bins: functor -> expression node ids with that functor, both in definition order
            (SME v4 seeds from the oldest bin, newest expression first: ``items-since``).
        roots: root expression node ids, in description order.
        child_of: node id -> the expressions it is an argument of, in definition order,
            repeated when the node is an argument twice (SME's ``parents`` list reversed).
        canonical: node id -> the item rebuilt from its arguments' nodes (SME's ``lisp-form``;
            differs from ``items`` only when a symmetric sub-expression was written in both
            argument orders). ``items`` keeps the first-written form (SME's ``user-form``).
    """

    __slots__ = (
        "_expr_nodes",
        "_exprs",
        "_lisp_roots",
        "_node_of",
        "_self_scores",
        "args",
        "bins",
        "canonical",
        "child_of",
        "commutative",
        "functor",
        "height",
        "is_entity",
        "items",
        "kind",
        "n_ary",
        "name",
        "roots",
        "symmetric",
        "ubiquitous",
    )

    def __init__(
        self,
        name: str,
        items: list[Arg],
        exprs: tuple[Expr, ...],
        expr_nodes: list[int],
        is_entity: list[bool],
        functor: list[str],
        kind: list[int],
        commutative: list[bool],
        ubiquitous: list[bool],
        symmetric: list[bool],
        n_ary: list[bool],
        args: list[tuple[int, ...]],
        height: list[int],
        bins: dict[str, list[int]],
        roots: list[int],
        child_of: list[list[int]],
        canonical: list[Arg],
    ):
        self.name, self.items, self.is_entity = name, items, is_entity
        self._exprs, self._expr_nodes = exprs, expr_nodes  # for node_of
        self._node_of: dict[Arg, int] | None = None
        self.functor, self.kind, self.commutative = functor, kind, commutative
        self.ubiquitous, self.symmetric, self.n_ary = ubiquitous, symmetric, n_ary
        self.args, self.height, self.bins, self.roots = args, height, bins, roots
        self.child_of, self.canonical = child_of, canonical
        self._lisp_roots: dict[int, tuple[int, ...]] = {}
        self._self_scores: dict[tuple, float] = {}

    @property
    def node_of(self) -> dict[Arg, int]:
        found = self._node_of
        if found is None:
            n_entities = self.is_entity.count(True)
            found = {self.items[j]: j for j in range(n_entities)}
            found.update(zip(self._exprs, self._expr_nodes))
            self._node_of = found
        return found

    def lisp_roots(self, node: int) -> tuple[int, ...]:
        """SME's ``roots`` of a node: the parentless expressions above it, in SME's order."""
        found = self._lisp_roots.get(node)
        if found is None:
            parents = self.child_of[node]
            if not parents:
                found = (node,)
            else:
                acc: list[int] = []
                for p in reversed(parents):  # SME's parent list: newest first
                    for r in self.lisp_roots(p):
                        if r not in acc:
                            acc.append(r)
                found = tuple(reversed(acc))  # pushnew builds the list front-first
            self._lisp_roots[node] = found
        return found

    def self_score(self, trickle_down: float, same_functor: float, cap: float | None) -> float:
        """Score of matching the description onto an identical copy; memoised per setting.

        It is the trickle-down sum over the description's own expression graph, the score SME
        gives the identity mapping, used to normalise mapping scores.
        """
        key = (trickle_down, same_functor, cap)
        found = self._self_scores.get(key)
        if found is None:
            n = len(self.items)
            scores = [0.0] * n
            is_entity, child_of = self.is_entity, self.child_of
            for node in range(n - 1, -1, -1):  # parents before arguments
                local = 0.0 if is_entity[node] else same_functor
                parents = dict.fromkeys(child_of[node])
                s = local + trickle_down * sum([scores[q] for q in parents])
                scores[node] = s if cap is None else min(s, cap)
            found = self._self_scores[key] = sum(scores)
        return found


_ATTR = "_analogist_mapping_index"


def index_description(description: Description) -> DescriptionIndex:
    """The index of ``description``, cached on the description itself (a frozen value; the
    index holds no reference back to it, so the two are freed together)."""
    cache = description.__dict__
    found = cache.get(_ATTR)
    if found is None:
        found = cache[_ATTR] = _build(description)
    return found


def _build(d: Description) -> DescriptionIndex:
    """One pass over the description in definition order (children first).

    Nodes are as SME v4 defines them: an expression equal to an earlier one up to the order
    of a symmetric predicate's arguments (at any depth) is that earlier expression
    (``user-forms-equal``), so ``(near a b)`` and ``(near b a)`` are one node."""
    items: list[Arg] = [e.name for e in d.entities]
    n_entities = len(items)
    entity_node: dict[str, int] = dict(zip(items, range(n_entities)))  # type: ignore[arg-type]
    # Arguments are looked up by identity first (a parsed description shares one instance
    # per sub-expression), by value otherwise (Expr hashes in Python, identity in C).
    by_id: dict[int, int] = {}
    by_value: dict[Arg, int] | None = None
    exprs = d.expressions
    expr_nodes: list[int] = []
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
    child_of: list[list[int]] = [[] for _ in range(n_entities)]
    bins: dict[str, list[int]] = {}
    seen: dict[tuple[str, tuple[int, ...]], int] = {}
    any_symmetric = False
    i = n_entities
    for expr in exprs:
        f = expr.functor
        t = typing.get(f)
        if t is None:
            info = preds[f]
            t = typing[f] = (
                KIND_CODES[info.kind],
                info.commutative,
                info.ubiquitous,
                info.symmetric,
                info.n_ary,
            )
            any_symmetric = any_symmetric or info.symmetric
        arg_list: list[int] = []
        for a in expr.args:
            if type(a) is str:
                arg_list.append(entity_node[a])
                continue
            node = by_id.get(id(a))
            if node is None:
                if by_value is None:
                    by_value = dict(entity_node.items())
                    by_value.update(zip(exprs, expr_nodes))
                node = by_value[a]
            arg_list.append(node)
        arg_ids = tuple(arg_list)
        key = (f, arg_ids)
        found = seen.get(key)
        if found is None and t[3]:
            found = seen.get((f, arg_ids[::-1]))
        if found is not None:
            by_id[id(expr)] = found
            expr_nodes.append(found)
            if by_value is not None:
                by_value[expr] = found
            continue
        seen[key] = by_id[id(expr)] = i
        expr_nodes.append(i)
        if by_value is not None:
            by_value[expr] = i
        items.append(expr)
        functor.append(f)
        kind.append(t[0])
        comm.append(t[1])
        ubiq.append(t[2])
        symm.append(t[3])
        nary.append(t[4])
        args.append(arg_ids)
        child_of.append([])
        h = 0
        for a_node in arg_ids:
            child_of[a_node].append(i)
            h = max(h, height[a_node])
        height.append(h + 1 if arg_ids else 0)
        b = bins.get(f)
        if b is None:
            bins[f] = [i]
        else:
            b.append(i)
        i += 1
    n = len(items)
    roots = [j for j in range(n_entities, n) if not child_of[j]]
    canonical: list[Arg] = items
    if any_symmetric:
        canonical = list(items)
        for j in range(n_entities, n):
            expr = items[j]  # type: ignore[assignment]
            rebuilt = tuple([canonical[a] for a in args[j]])
            if rebuilt != expr.args:
                canonical[j] = new_expr(expr.functor, rebuilt)
    is_entity = [True] * n_entities
    is_entity += [False] * (n - n_entities)
    return DescriptionIndex(
        d.name,
        items,
        exprs,
        expr_nodes,
        is_entity,
        functor,
        kind,
        comm,
        ubiq,
        symm,
        nary,
        args,
        height,
        bins,
        roots,
        child_of,
        canonical,
    )
