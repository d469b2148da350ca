"""Which models a benchmark run uses: the one that answers and the one that encodes.

Spec §20 repeats arms on a second model. ``bench run --encoder-model`` keeps the encoder (and so
every encoding, answered from the reference run's call log) and swaps only the answerer, so the
comparison isolates the answering model. The run's configuration names the encoder only when it
is another model (``RunConfig.encoder_model``); these helpers pick the encoder, refuse one that
is not the configured model, and name both wherever the run is reported.
"""

from __future__ import annotations

from typing import Any

from analogist.errors import BenchError


def encoder_llm_for(config: Any, llm: Any, encoder_llm: Any) -> Any:
    """The model that encodes: ``encoder_llm`` when the run names a separate encoder model (it
    must be that model: a run is never stored under another model's name), else ``llm``."""
    if encoder_llm is None:
        if config.encoder_model is not None:
            raise BenchError(
                f"the run's encoder model is {config.encoder_model}, but no encoder model "
                "was opened; pass it as encoder_llm"
            )
        return llm
    want = config.encoder_model or config.model or (spec_of(llm) if llm is not None else None)
    got = spec_of(encoder_llm)
    if want is not None and got != want:
        raise BenchError(f"the run's encoder model is {want}, but {got} was given to encode")
    return encoder_llm


def spec_of(llm: Any) -> str:
    """``provider:name`` of a model object."""
    return f"{llm.provider}:{llm.model}"


def models_text(answers: str | None, encodings: str | None) -> str | None:
    """``answers: X; encodings: Y``, stored with the run as ``models`` and shown wherever it is
    reported: the model that answered and the one that wrote the signatures (None for gold);
    None when no model took part."""
    if answers is None and encodings is None:
        return None
    gold = "gold (the generator's signatures)"
    return f"answers: {answers or 'no model (engine answers only)'}; encodings: {encodings or gold}"
