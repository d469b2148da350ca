"""Phase one of SME: constructing the match-hypothesis forest, as SME v4 does.

Follows ``match-all-expressions`` and ``create-local-match`` (SME v4, match.lisp and
mhs.lisp), including the order in which hypotheses are made, because SME's tie-breaking
everywhere later follows that order (hypothesis ids, list order of parents and arguments):

1. Seeding: for each base functor bin (in the order the functors first occur; newest
   expression first within a bin), every base
   expression is paired with every target expression of the same functor and arity, unless
   the functor is ubiquitous.
2. Growth (``create-argument-expansion``): corresponding arguments are aligned. Two entities
   always align; two expressions align when they have the same functor and arity, or are both
   functions of the same arity (unless the identical-functions filter is on). A failed
   alignment makes the hypothesis *incomplete*; SME then keeps the unexpanded hypothesis, with
   no arguments.
3. Symmetric predicates get two hypotheses per pair, one with the target's arguments reversed
   (``make-symmetric-mh``); an argument that has several hypotheses (twins) multiplies its
   parent into one copy per combination.
4. Commutative predicates (sets such as ``and``): every base argument is tried against every
   target argument; those that align become *possible children*; the choice is left to the
   kernels and the merge (see :mod:`.commutative`). A non-n-ary commutative hypothesis is
   incomplete only when some base and some target argument both found no partner; an n-ary
   one when any did.
5. Every expression hypothesis gets a functor hypothesis pairing the two functors.

Sets of hypotheses are Python integers used as bit vectors over hypothesis ids; SME keeps them
as lists sorted by descending id, so iterating bits from the top gives SME's order.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Final, cast

from analogist.errors import MappingError
from analogist.mapping.expressions import FUNCTION, DescriptionIndex
from analogist.mapping.params import SMEParams

ENTITY: Final = 0
EXPRESSION: Final = 1
FUNCTOR: Final = 2
_ID = attrgetter("id")
_NO_CHILDREN: Final[list] = []  # shared while a hypothesis has no arguments or children

#: Default cap on the number of match hypotheses one comparison may create; beyond it the
#: comparison fails with :class:`~analogist.errors.MappingError` instead of exhausting memory.
#: Memory grows with the square of the hypothesis count (each hypothesis keeps descendant and
#: nogood sets over all of them, as in SME): 41,500 hypotheses (an 800-relation self-match)
#: peak at about 0.8 GB, so 50,000 keeps one comparison near 1.2 GB.
DEFAULT_MH_BUDGET: Final = 50_000


class MH:
    """One match hypothesis (SME's ``match-hypothesis``).

    ``parents`` is kept in creation order (SME pushes, so SME's list is its reverse);
    ``args`` and ``possible`` are in SME's own list order.
    """

    __slots__ = (
        "args",
        "base",
        "bit",
        "comm",
        "desc",
        "functor_mh",
        "id",
        "incomplete",
        "inconsistent",
        "index",
        "kind",
        "local",
        "nary",
        "nogood",
        "order",
        "parents",
        "possible",
        "score",
        "target",
        "twins",
    )

    def __init__(self, uid: int, base: int | str, target: int | str, kind: int, order: int):
        self.id = uid
        self.bit = 1 << uid
        self.base, self.target, self.kind, self.order = base, target, kind, order
        self.comm = False
        self.nary = False
        self.parents: list[MH] = []
        self.args: list[MH] = _NO_CHILDREN  # a list of its own once it has arguments
        self.possible: list[MH] = _NO_CHILDREN  # a list of its own once commutative
        self.functor_mh: MH | None = None
        self.incomplete = False
        self.inconsistent = False
        self.desc = 0
        self.nogood = 0
        self.score = 0.0
        self.local = 0.0
        self.index = -1
        self.twins = 1

    @property
    def losing(self) -> bool:
        return self.incomplete or self.inconsistent

    def __repr__(self) -> str:
        return f"<MH {self.id} {self.base}~{self.target}>"


class Forest:
    """The hypotheses of one comparison, in SME's orders.

    Attributes:
        mhs: every indexed hypothesis in indexing order (SME's ``(mhs sme)`` is its reverse).
        by_id: hypothesis id -> hypothesis (ids are SME's: creation order, with gaps).
        by_base / by_target: item -> bit set of the hypotheses on that item (nogoods); an
            item is a node id, or a functor name for functor hypotheses.
    """

    def __init__(self) -> None:
        self.mhs: list[MH] = []
        self.by_id: dict[int, MH] = {}
        self.by_base: dict[object, int] = {}
        self.by_target: dict[object, int] = {}
        self.b: DescriptionIndex | None = None
        self.t: DescriptionIndex | None = None

    def __len__(self) -> int:
        return len(self.mhs)

    def release(self) -> None:
        """Drops the upward links between hypotheses (parents), so that reference counting
        frees a finished run at once instead of leaving it to the cyclic garbage collector:
        every other link (arguments, possible children, functor) points downward, so every
        reference cycle of a run goes through a parent link."""
        for mh in self.mhs:
            mh.parents = ()  # type: ignore[assignment]

    def members(self, bits: int) -> list[MH]:
        """The hypotheses of a bit set, in SME's set order (descending id)."""
        by_id = self.by_id
        out = []
        while bits:
            top = bits.bit_length() - 1
            out.append(by_id[top])
            bits ^= 1 << top
        return out


class _Builder:
    """Creates hypotheses in SME v4's order; ``local_match`` is ``create-local-match``."""

    def __init__(
        self,
        b: DescriptionIndex,
        t: DescriptionIndex,
        params: SMEParams,
        identical_functions: bool,
        budget: int,
    ):
        self.b, self.t, self.params = b, t, params
        self.cross_functions = not identical_functions
        self.forest = Forest()
        self.forest.b, self.forest.t = b, t
        self.pairs: dict[int, list[MH]] = {}  # by (base node, target node) as one int
        self.width = len(t.items)
        self.functors: dict[tuple[str, str], MH] = {}
        self.counter = 0
        self.budget = budget

    def _make(self, base: int | str, target: int | str, kind: int, order: int) -> MH:
        self.counter += 1
        return MH(self.counter, base, target, kind, order)

    def _index(self, mh: MH) -> None:
        f = self.forest
        mhs = f.mhs
        n = len(mhs)
        if n >= self.budget:
            self._over_budget()
        mh.index = n
        mhs.append(mh)
        f.by_id[mh.id] = mh
        bit = mh.bit
        bk, tk = mh.base, mh.target  # node ids, or functor names for functor hypotheses
        if mh.kind != FUNCTOR:
            key = cast(int, bk) * self.width + cast(int, tk)
            found = self.pairs.get(key)
            if found is None:
                self.pairs[key] = [mh]
            else:
                found.append(mh)
        by_base, by_target = f.by_base, f.by_target
        by_base[bk] = by_base.get(bk, 0) | bit
        by_target[tk] = by_target.get(tk, 0) | bit

    def _over_budget(self) -> None:
        raise MappingError(
            f"comparison of '{self.b.name}' with '{self.t.name}' needs more than "
            f"{self.budget:,} match hypotheses (the budget); map smaller descriptions or "
            "raise mh_budget"
        )

    def alignable(self, bn: int, tn: int) -> bool:
        """``arguments-alignable?`` for two nodes."""
        b, t = self.b, self.t
        be, te = b.is_entity[bn], t.is_entity[tn]
        if be or te:
            return be and te
        if len(b.args[bn]) != len(t.args[tn]):
            return False
        if b.functor[bn] == t.functor[tn]:
            return True
        return self.cross_functions and b.kind[bn] == FUNCTION and t.kind[tn] == FUNCTION

    def local_match(self, bn: int, tn: int) -> list[MH]:
        """The hypotheses for (bn, tn), made if needed; several for symmetric twins."""
        found = self.pairs.get(bn * self.width + tn)
        if found:  # SME's find-indexed-mhs: highest id first, as many as the twins
            if len(found) == 1:
                return [found[0]]
            ordered = sorted(found, key=_ID, reverse=True)  # ids are unique: no ties
            return ordered[: ordered[0].twins]
        b = self.b
        if b.is_entity[bn]:
            mh = self._make(bn, tn, ENTITY, 0)
            self._index(mh)
            return [mh]
        if b.symmetric[bn]:
            return self._symmetric(bn, tn)
        if b.commutative[bn]:
            return [self._commutative(bn, tn)]
        return self._expression(bn, tn)

    def _order(self, bn: int, tn: int) -> int:
        return max(self.b.height[bn], self.t.height[tn])

    def _expression(self, bn: int, tn: int) -> list[MH]:
        b, t = self.b, self.t
        b_args, t_args = b.args[bn], t.args[tn]
        order = max(b.height[bn], t.height[tn])
        if b_args:  # fast path: every argument pair aligns with exactly one hypothesis
            self.counter += 1  # the template's id (SME makes it, then copies it)
            template_id = self.counter
            args: list[MH] = []
            pairs, width = self.pairs, self.width
            b_entity, t_entity = b.is_entity, t.is_entity
            for ba, ta in zip(b_args, t_args):
                if b_entity[ba] and t_entity[ta]:  # two entities: one hypothesis, always
                    found = pairs.get(ba * width + ta)
                    if found is None:
                        self.counter += 1
                        mh = MH(self.counter, ba, ta, ENTITY, 0)
                        self._index(mh)
                        args.append(mh)
                        continue
                    if len(found) == 1:
                        args.append(found[0])
                        continue
                    break
                if not self.alignable(ba, ta):
                    break
                found = self.local_match(ba, ta)
                if len(found) != 1:
                    break
                args.append(found[0])
            else:
                self.counter += 1
                copy = MH(self.counter, bn, tn, EXPRESSION, order)
                copy_args = copy.args = []
                for arg in args:
                    if arg not in copy_args:
                        copy_args.append(arg)
                        arg.parents.append(copy)
                copy_args.reverse()  # SME pushes arguments
                self._index(copy)
                # the functor hypothesis (``_functor``, inline)
                fkey = (b.functor[bn], t.functor[tn])
                fmh = self.functors.get(fkey)
                if fmh is None:
                    self.counter += 1
                    fmh = self.functors[fkey] = MH(self.counter, fkey[0], fkey[1], FUNCTOR, 0)
                    self._index(fmh)
                fmh.parents.append(copy)
                copy.functor_mh = fmh
                return [copy]
            # Slow path: rebuild from the template as SME does (aligned pairs are already
            # made, so repeating the lookups creates nothing new).
            template = MH(template_id, bn, tn, EXPRESSION, order)
        else:
            template = self._make(bn, tn, EXPRESSION, order)
        mhs = self._expand(template, bn, tn, reverse=False)
        self._finish(mhs)
        return mhs

    def _symmetric(self, bn: int, tn: int) -> list[MH]:
        left = self._make(bn, tn, EXPRESSION, self._order(bn, tn))
        right = self._make(bn, tn, EXPRESSION, self._order(bn, tn))
        mhs = self._expand(left, bn, tn, reverse=False) + self._expand(right, bn, tn, reverse=True)
        self._finish(mhs)
        return mhs

    def _finish(self, mhs: list[MH]) -> None:
        for mh in mhs:
            mh.twins = len(mhs)
            self._index(mh)
            self._functor(mh)

    def _expand(self, template: MH, bn: int, tn: int, reverse: bool) -> list[MH]:
        """``create-argument-expansion``: one copy of ``template`` per argument combination."""
        b_args = self.b.args[bn]
        t_args = self.t.args[tn][::-1] if reverse else self.t.args[tn]
        arg_lists: list[list[MH]] = []
        for ba, ta in zip(b_args, t_args):
            if self.alignable(ba, ta):
                arg_lists.append(self.local_match(ba, ta))
            else:
                template.incomplete = True
                arg_lists.append([])
        if template.incomplete or not b_args:
            return [template]
        count = 1
        for options in arg_lists:
            count *= len(options)
        if count + len(self.forest.mhs) > self.budget:  # twins multiply: check before building
            self._over_budget()
        combos: list[list[MH]] = [[]]
        for options in arg_lists:
            combos = [c + [o] for c in combos for o in options]
        out = []
        for combo in combos:
            copy = self._make(bn, tn, EXPRESSION, template.order)
            copy.args = []
            for arg in combo:
                if arg not in copy.args:
                    copy.args.append(arg)
                    arg.parents.append(copy)
            copy.args.reverse()  # SME pushes arguments
            out.append(copy)
        out.reverse()  # SME pushes the copies
        return out

    def _commutative(self, bn: int, tn: int) -> MH:
        mh = self._make(bn, tn, EXPRESSION, self._order(bn, tn))
        mh.comm = True
        mh.possible = []
        mh.nary = self.b.n_ary[bn]
        self._index(mh)
        self._functor(mh)
        b_args, t_args = self.b.args[bn], self.t.args[tn]
        aligned_b, aligned_t = set(), set()
        for i, ba in enumerate(b_args):
            for j, ta in enumerate(t_args):
                if self.alignable(ba, ta):
                    child = self.local_match(ba, ta)[0]
                    child.parents.append(mh)
                    mh.possible.append(child)
                    aligned_b.add(i)
                    aligned_t.add(j)
        mh.possible.reverse()  # SME pushes possible children
        missing_b = len(aligned_b) < len(b_args)
        missing_t = len(aligned_t) < len(t_args)
        if (missing_b or missing_t) if mh.nary else (missing_b and missing_t):
            mh.incomplete = True
        return mh

    def _functor(self, mh: MH) -> None:
        bf, tf = self.b.functor[mh.base], self.t.functor[mh.target]  # type: ignore[index]
        fmh = self.functors.get((bf, tf))
        if fmh is None:
            fmh = self._make(bf, tf, FUNCTOR, 0)
            self._index(fmh)
            self.functors[(bf, tf)] = fmh
        fmh.parents.append(mh)
        mh.functor_mh = fmh

    def seed(self) -> None:
        """``match-all-expressions``: same-functor pairs, bin by bin, in SME's order (the base
        bins as ``items-since`` rebuilds them: oldest bin first, newest expression first)."""
        b, t = self.b, self.t
        t_bins = t.bins
        b_args, t_args = b.args, t.args
        local_match = self.local_match
        for functor, b_nodes in b.bins.items():
            if b.ubiquitous[b_nodes[0]]:
                continue
            t_nodes = t_bins.get(functor)
            if not t_nodes:
                continue
            t_nodes = t_nodes[::-1]
            for bn in reversed(b_nodes):
                nb = len(b_args[bn])
                for tn in t_nodes:
                    if len(t_args[tn]) == nb:
                        local_match(bn, tn)


def seed_count(base: DescriptionIndex, target: DescriptionIndex) -> int:
    """Number of seed pairs (same functor and arity, not ubiquitous): a lower bound on the
    match hypotheses a comparison makes, computed from the functor bins alone."""
    total = 0
    for functor, b_nodes in base.bins.items():
        t_nodes = target.bins.get(functor)
        if t_nodes and not base.ubiquitous[b_nodes[0]]:
            total += len(b_nodes) * len(t_nodes)
    return total


def build_forest(
    base: DescriptionIndex,
    target: DescriptionIndex,
    params: SMEParams,
    identical_functions: bool = False,
    budget: int = DEFAULT_MH_BUDGET,
) -> Forest:
    """Seeds and grows the match-hypothesis forest of ``base`` against ``target``.

    Raises:
        MappingError: when more than ``budget`` hypotheses would be needed (checked first
            against the seed count, so a hopeless comparison fails at once).
    """
    if seed_count(base, target) > budget:
        raise MappingError(
            f"comparison of '{base.name}' with '{target.name}' needs more than {budget:,} "
            "match hypotheses (the budget); map smaller descriptions or raise mh_budget"
        )
    builder = _Builder(base, target, params, identical_functions, budget)
    builder.seed()
    return builder.forest
