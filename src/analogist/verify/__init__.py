"""Verification: is a mapping coherent, and what may transfer?

:mod:`align` (relation-level alignment of two signatures under a role mapping; :class:`Fact`),
:mod:`roles` (SME's interpretations read back as role mappings, each judged by the checks),
:mod:`checks` (the deterministic checks of spec §8.2), :mod:`inference` (candidate inferences
at the signature level), :mod:`support` (the causal support of a transferred action),
:mod:`gate` (the causal-path transfer gate), :mod:`critic` (the independent critic and its
:class:`CriticVerdict`), :mod:`predict` (prediction and check hook), :mod:`assessment` (the
typed likeness / difference / unknown record of one analogy).

Public names load on first use (``from analogist.verify import RoleMapping``), so importing one
module does not import the others.
"""

from typing import Any

_LAZY = {
    "Alignment": "align",
    "Fact": "align",
    "LinkFact": "align",
    "RelationFact": "align",
    "RoleMapping": "roles",
    "check_role_map": "roles",
    "map_signatures": "roles",
    "StructuralChecks": "checks",
    "run_checks": "checks",
    "CandidateInference": "inference",
    "candidate_inferences": "inference",
    "CausalGate": "gate",
    "TransferDecision": "gate",
    "Critic": "critic",
    "CriticVerdict": "critic",
    "EngineCritic": "critic",
    "ModelCritic": "critic",
    "CheckFn": "predict",
    "CheckResult": "predict",
    "Prediction": "predict",
    "Assessment": "assessment",
    "TransferRecord": "assessment",
}


def __getattr__(name: str) -> Any:
    """The public names of the submodules, loaded on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"analogist.verify.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'analogist.verify' has no attribute {name!r}")


__all__ = sorted(_LAZY)
