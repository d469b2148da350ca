"""``analogist plan TARGET``: solve a planning problem with a prior plan's skeleton.

TARGET is a stored plan episode id, a JSON file holding one plan episode or plan signature
(kind ``plan`` with a plan block and no steps), or a PDDL problem file given with
``--domain``. The loop retrieves a prior plan from memory, maps roles with SME, projects the
skeleton, repairs it with pyperplan and prints the skeleton table and the plan with its
provenance; the run is written to the analogy log.
"""

from __future__ import annotations

from pathlib import Path

import click

from analogist.cli.common import echo_json, handle_errors, open_memory


def _target(memory, target: str, domain: str | None, meaning: str | None):
    from analogist.episode import parse_episode
    from analogist.plan.encode import plan_signature_json
    from analogist.plan.pddl import PddlText, PlanningError, from_pddl
    from analogist.signature.limits import load_json
    from analogist.signature.model import parse_signature

    vocab = memory.store.vocabulary
    path = Path(target)
    if domain is not None:
        text = PddlText(Path(domain).read_text(encoding="utf-8"), path.read_text(encoding="utf-8"))
        block, roles = from_pddl(text)
        table = load_json(Path(meaning).read_text(encoding="utf-8"), meaning) if meaning else {}
        if not isinstance(table, dict):
            raise PlanningError(
                f'{meaning}: give a JSON object {{"predicate": "vocabulary relation"}}'
            )
        raw = plan_signature_json(
            path.stem.replace(" ", "_") or "target",
            block,
            roles,
            f"PDDL problem {path.name}",
            "pddl",
            table,
        )
        return parse_signature(raw, vocab)
    if path.suffix == ".json" and path.exists():
        obj = load_json(path.read_text(encoding="utf-8"), str(path))
        sig = parse_episode(obj, vocab).signature
        if sig is None:
            raise PlanningError(f"{path}: the episode has no signature; give a plan signature")
        return sig
    sig = memory.store.get_episode(target).signature
    if sig is None:
        raise PlanningError(f"episode {target} has no signature; it needs a plan block")
    return sig


@click.command("plan")
@click.argument("target")
@click.option(
    "--domain",
    type=click.Path(exists=True, dir_okay=False),
    help="PDDL domain file; TARGET is then a PDDL problem file.",
)
@click.option(
    "--meaning",
    type=click.Path(exists=True, dir_okay=False),
    help="For PDDL: JSON {predicate: vocabulary relation}, so the retrieval channels "
    "can index the problem (without it only a plan with relations is found).",
)
@click.option(
    "--search",
    "search",
    type=click.Choice(["bfs", "astar", "gbfs"]),
    default="gbfs",
    show_default=True,
    help="pyperplan search algorithm.",
)
@click.option(
    "--heuristic",
    type=click.Choice(["blind", "hff", "hmax", "hadd", "lmcut"]),
    default="hadd",
    show_default=True,
    help="Heuristic (not used by bfs; hff is not repeatable across processes).",
)
@click.option("--max-expansions", type=click.IntRange(1), default=200_000, show_default=True)
@click.option("--no-log", is_flag=True, help="Do not write the run to the analogy log.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def plan_cmd(
    ctx: click.Context,
    target: str,
    domain: str | None,
    meaning: str | None,
    search: str,
    heuristic: str,
    max_expansions: int,
    no_log: bool,
    as_json: bool,
) -> None:
    """Plan for TARGET by analogy: skeleton from a prior plan, repaired by pyperplan."""
    from analogist.plan.loop import PlanLoop, plan_target
    from analogist.plan.planner import Planner
    from analogist.plan.render import render_outcome

    memory = open_memory(ctx)
    sig = _target(memory, target, domain, meaning)
    loop = PlanLoop(planner=Planner(search, heuristic, max_expansions))
    out = plan_target(memory, sig, loop, record=not no_log)
    if as_json:
        echo_json({**out.to_json(), "config": loop.to_json()})
        return
    click.echo(render_outcome(out), nl=False)
