"""Memory: the object an agent engineer uses to store episodes and ask "have I seen this shape?".

``Memory(store)`` wraps a :class:`~analogist.store.Store` with the retrieval channels of spec
§7 and the indexes they read. :meth:`Memory.add` validates episodes (or JSONL lines), computes
everything derived from them at storage time — the WL fingerprint and the L0/L2/L3 embeddings,
batched (spec §5) — and writes it all in one transaction. :meth:`Memory.search` runs the
channels, the schema library first, and returns a :class:`~analogist.retrieve.pool.Pool`: the
union of their hits with provenance, never a fused score.

>>> m = Memory(":memory:")
>>> m.add(['{"id": "ep_1", "kind": "observation", "text": "the cache served a stale price"}']).added
['ep_1']
>>> sorted(m.search("stale cache").skipped)[:2]
['S0', 'S1']
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from analogist.collector import collector_paused
from analogist.episode import Episode, parse_episode
from analogist.errors import AnalogistError, ConfigError
from analogist.models.embedding import Embedder
from analogist.retrieve.base import Channel, ChannelUnavailable, Target, channel_params
from analogist.retrieve.defaults import default_channels
from analogist.retrieve.embedder_choice import configured_embedder
from analogist.retrieve.indexes import Indexes, LevelRows
from analogist.retrieve.pool import Pool
from analogist.retrieve.schemas import Schema, parse_schema
from analogist.retrieve.structure_memo import StructureMemo
from analogist.retrieve.targets import Encoder, resolve_target, select_channels
from analogist.signature.fingerprint import WLFingerprint
from analogist.signature.limits import load_json
from analogist.signature.model import Signature, parse_signature
from analogist.store import AddReport as StoreAddReport
from analogist.store import Derived, Store
from analogist.store.postgres import open_store
from analogist.store.store import BULK_MIN
from analogist.verify.predict import CheckFn

if TYPE_CHECKING:
    from analogist.reason.analogizer import AnalogizerConfig
    from analogist.reason.run import AnalogyRun
    from analogist.reason.triggers import Signals, Trigger

Item = Episode | Mapping[str, Any] | str


#: Items per chunk of a large :meth:`Memory.add` (parsed, derived and written together). At
#: 10,000 a chunk touched more fresh memory: adding 100,000 onto a 1M memory in adds of 50,000
#: took 0.94-0.99 page faults per episode against 0.78-0.80 at 5,000, and 191-208 against
#: 187-201 CPU µs in four pairs (``bench/ingest.py --cold --batch 50000``; with the indexes
#: built, adds of 20,000: 2.00-2.04 against 1.66-1.75 faults, 242-253 against 236-240 µs).
ADD_CHUNK = 5_000


class _HeldBack(Exception):
    """Raised inside a chunked add's transaction to roll it back (``all_or_nothing``)."""


@dataclass
class AddReport(StoreAddReport):
    """What :meth:`Memory.add` did: ids written, (line, reason) per rejection, and the valid
    ids held back because ``all_or_nothing`` saw a rejection."""

    held_back: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {**super().to_json(), "held_back": self.held_back}


class Memory:
    """Episodic memory with labelled retrieval channels.

    Args:
        store: a :class:`Store` or a database path.
        embedder: embeds L0/L2/L3 text (default: the configured one — ``ANALOGIST_EMBEDDER``,
            the config file, else MiniLM where installed, else the hashing embedder with a
            warning; see :mod:`analogist.retrieve.embedder_choice`).
        channels: channel objects (default: S3, S0, S1, S2.L2, S2.L3, M.emb, M.bm25, and P when
            ``llm`` is given). A channel dataclass whose ``source`` is None is bound to this
            memory's indexes, and a parametric channel without a model gets ``llm``.
        llm: the model for channel P.
        encoder: text -> Signature, used for plain-text search targets.
        wl: the WL fingerprint algorithm (default ``WLFingerprint()``; its version is stored
            with each fingerprint).
    """

    def __init__(
        self,
        store: Store | str | Path,
        embedder: Embedder | None = None,
        channels: Sequence[Channel] | None = None,
        *,
        llm: Any = None,
        encoder: Encoder | None = None,
        wl: WLFingerprint | None = None,
    ):
        self._owns_store = not isinstance(store, Store)
        self.store = store if isinstance(store, Store) else open_store(store)
        self.embedder = embedder or configured_embedder()
        self.encoder = encoder
        self.llm = llm
        self.indexes = Indexes(self.store, self.embedder, wl or WLFingerprint())
        self.structures = StructureMemo(self.indexes.wl)
        chosen = list(channels) if channels is not None else default_channels(llm)
        self.channels = [self._bind(c) for c in chosen]
        names = [c.name for c in self.channels]
        if len(set(names)) != len(names):
            raise ConfigError(f"channel names must be unique, got {names}")

    def _bind(self, ch: Channel) -> Channel:
        if not dataclasses.is_dataclass(ch):
            return ch
        names = {f.name for f in dataclasses.fields(ch)}
        if "source" in names and ch.source is None:
            ch = dataclasses.replace(ch, source=self.indexes)
        if "llm" in names and ch.llm is None and self.llm is not None:
            ch = dataclasses.replace(ch, llm=self.llm)
        return ch

    def close(self) -> None:
        """Persist the retrieval indexes when enough is new (see ``Indexes.save_if_worthwhile``),
        then close the store if this memory opened it."""
        try:
            self.indexes.save_if_worthwhile()
        finally:
            if self._owns_store:
                self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def channel_names(self) -> list[str]:
        return [c.name for c in self.channels]

    def describe_channels(self) -> list[dict]:
        """Every channel's parameters, for a run log."""
        return [channel_params(c) for c in self.channels]

    # storing ----------------------------------------------------------------------
    def add(self, items: Iterable[Item], *, all_or_nothing: bool = False) -> AddReport:
        """Validate and store episodes: :class:`Episode` objects, JSON objects, JSONL lines (or
        one JSONL string).

        Invalid items are rejected as ``("line N", reason)`` (N counts from 1, blank lines
        included) and never written; the valid ones are written with their fingerprints and
        embeddings in one transaction. With ``all_or_nothing`` a single rejection writes
        nothing and the valid ids are reported as ``held_back``. More than ``ADD_CHUNK`` items
        are parsed, derived and written a chunk at a time inside that one transaction, so
        memory holds one chunk's episodes and index rows, not the whole load's. From
        ``BULK_MIN`` items Python's cyclic garbage collector is paused for the call and then
        restored as it was (:mod:`analogist.collector` says why).

        Raises:
            StoreError: the write itself failed; nothing was stored.
        """
        if isinstance(items, str):  # a whole JSONL text, not an iterable of lines
            items = items.splitlines()
        lines = items if isinstance(items, Sequence) else list(items)
        with collector_paused(len(lines) >= BULK_MIN):  # (why: analogist/collector.py)
            return self._add_lines(lines, all_or_nothing)

    def _add_lines(self, lines: Sequence[Item], all_or_nothing: bool) -> AddReport:
        report, where = AddReport(), dict[str, str]()
        if len(lines) > ADD_CHUNK:
            return self._add_chunked(lines, report, where, all_or_nothing)
        accepted = self._accept(lines, 0, report, where)
        if all_or_nothing and report.rejected:
            report.held_back = [e.id for e in accepted]
            return report
        if accepted:
            derived, mac, matrices = self._derive(accepted)
            self.store.add_episodes(accepted, derived)  # one transaction, bulk from 64 on
            self.indexes.on_add(accepted, derived, mac, matrices)
        report.added = [e.id for e in accepted]
        return report

    def _accept(
        self, items: Sequence[Item], offset: int, report: AddReport, where: dict[str, str]
    ) -> list[Episode]:
        """Parse ``items`` (line numbers counted after ``offset``): the episodes that may be
        written; rejections go to ``report``, ids accepted so far in ``where``."""
        accepted = []
        for n, item in enumerate(items, start=offset + 1):
            if isinstance(item, str) and not item.strip():
                continue
            try:
                ep = self._parse(item)
            except AnalogistError as e:
                report.rejected.append((f"line {n}", str(e)))
                continue
            if ep.id in where:
                report.rejected.append((f"line {n}", f"episode {ep.id}: id repeats {where[ep.id]}"))
                continue
            where[ep.id] = f"line {n}"
            accepted.append(ep)
        taken = self.store.existing_ids([e.id for e in accepted])
        for ep in [e for e in accepted if e.id in taken]:
            report.rejected.append((where[ep.id], f"episode {ep.id}: id is already stored"))
        return [e for e in accepted if e.id not in taken]

    def _add_chunked(
        self, lines: Sequence[Item], report: AddReport, where: dict[str, str], all_or_nothing: bool
    ) -> AddReport:
        """:meth:`add` of a large load: each chunk is parsed, derived, written and folded into
        the built indexes before the next is read, all in one transaction. A write failure, or
        a rejection under ``all_or_nothing`` (the rest is then only parsed, so every rejection
        is reported), rolls the transaction back and drops the indexes the chunks were folded
        into (they reload from the snapshot and the database when next needed)."""
        valid: list[str] = []
        folded = False

        def chunks() -> Iterator[tuple[list[Episode], dict[str, Derived]]]:
            nonlocal folded
            for start in range(0, len(lines), ADD_CHUNK):
                accepted = self._accept(lines[start : start + ADD_CHUNK], start, report, where)
                if all_or_nothing:  # held back if anything is rejected
                    valid.extend(e.id for e in accepted)
                if not accepted or (all_or_nothing and report.rejected):
                    continue
                derived, mac, matrices = self._derive(accepted)
                yield accepted, derived  # written before the generator resumes
                folded = True
                self.indexes.on_add(accepted, derived, mac, matrices)
            if all_or_nothing and report.rejected:
                raise _HeldBack

        try:
            report.added = self.store.add_episode_chunks(chunks(), len(lines))
        except _HeldBack:
            report.held_back = valid
        except BaseException:
            if folded:
                self.indexes.invalidate()
            raise
        if report.held_back and folded:
            self.indexes.invalidate()
        elif folded:
            self.indexes.mark_current()  # the committed rows are the ones folded in
        return report

    def add_jsonl(self, path: str | Path, *, all_or_nothing: bool = False) -> AddReport:
        """:meth:`add` every line of a JSONL file."""
        with open(path, encoding="utf-8") as f:
            return self.add(f.read().splitlines(), all_or_nothing=all_or_nothing)

    def _parse(self, item: Item) -> Episode:
        if isinstance(item, Episode):
            return item
        if isinstance(item, str):  # load_json checks the nesting; it is not walked again
            return parse_episode(
                load_json(item, "the line"), self.store.vocabulary, depth_checked=True
            )
        return parse_episode(item, self.store.vocabulary)

    def derive(
        self, episodes: Sequence[Episode], embedder: Embedder | None = None
    ) -> dict[str, Derived]:
        """Fingerprints and L0/L2/L3 embeddings of ``episodes``, each level embedded in one batch."""
        return self._derive(episodes, embedder)[0]

    def _derive(
        self, episodes: Sequence[Episode], embedder: Embedder | None = None
    ) -> tuple[dict[str, Derived], dict[str, Counter], dict[tuple[str, str], LevelRows]]:
        """Each episode's :class:`Derived` rows, its MAC vector, and each level's embeddings as
        one matrix with its ids (what the vector indexes fold in, without stacking the rows
        again)."""
        emb, vocab = embedder or self.embedder, self.store.vocabulary
        if self.structures.wl != self.indexes.wl:
            self.structures = StructureMemo(self.indexes.wl)
        vectors: dict[str, list] = {e.id: [] for e in episodes}
        matrices: dict[tuple[str, str], LevelRows] = {}
        name = emb.name
        for level in ("L0", "L2", "L3"):
            if level == "L0":
                ids, texts = [e.id for e in episodes], [e.text for e in episodes]
            else:
                pairs = [(e.id, e.signature.level(level)) for e in episodes if e.signature]
                ids, texts = [i for i, t in pairs if t], [t for _, t in pairs if t]
            if texts:
                mat = emb.embed(texts)
                matrices[(level, name)] = (ids, mat)
                for eid, row in zip(ids, list(mat)):
                    vectors[eid].append((level, name, row))
        prints, mac = {}, {}
        for e in episodes:  # once per distinct structure (retrieve/structure_memo.py)
            if e.signature is not None:
                prints[e.id], mac[e.id] = self.structures.derive(e.signature, vocab)
        derived = {e.id: Derived(tuple(vectors[e.id]), prints.get(e.id)) for e in episodes}
        return derived, mac, matrices

    def add_schema(self, raw: Mapping[str, Any], members: Sequence[str], **counts: int) -> Schema:
        """Validate and store a schema (signature-like JSON with a ``schema_id``) and its members."""
        schema = parse_schema(raw, members, self.store.vocabulary, **counts)
        self.store.put_schema(schema.schema_id, schema.to_json(), schema.members, **counts)
        return schema

    def analogize(
        self,
        target: str | Signature | Mapping[str, Any],
        *,
        config: AnalogizerConfig | None = None,
        trigger: Trigger | None = None,
        llm: Any = None,
        check: CheckFn | None = None,
        log: bool = True,
        blend: bool = False,
    ) -> AnalogyRun:
        """Run the analogy loop on ``target`` and log the run (spec §1; see
        :class:`~analogist.reason.analogizer.Analogizer`).

        Args:
            target: a stored episode id (its signature; the episode itself is not a source),
                a :class:`Signature`, signature JSON, or plain text when the memory has an
                ``encoder``.
            config: the pipeline settings (default: every channel, gate, engine critic,
                prediction).
            trigger: why the run fired (default: an explicit tier-1 request).
            llm: the model a model critic or re-representation needs.
            check: the hook that tests the prediction (default: none; it stays unchecked).
            log: write the run to the analogy log.
            blend: also propose generated blends of retrieved sources (and, with ``llm``,
                cross-domain cases from the model); each goes through the same mapping,
                gate, critic and check (docs/blending.md). A ``config`` with its own
                ``blend`` policy keeps it.

        Returns:
            The run: its pool, mapping, :class:`~analogist.verify.assessment.Assessment`,
            transferred elements and cost.
        """
        from analogist.reason.analogizer import MANUAL, Analogizer, AnalogizerConfig

        sig, exclude = self._analogy_target(target)
        config = config or AnalogizerConfig()
        if blend and config.blend is None:
            from dataclasses import replace

            from analogist.reason.blend import BlendPolicy

            config = replace(config, blend=BlendPolicy())
        analogizer = Analogizer(self, config, llm=llm, check=check, log=log)
        return analogizer.run(sig, trigger=trigger or MANUAL, exclude=exclude)

    def _analogy_target(
        self, target: str | Signature | Mapping[str, Any]
    ) -> tuple[Signature, list[str]]:
        if isinstance(target, Signature):
            return target, []
        if not isinstance(target, str):
            return parse_signature(dict(target), self.store.vocabulary), []
        if self.store.has_episode(target):
            return self.store.get_signature(target), [target]
        if self.encoder is None:
            raise AnalogistError(
                f"{target[:40]!r} is not a stored episode id, and text needs an encoder: open "
                "the memory with encoder=, or pass a Signature or signature JSON"
            )
        return self.encoder(target), []

    def consolidate(self, **options: Any) -> Any:
        """Learn from the verified analogies logged since the last run: induce schemas, update
        telemetry, merge evidence and the operator library (:func:`analogist.learn.consolidate`;
        options: ``policy``, ``dry_run``, ``merges``). Returns its ConsolidationReport."""
        from analogist.learn import consolidate

        report = consolidate(self.store, embedder=self.embedder, wl=self.indexes.wl, **options)
        self.indexes.invalidate()
        return report

    def undo_consolidation(self, run_id: str) -> int:
        """Undo consolidation run ``run_id`` (the newest not undone; ``consolidate --undo``)
        and drop this memory's indexes, which a merge's undo changes; returns the changes undone."""
        n = self.store.undo_consolidation(run_id)
        self.indexes.invalidate()
        return n

    def trigger(self, signals: Signals) -> tuple[Trigger, int | None]:
        """Should the agent's impasse run analogy, and at which tier (spec §7)? Decided by the
        newest policy fitted from this memory's analogy log (``analogist triggers --fit``), or by
        the default thresholds when none is stored. Returns the decision and the fitted
        policy's version (None: the default policy was used)."""
        from analogist.learn.triggers import current_policy

        policy, version = current_policy(self.store)
        return policy.decide(signals), version

    def delete(self, ids: Iterable[str]) -> None:
        """Delete episodes and everything derived from them; indexes are rebuilt on next use."""
        self.store.delete_episodes(ids)
        self.indexes.invalidate()

    def reindex(self, embedder: Embedder | None = None, chunk: int = 5000) -> int:
        """Recompute every embedding (with ``embedder``, which becomes this memory's) and every
        fingerprint (with the current WL version); return how many episodes were processed."""
        emb = embedder or self.embedder
        vocab, done = self.store.vocabulary, 0
        for rows in self.store.iter_episode_texts(chunk):
            eps = [
                Episode(
                    eid, "observation", text, signature=parse_signature(raw, vocab) if raw else None
                )
                for eid, text, raw in rows
            ]
            self.store.put_derived(self.derive(eps, emb))
            done += len(eps)
        self.embedder = self.indexes.embedder = emb
        self.indexes.invalidate()
        return done

    # searching --------------------------------------------------------------------
    def search(
        self,
        target: str | Signature | Episode | Target,
        channels: Sequence[str] | str | None = None,
        k: int = 10,
        exclude: Iterable[str] = (),
        *,
        encoder: Encoder | None = None,
    ) -> Pool:
        """Run the channels for ``target`` and return their union with provenance.

        Args:
            target: a stored episode id, plain text, a :class:`Signature` or an
                :class:`Episode`. A stored target (and any episode whose provenance names it)
                is excluded automatically.
            channels: names or families to run (``["S0", "S2"]`` or ``"S0,M"``); all by default.
            k: hits per channel.
            exclude: more ids to keep out; their derivatives are excluded too.
            encoder: text -> Signature for a plain-text target (overrides the memory's).

        Channels that cannot run are listed in ``Pool.skipped`` with the reason, e.g. the
        structural channels for a plain-text target when no encoder is given.
        """
        self.indexes.refresh_if_changed()
        tgt, why_unsigned = resolve_target(self.store, target, encoder or self.encoder)
        ex = set(exclude) | ({tgt.episode_id} if tgt.episode_id else set())
        excluded = frozenset(self.indexes.derivatives().closure(ex)) if ex else frozenset()
        hits, skipped, ran = {}, {}, []
        for ch in select_channels(self.channels, channels):
            if ch.needs == "signature" and tgt.signature is None:
                skipped[ch.name] = why_unsigned
                continue
            try:
                hits[ch.name] = tuple(ch.search(tgt, k, excluded))
                ran.append(ch.name)
            except ChannelUnavailable as e:
                skipped[ch.name] = str(e)
        summary = {
            "episode_id": tgt.episode_id,
            "text": tgt.text,
            "has_signature": tgt.signature is not None,
        }
        return Pool(summary, hits, skipped, excluded, tuple(ran))
