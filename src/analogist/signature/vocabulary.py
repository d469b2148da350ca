"""The controlled relation vocabulary (spec §6).

Each term has a one-line definition, a kind (structural, epistemic, temporal, resource, causal,
state), an arity and, for causal links, a polarity (+1 causes/enables/amplifies, -1
prevents/blocks/masks). Synonyms resolve to their term explicitly; a term merged during
consolidation keeps a ``merged_into`` pointer so old signatures still resolve. An unknown name
is never silently kept: :meth:`Vocabulary.resolve` returns None and callers raise with a
suggestion from :meth:`Vocabulary.suggest`.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from importlib import resources
from pathlib import Path

from analogist.errors import VocabularyError

KINDS = ("structural", "epistemic", "temporal", "resource", "causal", "state")


@dataclass(frozen=True)
class VocabTerm:
    """One vocabulary entry."""

    term: str
    kind: str
    arity: int
    definition: str
    polarity: int = 0
    synonyms: tuple[str, ...] = ()
    merged_into: str | None = None
    commutative: bool = False

    @property
    def is_causal_link(self) -> bool:
        """True when the term may join two terms in a causal chain."""
        return self.kind == "causal"

    def to_json(self) -> dict:
        d = asdict(self)
        d["synonyms"] = list(self.synonyms)
        return d


def _check_term(t: VocabTerm) -> None:
    where = f"vocabulary term {t.term!r}"
    if not t.term.replace("_", "").isalnum() or not t.term[0].isalpha():
        raise VocabularyError(
            f"{where}: name must be letters, digits and '_' starting with a letter"
        )
    if t.kind not in KINDS:
        raise VocabularyError(f"{where}: kind {t.kind!r} is not one of {', '.join(KINDS)}")
    if not (1 <= t.arity <= 4):
        raise VocabularyError(f"{where}: arity must be 1-4, got {t.arity}")
    if not t.definition.strip():
        raise VocabularyError(f"{where}: a term needs a one-line definition (spec §6)")
    if t.kind == "causal" and t.polarity not in (1, -1):
        raise VocabularyError(f"{where}: a causal link needs polarity +1 or -1")
    if t.kind != "causal" and t.polarity != 0:
        raise VocabularyError(f"{where}: only causal links carry a polarity")


@dataclass(frozen=True)
class Vocabulary:
    """An immutable set of terms with synonym resolution; edits return a new vocabulary."""

    terms: tuple[VocabTerm, ...]
    version: int = 1
    _index: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    _by_name: dict[str, VocabTerm] = field(default_factory=dict, compare=False, repr=False)
    _live: dict[str, VocabTerm] = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        index: dict[str, str] = {}
        names = {t.term for t in self.terms}
        for t in self.terms:
            _check_term(t)
            if t.term in index:
                raise VocabularyError(f"vocabulary term {t.term!r} is defined twice")
            index[t.term] = t.term
        for t in self.terms:
            if t.merged_into is not None and t.merged_into not in names:
                raise VocabularyError(
                    f"vocabulary term {t.term!r}: merged_into {t.merged_into!r} is not a term"
                )
            for s in t.synonyms:
                if s in index and index[s] != t.term:
                    raise VocabularyError(
                        f"synonym {s!r} of {t.term!r} is already a term or a synonym of "
                        f"{index[s]!r}; a name may resolve to one term only"
                    )
                index[s] = t.term
        self._index.update(index)
        self._by_name.update({t.term: t for t in self.terms})

    # lookup ---------------------------------------------------------------
    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.resolve(name) is not None

    def __iter__(self) -> Iterator[VocabTerm]:
        return iter(self.terms)

    def __len__(self) -> int:
        return len(self.terms)

    def get(self, name: str) -> VocabTerm:
        """The term an existing canonical name denotes (no synonym resolution)."""
        t = self._by_name.get(name)
        if t is not None:
            return t
        raise VocabularyError(f"{name!r} is not a vocabulary term; see `analogist vocab`")

    def resolve(self, name: str) -> VocabTerm | None:
        """The live term a name denotes, following synonyms and merges; None if unknown.
        (Known names are memoised: the vocabulary is immutable and every ingested relation and
        term resolves its name.)"""
        hit = self._live.get(name)
        if hit is not None:
            return hit
        found = self._resolve(name)
        if found is not None:
            self._live[name] = found
        return found

    def _resolve(self, name: str) -> VocabTerm | None:
        canon = self._index.get(name)
        seen = set()
        while canon is not None:
            t = self.get(canon)
            if t.merged_into is None:
                return t
            if canon in seen:
                raise VocabularyError(f"merged_into cycle at vocabulary term {canon!r}")
            seen.add(canon)
            canon = t.merged_into
        return None

    def names(self) -> tuple[str, ...]:
        """Every name the vocabulary knows: terms (merged ones too) and synonyms."""
        return tuple(self._index)

    def suggest(self, name: str) -> str | None:
        """The closest known name, for 'did you mean' messages."""
        close = difflib.get_close_matches(name, list(self._index), n=1, cutoff=0.5)
        if not close:
            close = [k for k in self._index if name in k or k in name][:1]
        if not close:
            return None
        t = self.resolve(close[0])
        return t.term if t else close[0]

    def by_kind(self, *kinds: str) -> list[VocabTerm]:
        return [t for t in self.terms if t.kind in kinds and t.merged_into is None]

    # edits ------------------------------------------------------------------
    def add(self, term: VocabTerm) -> Vocabulary:
        """A new vocabulary with one more term (it must carry a definition)."""
        return Vocabulary(self.terms + (term,), self.version)

    def merge(self, old: str, into: str) -> Vocabulary:
        """A new vocabulary where ``old`` is merged into ``into`` (consolidation, spec §6)."""
        target = self.resolve(into)
        if target is None:
            raise VocabularyError(f"cannot merge into unknown term {into!r}")
        source = self.get(old)
        if source.merged_into is not None:
            raise VocabularyError(f"{old!r} is already merged into {source.merged_into!r}")
        if source.term == target.term:
            raise VocabularyError(f"cannot merge {old!r} into itself ({into!r} resolves to it)")
        if source.arity != target.arity:
            raise VocabularyError(
                f"cannot merge {old!r} (arity {source.arity}) into {into!r} (arity {target.arity})"
            )
        if source.is_causal_link != target.is_causal_link or source.polarity != target.polarity:
            raise VocabularyError(
                f"cannot merge {old!r} ({source.kind}, polarity {source.polarity:+d}) into "
                f"{into!r} ({target.kind}, polarity {target.polarity:+d}): a causal link merges "
                "only into a causal link of the same polarity, or stored chains would change meaning"
            )
        terms = tuple(
            replace(t, merged_into=target.term) if t.term == old else t for t in self.terms
        )
        return Vocabulary(terms, self.version)

    # files ------------------------------------------------------------------
    def to_json(self) -> dict:
        return {"version": self.version, "terms": [t.to_json() for t in self.terms]}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: dict) -> Vocabulary:
        if not isinstance(data, dict) or not isinstance(data.get("terms"), list):
            raise VocabularyError('a vocabulary file is {"version": N, "terms": [{...}, ...]}')
        terms = []
        for i, raw in enumerate(data["terms"]):
            try:
                raw = dict(raw)
                raw["synonyms"] = tuple(raw.get("synonyms") or ())
                terms.append(VocabTerm(**raw))
            except TypeError as e:
                raise VocabularyError(f"vocabulary terms[{i}]: {e}") from None
        return cls(tuple(terms), int(data.get("version", 1)))

    @classmethod
    def load(cls, path: str | Path) -> Vocabulary:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise VocabularyError(f"cannot read vocabulary file {path}: {e}") from None
        return cls.from_json(data)


def default_vocabulary() -> Vocabulary:
    """The bundled starting vocabulary (27 role relations, 9 causal links, 19 states)."""
    text = resources.files("analogist.data").joinpath("vocabulary.json").read_text("utf-8")
    return Vocabulary.from_json(json.loads(text))
