"""The fix-operator library shared by every PARB world (see :mod:`analogist.bench.generation.operators`).

Each entry is an intervention with one meaning everywhere. Some operators are a motif's correct
fix, some a plausible wrong one, some a decoy's own fix; ``repair`` and ``review`` act only on
standing conditions (an intrinsic defect), so they cannot cure a symptom that something upstream
keeps causing. Phrasings avoid every vocabulary word, like L0 text.
"""

from __future__ import annotations

from analogist.bench.generation.operators import Operator
from analogist.bench.generation.operators import make_operator as _op
from analogist.errors import BenchError

_DEFECTS = ("fails", "degraded", "corrupted", "unavailable", "inconsistent")

LIBRARY: dict[str, Operator] = {
    op.name: op
    for op in (
        _op(
            "reconcile",
            "consumer|copy|source",
            "the consumer re-reads the copy from the source at the moment of use",
            [("cut", "stale({1})", 0), ("scale", "corrupted({1})", 1.5)],
            phrases=(
                "{0} now re-reads {1} from {2} at the moment of use",
                "{1} is brought level with {2} each time {0} uses it",
            ),
        ),
        _op(
            "refresh",
            "copy",
            "the copy is rebuilt more often",
            [("scale", "stale({0})", 0.6)],
            phrases=("{0} was rebuilt more often",),
        ),
        _op(
            "repair",
            "part",
            "the part's own defect is found and put right",
            [("cut_root", f"{d}({{0}})", 0) for d in _DEFECTS],
            phrases=(
                "the fault inside {0} itself was found and put right",
                "{0} was taken apart and its own defect mended",
            ),
        ),
        _op(
            "review",
            "decider",
            "the decider's own calls get an independent second look",
            [("cut_root", "wrong_decision({0})", 0), ("cut_root", "false_claim({0})", 0)],
            phrases=("every call made by {0} now gets an independent second look",),
        ),
        _op(
            "distrust",
            "consumer|informant",
            "the consumer stops taking the informant as final",
            [("cut", "trusts_as_authoritative({0},{1})", 0)],
            phrases=("{0} stopped taking {1} as the final word",),
        ),
        _op(
            "cross_check",
            "consumer|source",
            "the consumer checks the source before acting",
            [("cut", "skips_check({0},{1})", 0)],
            phrases=("{0} now looks at {1} before acting",),
        ),
        _op(
            "heartbeat",
            "watcher",
            "the watcher gets a pulse of its own, so its own death is seen",
            [("cut", "fails({0})", 0)],
            requires=("observes({0},*)",),
            phrases=("{0} got a pulse of its own, so a dead {0} is noticed and brought back",),
        ),
        _op(
            "expose",
            "watcher|buffer",
            "the watcher sees what the buffer absorbs",
            [("cut", "filters({1},{0})", 0)],
            phrases=("{0} now sees everything {1} absorbs, not only what gets past it",),
        ),
        _op(
            "disable_retries",
            "caller|callee",
            "the caller stops repeating calls to the callee",
            [("cut", "retries({0},{1})", 0)],
            phrases=("{0} no longer calls {1} again on its own",),
        ),
        _op(
            "backoff",
            "caller|callee",
            "the caller waits longer and longer between repeat calls",
            [("scale", "retries({0},{1})", 0.3)],
            phrases=("{0} now waits longer and longer before calling {1} again",),
        ),
        _op(
            "rate_limit",
            "damper|actor",
            "the damper firmly caps how hard the actor may push",
            [("set", "limits({0},{1})", 0.8)],
            phrases=("{0} now firmly caps how hard {1} can push",),
        ),
        _op(
            "backpressure",
            "buffer|sender",
            "the buffer makes the sender wait when it is full",
            [("set", "limits({0},{1})", 1.0)],
            phrases=("{1} now has to wait whenever {0} is full",),
        ),
        _op(
            "shed_load",
            "part",
            "the part's own excess work is removed at its origin",
            [("cut_root", "overloaded({0})", 0)],
            phrases=("the surplus work inside {0} was cut at its origin",),
        ),
        _op(
            "scale_up",
            "part",
            "the part gets more capacity",
            [("scale", "overloaded({0})", 0.8)],
            phrases=("{0} was given more capacity",),
        ),
        _op(
            "cap_usage",
            "user|supply",
            "the user's draw on the supply is capped",
            [("scale", "consumes({0},{1})", 0.1)],
            phrases=("the draw {0} takes from {1} was capped",),
        ),
        _op(
            "age_priority",
            "favoured|waiting",
            "the waiting party's claim grows until it is served",
            [("cut", "has_priority_over({0},{1})", 0)],
            phrases=("{1} now climbs the queue the longer it waits, until {0} no longer jumps it",),
        ),
        _op(
            "inherit_priority",
            "holder|waiter",
            "the holder borrows the waiter's rank while holding",
            [("cut", "has_priority_over(*,{0})", 0)],
            requires=("holds({0},*)", "waits_for({1},*)"),
            phrases=("{0} borrows the rank of {1} for as long as {1} is waiting on it",),
        ),
        _op(
            "release_early",
            "holder|item",
            "the holder lets go of the item sooner",
            [("cut", "holds({0},{1})", 0)],
            phrases=("{0} now lets go of {1} as soon as it is done",),
        ),
        _op(
            "order_locks",
            "party|first|second",
            "the party always takes first before second",
            [("cut", "holds({0},{2})", 0)],
            requires=("waits_for({0},{1})",),
            phrases=("{0} now always takes {1} before it touches {2}",),
        ),
        _op(
            "sample_all",
            "analyst|population",
            "the analyst looks at the whole population",
            [("cut", "filters(*,{1})", 0)],
            requires=("assumes({0},{1})",),
            phrases=("{0} now looks at all of {1}, including the ones that never came back",),
        ),
        _op(
            "recalibrate",
            "sample",
            "the sample's own skew is corrected",
            [("cut_root", "biased({0})", 0)],
            phrases=("the lean built into {0} was corrected",),
        ),
        _op(
            "retarget",
            "agent|proxy|goal",
            "the agent is judged on the goal, not the proxy",
            [("cut", "optimizes_for({0},{1})", 0)],
            requires=("proxies_for({1},{2})",),
            phrases=("{0} is now judged on {2} itself rather than on {1}",),
        ),
        _op(
            "realign",
            "copy|original",
            "the copy is re-derived so it tracks the original again",
            [("cut", "diverges_from({0},{1})", 0)],
            phrases=("{0} was re-derived so that it tracks {1} again",),
        ),
        _op(
            "serialize",
            "first|second",
            "the two parties take turns instead of overlapping",
            [("cut", "races_with({0},{1})", 0)],
            phrases=("{0} and {1} now take strict turns",),
        ),
        _op(
            "circuit_break",
            "caller|callee",
            "the caller fails fast instead of piling up on the callee",
            [("cut", "overloaded({0})", 0)],
            requires=("depends_on({0},{1})",),
            phrases=("{0} now gives up at once when {1} is slow instead of piling up",),
        ),
        _op(
            "dedupe",
            "sender|receiver",
            "the sender's signals to the receiver are cut to the few that matter",
            [("scale", "alerts({0},{1})", 0.1)],
            phrases=("the signals {1} gets from {0} were cut to the few that matter",),
        ),
        _op(
            "rotate",
            "receiver",
            "fresh receivers take turns",
            [("cut_root", "desensitized({0})", 0)],
            phrases=("{0} now works in short rotating shifts",),
        ),
        _op(
            "require_ack",
            "receiver|sender",
            "every signal from the sender must be acknowledged",
            [("cut", "ignores({0},{1})", 0)],
            phrases=("{0} must now acknowledge every signal from {1}",),
        ),
        _op(
            "stratify",
            "decider|factor|background",
            "the decider compares like with like on the "
            "background factor before acting on the factor",
            [("cut", "assumes({0},{1})", 0)],
            requires=("*({2})",),
            phrases=("{0} now splits the figures by {2} before drawing any conclusion about {1}",),
        ),
        _op(
            "randomize",
            "decider|factor|result",
            "the decider tests the factor in a fair trial",
            [("cut", "correlates_with({1},{2})", 0)],
            requires=("assumes({0},{1})",),
            phrases=("{0} ran a fair trial of {1} before going further",),
        ),
        _op(
            "jitter",
            "timer",
            "expiry times are spread out",
            [("scale", "exhausted({0})", 0.1)],
            phrases=("the expiry times of {0} were spread out at random",),
        ),
        _op(
            "coalesce",
            "callers|callee",
            "many identical calls are merged into one",
            [("scale", "sends_to({0},{1})", 0.1)],
            phrases=("identical requests from {0} to {1} are now merged into one",),
        ),
        _op(
            "diversify",
            "replica|shared",
            "the replica stops taking the shared source at the same moment",
            [("cut", "corrupted({0})", 0)],
            requires=("derives_from({0},{1})",),
            phrases=("{0} now takes changes from {1} a day after everyone else",),
        ),
        _op(
            "upgrade",
            "old|new",
            "the old side is brought to the new side's version",
            [("cut", "incompatible_with({0},{1})", 0)],
            phrases=("{0} was brought up to the same version as {1}",),
        ),
        _op(
            "pause_flow",
            "sender|receiver",
            "the sender stops passing anything to the receiver",
            [("cut", "sends_to({0},{1})", 0)],
            phrases=("nothing passes from {0} to {1} any more",),
        ),
        _op(
            "fail_closed",
            "guard|traffic",
            "when the guard is broken it turns everything away",
            [("set", "gates({0},{1})", 1.0)],
            phrases=("when {0} is broken it now turns all of {1} away",),
        ),
    )
}


def operator(name: str) -> Operator:
    """The library operator called ``name``.

    Raises:
        BenchError: when no operator has that name.
    """
    try:
        return LIBRARY[name]
    except KeyError:
        raise BenchError(
            f"unknown fix operator {name!r}; known operators: {', '.join(sorted(LIBRARY))}"
        ) from None
