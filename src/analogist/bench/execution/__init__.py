"""PARB execution: the experimental arms, the runner, and the answerers (engine and model) with
their prompts, encoder noise, the isomorphism reference, replay files and model encoding.
"""
