"""Verification: is a mapping coherent, and what may transfer?

:mod:`align` (relation-level alignment of two signatures under a role mapping; :class:`Fact`),
:mod:`roles` (SME's interpretations read back as role mappings, each judged by the checks),
:mod:`checks` (the deterministic checks of spec §8.2), :mod:`inference` (candidate inferences
at the signature level), :mod:`support` (the causal support of a transferred action),
:mod:`gate` (the causal-path transfer gate), :mod:`critic` (the independent critic and its
:class:`CriticVerdict`), :mod:`predict` (prediction and check hook), :mod:`assessment` (the
typed likeness / difference / unknown record of one analogy).

Modules are imported by name (``from analogist.verify.gate import CausalGate``).
"""
