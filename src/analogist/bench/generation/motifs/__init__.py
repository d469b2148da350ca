"""The PARB motif library (spec §16.2): twenty structural motifs, one module each.

The split is fixed here and documented in ``docs/parb.md``: twelve development motifs that may
be looked at while building analogist, and eight held-out motifs used only for the ``test``
split. A benchmark split never mixes the two.
"""

from __future__ import annotations

from importlib import import_module

from analogist.bench.generation.motif import Motif
from analogist.errors import BenchError

DEV_MOTIFS: tuple[str, ...] = (
    "stale_copy",
    "observer_failure",
    "masking_cause",
    "positive_feedback",
    "starvation",
    "priority_inversion",
    "survivorship_filter",
    "proxy_optimisation",
    "race_condition",
    "shared_dependency_cascade",
    "retry_amplification",
    "circular_wait",
)
HELDOUT_MOTIFS: tuple[str, ...] = (
    "alarm_fatigue",
    "confounded_correlation",
    "missing_backpressure",
    "version_skew",
    "thundering_herd",
    "hidden_spof",
    "observer_effect",
    "fail_open_guard",
)
SPLITS: dict[str, tuple[str, ...]] = {"dev": DEV_MOTIFS, "test": HELDOUT_MOTIFS}

_CACHE: dict[str, Motif] = {}


def motif(name: str) -> Motif:
    """The motif called ``name``.

    Raises:
        BenchError: when there is no such motif.
    """
    if name not in _CACHE:
        if name not in DEV_MOTIFS + HELDOUT_MOTIFS:
            raise BenchError(
                f"unknown motif {name!r}; motifs: {', '.join(DEV_MOTIFS + HELDOUT_MOTIFS)}"
            )
        _CACHE[name] = import_module(f"analogist.bench.generation.motifs.{name}").MOTIF
    return _CACHE[name]


def split_motifs(split: str) -> tuple[Motif, ...]:
    """The motifs of a split ("dev" or "test")."""
    if split not in SPLITS:
        raise BenchError(f"unknown split {split!r}; use dev or test")
    return tuple(motif(n) for n in SPLITS[split])


def all_motifs() -> tuple[Motif, ...]:
    """All twenty motifs, development first."""
    return split_motifs("dev") + split_motifs("test")
