"""Structural edits: how a variant is derived from its motif, and how an edit is recognised.

:func:`edited_structure` applies one :class:`~analogist.bench.generation.motif.Edit` (or the F8 split) to a
motif's relations and causal chain. :func:`classify_edit` compares two parsed signatures over the
same roles and names the single structural edit between them, or returns None when they differ
by anything else (no difference, two edits, a changed role set). The five decoy edits of spec
§16.2 are told apart as follows:

- ``reverse_edge``: one link ``X -> M`` becomes ``M -> X`` and ``M`` had no other effect;
- ``mediator_to_confounder``: the same reversal where ``M`` also drove something else, so after
  the edit ``M`` is a common cause of ``X`` and that effect instead of a link between them;
- ``flip_polarity``: one link's ``enables`` becomes ``prevents`` or the reverse;
- ``delete_dependency``: one causal link is removed;
- ``copied_to_independent``: the ``derives_from`` relation is removed (the copy becomes state of
  its own); removing any other relation is ``delete_relation``.
"""

from __future__ import annotations

from analogist.bench.generation.motif import (
    COPIED,
    DELETE,
    DROP_RELATION,
    FLIP,
    MEDIATOR,
    REVERSE,
    Edit,
    Motif,
    Split,
)
from analogist.bench.generation.simulate import canonical, vocabulary
from analogist.errors import BenchError
from analogist.signature import Signature, parse_term

Chain = list[tuple[str, str, str]]


def _link_index(element: str, chain: Chain) -> int:
    if not (element.startswith("c") and element[1:].isdigit()):
        raise BenchError(f"edit element {element!r}: a causal link is named c1, c2, ...")
    i = int(element[1:]) - 1
    if not 0 <= i < len(chain):
        raise BenchError(f"edit element {element!r}: the chain has {len(chain)} links")
    return i


def edited_structure(motif: Motif, edit: Edit | None) -> tuple[list[str], Chain]:
    """The motif's relations and chain after one edit (None: unchanged)."""
    rels, chain = list(motif.relations), list(motif.chain)
    if edit is None:
        return rels, chain
    if edit.kind in (COPIED, DROP_RELATION):
        if edit.element not in rels:
            raise BenchError(f"motif {motif.name}: {edit.element!r} is not one of its relations")
        rels.remove(edit.element)
        return rels, chain
    i = _link_index(edit.element, chain)
    cause, link, effect = chain[i]
    if edit.kind in (REVERSE, MEDIATOR):
        chain[i] = (effect, link, cause)
    elif edit.kind == FLIP:
        swap = {"enables": "prevents", "prevents": "enables"}
        if link not in swap:
            raise BenchError(
                f"motif {motif.name}: {edit.element} is {link!r}; flip needs enables/prevents"
            )
        chain[i] = (cause, swap[link], effect)
    elif edit.kind == DELETE:
        del chain[i]
    else:
        raise BenchError(f"unknown edit kind {edit.kind!r}")
    return rels, chain


def split_structure(
    motif: Motif, split: Split, edit: Edit | None = None
) -> tuple[list[str], Chain]:
    """Relations and chain (after ``edit``, if any) with ``split.part`` inserted into
    ``split.relation``."""
    t = parse_term(split.relation)
    base_rels, base_chain = edited_structure(motif, edit)
    if len(t.args) != 2 or split.relation not in base_rels:
        raise BenchError(
            f"motif {motif.name}: split relation {split.relation!r} must be a listed pair"
        )
    a, b = t.args
    first = f"{t.functor}({a},{split.part})"
    second = f"{t.functor}({split.part},{b})"
    rels: list[str] = []
    for r in base_rels:
        rels.extend([first, second] if r == split.relation else [r])
    chain = [tuple(first if x == split.relation else x for x in link) for link in base_chain]
    return rels, chain  # type: ignore[return-value]


def _facts(sig: Signature) -> tuple[set[str], set[tuple[str, str, str]]]:
    v = vocabulary()
    rels = {canonical(r.term(), v) for r in sig.relations}
    links = {(canonical(c.cause, v), c.link, canonical(c.effect, v)) for c in sig.causal_chain}
    return rels, links


def classify_edit(a: Signature, b: Signature) -> Edit | None:
    """The single structural edit that turns ``a`` into ``b``, or None.

    The returned edit's ``element`` is the affected relation or the link of ``a`` as
    ``"cause -link-> effect"``.
    """
    if set(a.role_names) != set(b.role_names):
        return None
    rels_a, links_a = _facts(a)
    rels_b, links_b = _facts(b)
    if links_a == links_b and rels_b < rels_a and len(rels_a - rels_b) == 1:
        (gone,) = rels_a - rels_b
        kind = COPIED if gone.startswith("derives_from(") else DROP_RELATION
        return Edit(kind, gone)
    if rels_a != rels_b:
        return None
    only_a, only_b = links_a - links_b, links_b - links_a
    if len(only_a) == 1 and not only_b:
        (gone_link,) = only_a
        return Edit(DELETE, _spell(*gone_link))
    if len(only_a) != 1 or len(only_b) != 1:
        return None
    (x, la, m), (y, lb, n) = *only_a, *only_b
    if (x, m) == (n, y) and la == lb:
        forks = any(c == m and e != x for c, _, e in links_a)
        return Edit(MEDIATOR if forks else REVERSE, _spell(x, la, m))
    if (x, m) == (y, n) and {la, lb} == {"enables", "prevents"}:
        return Edit(FLIP, _spell(x, la, m))
    return None


def _spell(cause: str, link: str, effect: str) -> str:
    return f"{cause} -{link}-> {effect}"
