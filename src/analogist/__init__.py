"""analogist: structural signatures, labelled retrieval channels, structure mapping with a
causal transfer gate, and PARB, the benchmark that decides what stays.

The names below are the public API; everything else is implementation detail.
"""

from analogist.episode import Episode, parse_episode
from analogist.errors import (
    AnalogistError,
    BenchError,
    ConfigError,
    MappingError,
    ModelError,
    SignatureError,
    StoreError,
    VocabularyError,
)
from analogist.signature import (
    Signature,
    Term,
    Vocabulary,
    default_vocabulary,
    parse_signature,
    parse_term,
)
from analogist.signature.describe import describe
from analogist.signature.description import Description, load_description, load_predicates
from analogist.store import Store

__version__ = "0.1.0"


def __getattr__(name: str):
    """Heavier parts load on first use, so `import analogist` stays fast."""
    lazy = {
        "Memory": ("analogist.memory", "Memory"),
        "Analogizer": ("analogist.reason.analogizer", "Analogizer"),
        "AnalogizerConfig": ("analogist.reason.analogizer", "AnalogizerConfig"),
        "AnalogyRun": ("analogist.reason.run", "AnalogyRun"),
        "Signals": ("analogist.reason.triggers", "Signals"),
        "Trigger": ("analogist.reason.triggers", "Trigger"),
        "TriggerPolicy": ("analogist.reason.triggers", "TriggerPolicy"),
        "CausalGate": ("analogist.verify.gate", "CausalGate"),
        "match": ("analogist.mapping", "match"),
        "SMEParams": ("analogist.mapping", "SMEParams"),
        "map_signatures": ("analogist.verify.roles", "map_signatures"),
        "run_checks": ("analogist.verify.checks", "run_checks"),
        "live_use": ("analogist.reason.live", "live_use"),
        "open_llm": ("analogist.models.registry", "open_llm"),
        "get_embedder": ("analogist.models.embedders", "get_embedder"),
        "ModelEncoder": ("analogist.encode", "ModelEncoder"),
        "generate_bench": ("analogist.bench", "generate_bench"),
        "load_bench": ("analogist.bench", "load_bench"),
        "run_bench": ("analogist.bench.runner", "run_bench"),
        "RunConfig": ("analogist.bench.runner", "RunConfig"),
        "report": ("analogist.bench.report", "write_report"),
        "aggregate": ("analogist.bench.results", "aggregate"),
    }
    if name in lazy:
        import importlib

        module, attr = lazy[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'analogist' has no attribute {name!r}")


__all__ = [
    "AnalogistError", "Analogizer", "AnalogizerConfig", "AnalogyRun", "BenchError", "CausalGate",
    "ConfigError", "Description", "Episode", "MappingError", "Memory", "ModelEncoder",
    "ModelError", "RunConfig", "SMEParams", "Signals", "Signature", "SignatureError", "Store",
    "StoreError", "Term", "Trigger", "TriggerPolicy", "Vocabulary", "VocabularyError",
    "__version__", "aggregate", "default_vocabulary", "describe", "generate_bench", "get_embedder",
    "live_use", "load_bench", "load_description", "load_predicates", "map_signatures", "match",
    "open_llm", "parse_episode", "parse_signature", "parse_term", "report", "run_bench",
    "run_checks",
]
