"""The canonical spelling of a term: the one key for "the same fact" across the code.

A term is written with its vocabulary term (synonyms and merged terms resolved), commutative
arguments sorted, and roles optionally renamed first (to compare two signatures under a role
mapping). The benchmark's world engine, its decoy-edit classifier and its structure-only
reference all key facts by this spelling.

>>> from analogist.signature import default_vocabulary, parse_term
>>> v = default_vocabulary()
>>> canonical_term(parse_term("diverges_from(DER, SRC)"), v, {"DER": "copy"})
'diverges_from(copy,SRC)'
"""

from __future__ import annotations

from collections.abc import Mapping

from analogist.signature.terms import Term
from analogist.signature.vocabulary import Vocabulary


def canonical_term(term: Term, vocab: Vocabulary, names: Mapping[str, str] | None = None) -> str:
    """``term`` spelled canonically: roles renamed by ``names``, nested terms canonical, the
    vocabulary's own term name, commutative arguments sorted."""
    ren = names or {}
    args = [
        ren.get(a, a) if isinstance(a, str) else canonical_term(a, vocab, ren) for a in term.args
    ]
    entry = vocab.resolve(term.functor)
    if entry is not None and entry.commutative:
        args.sort()
    name = entry.term if entry is not None else term.functor
    return f"{name}({','.join(args)})"
