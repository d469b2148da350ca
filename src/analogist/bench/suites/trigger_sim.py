"""Trigger fitting measured on a simulated stream of PARB items (spec §11.2, Phase 6).

Each F3 item stands for one moment an agent hit an error. What the trigger sees:

- the system's own tier-0 lookups on the item's memory (no model): the best S1 (MAC) score as
  ``structural_hit_score`` and whether S0 found an exact WL-fingerprint match as
  ``fingerprint_hit``;
- the agent's impasse state, *simulated* (seeded, independent of the item): failed repairs
  0–4, repeated error class 0–4, steps without progress 0–8.

The stream is explored: every item is run at tier 1 by arm E's machinery with the item's world
as the check, so the log holds an outcome for every situation (a live log holds outcomes only
where the trigger fired). Tokens are a stated cost model, not measured: ``TIER_TOKENS`` per run
(the engine itself spends none). The first half of the stream is the log the policy is fitted
on, under a budget of ``budget_fraction`` of what the default policy spends there; the second
half measures default and fitted policy: runs fired, fired-and-useful rate, negative transfers,
tokens, value (useful − 2 · negative).
"""

from __future__ import annotations

import random
from typing import Any

from analogist.bench.execution.arms import ARMS
from analogist.bench.execution.engine_answer import EngineAnswerer
from analogist.bench.generation.motifs import split_motifs
from analogist.bench.suites.learning import _items, _probe, _target
from analogist.learn.triggers import Outcome, evaluate, fit_policy
from analogist.reason.triggers import Signals, TriggerPolicy
from analogist.signature.vocabulary import default_vocabulary

TIER_TOKENS = 1200  # stated cost of one tier-1 run with a model critic (assumption, not measured)


def _signals(memory: Any, target: Any, rng: random.Random) -> Signals:
    pool = memory.search(target, channels="S0,S1", k=5)
    s1 = [h.score for h in pool.hits.get("S1", ())]
    return Signals(
        error_logged=True,
        failed_repairs=rng.randint(0, 4),
        repeated_error_class=rng.randint(0, 4),
        steps_without_progress=rng.randint(0, 8),
        fingerprint_hit=any(h.detail.get("match") == "exact" for h in pool.hits.get("S0", ())),
        structural_hit_score=max(s1, default=0.0),
    )


def simulate(
    seed: int = 0, n_items: int = 48, budget_fraction: float = 0.5, split: str = "dev"
) -> dict:
    """Fit on the first half of a simulated stream, measure on the second (module docstring)."""
    pool = split_motifs(split)
    items = _items(pool, pool, n_items, "triggers", seed, split)
    e = EngineAnswerer(ARMS["E"], seed)
    vocab = default_vocabulary()
    outcomes = []
    for i, item in enumerate(items):
        rng = random.Random(f"trigger-sim|{seed}|{i}")
        target = _target(item, vocab)
        with e.memory(item.inputs) as m:
            sig = _signals(m, target, rng)
        ans = e.answer(item.family, item.inputs, target, probe=_probe(item))
        outcome = (ans.run or {}).get("record", {}) or {}
        applied = outcome.get("applied") or {}
        outcomes.append(
            Outcome(
                f"sim_{i}",
                sig,
                applied.get("outcome") == "resolved",
                applied.get("outcome") == "worse",
                TIER_TOKENS,
            )
        )
    train, test = outcomes[: n_items // 2], outcomes[n_items // 2 :]
    base = TriggerPolicy()
    budget = int(evaluate(base, train).tokens * budget_fraction)
    fit = fit_policy(train, budget)
    return {
        "seed": seed,
        "items": n_items,
        "split": split,
        "tier_tokens": TIER_TOKENS,
        "budget": budget,
        "budget_fraction": budget_fraction,
        "fitted_thresholds": fit.to_json()["thresholds"],
        "train": {"default": fit.default.to_json(), "fitted": fit.fitted.to_json()},
        "test": {
            "default": evaluate(base, test).to_json(),
            "fitted": evaluate(fit.policy, test).to_json(),
            "always": {
                "fired": len(test),
                "useful": sum(o.useful for o in test),
                "negative": sum(o.negative for o in test),
                "tokens": TIER_TOKENS * len(test),
            },
        },
    }
