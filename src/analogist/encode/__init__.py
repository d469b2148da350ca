"""Encoders: episode text -> structural signature, at storage time and at query time.

- :mod:`encoder` — :class:`ModelEncoder` (the model writes a signature of one episode, never
  seeing another), :class:`GoldEncoder`, :class:`EncodeResult`, the :class:`Encoder` protocol.
- :mod:`schema` — the JSON schema generated from the vocabulary; :mod:`prompts` — versioned
  prompts; :mod:`checks` — explicit relation mapping and the surface-leak check.
- :mod:`staged` — :class:`StagedEncoder`, the default: four small constrained steps (roles,
  relations, causal chain, levels) a small model can drive; :mod:`steps` holds their prompts and
  schemas. :class:`ModelEncoder` writes the whole signature in one call (used for re-abstraction).
- :mod:`reabstract` — one abstraction level up or down (model, or a deterministic engine).
- :mod:`fidelity` / :mod:`evaluate` — relation P/R/F1 and role alignment against gold.
"""

from analogist.encode.checks import RelationMapping
from analogist.encode.encoder import (
    Encoder,
    EncodeResult,
    EncoderSettings,
    GoldEncoder,
    ModelEncoder,
    split_writer_tag,
    writer_tag,
)
from analogist.encode.evaluate import evaluate_encoder, load_gold_episodes
from analogist.encode.fidelity import (
    EpisodeFidelity,
    FidelityReport,
    best_alignment,
    score_signature,
    summarise,
)
from analogist.encode.prompts import (
    ENCODE_PROMPT_VERSION,
    REABSTRACT_PROMPT_VERSION,
    TARGET_PROMPT_VERSION,
)
from analogist.encode.reabstract import Reabstraction, reabstract, skeleton_up
from analogist.encode.schema import signature_schema
from analogist.encode.staged import StagedEncoder, StepTrace
from analogist.encode.steps import STAGED_PROMPT_VERSION

__all__ = [
    "ENCODE_PROMPT_VERSION",
    "REABSTRACT_PROMPT_VERSION",
    "STAGED_PROMPT_VERSION",
    "TARGET_PROMPT_VERSION",
    "EncodeResult",
    "Encoder",
    "EncoderSettings",
    "EpisodeFidelity",
    "FidelityReport",
    "GoldEncoder",
    "ModelEncoder",
    "Reabstraction",
    "RelationMapping",
    "StagedEncoder",
    "StepTrace",
    "best_alignment",
    "evaluate_encoder",
    "load_gold_episodes",
    "reabstract",
    "score_signature",
    "signature_schema",
    "skeleton_up",
    "split_writer_tag",
    "summarise",
    "writer_tag",
]
