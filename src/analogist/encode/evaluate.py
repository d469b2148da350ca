"""Running an encoder over episodes with gold signatures and scoring its fidelity.

The input is JSONL in the format of ``analogist/data/example_memory.jsonl``: one episode per
line, ``{"id", "kind", "text", "outcome", "time", "provenance", "signature"}``. Each episode is
encoded from its text alone — the gold signature is removed before the encoder sees it — and
the result is scored with :func:`analogist.encode.fidelity.score_signature`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from analogist.encode.encoder import Encoder, EncodeResult
from analogist.encode.fidelity import FidelityReport, rejected, score_signature, summarise
from analogist.episode import Episode, parse_episode
from analogist.errors import AnalogistError, EpisodeError
from analogist.signature.vocabulary import Vocabulary, default_vocabulary


def load_gold_episodes(path: str | Path, vocab: Vocabulary | None = None) -> list[Episode]:
    """Episodes that carry a gold signature, read from a JSONL file.

    Raises:
        EpisodeError: a line is not valid JSON, not a valid episode, or has no signature.
    """
    vocab = vocab or default_vocabulary()
    out = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise EpisodeError(f"cannot read {path}: {e}") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            ep = parse_episode(json.loads(line), vocab)
        except json.JSONDecodeError as e:
            raise EpisodeError(f"{path}:{n}: not valid JSON ({e.msg})") from None
        except AnalogistError as e:
            raise EpisodeError(f"{path}:{n}: {e}") from None
        if ep.signature is None:
            raise EpisodeError(
                f"{path}:{n}: episode {ep.id} has no gold signature to score against"
            )
        out.append(ep)
    return out


def evaluate_encoder(
    episodes: Iterable[Episode],
    encoder: Encoder,
    *,
    writer: str = "",
    vocab: Vocabulary | None = None,
) -> FidelityReport:
    """Encode each episode from its text alone and score it against its gold signature."""
    vocab = vocab or default_vocabulary()
    scores, results = [], []
    for ep in episodes:
        gold = ep.signature
        if gold is None:
            continue
        result = encoder.encode(replace(ep, signature=None))
        results.append(result)
        writer = writer or result.writer
        if result.signature is None:
            scores.append(rejected(ep.id, gold, result.reason or "rejected"))
        else:
            scores.append(score_signature(result.signature, gold, vocab))
    report = summarise(scores, writer)
    report.summary["process"] = process_summary(results)
    return report


def process_summary(results: Iterable[EncodeResult]) -> dict:
    """How the encoder got there: repairs, rejections by step, what was dropped, calls."""
    results = list(results)
    per_step: dict[str, dict[str, int]] = {}
    for r in results:
        for t in r.steps:
            d = per_step.setdefault(
                t.step, {"runs": 0, "failed": 0, "repaired": 0, "dropped": 0, "calls": 0}
            )
            d["runs"] += 1
            d["failed"] += 0 if t.ok else 1
            d["repaired"] += int(t.repaired)
            d["dropped"] += len(t.dropped)
            d["calls"] += t.calls
    rejected_at: dict[str, int] = {}
    for r in results:
        if not r.ok:
            step = r.steps[-1].step if r.steps else "answer"
            rejected_at[step] = rejected_at.get(step, 0) + 1
    n = len(results)
    n_rej = sum(1 for r in results if not r.ok)
    return {
        "episodes": n,
        "rejected": n_rej,
        "rejection_rate": n_rej / n if n else 0.0,
        "repaired": sum(1 for r in results if r.repaired),
        "rejected_at": rejected_at,
        "steps": per_step,
    }
