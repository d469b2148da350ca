"""External analogy benchmarks written by others, run through the pipeline and baselines.

- :mod:`analogist.bench.suites.external.parallelparc` — ParallelPARC (NAACL 2024): binary and
  multiple-choice tasks with challenging distractors.
"""
