"""analogist: structural signatures, labelled retrieval channels, structure mapping with a
causal transfer gate, and PARB, the benchmark that decides what stays.
"""

from analogist.errors import AnalogistError, SignatureError, StoreError, VocabularyError
from analogist.signature import (
    Signature,
    Term,
    Vocabulary,
    default_vocabulary,
    parse_signature,
    parse_term,
)

__version__ = "0.1.0"

__all__ = [
    "AnalogistError",
    "Signature",
    "SignatureError",
    "StoreError",
    "Term",
    "Vocabulary",
    "VocabularyError",
    "__version__",
    "default_vocabulary",
    "parse_signature",
    "parse_term",
]
