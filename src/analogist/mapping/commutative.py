"""Commutative tables: how SME v4 settles the arguments of commutative matches (mapping.lisp).

For commutative predicates (sets such as ``and``) the pairing of arguments is left open when
the forest is built. Each mapping (kernel or merged) keeps a *commutative table* with one entry
per commutative hypothesis it contains. An entry holds, for every base argument and every
target argument, a *choice set*: the possible children on that argument still consistent with
the mapping. Then (``check-commutative-mapping-constraints``):

- an entry whose choice sets each hold exactly one option is *integrated*: those children and
  their descendants join the mapping, with their nogoods and scores (forced choices are folded
  in as soon as the kernel is made, ``make-kernel-mapping``);
- otherwise the choice stays open; merging two mappings intersects nothing but prunes each
  copied entry's choice sets by the merged mapping's nogoods, which may force it later.

Two mappings with entries for the same hypothesis are consistent only when the paired choice
sets intersect (or both entries are integrated with the same children); a choice set all of
whose options are nogoods of the other mapping makes them inconsistent.

Choice sets are bit vectors over hypothesis ids, keyed by argument: a base argument by its
node id, a target argument by ``~`` its node id (negative), so the two never collide.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analogist.mapping.hypotheses import MH, Forest


@dataclass(eq=False)
class CTEntry:
    """One commutative-table entry: the hypothesis, its choice sets (key, bits) in SME's
    order, or, once integrated, the chosen children."""

    cmh: MH
    choices: list[tuple[int, int]] = field(default_factory=list)
    integrated: bool = False
    subs: list[MH] = field(default_factory=list)

    def copy(self, prune: int = 0) -> CTEntry:
        if self.integrated:
            return CTEntry(self.cmh, [], True, list(self.subs))
        return CTEntry(self.cmh, [(k, bits & ~prune) for k, bits in self.choices])


def make_entry(cmh: MH, desc: int, nogood: int) -> CTEntry:
    """``make-ct-entry``: choice sets of ``cmh`` against a mapping's descendants/nogoods."""
    table: dict[int, int] = {}
    order: list[int] = []
    for child in cmh.possible:
        ok = not child.desc & nogood and not child.nogood & desc
        for key in (int(child.base), ~int(child.target)):
            if key not in table:
                table[key] = 0
                order.append(key)
            if ok:
                table[key] |= child.bit
    order.reverse()  # SME pushes new choice sets
    return CTEntry(cmh, [(k, table[k]) for k in order])


def _single(bits: int) -> bool:
    return bits != 0 and bits & (bits - 1) == 0


def check_constraints(mapping, forest: Forest) -> None:
    """``check-commutative-mapping-constraints``: integrate every entry whose choices are all
    forced (an entry with an empty choice set, all of them for n-ary, is left as it is)."""
    for entry in mapping.comm:
        if entry.integrated:
            continue
        sets = [bits for _, bits in entry.choices]
        if entry.cmh.nary:
            if all(b == 0 for b in sets):
                continue
        elif any(b == 0 for b in sets):
            continue
        if all(_single(b) for b in sets):
            _integrate(entry, mapping, forest)


def _integrate(entry: CTEntry, mapping, forest: Forest) -> None:
    picks = [forest.by_id[bits.bit_length() - 1] for _, bits in entry.choices]
    subs: list[MH] = []
    for i, p in enumerate(picks):  # remove-duplicates keeps the last occurrence
        if p not in picks[i + 1 :]:
            subs.append(p)
    for sub in subs:
        for m in forest.members(sub.desc):
            if not mapping.bits & m.bit:
                mapping.add_mh(m)
    entry.integrated = True
    entry.subs = subs


def _entry_inconsistent(entry: CTEntry, nogood: int) -> bool:
    if entry.integrated:
        return False
    return any(not bits & ~nogood for _, bits in entry.choices)


def tables_consistent(m1, m2) -> bool:
    """The commutative part of ``mappings-mutually-consistent?``."""
    c1, c2 = m1.comm, m2.comm
    if not c1 and not c2:
        return True
    if any(_entry_inconsistent(e, m1.nogood) for e in c2):
        return False
    if any(_entry_inconsistent(e, m2.nogood) for e in c1):
        return False
    if not c1 or not c2:
        return True
    first2: dict[int, CTEntry] = {}
    for e in c2:
        first2.setdefault(e.cmh.id, e)
    for e1 in c1:
        e2 = first2.get(e1.cmh.id)
        if e2 is not None and not _entries_consistent(e1, e2):
            return False
    return True


def _entries_consistent(e1: CTEntry, e2: CTEntry) -> bool:
    if e1.integrated and e2.integrated:
        return len(e1.subs) == len(e2.subs) and all(s in e2.subs for s in e1.subs)
    if e1.integrated or e2.integrated:
        return False
    sets2: dict[int, int] = {}
    for k, bits in e2.choices:
        sets2.setdefault(k, bits)
    for k, bits in e1.choices:
        other = sets2.get(k)
        if other is not None and not bits & other:
            return False
    return True


def combine_tables(mappings: list, nogood: int) -> list[CTEntry]:
    """``combine-mapping-commutatives``: the entries of all the mappings (SME pairs entries by
    identity, so none pair), copied and pruned by the merged mapping's nogoods."""
    table: list[CTEntry] = []
    for m in mappings:
        table = m.comm[::-1] + table[::-1]  # set-exclusive-or of disjoint lists
    return [e.copy(prune=nogood) for e in table]
