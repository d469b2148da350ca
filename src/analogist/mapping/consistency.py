"""Phase two, part one: structural consistency, as SME v4's ``calculate-structural-relations``
(sc.lisp) and ``calculate-mh-roots`` (mhs.lisp) compute it.

1. Incompleteness propagates upward to every parent except commutative ones (they judge
   their own completeness from their possible children).
2. Each hypothesis' *descendants* are itself, its functor hypothesis and (recursively) its
   arguments'; its *nogoods* are the hypotheses on its base item or its target item (twins
   included) plus its arguments' nogoods. It is *inconsistent* when the two meet.
   A commutative hypothesis takes, for each of its arguments, what all the possible children
   of that argument have in common (a choice set with a single option contributes all of it).
3. Commutative children are filtered (``filter-children-of``, in SME's order): losing
   possible children are dropped; an argument left with no option makes the hypothesis
   incomplete (without propagating further, as in SME); when every argument has exactly one
   option the choice is fixed, becomes the hypothesis' arguments, and its descendants and
   nogoods flow up to every ancestor.
4. Roots: any complete, consistent hypothesis (not a functor) none of whose parents is complete
   and consistent, collected in SME's order (``find-consistent-root``).

Sets are bit vectors over hypothesis ids; one pass in order of height computes what SME's
propagation queue reaches as its fixpoint.
"""

from __future__ import annotations

from operator import attrgetter

from analogist.mapping.hypotheses import FUNCTOR, MH, Forest


def check_consistency(forest: Forest) -> list[MH]:
    """Marks incompleteness and inconsistency, fills descendants and nogoods, filters
    commutative children; returns the root hypotheses in SME's ``root-mhs`` order."""
    mhs = forest.mhs
    _propagate_incompleteness(mhs)
    by_base, by_target = forest.by_base, forest.by_target
    for mh in mhs:
        # every hypothesis is in its own item's set: the exclusive or removes it
        mh.nogood = (by_base[mh.base] | by_target[mh.target]) ^ mh.bit
        f = mh.functor_mh
        mh.desc = mh.bit | f.bit if f is not None else mh.bit
    for mh in sorted(_processed(mhs), key=attrgetter("order")):
        f = mh.functor_mh
        desc, nogood = mh.desc, mh.nogood
        if f is not None:
            desc |= f.desc
            nogood |= f.nogood
        if mh.comm:
            d, n = _common_choice_properties(mh)
            desc |= d
            nogood |= n
        else:
            for a in mh.args:
                desc |= a.desc
                nogood |= a.nogood
        mh.desc, mh.nogood = desc, nogood
        if desc & nogood:
            mh.inconsistent = True
    b, t = forest.b, forest.t
    for mh in reversed(mhs):  # SME's (mhs sme) order
        if mh.comm:
            _filter_children(mh, b.args[mh.base], t.args[mh.target])  # type: ignore[union-attr,index]
    return _roots(mhs)


def _processed(mhs: list[MH]) -> list[MH]:
    """The hypotheses SME's propagation queue reaches: entity hypotheses and everything above
    them through parent links (a hypothesis below which no entity lies keeps its local sets)."""
    seen: dict[int, MH] = {}
    stack = [m for m in mhs if m.kind == 0]
    for m in stack:
        seen[m.id] = m
    while stack:
        for p in stack.pop().parents:
            if p.id not in seen:
                seen[p.id] = p
                stack.append(p)
    return list(seen.values())


def _propagate_incompleteness(mhs: list[MH]) -> None:
    stack = [m for m in mhs if m.incomplete]
    while stack:
        child = stack.pop()
        for parent in child.parents:
            if not parent.incomplete and not parent.comm:
                parent.incomplete = True
                stack.append(parent)


def _choice_sets(mh: MH, children: list[MH]) -> list[list[MH]]:
    """The possible children grouped by base argument, then by target argument."""
    by_b: dict[int, list[MH]] = {}
    by_t: dict[int, list[MH]] = {}
    for c in children:
        by_b.setdefault(c.base, []).append(c)  # type: ignore[arg-type]
        by_t.setdefault(c.target, []).append(c)  # type: ignore[arg-type]
    return [*by_b.values(), *by_t.values()]


def _common_choice_properties(mh: MH) -> tuple[int, int]:
    desc = nogood = 0
    for group in _choice_sets(mh, mh.possible):
        d, n = group[0].desc, group[0].nogood
        for c in group[1:]:
            d &= c.desc
            n &= c.nogood
        desc |= d
        nogood |= n
    return desc, nogood


def _filter_children(mh: MH, b_args: tuple[int, ...], t_args: tuple[int, ...]) -> None:
    """SME's ``filter-children-of``."""
    mh.possible = [c for c in mh.possible if not c.losing]
    by_b: dict[int, list[MH]] = {}
    by_t: dict[int, list[MH]] = {}
    for c in mh.possible:
        by_b.setdefault(c.base, []).append(c)  # type: ignore[arg-type]
        by_t.setdefault(c.target, []).append(c)  # type: ignore[arg-type]
    # SME's tables have one entry per argument position; a repeated argument leaves an empty
    # entry, which counts as an argument without options.
    if len(by_b) < len(b_args) or len(by_t) < len(t_args):
        mh.incomplete = True
        return
    if all(len(v) == 1 for v in by_b.values()) and all(len(v) == 1 for v in by_t.values()):
        chosen = [by_b[a][0] for a in b_args]
        mh.args = chosen
        for a in chosen:
            mh.desc |= a.desc
            mh.nogood |= a.nogood
        _propagate_upward(mh)


def _propagate_upward(mh: MH) -> None:
    """SME's ``propagate-structural-relations-upward``, walk included: its ``do`` loop steps
    ``parent`` to the head of the *previous* list, so the first parent is visited twice and
    the walk stops as soon as the pending list runs empty (possibly before its last entry)."""
    desc, nogood = mh.desc, mh.nogood
    pending = mh.parents[::-1]
    if not pending:
        return
    parent = pending[0]
    while pending:
        new = parent.parents[::-1]
        parent.desc |= desc
        parent.nogood |= nogood
        if parent.desc & parent.nogood:
            parent.inconsistent = True
        pending, parent = pending[1:] + new, pending[0]


def _roots(mhs: list[MH]) -> list[MH]:
    """SME's ``calculate-mh-roots``: ``root-mhs`` in SME's list order."""
    found: list[MH] = []
    seen: set[int] = set()
    for mh in reversed(mhs):
        _visit(mh, found, seen)
    found.reverse()  # pushnew: newest first
    return found


def _visit(mh: MH, found: list[MH], seen: set[int]) -> None:
    """``find-consistent-root`` from ``mh`` (a module function, not a recursive closure: that
    would be a reference cycle left to the cyclic garbage collector)."""
    if not (mh.incomplete or mh.inconsistent):
        if mh.id not in seen and mh.kind != FUNCTOR:
            for p in mh.parents:
                if not (p.incomplete or p.inconsistent):
                    return
            seen.add(mh.id)
            found.append(mh)
    else:
        for a in mh.args:
            _visit(a, found, seen)
