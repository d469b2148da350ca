"""The planning bench (spec §14): generated PDDL worlds with skins, nonce labels, true and
decoy prior plans and no-analogue problems; arms planner / analogy / decoy / oracle.

- :mod:`.world` — the gated-courier motif, layouts, skins, nonce labels, layout edits.
- :mod:`.items` — targets, prior plans and the key, from a seed.
- :mod:`.run` — the arms on every item under each planner.
- :mod:`.summary` — per-arm figures and paired intervals against the planner alone.
- :mod:`.report` — the text table, results JSON and the report section.
"""
