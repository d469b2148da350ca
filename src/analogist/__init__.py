"""analogist: structural signatures, labelled retrieval channels, structure mapping with a
causal transfer gate, and PARB, the benchmark that decides what stays.

The names below are the public API (``__all__``): the memory and the analogy loop, the
signature types, the run record, the errors, and the benchmark's entry points. Everything else
lives in its subpackage, each listing its own public names: :mod:`analogist.signature`,
:mod:`analogist.store` (the store interface and its SQLite backend), :mod:`analogist.models`,
:mod:`analogist.encode`, :mod:`analogist.retrieve` (channels, :class:`Pool`),
:mod:`analogist.mapping` (SME), :mod:`analogist.verify` (checks, gate, critic, assessment),
:mod:`analogist.reason` (the loop, triggers, the run record), :mod:`analogist.learn`,
:mod:`analogist.plan`, :mod:`analogist.bench` (PARB).

>>> import analogist
>>> analogist.parse_term("diverges_from(DER, SRC)").canonical()
'diverges_from(DER,SRC)'
"""

from analogist.compiled import select

select()  # the compiled core or the pure-Python source, before any compiled module is imported

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
from analogist.store import Store

__version__ = "0.1.0"


def __getattr__(name: str):
    """Heavier parts load on first use, so `import analogist` stays fast."""
    lazy = {
        "Memory": ("analogist.memory", "Memory"),
        "Analogizer": ("analogist.reason.analogizer", "Analogizer"),
        "AnalogizerConfig": ("analogist.reason.analogizer", "AnalogizerConfig"),
        "AnalogyRun": ("analogist.reason.run", "AnalogyRun"),
        "Assessment": ("analogist.verify.assessment", "Assessment"),
        "Trigger": ("analogist.reason.triggers", "Trigger"),
        "Pool": ("analogist.retrieve.pool", "Pool"),
        "open_llm": ("analogist.models.registry", "open_llm"),
        "generate_bench": ("analogist.bench", "generate_bench"),
        "load_bench": ("analogist.bench", "load_bench"),
        "run_bench": ("analogist.bench.execution.runner", "run_bench"),
        "RunConfig": ("analogist.bench.execution.runner", "RunConfig"),
        "write_report": ("analogist.bench.analysis.report", "write_report"),
    }
    if name in lazy:
        import importlib

        module, attr = lazy[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'analogist' has no attribute {name!r}")


__all__ = [
    # memory and the analogy loop
    "Memory",
    "Analogizer",
    "AnalogizerConfig",
    "Trigger",
    "AnalogyRun",
    "Assessment",
    "Pool",
    "Store",
    "open_llm",
    # episodes and signatures
    "Episode",
    "Signature",
    "Term",
    "Vocabulary",
    "default_vocabulary",
    "parse_episode",
    "parse_signature",
    "parse_term",
    # errors
    "AnalogistError",
    "BenchError",
    "ConfigError",
    "MappingError",
    "ModelError",
    "SignatureError",
    "StoreError",
    "VocabularyError",
    # the benchmark
    "generate_bench",
    "load_bench",
    "run_bench",
    "RunConfig",
    "write_report",
    "__version__",
]
