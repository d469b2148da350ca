"""PARB generation: motifs, worlds and their simulator, skins and rendering, decoy edits, items
of every family, and the versioned bench files (``generate_bench``).

Nothing here runs a system under test or scores one; see :mod:`analogist.bench.execution` and
:mod:`analogist.bench.analysis`.
"""
