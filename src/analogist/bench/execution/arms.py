"""The experimental arms of spec §20 as frozen configurations of the one pipeline.

An arm fixes what the system under test gets: the analogy hint, which retrieval channels run,
how a source is chosen, whether roles are force-mapped, whether the causal gate, critic and
prediction check run, re-representation, and the labelled oracle (G: the gold source handed
over). ``ISO`` is a reference, not a system: exact name-free isomorphism between the encoded
target and each candidate plus the source's recorded fix (:mod:`analogist.bench.execution.iso`); the
structural arms are reported against it (E − ISO). All arms share the base model, temperature and token cap (:class:`ArmSettings`).

Answerers (DESIGN "Answerers"): ``model`` — the LLM answers with what the arm put in front of
it; ``engine`` — the machinery answers deterministically. An arm with no machinery that can
answer (A0, A1) has no engine form, and B′ differs from B only in how much text a model reads,
so its engine form would equal B's; those are skipped with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from analogist.errors import BenchError
from analogist.reason.analogizer import AnalogizerConfig
from analogist.verify.gate import CausalGate

STRUCTURAL = ("S0", "S1", "S2", "S3")
SEMANTIC = ("M",)


@dataclass(frozen=True)
class ArmSettings:
    """What every arm shares (spec §20: same base model, temperature, tool access, token cap)."""

    temperature: float = 0.0
    max_tokens: int = 800
    k: int = 5


@dataclass(frozen=True)
class Arm:
    """One arm. ``pipeline`` is the analogizer configuration its machinery runs."""

    name: str
    purpose: str
    hint: bool = False
    memory: bool = False
    channels: tuple[str, ...] = ()
    select: str = "mapping"
    forced_mapping: bool = False
    verify: bool = False
    rerep: int = 0
    shuffle_signatures: bool = False
    match_context_of: str | None = None
    oracle: bool = False
    reference: bool = False

    @property
    def pipeline(self) -> AnalogizerConfig:
        return AnalogizerConfig(
            channels=self.channels or None,
            select=self.select,
            gate=CausalGate() if self.verify else None,
            critic="engine" if self.verify else None,
            predict=self.verify,
            rerep_attempts=self.rerep,
            accept_threshold=0.4 if self.forced_mapping else 0.0,
        )

    def model_skip(self) -> str | None:
        """Why this arm has no model answer, or None when it has one."""
        if self.reference:
            return (
                f"{self.name} is a reference matcher (exact name-free isomorphism plus the "
                "source's recorded fix); it has no model form"
            )
        return None

    def engine_skip(self) -> str | None:
        """Why this arm has no engine answer, or None when it has one."""
        if not self.memory and not self.oracle:
            return f"{self.name} is the bare model; no machinery answers without a model"
        if self.match_context_of:
            return (
                f"{self.name} differs from B only in context size, which only a model reads; "
                "its engine answer would equal B's"
            )
        return None

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "purpose": self.purpose,
            "hint": self.hint,
            "memory": self.memory,
            "channels": list(self.channels),
            "select": self.select,
            "forced_mapping": self.forced_mapping,
            "verify": self.verify,
            "rerep": self.rerep,
            "shuffle_signatures": self.shuffle_signatures,
            "match_context_of": self.match_context_of,
            "oracle": self.oracle,
            "reference": self.reference,
            "pipeline": self.pipeline.to_json(),
        }


_C = Arm(
    "C",
    "tests structural encoding",
    hint=True,
    memory=True,
    channels=STRUCTURAL,
    select="structural_rank",
)
_D = Arm(
    "D",
    "tests explicit mapping",
    hint=True,
    memory=True,
    channels=STRUCTURAL,
    select="mapping",
    forced_mapping=True,
)
_E = replace(_D, name="E", purpose="tests verification", verify=True)

ARMS: dict[str, Arm] = {
    a.name: a
    for a in (
        Arm("A0", "floor: bare model, no memory, no hint"),
        Arm("A1", "isolates prompting/reminding", hint=True),
        Arm(
            "B",
            "current semantic memory",
            hint=True,
            memory=True,
            channels=SEMANTIC,
            select="semantic_rank",
        ),
        Arm(
            "B′",
            "controls for extra retrieved text",
            hint=True,
            memory=True,
            channels=SEMANTIC,
            select="semantic_rank",
            match_context_of="C",
        ),
        _C,
        replace(
            _C,
            name="C′",
            purpose="placebo: signatures shuffled across episodes",
            shuffle_signatures=True,
        ),
        Arm(
            "H",
            "tests complementarity of B and C",
            hint=True,
            memory=True,
            channels=SEMANTIC + STRUCTURAL,
            select="union_rank",
        ),
        _D,
        _E,
        replace(_E, name="G", purpose="oracle upper bound: gold source handed over", oracle=True),
        replace(_E, name="E+R", purpose="E plus the re-representation loop", rerep=2),
        Arm(
            "ISO",
            "reference: exact name-free isomorphism plus the source's recorded fix",
            memory=True,
            reference=True,
        ),
    )
}

DEFAULT_ARMS = tuple(ARMS)


def get_arm(name: str) -> Arm:
    """The arm called ``name`` (ASCII primes accepted: ``B'``)."""
    key = name.strip().replace("'", "′")
    if key not in ARMS:
        raise BenchError(f"unknown arm {name!r}; arms are {', '.join(ARMS)}")
    return ARMS[key]
