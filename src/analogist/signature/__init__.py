"""Signatures: the structural re-description of an episode and what it is checked against.

Holds the parsed terms (:mod:`terms`), the :class:`Signature` model (:mod:`model`), the
controlled :class:`Vocabulary` (:mod:`vocabulary`), the predicate-calculus :class:`Description`
view the mapper consumes (:mod:`description`, :mod:`describe`) and the Weisfeiler–Lehman
fingerprint (:mod:`fingerprint`).
"""

from analogist.signature.model import (
    CausalLink,
    Relation,
    Role,
    Signature,
    Surface,
    parse_signature,
)
from analogist.signature.terms import FixOperator, Term, parse_fix_operator, parse_term
from analogist.signature.vocabulary import VocabTerm, Vocabulary, default_vocabulary

__all__ = [
    "CausalLink",
    "FixOperator",
    "Relation",
    "Role",
    "Signature",
    "Surface",
    "Term",
    "VocabTerm",
    "Vocabulary",
    "default_vocabulary",
    "parse_fix_operator",
    "parse_signature",
    "parse_term",
]
