"""Reasoning: the analogy loop and its record.

:mod:`analogizer` (the v2 loop of spec §1: one configurable pipeline for the agent and the
benchmark), :mod:`triggers` (when to look for an analogy, tiered), :mod:`rerep`
(re-representation when mapping fails), :mod:`run` (the typed, versioned
:class:`AnalogyRun` written to the analogy log), :mod:`live` (live-use counts from the log),
:mod:`blend` (gated novelty proposals).
"""

from analogist.reason.analogizer import Analogizer, AnalogizerConfig
from analogist.reason.live import LiveUse, live_use
from analogist.reason.run import RUN_SCHEMA_VERSION, AnalogyRun, Cost, MappingRecord
from analogist.reason.triggers import Signals, Trigger, TriggerPolicy

__all__ = [
    "RUN_SCHEMA_VERSION",
    "Analogizer",
    "AnalogizerConfig",
    "AnalogyRun",
    "Cost",
    "LiveUse",
    "MappingRecord",
    "Signals",
    "Trigger",
    "TriggerPolicy",
    "live_use",
]
