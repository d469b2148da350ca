"""Phase two, part two: structural evaluation by trickle-down, as SME v4's se.lisp does it.

Every complete, consistent hypothesis starts with a local score (``same-functor`` for
expressions with identical functors, ``same-function`` for non-identical functions, zero for
entities and functor correspondences), then receives ``trickle-down`` times the scores of its
parents, from the highest order down (systematicity).

- :func:`evaluate` scores the whole forest. With ``block-most-out-of-mapping-contributions?``
  (the default) a hypothesis takes its parents by descending score (ties in SME's parent-list
  order) and skips a parent whose base or target item is already used by a parent taken
  (``apply-trickle-down-one-to-one-constraint``); without it every parent contributes.
- :func:`mapping_score` re-scores a finished mapping from its own members
  (``mapping-structural-evaluation`` with ``global?``): SME adds, for each commutative member,
  the possible descendants consistent with the mapping ("a best guess"), then trickles down
  from members to their arguments (or possible children) inside that set only.

Scores are not clamped unless ``max-local-score`` is set.
"""

from __future__ import annotations

import math
import struct
from array import array
from operator import attrgetter

import numpy as np

from analogist.mapping.hypotheses import FUNCTOR, MH, Forest
from analogist.mapping.params import SMEParams

_F32 = struct.Struct("f")


_F32_MEMO: dict[float, float] = {}


def f32(x: float) -> float:
    """``x`` rounded to single precision. SME v4 computes every score in Lisp single-floats,
    and its sorts and cutoffs see their rounding (sums of equal-looking scores differ in the
    last bit depending on the order of addition); each operation here is rounded the same
    way (exact for + and *, since a double holds the exact result before rounding).
    Memoised: the same few thousand values recur."""
    found = _F32_MEMO.get(x)
    if found is None:
        if len(_F32_MEMO) > 200_000:
            _F32_MEMO.clear()
        found = _F32_MEMO[x] = _F32.unpack(_F32.pack(x))[0]
    return found


def sum_scores(mhs: list[MH]) -> float:
    """A mapping's score: its hypotheses' scores added left to right in single precision.

    Each partial sum is the double sum rounded to single precision (round to nearest, ties
    to even), as a single-float store rounds it (:func:`sum_into_single`), but without
    leaving floating point: while the partial sums stay in one binade ``[2**e, 2**(e+1))``,
    ``(x + C) - C`` with ``C = 1.5 * 2**(e+29)`` rounds ``x`` to a multiple of the
    single-precision spacing ``2**(e-23)`` exactly, ties to even (the double spacing at
    ``C`` is that spacing, and ``C`` is an even multiple of it). Scores are not negative,
    so the sums only grow and the binade is tracked by doubling; anything else (a negative
    score, a sum leaving single precision's normal range) is left to
    :func:`sum_into_single`. numpy's ``add.accumulate`` on float32, the same sequential
    sum, is cheaper for long lists."""
    n = len(mhs)
    if n > 256:
        scores = np.array([m.score for m in mhs], dtype=np.float32)
        return float(np.add.accumulate(scores)[-1])
    total = 0.0
    top = 0.0  # 2**(e+1) once a partial sum is positive: partial sums lie in [top/2, top)
    magic = 0.0
    for i in range(n):
        x = total + mhs[i].score
        if x >= top:
            if top == 0.0:
                if x == 0.0:
                    total = x
                    continue
                top, magic = _binade(x)
                if top == 0.0:
                    return sum_into_single(total, mhs, i)
            else:
                while x >= top:
                    top *= 2.0
                    magic *= 2.0
                if top > _TOP_MAX:
                    return sum_into_single(total, mhs, i)
        elif x < 0.5 * top:
            return sum_into_single(total, mhs, i)
        total = (x + magic) - magic
    return total


_TOP_MAX = 2.0**127  # partial sums stay below 2**127, as singles do (below 2**128)
_X_MIN = 2.0**-126


def _binade(x: float) -> tuple[float, float]:
    """``(2**(e+1), 1.5 * 2**(e+29))`` for ``2**e <= x < 2**(e+1)``; ``(0, 0)`` outside
    single precision's normal range (or for a negative ``x``)."""
    if not _X_MIN <= x < 2.0**126:
        return 0.0, 0.0
    mantissa, exponent = math.frexp(x)  # x = mantissa * 2**exponent, 0.5 <= mantissa < 1
    return math.ldexp(1.0, exponent), math.ldexp(1.5, exponent + 28)


def sum_into_single(total: float, mhs: list[MH], start: int = 0) -> float:
    """``total`` plus the scores of ``mhs[start:]``, left to right, each partial sum stored in
    a one-slot single-float array (which rounds it as :func:`f32` does)."""
    acc = array("f", (total,))
    for i in range(start, len(mhs)):
        acc[0] += mhs[i].score
    return acc[0]


def local_score(mh: MH, forest: Forest, params: SMEParams) -> float:
    """``mh-local-structural-evaluation``."""
    if mh.kind != 1:
        return 0.0
    b, t = forest.b, forest.t
    if b.kind[mh.base] == 1:  # type: ignore[union-attr,index]  # a function
        if b.functor[mh.base] == t.functor[mh.target]:  # type: ignore[union-attr,index]
            return f32(params.same_functor)
        return f32(params.same_function)
    return f32(params.same_functor)


def _add(score: float, amount: float, cap: float | None) -> float:
    x = score + amount
    s = _F32_MEMO.get(x)
    if s is None:
        s = f32(x)
    return s if cap is None or s < cap else f32(cap)


def _add_best_parents(mh: MH, parents: list[MH], td: float, cap: float | None) -> None:
    """Trickle down from ``parents`` (in SME's list order), best score first, at most one parent
    per base and per target item (SME's block-most-out-of-mapping-contributions rule)."""
    parents.sort(key=_score, reverse=True)
    used_b: set = set()
    used_t: set = set()
    for p in parents:
        if p.base in used_b or p.target in used_t:
            continue
        used_b.add(p.base)
        used_t.add(p.target)
        mh.score = _add(mh.score, f32(td * p.score), cap)


def evaluate(forest: Forest, params: SMEParams) -> None:
    """Scores every hypothesis of the forest (SME's ``evaluate``); losing ones keep 0."""
    queue = [m for m in reversed(forest.mhs) if not m.losing]
    queue.sort(key=_order, reverse=True)  # stable (reverse keeps ties), as SBCL's sort
    b_kind, b_functor, t_functor = forest.b.kind, forest.b.functor, forest.t.functor  # type: ignore[union-attr]
    same_functor, same_function = f32(params.same_functor), f32(params.same_function)
    for mh in queue:  # local_score, inline
        if mh.kind != 1:
            mh.score = mh.local = 0.0
        elif b_kind[mh.base] == 1 and b_functor[mh.base] != t_functor[mh.target]:  # type: ignore[index]
            mh.score = mh.local = same_function
        else:
            mh.score = mh.local = same_functor
    td, cap = f32(params.trickle_down), params.max_local_score
    if params.block_most_out_of_mapping_contributions:
        functor_td = params.functor_trickle_down
        memo = _F32_MEMO
        for mh in queue:
            parents = mh.parents
            if not parents or (mh.kind == FUNCTOR and not functor_td):
                continue
            if len(parents) == 1:
                x = td * parents[0].score
                amount = memo.get(x)
                if amount is None:
                    amount = f32(x)
                mh.score = _add(mh.score, amount, cap)
                continue
            _add_best_parents(mh, parents[::-1], td, cap)
    else:
        for mh in queue:
            _trickle_to_children(mh, mh.score, params, None)


_score = attrgetter("score")
_order = attrgetter("order")


def _trickle_to_children(
    mh: MH, score: float, params: SMEParams, within: dict[int, MH] | None
) -> None:
    """``apply-trickle-down`` (the plain version): evidence to arguments, or to the possible
    children of a commutative hypothesis that has no fixed arguments."""
    if mh.kind != 1:
        return
    cap = params.max_local_score
    amount = f32(f32(params.trickle_down) * score)
    if params.functor_trickle_down and mh.functor_mh is not None:
        f = mh.functor_mh
        if within is None or f.id in within:
            f.score = _add(f.score, amount, cap)
    for a in mh.args:
        if within is None or a.id in within:
            a.score = _add(a.score, amount, cap)
    if mh.comm and not mh.args:
        for c in mh.possible:
            if within is None or c.id in within:
                c.score = _add(c.score, amount, cap)


def possible_descendants(mh: MH, forest: Forest) -> list[MH]:
    """SME's ``possible-descendants``: for a commutative hypothesis, the union over its
    possible children (recursively); otherwise its descendants."""
    if not mh.comm:
        return forest.members(mh.desc)
    if not mh.possible:
        return []
    acc = possible_descendants(mh.possible[0], forest)
    for c in mh.possible[1:]:
        acc = cl_union(acc, possible_descendants(c, forest))
    return acc


def cl_union(l1: list, l2: list) -> list:
    """SBCL 2.2's ``union`` of two duplicate-free lists, order included (SME's mapping order
    decides ties later). The shorter list (the second when equal) is ``short``; below 80
    elements the new elements of the longer are pushed in turn onto ``short``, from 80 on
    (SBCL's hashing path) the new elements of ``short`` are pushed onto the reversed longer."""
    if len(l1) < len(l2):
        short, long_ = l1, l2
    else:
        short, long_ = l2, l1
    # (hypotheses hash and compare by identity, as SBCL's eql)
    if len(short) < 80:
        seen = set(short)
        front = [x for x in long_ if x not in seen]
        front.reverse()
        return front + short
    seen = set(long_)
    front = [x for x in short if x not in seen]
    front.reverse()
    return front + long_[::-1]


def with_commutative_guesses(mhs: list[MH], desc: int, nogood: int, forest: Forest) -> list[MH]:
    """SME's ``mhs-include-commutative-children``: the mapping's hypotheses plus, for each
    commutative one, its possible descendants consistent with the mapping and with the ones
    added before them."""
    old = {m.id for m in mhs}
    added: list[MH] = []
    added_ids: set[int] = set()
    new: list[MH] = []
    for mh in mhs:
        new.append(mh)
        if mh.comm:
            for p in possible_descendants(mh, forest):
                if (
                    p.id not in old
                    and p.id not in added_ids
                    and not p.desc & nogood
                    and not p.nogood & desc
                    and all(not p.desc & q.nogood and not q.desc & p.nogood for q in added)
                ):
                    added.insert(0, p)
                    added_ids.add(p.id)
    new.reverse()
    return added + new


def structural_evaluation(
    mhs: list[MH], desc: int, nogood: int, forest: Forest, params: SMEParams, global_: bool
) -> float:
    """SME's ``mapping-structural-evaluation`` of a kernel or mapping.

    The sum of its hypotheses' scores, unless out-of-mapping contributions are disallowed, or
    ``global_`` (a finished mapping) with ``block-most-out-of-mapping-contributions?``: then the
    mapping (with its commutative guesses) is re-scored from its own members, one-to-one
    parents first unless ``global_``. As in SME, each member keeps the larger of its new and
    previous score afterwards (later integrations of commutative choices add those scores)."""
    block = params.block_most_out_of_mapping_contributions
    if not ((global_ and block) or not params.allow_out_of_mapping_score_contributions):
        return sum_scores(mhs)
    if any(m.comm for m in mhs):
        queue = with_commutative_guesses(mhs, desc, nogood, forest)
    else:
        queue = mhs[::-1]  # what with_commutative_guesses returns when nothing is added
    queue.sort(key=_order, reverse=True)
    saved = [m.score for m in queue]
    within = {m.id: m for m in queue}
    for mh in queue:  # the local score (kept by ``evaluate`` for complete, consistent ones)
        mh.score = local_score(mh, forest, params) if mh.losing else mh.local
    if not global_ and block:
        td, cap = f32(params.trickle_down), params.max_local_score
        for mh in queue:
            if mh.kind == FUNCTOR and not params.functor_trickle_down:
                continue
            _add_best_parents(mh, [p for p in mh.parents[::-1] if p.id in within], td, cap)
    elif params.functor_trickle_down or params.max_local_score is not None:
        for mh in queue:
            _trickle_to_children(mh, mh.score, params, within)
    else:  # _trickle_to_children without functor trickle-down or cap, inline
        td = f32(params.trickle_down)
        get = _F32_MEMO.get
        for mh in queue:
            if mh.kind != 1:
                continue
            x = td * mh.score
            amount = get(x)
            if amount is None:
                amount = f32(x)
            targets = mh.args if not (mh.comm and not mh.args) else mh.possible
            for a in targets:
                if a.id in within:
                    x = a.score + amount
                    y = get(x)
                    a.score = f32(x) if y is None else y
    total = sum_scores(queue)
    for mh, s in zip(queue, saved):
        mh.score = max(mh.score, s)
    return total
