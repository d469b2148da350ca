"""PARB, the Piper Analogical Reasoning Bench: the instrument that decides what stays.

Three subpackages, one per stage of a benchmark's life, plus the suites that span them:

- :mod:`analogist.bench.generation` — motifs, worlds and their simulator (``simulate``), skins
  and rendering, decoy edits, cases, items of families F1–F8, and ``generate_bench`` writing
  versioned, content-hashed bench directories (``files``).
- :mod:`analogist.bench.execution` — the arms, the runner, the answerers (``engine_answer``,
  ``model_answer`` with its ``prompts``), encoder noise, the isomorphism reference, replay files
  and model encoding.
- :mod:`analogist.bench.analysis` — scoring (``score_record`` is the stored row,
  ``score_answer`` turns an answer into one, ``check`` simulates a proposed fix), metrics,
  statistics, hypotheses, classification, results, the scoreboard and HTML report, structural
  similarity and the shortcut audits.
- :mod:`analogist.bench.suites` — planning, learning, blending, private-history items, trigger
  simulation and external benchmarks.

The public entry points below are re-exported here.
"""

from analogist.bench.analysis.audit import run_audit
from analogist.bench.analysis.check import check_fix
from analogist.bench.analysis.structure import RoleAssignment, best_assignment
from analogist.bench.generation.files import Bench, load_bench
from analogist.bench.generation.generate import GENERATOR_VERSION, SIZES, generate_bench
from analogist.bench.generation.items import FAMILIES, Item
from analogist.bench.generation.motifs import (
    DEV_MOTIFS,
    HELDOUT_MOTIFS,
    all_motifs,
    motif,
    split_motifs,
)
from analogist.bench.generation.world import Outcome, World, world_for

__all__ = [
    "DEV_MOTIFS",
    "FAMILIES",
    "GENERATOR_VERSION",
    "HELDOUT_MOTIFS",
    "SIZES",
    "RoleAssignment",
    "Bench",
    "Item",
    "Outcome",
    "World",
    "best_assignment",
    "all_motifs",
    "check_fix",
    "generate_bench",
    "load_bench",
    "motif",
    "run_audit",
    "split_motifs",
    "world_for",
]
