"""Resolving commutative correspondences inside a finished mapping.

For commutative predicates (sets, ``and``) SME does not fix which argument matches which while
building the forest: a commutative hypothesis only records its *possible children*, and the
one-to-one choice is "delayed until resolved by other non-commutative expression matches,
during the merge process" (SME v4 algorithm note, footnote 1, after Ferguson 2003).

Here the choice is made once a mapping is merged. Commutative hypotheses are visited from the
highest down (a parent's choice constrains its children); for each, the arguments already
settled by the mapping are kept and the rest are paired by a depth-first search that tries the
highest-scoring viable child first and accepts only children consistent with the mapping so far.
The first complete pairing found is taken; when none exists (or the search budget runs out)
the arguments are paired greedily in the same order, leaving some unpaired. Chosen
children join the mapping with their descendants.
"""

from __future__ import annotations

from analogist.mapping.consistency import Consistency
from analogist.mapping.hypotheses import Forest
from analogist.mapping.scoring import iter_bits

SEARCH_BUDGET = 5000


def resolve_commutatives(members: int, forest: Forest, cons: Consistency, scores: list[float],
                         banned: int = 0) -> int:
    """``members`` plus the chosen children of every commutative hypothesis in it."""
    if not members & forest.commutative_mask:
        return members
    pending = [m for m in iter_bits(members) if forest.commutative[m]]
    done: set[int] = set()
    while pending:
        pending.sort(key=lambda m: (forest.order[m], scores[m], -m))
        mh = pending.pop()
        if mh in done:
            continue
        done.add(mh)
        for child in _pairing(mh, members, forest, cons, scores, banned):
            added = cons.closure[child] & ~members
            members |= cons.closure[child]
            pending.extend(m for m in iter_bits(added) if forest.commutative[m])
    return members


def _pairing(mh: int, members: int, forest: Forest, cons: Consistency, scores: list[float],
             banned: int) -> list[int]:
    """Children to add so that the arguments of ``mh`` are paired one-to-one."""
    settled_i: set[int] = set()
    settled_j: set[int] = set()
    options: dict[int, list[tuple[int, int]]] = {}
    for i, j, c in forest.possible[mh]:
        if members >> c & 1:
            settled_i.add(i)
            settled_j.add(j)
        elif not cons.losing[c] and not (banned >> c & 1) and not cons.nogood[c] & members:
            options.setdefault(i, []).append((j, c))
    free = [i for i in range(forest.arity[mh]) if i not in settled_i]
    for i in free:
        options.setdefault(i, []).sort(key=lambda jc: (-scores[jc[1]], jc[1]))
    budget = [SEARCH_BUDGET]

    def complete(k: int, used: frozenset[int], bits: int) -> list[int] | None:
        if k == len(free):
            return []
        budget[0] -= 1
        if budget[0] < 0:
            return None
        for j, c in options[free[k]]:
            if j not in used and not cons.nogood[c] & bits:
                rest = complete(k + 1, used | {j}, bits | cons.closure[c])
                if rest is not None:
                    return [c, *rest]
        return None

    found = complete(0, frozenset(settled_j), members)
    if found is not None:
        return found
    chosen: list[int] = []
    used, bits = set(settled_j), members
    for i in free:
        for j, c in options[i]:
            if j not in used and not cons.nogood[c] & bits:
                chosen.append(c)
                used.add(j)
                bits |= cons.closure[c]
                break
    return chosen
