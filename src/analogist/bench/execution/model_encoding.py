"""``bench run --encoder model``: the model writes every signature the system under test uses.

Per item, the :class:`~analogist.encode.staged.StagedEncoder` encodes the target from its text
(and the item's entity table, which every arm is shown) and each memory episode, candidate and
given source at storage time from its own stored record — text, kind and outcome — never seeing
the target or another episode. The item's inputs are then the same records with the model's
signatures in place of the generator's (an episode whose encoding was rejected is stored without
a signature, as a live memory would hold it). The gold encoder stays the labelled alternative.

Encodings are cached per record (and every call is in the call log), so an episode shared by
several items is encoded once. :meth:`ItemEncoder.fidelity` compares what was written with the
generator's signatures — scoring-side only, after the run; nothing under test reads it. A target
is scored against :func:`fidelity_target` (the gold target with the item's keyed fix), and each
group's figures come with their chance floor (:func:`~analogist.encode.fidelity.chance_floor`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from analogist.bench.execution.answer import target_signature
from analogist.bench.execution.runner import item_episodes
from analogist.bench.generation.items import Item
from analogist.encode.encoder import EncodeResult
from analogist.encode.evaluate import process_summary
from analogist.encode.fidelity import chance_floor, rejected, score_signature, summarise
from analogist.encode.staged import StagedEncoder
from analogist.encode.steps import STAGED_PROMPT_VERSION
from analogist.episode import Episode
from analogist.errors import CacheMissError
from analogist.signature import Signature, parse_signature
from analogist.signature.terms import parse_fix_operator
from analogist.signature.vocabulary import Vocabulary


@dataclass(frozen=True)
class EncodedItem:
    """An item as the model encoder sees it: inputs with model signatures, and the target."""

    item: Item
    target: Signature | None
    target_result: EncodeResult


def fidelity_target(key: Mapping[str, Any], vocab: Vocabulary) -> Signature:
    """The gold a model-written target is scored against: the generator's target signature
    (:func:`~analogist.bench.execution.answer.target_signature`) with the item's keyed fix
    (``key["fix"]``: operator and entity-id arguments) as its fix operator.

    The answer path's gold target leaves the fix out, since finding it is the task; scored
    against that, a target's ``fix`` step had no gold and scored 0 whatever was written.
    Scoring side only: nothing under test sees this signature.
    """
    sig = target_signature(key, vocab)
    fix = key.get("fix") or {}
    args = [str(a) for a in fix.get("args") or []]
    if not args:
        return sig
    op = str(fix.get("operator") or "fix")
    return replace(sig, fix_operator=parse_fix_operator(f"{op}({','.join(args)})"))


class RunStopped(Exception):
    """The run's time ran out before an encoding started (the run stops; nothing is stored)."""


class ItemEncoder:
    """Encodes items with a model; thread-safe, one encoding per record. Past ``deadline``
    (``time.monotonic()``) no new encoding starts: :class:`RunStopped` is raised instead.
    With ``stop_when_unlogged`` (an encoder that answers only from another run's call log) an
    encoding the log does not hold stops the run the same way, instead of raising
    :class:`~analogist.errors.CacheMissError`."""

    def __init__(
        self,
        llm: Any,
        vocab: Vocabulary,
        deadline: float | None = None,
        version: str = STAGED_PROMPT_VERSION,
        stop_when_unlogged: bool = False,
    ):
        self.encoder = StagedEncoder(llm, vocab, version=version)
        self.deadline = deadline
        self.stop_when_unlogged = stop_when_unlogged
        self.vocab = vocab
        self._lock = threading.Lock()
        self._records: dict[tuple[str, str], EncodeResult] = {}
        self._items: dict[str, EncodedItem] = {}

    def record(self, rec: Mapping[str, Any]) -> dict:
        """``rec`` with its signature written by the model (none when the encoding failed)."""
        key = (rec["id"], rec.get("text", ""))
        with self._lock:
            res = self._records.get(key)
            if res is None:
                self._check_time()
                ep = Episode(
                    rec["id"],
                    rec.get("kind", "observation"),
                    rec.get("text", ""),
                    rec.get("outcome"),
                )
                res = self._records[key] = self._logged(self.encoder.encode, ep)
        out = {k: v for k, v in rec.items() if k != "signature"}
        if res.signature is not None:
            out["signature"] = res.signature.to_json()
        return out

    def item(self, item: Item) -> EncodedItem:
        """The item with every episode and the target encoded by the model (cached)."""
        with self._lock:
            done = self._items.get(item.item_id)
        if done is not None:
            return done
        inputs = dict(item.inputs)
        for key in ("memory", "candidates"):
            if inputs.get(key):
                inputs[key] = [self.record(r) for r in inputs[key]]
        if inputs.get("source"):
            inputs["source"] = self.record(inputs["source"])
        tgt = inputs.get("target") or {}
        with self._lock:
            self._check_time()
            res = self._logged(
                self.encoder.encode_target,
                tgt.get("text", ""),
                target_id="target",
                entities=tgt.get("entities") or None,
            )
        encoded = EncodedItem(replace(item, inputs=inputs), res.signature, res)
        with self._lock:
            self._items[item.item_id] = encoded
        return encoded

    def use_version(self, version: str) -> None:
        """Encode with another prompt version from now on (a replay of a run recorded with it)."""
        self.encoder = StagedEncoder(self.encoder.llm, self.vocab, version=version)

    def _logged(self, encode: Any, *args: Any, **kw: Any) -> EncodeResult:
        try:
            return encode(*args, **kw)
        except CacheMissError as e:
            if not self.stop_when_unlogged:
                raise
            raise RunStopped(
                f"the encoder's call log holds no encoding for this item ({e}); the run it "
                "reuses did not reach it"
            ) from None

    def _check_time(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise RunStopped("the run's time is up")

    # ------------------------------------------------------------------ scoring side
    def fidelity(self, items: Iterable[Item]) -> dict:
        """Encoder fidelity of this run against the generator's signatures: episodes (storage
        time) and targets (query time) separately, with the per-step figures and how often a
        signature was rejected. Give only items the run answered: their encodings are in the
        call log, so nothing here calls the model again. Each group also gets its ``chance``
        floor: the same written signatures against other episodes' gold."""
        ep_scores, ep_results, seen = [], [], set()
        t_scores, t_results = [], []
        ep_pairs: list[tuple[Signature | None, Signature]] = []
        t_pairs: list[tuple[Signature | None, Signature]] = []
        for it in items:
            enc = self._items.get(it.item_id) or self.item(it)
            for rec in item_episodes(it):
                key = (rec["id"], rec.get("text", ""))
                res = self._records.get(key)
                if res is None or key in seen or not rec.get("signature"):
                    continue
                seen.add(key)
                gold = parse_signature({**rec["signature"], "episode_id": rec["id"]}, self.vocab)
                ep_results.append(res)
                ep_pairs.append((res.signature, gold))
                ep_scores.append(
                    score_signature(res.signature, gold, self.vocab)
                    if res.signature is not None
                    else rejected(rec["id"], gold, res.reason or "rejected")
                )
            gold_t = fidelity_target(it.key, self.vocab)
            t_results.append(enc.target_result)
            t_pairs.append((enc.target, gold_t))
            t_scores.append(
                score_signature(enc.target, gold_t, self.vocab)
                if enc.target is not None
                else rejected(it.item_id, gold_t, enc.target_result.reason or "")
            )
        out: dict[str, Any] = {}
        for name, scores, results, pairs in (
            ("episodes", ep_scores, ep_results, ep_pairs),
            ("targets", t_scores, t_results, t_pairs),
        ):
            rep = summarise(scores, self.encoder.writer)
            out[name] = {
                **rep.summary,
                "chance": chance_floor(pairs, self.vocab),
                "process": process_summary(results),
            }
        out["writer"] = self.encoder.writer
        return out
