"""PARB, the Piper Analogical Reasoning Bench: the instrument that decides what stays.

Generator side (this issue): :mod:`motifs` (twenty structural motifs, twelve development and
eight held-out), :mod:`engine` and :mod:`world` (each motif variant as an executable causal
system), :mod:`library` (fix operators), :mod:`render` (skins into L0 incident notes),
:mod:`edits` (the five minimal-pair decoy edits), :mod:`cases`, :mod:`items`,
:mod:`families_given` and :mod:`families_memory` (items for F1–F8), :mod:`generate`,
:mod:`files` (versioned, content-hashed bench directories), :mod:`audit` (the shortcut audit),
:mod:`structure` (structural similarity after role alignment) and :mod:`check` (scoring a
proposed fix by simulation). Scoring side: :mod:`score`, :mod:`metrics`, :mod:`stats`,
:mod:`hypotheses`, :mod:`classify`.
"""

from analogist.bench.audit import run_audit
from analogist.bench.check import check_fix
from analogist.bench.files import Bench, load_bench
from analogist.bench.generate import GENERATOR_VERSION, SIZES, generate_bench
from analogist.bench.items import FAMILIES, Item
from analogist.bench.motifs import DEV_MOTIFS, HELDOUT_MOTIFS, all_motifs, motif, split_motifs
from analogist.bench.structure import RoleAssignment, best_assignment
from analogist.bench.world import Outcome, World, world_for

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
