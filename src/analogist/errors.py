"""One exception tree for analogist.

Every message says what was wrong, where, and what to do about it, e.g.
``signature ep_12: relations[1]: relation 'trusts' is not in the vocabulary (did you mean
'trusts_as_authoritative'?)``.
"""

from __future__ import annotations


class AnalogistError(Exception):
    """Base of every error analogist raises on purpose."""


class SignatureError(AnalogistError):
    """A structural signature is malformed or does not fit the vocabulary.

    Attributes:
        episode_id: the episode whose signature is wrong ("?" when unknown).
        field: the field path, e.g. ``relations[2]`` or ``causal_chain[0].effect``.
        problem: what is wrong and how to fix it.
    """

    def __init__(self, episode_id: str | None, field: str, problem: str):
        self.episode_id = episode_id or "?"
        self.field = field
        self.problem = problem
        super().__init__(f"signature {self.episode_id}: {field}: {problem}")


class TermSyntaxError(AnalogistError):
    """A term such as ``diverges_from(DER,SRC)`` could not be parsed."""


class VocabularyError(AnalogistError):
    """The controlled vocabulary file or an edit to it is invalid."""


class DescriptionError(AnalogistError):
    """A predicate-calculus description (mapper input) is invalid."""


class MappingError(AnalogistError):
    """The structure-mapping engine was given inconsistent parameters or constraints."""


class StoreError(AnalogistError):
    """The store could not complete an operation; nothing was changed."""


class StoreBusyError(StoreError):
    """Another writer held the database lock longer than the bound (``ANALOGIST_DB_TIMEOUT``)."""


class DuplicateEpisodeError(StoreError):
    """An episode id is already stored (or repeated within one batch)."""


class NotFoundError(StoreError):
    """An id names nothing in the store."""


class EpisodeError(AnalogistError):
    """An episode record (not its signature) is malformed."""


class ConfigError(AnalogistError):
    """A setting (flag, environment variable, config file) is missing or invalid."""


class ModelError(AnalogistError):
    """A language-model or embedding backend failed or answered unusably."""


class CacheMissError(ModelError):
    """Replay-only mode asked for a call that is not in the call log."""


class BenchError(AnalogistError):
    """A benchmark could not be generated, loaded, run or reported."""
