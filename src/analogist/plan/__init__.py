"""Analogical planning (spec §14): project a prior plan's skeleton onto a new problem and let a
real classical planner (pyperplan) repair it.

- :mod:`.block` — the plan block of a plan signature: facts over roles, operators, steps,
  outcome; validated by simulation.
- :mod:`.encode` — a plan signature's JSON, with the relations the retrieval channels index.
- :mod:`.pddl` — PDDL text in and out, grounding (pyperplan).
- :mod:`.planner` — :class:`~.planner.Planner`: pyperplan's searches with an expansion budget.
- :mod:`.describe` — plan situations as SME descriptions; the role mapping between two plans.
- :mod:`.skeleton` — operator matching by structure; the projected skeleton, step by step.
- :mod:`.repair` — the skeleton as subgoals for the planner; broken-skeleton fallback; validation.
- :mod:`.loop` — retrieve -> map -> project -> repair -> validate -> record.
- :mod:`.render` — the skeleton table and the plan with its provenance.
"""
