"""ParallelPARC (Sultan et al., NAACL 2024): an external analogy benchmark, run through the
pipeline and through baselines.

Each row of a ParallelPARC CSV holds a ``source_paragraph`` (a process in one domain), its
analogous ``target_paragraph``, a ``distractor_target_paragraph`` (the target's sentences with
the relational order changed) and a ``random_target_paragraph``. Two tasks:

- **binary**: is this paragraph analogous to the source? (target: yes; distractor, random: no)
- **multiple choice**: which of the three is the analogue?

Methods (none reads the ``relations`` column, which is the dataset's key):

- ``pipeline``: the model encoder (:class:`~analogist.encode.StagedEncoder`) writes a signature
  of every paragraph from its text alone; the analogizer maps each candidate onto the source
  with SME and decides with the causal gate and the engine critic (default
  :class:`~analogist.reason.analogizer.AnalogizerConfig`, nothing tuned on this data). Binary:
  "yes" when an analogy is accepted; choice: the highest structural score.
- ``cosine``: embedding cosine between source and candidate (MiniLM by default). Choice: the
  most similar. Binary: cosine above a threshold *fitted on the labels* by two-fold cross-fitting
  (each half's threshold is fitted on the other half), labelled as such.
- ``bare``: the model alone, asked each question directly (binary yes/no; choice among the three
  in a seeded order).

Accuracy is reported per item (the binary task's three pairs of one item count as one unit) with
BCa bootstrap intervals over items; the distractor-rejection rate is the binary task's share of
distractors called not analogous, and ``distractor_chosen`` the choice task's share of items
where the distractor was picked.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from analogist.bench.analysis.stats import Interval, bca_bounds
from analogist.errors import BenchError

CANDIDATES = ("target", "distractor", "random")
COLUMNS = {
    "source": "source_paragraph",
    "target": "target_paragraph",
    "distractor": "distractor_target_paragraph",
    "random": "random_target_paragraph",
}
BARE_PROMPT_VERSION = "parallelparc-bare-1"
_INSTRUCTION = (
    "Two paragraphs are analogous when they describe processes with the same relational "
    "structure: corresponding parts act on each other in the same ways and in the same order, "
    "even if the domains and words differ. Sharing entities or words is not enough."
)


@dataclass(frozen=True)
class Row:
    """One ParallelPARC item: the source and its three candidates."""

    item_id: str
    source: str
    target: str
    distractor: str
    random: str

    def candidate(self, name: str) -> str:
        return getattr(self, name)


def read_csv(path: str | Path, limit: int | None = None) -> list[Row]:
    """Rows of a ParallelPARC CSV (silver or human-verified; any file with the four paragraph
    columns). ``sample_id`` (else the first column, else the row number) names each item.

    Raises:
        BenchError: unreadable file, missing columns, or an empty paragraph.
    """
    try:
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            missing = [c for c in COLUMNS.values() if c not in header]
            if missing:
                raise BenchError(
                    f"{path}: no column {missing[0]!r}; a ParallelPARC CSV has "
                    f"{', '.join(COLUMNS.values())}"
                )
            rows: list[Row] = []
            for n, rec in enumerate(reader, start=1):
                if limit is not None and len(rows) >= limit:
                    break
                item_id = (rec.get("sample_id") or rec.get(header[0]) or str(n)).strip() or str(n)
                texts = {k: (rec.get(c) or "").strip() for k, c in COLUMNS.items()}
                empty = [k for k, t in texts.items() if not t]
                if empty:
                    raise BenchError(
                        f"{path} row {n}: the {COLUMNS[empty[0]]} is empty; every "
                        "row needs all four paragraphs"
                    )
                rows.append(Row(f"{n - 1}:{item_id}"[:120], **texts))
    except UnicodeDecodeError:
        raise BenchError(f"{path} is not UTF-8 text; save the CSV as UTF-8") from None
    except OSError as e:
        raise BenchError(f"cannot read {path}: {e.strerror or e}") from None
    except csv.Error as e:
        raise BenchError(f"{path} is not a readable CSV ({e})") from None
    if not rows:
        raise BenchError(f"{path} has no rows")
    return rows


# ------------------------------------------------------------------------------ answers
@dataclass(frozen=True)
class ItemAnswer:
    """One method's answers on one item: a binary verdict and a score per candidate (None:
    no answer, e.g. an encoding the encoder rejected), and the candidate it chose."""

    item_id: str
    binary: dict[str, bool]
    scores: Mapping[str, float | None]
    choice: str | None
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return asdict(self)


def choose(scores: Mapping[str, float | None], rng: random.Random) -> str | None:
    """The best-scoring candidate; ties broken by ``rng`` (so a tie earns chance, not the first
    listed); None when no candidate has a score."""
    scored = {k: v for k, v in scores.items() if v is not None}
    if not scored:
        return None
    best = max(scored.values())
    tied = sorted(k for k, v in scored.items() if v == best)
    return tied[rng.randrange(len(tied))]


Method = Callable[[Sequence[Row]], list[ItemAnswer]]


class Pipeline:
    """The system under test: model encoder → SME → causal gate and engine critic."""

    name = "pipeline"

    def __init__(self, llm: Any, seed: int = 0, vocab: Any = None):
        from analogist.encode import StagedEncoder
        from analogist.memory import Memory
        from analogist.models.embedding import HashingEmbedder
        from analogist.reason.analogizer import Analogizer, AnalogizerConfig

        # sources are given, so retrieval never runs: the memory only supplies the vocabulary
        self.memory = Memory(":memory:", embedder=HashingEmbedder())
        self.vocab = vocab or self.memory.store.vocabulary
        self.encoder = StagedEncoder(llm, self.vocab)
        self.analogizer = Analogizer(self.memory, AnalogizerConfig(), log=False)
        self.seed = seed
        self.rejected = 0
        self.encoded = 0

    def _encode(self, text: str, eid: str):
        r = self.encoder.encode_text(text, episode_id=eid, kind="observation")
        self.encoded += 1
        if r.signature is None:
            self.rejected += 1
        return r.signature, r.reason

    def __call__(self, rows: Sequence[Row]) -> list[ItemAnswer]:
        out = []
        for i, row in enumerate(rows):
            rng = random.Random(self.seed * 1_000_003 + i)
            src, why = self._encode(row.source, "source")
            binary: dict[str, bool] = {}
            scores: dict[str, float | None] = {}
            notes: list[str] = []
            if src is None:
                notes.append(f"source not encoded: {why}")
            for name in CANDIDATES:
                sig, reason = self._encode(row.candidate(name), name)
                if src is None or sig is None:
                    if sig is None:
                        notes.append(f"{name} not encoded: {reason}")
                    binary[name], scores[name] = False, None
                    continue
                run = self.analogizer.run(sig, sources=[src], run_id=f"pp:{row.item_id}:{name}")
                binary[name] = run.source is not None
                scores[name] = float(run.structural_score or 0.0)
            out.append(ItemAnswer(row.item_id, binary, scores, choose(scores, rng), tuple(notes)))
        return out


class Cosine:
    """Embedding cosine between the source and each candidate (baseline)."""

    def __init__(self, embedder: Any, seed: int = 0):
        self.embedder, self.seed = embedder, seed
        self.name = f"cosine:{embedder.name}"

    def __call__(self, rows: Sequence[Row]) -> list[ItemAnswer]:
        texts = [t for r in rows for t in (r.source, *(r.candidate(c) for c in CANDIDATES))]
        vec = np.asarray(self.embedder.embed(texts), dtype=np.float64).reshape(len(rows), 4, -1)
        sims = np.einsum("nd,nkd->nk", vec[:, 0], vec[:, 1:])
        thresholds = cross_fitted_thresholds(sims, self.seed)
        out = []
        for i, row in enumerate(rows):
            rng = random.Random(self.seed * 1_000_003 + i)
            scores = {c: float(sims[i, k]) for k, c in enumerate(CANDIDATES)}
            binary = {c: scores[c] > thresholds[i] for c in CANDIDATES}
            out.append(
                ItemAnswer(
                    row.item_id,
                    binary,
                    scores,
                    choose(scores, rng),
                    (f"threshold {thresholds[i]:.4f} (cross-fitted on labels)",),
                )
            )
        return out


def cross_fitted_thresholds(sims: np.ndarray, seed: int) -> np.ndarray:
    """Per item, the cosine threshold fitted (best binary accuracy) on the *other* half of the
    items; halves from a seeded permutation. Labels: column 0 (target) yes, the others no."""
    n = sims.shape[0]
    order = np.random.default_rng(seed).permutation(n)
    halves = [order[: n // 2], order[n // 2 :]]
    out = np.zeros(n)
    for k, half in enumerate(halves):
        train = halves[1 - k] if len(halves[1 - k]) else half
        out[half] = best_threshold(sims[train])
    return out


def best_threshold(sims: np.ndarray) -> float:
    """The threshold maximising binary accuracy over these items' pairs (midpoints tried)."""
    values = sims.reshape(-1)
    labels = np.zeros_like(sims, dtype=bool)
    labels[:, 0] = True
    labels = labels.reshape(-1)
    cuts = np.unique(values)
    cands = np.concatenate([[cuts[0] - 1e-6], (cuts[:-1] + cuts[1:]) / 2, [cuts[-1] + 1e-6]])
    acc = [np.mean((values > t) == labels) for t in cands]
    return float(cands[int(np.argmax(acc))])


class Bare:
    """The model alone, asked each question directly (baseline)."""

    def __init__(self, llm: Any, seed: int = 0):
        self.llm, self.seed = llm, seed
        self.name = f"bare:{llm.provider}:{llm.model}"
        self.unusable = 0

    def _ask(self, prompt: str, schema: dict, kind: str) -> Any:
        from analogist.errors import ModelError

        try:
            c = self.llm.complete(
                [{"role": "system", "content": _INSTRUCTION}, {"role": "user", "content": prompt}],
                schema=schema,
                temperature=0.0,
                max_tokens=32,
                seed=self.seed,
                prompt_version=f"{BARE_PROMPT_VERSION}:{kind}",
            )
        except ModelError:
            self.unusable += 1
            return None
        return c.parsed if isinstance(c.parsed, dict) else None

    def __call__(self, rows: Sequence[Row]) -> list[ItemAnswer]:
        yes_no = {
            "type": "object",
            "properties": {"analogous": {"type": "boolean"}},
            "required": ["analogous"],
            "additionalProperties": False,
        }
        pick = {
            "type": "object",
            "properties": {"choice": {"enum": ["1", "2", "3"]}},
            "required": ["choice"],
            "additionalProperties": False,
        }
        out = []
        for i, row in enumerate(rows):
            rng = random.Random(self.seed * 1_000_003 + i)
            binary, notes = {}, []
            for c in CANDIDATES:
                ans = self._ask(
                    f"Paragraph A:\n{row.source}\n\nParagraph B:\n{row.candidate(c)}"
                    "\n\nIs paragraph B analogous to paragraph A? Answer as JSON "
                    '{"analogous": true} or {"analogous": false}.',
                    yes_no,
                    "binary",
                )
                ok = ans is not None and isinstance(ans.get("analogous"), bool)
                binary[c] = bool(ok and ans["analogous"])
                if not ok:
                    notes.append(f"binary {c}: no usable answer")
            order = list(CANDIDATES)
            rng.shuffle(order)
            options = "\n\n".join(
                f"Option {k}:\n{row.candidate(c)}" for k, c in enumerate(order, 1)
            )
            ans = self._ask(
                f"Paragraph A:\n{row.source}\n\n{options}\n\nWhich option is "
                'analogous to paragraph A? Answer as JSON {"choice": "1"}, "2" or '
                '"3".',
                pick,
                "choice",
            )
            choice = None
            if ans is not None and ans.get("choice") in ("1", "2", "3"):
                choice = order[int(ans["choice"]) - 1]
            else:
                notes.append("choice: no usable answer")
            scores = {c: (1.0 if c == choice else 0.0) for c in CANDIDATES}
            out.append(ItemAnswer(row.item_id, binary, scores, choice, tuple(notes)))
        return out


# ------------------------------------------------------------------------------ scoring
def interval(values: Sequence[float], *, n_boot: int = 2000, seed: int = 0) -> Interval:
    """Mean of per-item values with a BCa bootstrap interval over items."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return Interval(float("nan"), float("nan"), float("nan"), 0, "none", "no items")
    est = float(x.mean())
    if n < 2:
        return Interval(est, float("nan"), float("nan"), n, "none", "one item: no interval")
    rng = np.random.default_rng(seed)
    reps = x[rng.integers(0, n, size=(n_boot, n))].mean(axis=1)
    jack = (x.sum() - x) / (n - 1)
    low, high, method, notes = bca_bounds(est, reps, jack, 0.95)
    return Interval(est, low, high, n, method, "; ".join(notes), n_boot, 0.95, seed)


@dataclass
class MethodResult:
    """One method's figures on both tasks, with the per-item answers behind them."""

    method: str
    binary_accuracy: Interval
    target_accepted: Interval
    distractor_rejected: Interval
    random_rejected: Interval
    choice_accuracy: Interval
    distractor_chosen: Interval
    answered: int
    notes: list[str] = field(default_factory=list)
    answers: list[ItemAnswer] = field(default_factory=list)

    def to_json(self, with_answers: bool = False) -> dict:
        d = {
            k: v.to_json() if isinstance(v, Interval) else v
            for k, v in self.__dict__.items()
            if k != "answers"
        }
        if with_answers:
            d["answers"] = [a.to_json() for a in self.answers]
        return d


def score_method(
    name: str,
    answers: Sequence[ItemAnswer],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    notes: Iterable[str] = (),
) -> MethodResult:
    """Accuracy per task with intervals; the gold (target yes, others no; the target is the
    analogue) is the dataset's construction, used only here."""
    gold = {"target": True, "distractor": False, "random": False}

    def iv(vals: Sequence[float]) -> Interval:
        return interval(vals, n_boot=n_boot, seed=seed)

    binary = [float(np.mean([a.binary[c] == gold[c] for c in CANDIDATES])) for a in answers]
    return MethodResult(
        name,
        iv(binary),
        iv([float(a.binary["target"]) for a in answers]),
        iv([float(not a.binary["distractor"]) for a in answers]),
        iv([float(not a.binary["random"]) for a in answers]),
        iv([float(a.choice == "target") for a in answers]),
        iv([float(a.choice == "distractor") for a in answers]),
        sum(1 for a in answers if a.choice is not None),
        list(notes),
        list(answers),
    )


def format_table(results: Sequence[MethodResult], n_items: int, source: str) -> str:
    """The results as a plain-text table (accuracy [95% interval])."""

    def f(i: Interval) -> str:
        if np.isnan(i.low):
            return f"{i.estimate:.3f}"
        return f"{i.estimate:.3f} [{i.low:.3f}, {i.high:.3f}]"

    lines = [
        (
            f"ParallelPARC: {n_items} items from {source} (binary: 3 pairs per item; chance "
            "0.667 by always answering no; choice: chance 0.333)"
        ),
        (
            f"{'method':<34} {'binary accuracy':<24} {'distractor rejected':<24} "
            f"{'target accepted':<24} {'choice accuracy':<24} {'distractor chosen':<24}"
        ),
    ]
    for r in results:
        lines.append(
            f"{r.method:<34} {f(r.binary_accuracy):<24} {f(r.distractor_rejected):<24} "
            f"{f(r.target_accepted):<24} {f(r.choice_accuracy):<24} "
            f"{f(r.distractor_chosen):<24}"
        )
        lines += [f"  note: {n}" for n in r.notes]
    return "\n".join(lines)


def run(
    rows: Sequence[Row],
    methods: Sequence[str],
    *,
    llm: Any = None,
    embedder: Any = None,
    n_boot: int = 2000,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> list[MethodResult]:
    """Run ``methods`` (pipeline, cosine, bare) on ``rows`` and score them.

    Raises:
        BenchError: a method is unknown, or needs a model that is not configured.
    """
    unknown = [m for m in methods if m not in ("pipeline", "cosine", "bare")]
    if unknown:
        raise BenchError(f"unknown method {unknown[0]!r}; use pipeline, cosine, bare")
    results = []
    for name in methods:
        if name in ("pipeline", "bare") and llm is None:
            raise BenchError(
                f"method {name} needs a model: pass --model (e.g. local:smollm2) "
                "or set ANALOGIST_MODEL, or run --methods cosine"
            )
        if progress:
            progress(f"running {name} on {len(rows)} items")
        if name == "pipeline":
            m = Pipeline(llm, seed)
            answers = m(rows)
            notes = [
                (
                    f"encoder: {m.encoder.writer}; {m.rejected} of {m.encoded} paragraphs "
                    "rejected by the encoder (a rejected paragraph is answered 'not analogous' "
                    "and cannot be chosen)"
                ),
                (
                    "binary: an analogy accepted by SME + causal gate + engine critic at the "
                    "default threshold (nothing tuned on this data)"
                ),
            ]
            label = f"pipeline ({llm.provider}:{llm.model})"
        elif name == "cosine":
            if embedder is None:
                from analogist.retrieve.embedder_choice import configured_embedder

                embedder = configured_embedder("minilm")
            cosine = Cosine(embedder, seed)
            answers = cosine(rows)
            notes = [
                (
                    "binary threshold fitted on the labels by two-fold cross-fitting "
                    "(a labelled advantage the other methods do not get)"
                )
            ]
            label = cosine.name
        else:
            bare = Bare(llm, seed)
            answers = bare(rows)
            notes = [f"{bare.unusable} model calls gave no usable answer"] if bare.unusable else []
            label = bare.name
        results.append(score_method(label, answers, n_boot=n_boot, seed=seed, notes=notes))
    return results
