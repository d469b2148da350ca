"""PARB analysis: scoring answers, metrics, statistics, hypotheses, classification, results,
the scoreboard and HTML report, structural similarity, and the shortcut audits.
"""
