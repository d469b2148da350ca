"""Consolidation (spec §3.2, §6, Phase 5): what the system learns from its own verified analogies.

- :mod:`.facts` — a signature's facts over role variables.
- :mod:`.generalise` — SAGE generalisations, pools per trigger context, the induction policy.
- :mod:`.induce` — one SAGE step per verified analogy.
- :mod:`.evidence` — which logged runs count as verified analogies.
- :mod:`.vocabulary` — relation telemetry and merge proposals.
- :mod:`.operators` — the fix-operator library and macro-actions.
- :mod:`.consolidate` — the incremental, undoable pass that ties them together.
"""

from analogist.learn.consolidate import (
    ConsolidationPolicy,
    ConsolidationReport,
    consolidate,
    merge_proposals,
)
from analogist.learn.generalise import InductionPolicy

__all__ = [
    "ConsolidationPolicy",
    "ConsolidationReport",
    "InductionPolicy",
    "consolidate",
    "merge_proposals",
]
