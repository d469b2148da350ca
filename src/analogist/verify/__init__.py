"""Verification: alignment of two signatures under a role mapping (:mod:`align`), the
deterministic checks of spec §8.2 (:mod:`checks`), the likeness/difference/unknown record
(:mod:`assessment`), the causal-path gate (:mod:`gate`), the critic (:mod:`critic`) and prediction
checks with the negative-transfer ledger (:mod:`predict`)."""
