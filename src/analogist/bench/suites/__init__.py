"""PARB suites that span generation, execution and analysis: planning, learning, blending,
private-history items, trigger simulation and external benchmarks.
"""
