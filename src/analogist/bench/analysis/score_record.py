"""One scored outcome of PARB: an (arm, answerer, item, seed) run, with what every metric needs.

A :class:`Score` holds the facts the runner observed (what was retrieved, claimed, accepted,
mapped, transferred and executed) and the item's key facts (gold source, validity, far or near).
It never holds a judgement the metrics could derive; the judgements are properties, defined once
here so every metric, NAV term and hypothesis means the same thing (spec §18–§19):

- ``claim_correct``: the claimed source is keyed as a match.
- ``false_accept`` (F): the system accepted an analogy whose source is wrong or invalid.
- ``task_correct``: the target was solved, by execution where the item has a check, else by the
  transfer/withhold key.
- ``useful`` (U): a proposed, valid analogy whose transfer was verified by the benchmark.
- ``negative_transfer`` (N): an applied analogy-driven action made the target world worse.

"Verified" in U means verified by the benchmark (execution or key), never by the system's own
critic; the critic's verdict is recorded separately as ``survived_verification``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, NamedTuple

from analogist.errors import BenchError

FAMILIES = ("F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8")
ANSWERERS = ("model", "engine")
ITEM_SOURCES = ("synthetic", "private")
OUTCOMES = ("resolved", "unchanged", "worse")
CONDITIONS = ("correct_source", "no_source", "wrong_source")


class TransferPair(NamedTuple):
    """One candidate inference: what the system decided and what the key says."""

    decided: bool
    keyed: bool


@dataclass(frozen=True)
class Score:
    """The outcome of one arm/answerer on one item and seed.

    Attributes:
        item_id, family, arm, answerer, seed: what was run ("F1".."F8"; "model" | "engine").
        item_source: "synthetic" or "private" (a held-out Piper incident).
        far: the item is cross-domain (source and target domains differ).
        nonce: the item's labels are nonce words (contamination control, spec §17).
        has_valid_source: the key names at least one valid source for this target.
        gold_source: the keyed correct source id (None when there is none).
        keyed_matches: further source ids keyed as valid matches (``gold_source`` is always one).
        retrieved: candidate source ids as ranked by the arm (best first).
        claimed_source: the source the system says is analogous; None means "no match".
        offered_is_valid: for an offered candidate (decoy, false-analogy items), whether it is
            a true analogue; None when nothing was offered.
        accepted: whether the system accepted the offered candidate (None: nothing offered).
        role_tp, role_fp, role_fn: role correspondences against the mapping key.
        transfer_pairs: per candidate inference, (decided to transfer, keyed to transfer).
        executable: the item has an executable check (a target world to act in).
        applied_action: an action derived from the analogy was executed in the target world.
        outcome: the executed action against the no-action control: "resolved", "unchanged" or
            "worse"; None when no action was executed.
        survived_verification: the system's own critic/prediction/test kept the analogy.
        proposed: the system proposed or endorsed an analogy (claimed or accepted a source, or
            mapped and transferred from a given one).
        confidence: the system's stated probability that its analogy is valid.
        valid: gold validity of the analogy the confidence is about.
        novel: the useful analogy is private or novel (spec §19, Novel Useful Rate).
        tokens, calls, wall_ms: cost of this run.
        condition: source-dependence condition (spec §17.1); None for ordinary runs.
        lesioned: this is a mapping-lesion rerun (spec §17.2).
        conclusion: the transferred conclusion, compared between lesioned and intact runs.
        noise: the encoder-noise rate this run's signatures were corrupted at (0: the gold
            encoder as is; see :mod:`analogist.bench.execution.noise`).
    """

    item_id: str
    family: str
    arm: str
    answerer: str
    seed: int = 0
    item_source: str = "synthetic"
    far: bool = False
    nonce: bool = False
    has_valid_source: bool = True
    gold_source: str | None = None
    keyed_matches: tuple[str, ...] = ()
    retrieved: tuple[str, ...] = ()
    claimed_source: str | None = None
    offered_is_valid: bool | None = None
    accepted: bool | None = None
    role_tp: int = 0
    role_fp: int = 0
    role_fn: int = 0
    transfer_pairs: tuple[TransferPair, ...] = ()
    executable: bool = False
    applied_action: bool = False
    outcome: str | None = None
    survived_verification: bool | None = None
    proposed: bool = False
    confidence: float | None = None
    valid: bool | None = None
    novel: bool = False
    tokens: int = 0
    calls: int = 0
    wall_ms: float = 0.0
    condition: str | None = None
    lesioned: bool = False
    conclusion: str | None = None
    noise: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "keyed_matches", tuple(self.keyed_matches))
        object.__setattr__(self, "retrieved", tuple(self.retrieved))
        pairs = tuple(TransferPair(bool(d), bool(k)) for d, k in self.transfer_pairs)
        object.__setattr__(self, "transfer_pairs", pairs)
        problems = self._problems()
        if problems:
            where = f"{self.item_id}/{self.arm}/{self.answerer}/seed {self.seed}"
            raise BenchError(f"score {where}: {'; '.join(problems)}")

    def _problems(self) -> list[str]:
        def bad(name: str, value: object, allowed: tuple) -> str:
            return f"{name} {value!r} is not one of {', '.join(map(repr, allowed))}"

        out = []
        for name, allowed in (
            ("family", FAMILIES),
            ("answerer", ANSWERERS),
            ("item_source", ITEM_SOURCES),
        ):
            if getattr(self, name) not in allowed:
                out.append(bad(name, getattr(self, name), allowed))
        if self.outcome is not None and self.outcome not in OUTCOMES:
            out.append(bad("outcome", self.outcome, OUTCOMES))
        if self.condition is not None and self.condition not in CONDITIONS:
            out.append(bad("condition", self.condition, CONDITIONS))
        if self.outcome is not None and not self.applied_action:
            out.append("an outcome needs applied_action=True (no action was executed)")
        if self.gold_source is not None and not self.has_valid_source:
            out.append("gold_source is set but has_valid_source is False")
        if self.keyed_matches and not self.has_valid_source:
            out.append("keyed_matches are set but has_valid_source is False")
        if (self.claimed_source is not None or self.accepted) and not self.proposed:
            out.append("a claimed or accepted source needs proposed=True")
        counts = (self.role_tp, self.role_fp, self.role_fn, self.tokens, self.calls, self.wall_ms)
        if min(counts) < 0:
            out.append("counts and costs must be non-negative")
        if not 0.0 <= self.noise < 1.0:
            out.append(f"noise rate {self.noise} is not in [0, 1)")
        if self.confidence is not None and not 0.0 <= self.confidence <= 1.0:
            out.append(f"confidence {self.confidence} is not a probability in [0, 1]")
        return out

    @property
    def keyed(self) -> frozenset[str]:
        """Every source id keyed as a valid match (gold source included)."""
        gold = () if self.gold_source is None else (self.gold_source,)
        return frozenset(self.keyed_matches + gold)

    @property
    def is_main(self) -> bool:
        """An ordinary run: not a source-dependence condition, not a lesion rerun and not a
        noisy-encoder rerun."""
        return self.condition is None and not self.lesioned and self.noise == 0

    @property
    def claim_correct(self) -> bool | None:
        """Whether the claimed source is keyed as a match; None when no source was claimed."""
        return None if self.claimed_source is None else self.claimed_source in self.keyed

    @property
    def says_no_match(self) -> bool:
        """The system claimed no source and did not accept an offered one."""
        return self.claimed_source is None and self.accepted is not True

    @property
    def false_accept(self) -> bool:
        """F: accepted an offered analogue that is not valid, or claimed an unkeyed source."""
        offered_false = self.accepted is True and self.offered_is_valid is False
        return offered_false or self.claim_correct is False

    @property
    def task_correct(self) -> bool | None:
        """The target was solved, whether or not an analogy was used.

        With an executable check: an action was applied and resolved the target. Otherwise: at
        least one candidate inference was keyed and every transfer/withhold decision matches its
        key. None when the item offers neither kind of check.
        """
        if self.executable:
            return self.applied_action and self.outcome == "resolved"
        if self.transfer_pairs:
            return all(p.decided == p.keyed for p in self.transfer_pairs)
        return None

    @property
    def useful(self) -> bool:
        """U: a proposed analogy, on an item with a valid source, that is not a false accept
        and whose transfer the benchmark verified (``task_correct``)."""
        return (
            self.proposed
            and self.has_valid_source
            and not self.false_accept
            and self.task_correct is True
        )

    @property
    def negative_transfer(self) -> bool:
        """N: an applied analogy-driven action left the target worse than the no-action control.

        "unchanged" is not counted: it equals the control (spec §18, "performs worse than
        control"), earns no U, and a wrong source behind it is already counted in F.
        """
        return self.applied_action and self.outcome == "worse"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (tuples become lists)."""
        data = asdict(self)
        data["transfer_pairs"] = [list(p) for p in self.transfer_pairs]
        for key in ("keyed_matches", "retrieved"):
            data[key] = list(data[key])
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Score:
        """Rebuild a Score from :meth:`to_json` output; unknown or missing fields are errors."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise BenchError(f"score JSON: unknown field(s) {', '.join(unknown)}")
        try:
            return cls(**data)
        except TypeError as exc:
            raise BenchError(f"score JSON: {exc} (needs item_id, family, arm, answerer)") from exc
