"""Phase one of SME: constructing the match-hypothesis forest.

Follows "Match Hypothesis Network construction" of the SME v4 algorithm note (section 2.1,
after Falkenhainer, Forbus & Gentner 1989 and Forbus et al. 2017):

1. Seeding: every base expression is paired with every target expression of the same functor
   (tiered identicality: relations and attributes only match identically), except functors
   marked ubiquitous. Logical connectives seed like any other functor, as in SME v4 (its
   commutatives regression cases need ``and`` ~ ``and`` seeds); a vocabulary that wants them
   pulled in only under a matched parent marks them ``ubiquitous``.
2. Growth: the corresponding arguments of every hypothesis are aligned in turn. Two entities
   always make a hypothesis; an entity against an expression never does; two expressions with
   the same functor do (this is how ubiquitous predicates get pulled in); two *functions* with
   different functors do too, unless the identical-functions filter is on (cross-dimensional
   matches such as pressure/temperature). A failed alignment makes the parent *incomplete*.
3. Each expression hypothesis depends on a functor hypothesis pairing the two functors; these
   take part in the one-to-one constraint (a base functor maps to one target functor).

Commutative predicates (sets such as ``and``) are matched as in SME's commutatives table: the
arguments of a commutative pair are not aligned by position. Every base argument is tried
against every target argument, the successful pairs become *possible children*, and the choice
among them is deferred to mapping time (see :mod:`analogist.mapping.commutative`).

Complexity: seeding is O(n^2) in the worst case (one functor everywhere), near O(n log n) with
distinct functors; growth adds at most one hypothesis per argument pair.
"""

from __future__ import annotations

from dataclasses import dataclass

from analogist.mapping.expressions import FUNCTION, DescriptionIndex
from analogist.mapping.params import SMEParams

ENTITY, EXPRESSION, FUNCTOR = 0, 1, 2


@dataclass(frozen=True, eq=False)
class Forest:
    """The match-hypothesis forest, as parallel arrays indexed by hypothesis id.

    Attributes:
        base: base node id (entities, expressions) or functor name (functor hypotheses).
        target: target node id or functor name.
        kind: ENTITY, EXPRESSION or FUNCTOR.
        children: aligned argument hypotheses of non-commutative expressions, in order.
        possible: commutative hypotheses' possible children as (base arg pos, target arg pos,
            hypothesis id).
        commutative: whether the arguments are matched as a set.
        arity: number of arguments (0 for entities and functors).
        functor_mh: the functor hypothesis of an expression hypothesis (-1 otherwise).
        incomplete: some argument pair could not be aligned (parallel connectivity fails).
        local: local score (same-functor / same-function; 0 for entities and functors).
        parents: hypotheses having this one as a (possible) child or as their functor.
        order: 0 for entities and functors, else 1 + the deepest child's order.
        commutative_mask: bit set of the commutative hypotheses.
    """

    base: tuple[int | str, ...]
    target: tuple[int | str, ...]
    kind: tuple[int, ...]
    children: tuple[tuple[int, ...], ...]
    possible: tuple[tuple[tuple[int, int, int], ...], ...]
    commutative: tuple[bool, ...]
    arity: tuple[int, ...]
    functor_mh: tuple[int, ...]
    incomplete: tuple[bool, ...]
    local: tuple[float, ...]
    parents: tuple[tuple[int, ...], ...]
    order: tuple[int, ...]
    commutative_mask: int

    def __len__(self) -> int:
        return len(self.kind)


# Row layout used while building; transposed into the Forest's parallel arrays at the end.
_BASE, _TARGET, _KIND, _CHILDREN, _POSSIBLE, _COMM, _ARITY, _FUNCTOR, _INCOMPLETE, _LOCAL, \
    _ORDER = range(11)


class _Builder:
    """Creates hypotheses on demand; ``ensure`` is step 2 of the construction algorithm."""

    def __init__(self, b: DescriptionIndex, t: DescriptionIndex, params: SMEParams,
                 identical_functions: bool):
        self.b, self.t, self.params = b, t, params
        self.cross_functions = not identical_functions
        self.rows: list[list] = []
        self.pairs: dict[tuple[int, int], int | None] = {}
        self.functors: dict[tuple[str, str], int] = {}

    def _new(self, base: int | str, target: int | str, kind: int, local: float) -> int:
        self.rows.append([base, target, kind, (), (), False, 0, -1, False, local, 0])
        return len(self.rows) - 1

    def ensure(self, bn: int, tn: int) -> int | None:
        """The hypothesis aligning base node ``bn`` with target node ``tn``, or None."""
        key = (bn, tn)
        if key in self.pairs:
            return self.pairs[key]
        b, t = self.b, self.t
        mh: int | None = None
        if b.is_entity[bn] or t.is_entity[tn]:
            if b.is_entity[bn] and t.is_entity[tn]:
                mh = self._new(bn, tn, ENTITY, 0.0)
            self.pairs[key] = mh
            return mh
        same = b.functor[bn] == t.functor[tn]
        functions = b.kind[bn] == FUNCTION and t.kind[tn] == FUNCTION
        if ((same or (functions and self.cross_functions))
                and len(b.args[bn]) == len(t.args[tn])
                and b.commutative[bn] == t.commutative[tn]):
            return self._expression(bn, tn, same, functions)
        self.pairs[key] = None
        return None

    def _expression(self, bn: int, tn: int, same: bool, functions: bool) -> int:
        p, rows = self.params, self.rows
        local = p.same_function if functions and not same else p.same_functor
        mh = self._new(bn, tn, EXPRESSION, local)
        self.pairs[(bn, tn)] = mh
        row = rows[mh]
        row[_FUNCTOR] = self._functor(self.b.functor[bn], self.t.functor[tn])
        b_args, t_args = self.b.args[bn], self.t.args[tn]
        row[_ARITY] = len(b_args)
        if self.b.commutative[bn]:
            found = [(i, j, self.ensure(ba, ta))
                     for i, ba in enumerate(b_args) for j, ta in enumerate(t_args)]
            kids = tuple((i, j, c) for i, j, c in found if c is not None)
            row[_COMM] = True
            row[_POSSIBLE] = kids
            row[_ORDER] = 1 + max([rows[c][_ORDER] for _, _, c in kids], default=0)
        else:
            aligned = [self.ensure(ba, ta) for ba, ta in zip(b_args, t_args)]
            children = tuple([c for c in aligned if c is not None])
            row[_CHILDREN] = children
            row[_INCOMPLETE] = len(children) < len(aligned)
            row[_ORDER] = 1 + max([rows[c][_ORDER] for c in children], default=0)
        return mh

    def _functor(self, bf: str, tf: str) -> int:
        mh = self.functors.get((bf, tf))
        if mh is None:
            mh = self._new(bf, tf, FUNCTOR, 0.0)
            self.functors[(bf, tf)] = mh
        return mh

    def seed(self) -> None:
        """Step 1: hypotheses for all same-functor expression pairs (growth runs inside)."""
        t_bins, pairs = self.t.bins, self.pairs
        for f, b_nodes in self.b.bins.items():
            t_nodes = t_bins.get(f)
            if not t_nodes or self.b.ubiquitous[b_nodes[0]]:
                continue
            for bn in b_nodes:
                for tn in t_nodes:
                    if (bn, tn) not in pairs:
                        self.ensure(bn, tn)

    def freeze(self) -> Forest:
        cols = list(zip(*self.rows)) if self.rows else [()] * 11
        n = len(self.rows)
        parents: list[list[int]] = [[] for _ in range(n)]
        for mh, row in enumerate(self.rows):
            for c in set(row[_CHILDREN]):
                parents[c].append(mh)
            for c in {c for _, _, c in row[_POSSIBLE]}:
                parents[c].append(mh)
            if row[_FUNCTOR] >= 0:
                parents[row[_FUNCTOR]].append(mh)
        return Forest(
            base=cols[_BASE], target=cols[_TARGET], kind=cols[_KIND],
            children=cols[_CHILDREN], possible=cols[_POSSIBLE], commutative=cols[_COMM],
            arity=cols[_ARITY], functor_mh=cols[_FUNCTOR], incomplete=cols[_INCOMPLETE],
            local=cols[_LOCAL], parents=tuple(map(tuple, parents)), order=cols[_ORDER],
            commutative_mask=sum(1 << mh for mh, c in enumerate(cols[_COMM]) if c),
        )


def build_forest(base: DescriptionIndex, target: DescriptionIndex, params: SMEParams,
                 identical_functions: bool = False) -> Forest:
    """Seeds and grows the match-hypothesis forest of ``base`` against ``target``."""
    builder = _Builder(base, target, params, identical_functions)
    builder.seed()
    return builder.freeze()
