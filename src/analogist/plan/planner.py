"""The classical planner: pyperplan's search algorithms on a grounded task, with a budget.

:class:`Planner` is a frozen dataclass whose fields are its settings (search algorithm,
heuristic, expansion budget), so a run records exactly what it used. :meth:`Planner.solve`
searches from any state to any set of goal facts — the whole problem, or one subgoal of a
projected skeleton — and returns a :class:`SearchResult` with the plan and the number of
expanded nodes, counted as pyperplan counts them (its "N Nodes expanded" log line; a test
checks the two agree): each successor generation, plus the goal node. The budget is enforced
on the same count; a search that exceeds it stops with status ``budget``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pyperplan.heuristics.blind import BlindHeuristic
from pyperplan.heuristics.lm_cut import LmCutHeuristic
from pyperplan.heuristics.relaxation import hAddHeuristic, hFFHeuristic, hMaxHeuristic
from pyperplan.search import astar_search, breadth_first_search, greedy_best_first_search
from pyperplan.task import Task

from analogist.plan.pddl import PlanningError

SEARCHES = ("bfs", "astar", "gbfs")
HEURISTICS: dict[str, Callable[[Task], Any]] = {
    "blind": BlindHeuristic,
    "hff": hFFHeuristic,
    "hmax": hMaxHeuristic,
    "hadd": hAddHeuristic,
    "lmcut": LmCutHeuristic,
}


class _BudgetExceeded(Exception):
    pass


class _CountingTask(Task):
    """A pyperplan task that counts successor generations and stops at the budget."""

    def __init__(self, base: Task, init: frozenset[str], goals: frozenset[str], budget: int):
        super().__init__(base.name, base.facts, init, goals, base.operators)
        self.generated, self.budget = 0, budget

    def get_successor_states(self, state: frozenset[str]) -> list:
        if self.generated >= self.budget:
            raise _BudgetExceeded
        self.generated += 1
        # successors in name order: pyperplan's operator list follows set iteration order, which
        # changes with Python's string hashing between processes; sorted, a search is repeatable
        return sorted(super().get_successor_states(state), key=lambda pair: pair[0].name)


@dataclass(frozen=True)
class SearchResult:
    """One search: ``status`` is solved | unsolvable | budget; ``plan`` holds ground operator
    names (pyperplan's ``(go truck a b)``); ``expansions`` as pyperplan counts them."""

    status: str
    plan: tuple[str, ...]
    expansions: int
    seconds: float

    @property
    def solved(self) -> bool:
        return self.status == "solved"


@dataclass(frozen=True)
class Planner:
    """pyperplan search settings: ``search`` (bfs | astar | gbfs), ``heuristic`` (blind | hff |
    hmax | hadd | lmcut; unused by bfs), ``max_expansions`` per call.

    Repeatable across processes: bfs, and every heuristic but hff (whose relaxed plan breaks
    ties in set iteration order, so its values, and the search, can change between processes).
    """

    search: str = "bfs"
    heuristic: str = "hadd"
    max_expansions: int = 200_000

    def __post_init__(self) -> None:
        if self.search not in SEARCHES:
            raise PlanningError(f"search {self.search!r} is not one of {', '.join(SEARCHES)}")
        if self.heuristic not in HEURISTICS:
            raise PlanningError(
                f"heuristic {self.heuristic!r} is not one of {', '.join(HEURISTICS)}"
            )
        if self.max_expansions < 1:
            raise PlanningError("max_expansions must be at least 1")

    @property
    def label(self) -> str:
        return (
            "pyperplan bfs" if self.search == "bfs" else f"pyperplan {self.search}+{self.heuristic}"
        )

    def solve(
        self,
        task: Task,
        init: Iterable[str] | None = None,
        goals: Iterable[str] | None = None,
        budget: int | None = None,
    ) -> SearchResult:
        """Search from ``init`` (default: the task's) to ``goals`` (default: the task's)."""
        t = _CountingTask(
            task,
            frozenset(task.initial_state if init is None else init),
            frozenset(task.goals if goals is None else goals),
            min(budget or self.max_expansions, self.max_expansions),
        )
        start = time.perf_counter()
        try:
            sol = self._run(t)
            status = "solved" if sol is not None else "unsolvable"
        except _BudgetExceeded:
            sol, status = None, "budget"
        seconds = time.perf_counter() - start
        # pyperplan counts the goal node as expanded although it generates no successors
        expanded = t.generated + (1 if sol is not None else 0)
        return SearchResult(status, tuple(op.name for op in sol or ()), expanded, seconds)

    def _run(self, t: _CountingTask) -> list | None:
        if self.search == "bfs":
            return breadth_first_search(t)
        h = HEURISTICS[self.heuristic](t)
        if self.search == "gbfs":
            return greedy_best_first_search(t, h)
        return astar_search(t, h)
