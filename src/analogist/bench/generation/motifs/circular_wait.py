"""Circular wait (development motif; a deadlock).

Two parties take two items in opposite orders; each keeps one and waits for the other's, and
neither moves. Fix: everyone takes the items in the same order. Decoys: the second party's hold
usually clears the way for the first (flip: making it let go is worse), or the first party
stalls regardless of the second.
"""

from analogist.bench.generation.motif import (
    DELETE,
    DROP_RELATION,
    FLIP,
    Edit,
    Motif,
    Skin,
    Split,
    Variant,
)
from analogist.bench.generation.simulate import Dynamics

MOTIF = Motif(
    name="circular_wait",
    title="circular wait",
    aliases=("deadlock", "circular wait", "gridlock"),
    roles={
        "T1": "party that keeps the first item and wants the second",
        "T2": "party that keeps the second item and wants the first",
        "L1": "first item",
        "L2": "second item",
    },
    relations=(
        "holds(T1,L1)",
        "waits_for(T1,L2)",
        "holds(T2,L2)",
        "waits_for(T2,L1)",
        "sends_to(T1,T2)",
    ),
    chain=(
        ("waits_for(T1,L2)", "causes", "deadlocked(T1)"),
        ("holds(T2,L2)", "enables", "deadlocked(T1)"),
        ("waits_for(T2,L1)", "enables", "deadlocked(T1)"),
        ("holds(T1,L1)", "enables", "deadlocked(T1)"),
    ),
    symptom_node="deadlocked(T1)",
    symptom="two parties each waiting on what the other has, so neither moves",
    invariant="shared items are always taken in one agreed order",
    fix="order_locks(T2,L1,L2)",
    qualifier="same order for everyone",
    wrong_fixes=("release_early(T2,L1)", "scale_up(T1)", "backoff(T1,L2)"),
    alt_fixes=("order_locks(T1,L2,L1)",),
    levels={
        "L1": "{T1} kept {L1} and wanted {L2} while {T2} kept {L2} and wanted {L1}",
        "L2": "Two parties take two items in opposite orders and wait on each other",
        "L3": "Circle of waiting with no way out",
    },
    dynamics=Dynamics(strengths={"holds(T2,L2)": 0.5}),
    facts={
        "handoff": ("sends_to(T1,T2)",),
        "first": ("holds(T1,L1)", "waits_for(T1,L2)", "c1", "c4"),
        "second": ("holds(T2,L2)", "c2"),
        "loop": ("waits_for(T2,L1)", "c3"),
    },
    decoys=(
        Variant(
            FLIP,
            Edit(FLIP, "c2"),
            "order_locks(T1,L2,L1)",
            "Second party's hold usually clears the way for the first",
            "Contention that protects",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c2"),
            "order_locks(T1,L2,L1)",
            "First party stuck for reasons unrelated to the second party's hold",
            "Coincidental stall",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "sends_to(T1,T2)"),
        "order_locks(T2,L1,L2)",
        "Two unrelated parties take two items in opposite orders and wait on each other",
        "Circle of waiting with no way out",
    ),
    split=Split("waits_for(T1,L2)", "QUE", "request queue in front of the second item"),
    skins=(
        Skin(
            name="cell",
            domain="manufacturing",
            kind="ordinary",
            entities={
                "T1": "the welding robot",
                "T2": "the painting robot",
                "L1": "the shared jig",
                "L2": "the overhead crane",
                "QUE": "the crane request queue",
            },
            setting=(
                "Assembly cell stoppage report.",
                "Line maintenance log, Monday night.",
                "Robotics downtime review, body shop.",
            ),
            facts={
                "handoff": (
                    "{T1} passes finished frames on to {T2} at the next station.",
                    "Frames go from {T1} to {T2}.",
                    "Welded frames move on from {T1} for {T2} to paint.",
                ),
                "first": (
                    "{T1} clamps {L1}, then asks for {L2} and will not let go of {L1} until it gets it.",
                    "{T1} takes {L1} first and then waits on {L2}, keeping {L1} all the while.",
                    "With {L1} clamped in its grip, {T1} sits requesting {L2}, never loosening the fixture meanwhile.",
                ),
                "second": (
                    "About half the time, at that moment, {T2} has already grabbed {L2}, and that leaves {T1} stuck there.",
                    "Roughly every other cycle {T2} is using {L2} right then.",
                    "One cycle in two finds {L2} busy carrying parts for {T2} when the request lands.",
                ),
                "loop": (
                    "{T2} in turn needs {L1} before it can let go of anything.",
                    "{T2} cannot finish, and free {L2}, until it has {L1}.",
                    "{T2} must have {L1} to complete its own cycle.",
                ),
            },
            symptom=(
                "The cell froze at 02:14 with both robots motionless, and stayed that way until the morning shift reset it.",
                "Both robots stood still for five hours, each waiting on the other.",
                "From 02:14 the cell was frozen, both arms paused mid-cycle, until the day crew cleared it.",
            ),
            variants={
                FLIP: {
                    "second": (
                        "About half the time, at that moment, {T2} has already grabbed {L2}, and that leaves {T1} free.",
                    )
                },
                DELETE: {
                    "second": (
                        "About half the time, at that moment, {T2} has already grabbed {L2}, and {T1} is stuck all the same.",
                    )
                },
                "partial": {"handoff": ("Frames go from {T1} to the store instead of {T2}.",)},
                "split": {
                    "first": (
                        "{T1} takes {L1} first and then waits in {QUE} for {L2}, keeping {L1} all the while.",
                    )
                },
            },
        ),
        Skin(
            name="sluices",
            domain="ecology",
            kind="ordinary",
            entities={
                "T1": "the upstream dam keeper",
                "T2": "the downstream sluice keeper",
                "L1": "the upper gate",
                "L2": "the lower gate",
                "QUE": "the water board's permit office",
            },
            setting=(
                "Wetland management report, spring flood.",
                "River trust minutes, April.",
                "Catchment officer's notes, Easter high water.",
            ),
            facts={
                "handoff": (
                    "{T1} sends water on to {T2} through the weir between them.",
                    "Water passes from {T1} to {T2}.",
                    "Whatever {T1} releases is what {T2} receives.",
                ),
                "first": (
                    "{T1} keeps {L1} shut and will only open it once it has control of {L2}.",
                    "{T1} keeps {L1} closed until it is given {L2}.",
                    "{T1} bars {L1} and asks for authority over {L2} too, and won't raise {L1} meanwhile.",
                ),
                "second": (
                    "About half the time, at that moment, {T2} has {L2} under its own control, which keeps {T1} waiting.",
                    "Roughly every other flood, {T2} is in charge of {L2} at that point.",
                    "In alternate floods {L2} is being worked by {T2} when that call is made.",
                ),
                "loop": (
                    "{T2} in turn will not release {L2} until it has {L1}.",
                    "{T2} needs {L1} before it gives up {L2}.",
                    "{T2} keeps {L2} shut pending the handover of {L1}.",
                ),
            },
            symptom=(
                "Neither gate moved for three days and the marsh between them drained dry.",
                "The water sat still for days, each keeper waiting on the other, and the marsh dried out.",
                "For three days no gate opened, and the marsh below them turned to cracked mud.",
            ),
            variants={
                FLIP: {
                    "second": (
                        "About half the time, at that moment, {T2} has {L2} under its own control, which frees {T1} up.",
                    )
                },
                DELETE: {
                    "second": (
                        "About half the time, at that moment, {T2} has {L2} under its own control; {T1} waits anyway.",
                    )
                },
                "partial": {"handoff": ("Water passes from {T1} to the canal, bypassing {T2}.",)},
                "split": {"first": ("{T1} keeps {L1} closed until it is given {L2} by {QUE}.",)},
            },
        ),
        Skin(
            name="railyard",
            domain="logistics",
            kind="ordinary",
            entities={
                "T1": "the inbound train crew",
                "T2": "the outbound train crew",
                "L1": "track 3",
                "L2": "the yard crossover",
                "QUE": "the dispatcher's booking sheet",
            },
            setting=(
                "Rail yard incident, night shift.",
                "Freight terminal review, Wednesday.",
                "Marshalling yard debrief, graveyard shift.",
            ),
            facts={
                "handoff": (
                    "{T1} hand their wagons on to {T2} at the end of each run.",
                    "Wagons pass from {T1} to {T2}.",
                    "{T1} leave their wagons for {T2} to haul onward.",
                ),
                "first": (
                    "{T1} occupy {L1} and then need {L2}, staying on {L1} until they get it.",
                    "{T1} take {L1} first and keep it while waiting on {L2}.",
                    "{T1} pull onto {L1} and radio for {L2}, and the siding stays theirs till clearance comes.",
                ),
                "second": (
                    "About half the time, at that moment, {T2} are already standing on {L2}, and that strands {T1} where they are.",
                    "Roughly every other shift, {T2} are on {L2} right then.",
                    "Every second shift, {T2} sit parked across {L2} as clearance is sought.",
                ),
                "loop": (
                    "{T2} in turn need {L1} before they can clear {L2}.",
                    "{T2} cannot leave {L2} until they have {L1}.",
                    "{T2} are after {L1}, and {L2} stays occupied till they get it.",
                ),
            },
            symptom=(
                "The yard seized up at 23:40 with both trains motionless until a manager intervened at dawn.",
                "Both trains sat nose to nose for six hours.",
                "No wagon left the yard between 23:40 and first light.",
            ),
            variants={
                FLIP: {
                    "second": (
                        "About half the time, at that moment, {T2} are already standing on {L2}, and that lets {T1} through.",
                    )
                },
                DELETE: {
                    "second": (
                        "About half the time, at that moment, {T2} are already standing on {L2}, and {T1} are stranded regardless.",
                    )
                },
                "partial": {"handoff": ("Wagons pass from {T1} to the sidings rather than {T2}.",)},
                "split": {
                    "first": ("{T1} take {L1} first and keep it while waiting on {QUE} for {L2}.",)
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "T1": "the {w1} {w2}",
                "T2": "the {w3} {w4}",
                "L1": "the {w5} stone",
                "L2": "the {w6} stone",
                "QUE": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} and the {w3} {w4} are two carvers sharing one workshop, and the {w5} stone and the {w6} stone are the two whetstones there.",
            ),
            setting=(
                "In {w8}, to {w7} a stone is to keep a hand on it and refuse to let go.",
                "Among the {w8}, keeping a hand on a stone and refusing to let go is called {w7}ing it.",
                "The people of {w8} {w7} a stone when they grip it and will not release it.",
            ),
            facts={
                "handoff": (
                    "{T1} passes its carvings to {T2} when each is done.",
                    "Carvings go from {T1} to {T2}.",
                    "What {T1} carves, {T2} then takes up to finish.",
                ),
                "first": (
                    "{T1} {w7}s {L1} and reaches for {L2}.",
                    "{T1} {w7}s {L1} while it waits on {L2}.",
                    "{T1} goes on {w7}ing {L1} and asks for {L2} besides.",
                ),
                "second": (
                    "About half the time, just then, {T2} {w7}s {L2}, and so {T1} freezes in place.",
                    "Every other day {T2} is {w7}ing {L2} at that moment.",
                    "On odd days, {L2} is being {w7}ed by {T2} when that reach comes.",
                ),
                "loop": (
                    "{T2} in turn reaches for {L1}.",
                    "{T2} will not let go until it has {L1}.",
                    "{T2} has its eye on {L1} for the next cut.",
                ),
            },
            symptom=(
                "From noon until nightfall neither moved an inch.",
                "The two stood frozen, each waiting on the other, until dark.",
                "Not a single chisel struck from midday on.",
            ),
            variants={
                FLIP: {
                    "second": (
                        "About half the time, just then, {T2} {w7}s {L2}, and so {T1} keeps moving.",
                    )
                },
                DELETE: {
                    "second": (
                        "About half the time, just then, {T2} {w7}s {L2}, and {T1} freezes either way.",
                    )
                },
                "partial": {"handoff": ("Carvings go from {T1} to the market, past {T2}.",)},
                "split": {"first": ("{T1} {w7}s {L1} while it waits on {QUE} for {L2}.",)},
            },
        ),
    ),
)
