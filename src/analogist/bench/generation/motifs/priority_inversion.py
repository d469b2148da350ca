"""Priority inversion (development motif).

An urgent task waits for a shared item held by a low-ranked task, and medium work keeps the
low-ranked holder from running, so the urgent task waits behind work it outranks. Fix: the
holder borrows the waiter's rank while holding. Decoys: the holder had stalled on its own and
was ranked down afterwards (a common cause), or the urgent task's delay is unrelated.
"""

from analogist.bench.generation.motif import (
    DELETE,
    DROP_RELATION,
    MEDIATOR,
    Edit,
    Motif,
    Skin,
    Split,
    Variant,
)
from analogist.bench.generation.simulate import Dynamics

MOTIF = Motif(
    name="priority_inversion",
    title="priority inversion",
    aliases=("priority inversion", "inversion"),
    roles={
        "HI": "urgent task",
        "MID": "medium task",
        "LO": "low task that holds what the urgent task needs",
        "LCK": "shared item held by the low task",
    },
    relations=(
        "has_priority_over(HI,MID)",
        "has_priority_over(MID,LO)",
        "holds(LO,LCK)",
        "waits_for(HI,LCK)",
    ),
    chain=(
        ("has_priority_over(MID,LO)", "causes", "starved(LO)"),
        ("starved(LO)", "causes", "delayed(HI)"),
        ("holds(LO,LCK)", "enables", "delayed(HI)"),
        ("waits_for(HI,LCK)", "enables", "delayed(HI)"),
    ),
    symptom_node="delayed(HI)",
    symptom="urgent work kept waiting behind less urgent work",
    invariant="a task holding what urgent work needs runs at the urgent work's rank",
    fix="inherit_priority(LO,HI)",
    qualifier="while holding the shared item",
    wrong_fixes=("age_priority(HI,MID)", "scale_up(LO)", "repair(HI)"),
    alt_fixes=("release_early(LO,LCK)",),
    levels={
        "L1": "{HI} waited on {LCK}, taken by {LO}, while {MID} kept {LO} from running",
        "L2": "Low-ranked holder of a shared item pushed aside by medium work, stalling high-ranked work",
        "L3": "Importance inverted through a shared dependency",
    },
    dynamics=Dynamics(),
    facts={
        "rank": ("has_priority_over(HI,MID)",),
        "bump": ("has_priority_over(MID,LO)", "c1"),
        "holding": ("holds(LO,LCK)", "c3"),
        "waiting": ("waits_for(HI,LCK)", "c4"),
        "stuck": ("c2",),
    },
    decoys=(
        Variant(
            MEDIATOR,
            Edit(MEDIATOR, "c1"),
            "release_early(LO,LCK)",
            "Stalled holder later ranked below medium work; the stall itself delays the urgent task",
            "Stall mistaken for preemption",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c2"),
            "release_early(LO,LCK)",
            "Urgent work delayed for reasons unrelated to the crowded-out holder",
            "Coincident delay",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "has_priority_over(HI,MID)"),
        "inherit_priority(LO,HI)",
        "Holder of a shared item pushed aside by other work, stalling the task that needs it",
        "Importance inverted through a shared dependency",
    ),
    split=Split("waits_for(HI,LCK)", "QUE", "queue in front of the shared item"),
    skins=(
        Skin(
            name="paintshop",
            domain="manufacturing",
            kind="ordinary",
            entities={
                "HI": "the rush order for the hospital client",
                "MID": "the routine stock runs",
                "LO": "the overnight sample batch",
                "LCK": "the only colour-matching booth",
                "QUE": "the booth sign-up board",
            },
            setting=(
                "Paint shop, Wednesday night shift.",
                "Production planning review, coatings plant.",
                "Customer escalation, coatings line.",
            ),
            facts={
                "rank": (
                    "{HI} outranks {MID} on the schedule.",
                    "On the schedule, {HI} comes before {MID}.",
                    "Planners put {HI} in front of {MID}.",
                ),
                "bump": (
                    "{MID} outrank {LO}, and all night they kept bumping it off the line.",
                    "Because {MID} rank above {LO}, the planners kept pushing {LO} back.",
                    "{MID} takes precedence over {LO}, so {LO} was shunted aside hour after hour.",
                ),
                "holding": (
                    "{LO} had taken {LCK} at the start of the shift and keeps it until it can finish.",
                    "{LCK} was in use by {LO}, which keeps it until done.",
                    "{LO} sits in {LCK}, shutting out all else till done.",
                ),
                "waiting": (
                    "{HI} needed {LCK} and could only wait for it.",
                    "{HI} cannot start without {LCK}, so it queued for it.",
                    "{HI} must pass through {LCK}, so it stood in line.",
                ),
                "stuck": (
                    "With {LO} never getting to run, it never finished, never freed {LCK}, and {HI} sat waiting.",
                    "Because {LO} could not progress, {LCK} stayed taken and {HI} stayed stuck.",
                    "Pushed aside, {LO} could not complete, so {LCK} remained in use and {HI} went nowhere.",
                ),
            },
            symptom=(
                "{HI} shipped two days behind schedule while {MID} ran all night.",
                "The most urgent job in the plant sat idle for two days while routine work went ahead.",
                "{HI} went out two days overdue, yet {MID} never paused.",
            ),
            variants={
                MEDIATOR: {
                    "bump": ("Because {LO} kept stalling, the planners rank {MID} above {LO}.",)
                },
                DELETE: {
                    "stuck": (
                        "{LO} could not progress, but {LCK} stayed taken and {HI} stayed stuck for other reasons.",
                    )
                },
                "partial": {"rank": ("On the schedule, {HI} comes level with {MID}.",)},
                "split": {"waiting": ("{HI} needed {LCK} and could only wait for it on {QUE}.",)},
            },
        ),
        Skin(
            name="runway",
            domain="aviation",
            kind="ordinary",
            entities={
                "HI": "the medical evacuation flight",
                "MID": "the scheduled arrivals",
                "LO": "the slow maintenance tow across the runway",
                "LCK": "the single runway",
                "QUE": "the departure marshalling point",
            },
            setting=(
                "Air traffic occurrence report, island airport.",
                "Tower log review, Saturday afternoon.",
                "Safety investigation, medevac departure.",
            ),
            facts={
                "rank": (
                    "{HI} ranks above {MID} with the tower.",
                    "The tower puts {HI} ahead of {MID}.",
                    "Controllers sequence {HI} before {MID}.",
                ),
                "bump": (
                    "{MID} rank above {LO}, so every arrival made {LO} halt and give way.",
                    "Each time one of {MID} came in, {LO} was told to halt short of the runway.",
                    "{MID} has right of way over {LO}, so {LO} was stopped for each landing.",
                ),
                "holding": (
                    "{LO} had already entered {LCK} and occupies it until it has crossed.",
                    "{LCK} was occupied by {LO}, which cannot be cleared until it has crossed.",
                    "{LO} is out on {LCK}, barring it to other traffic.",
                ),
                "waiting": (
                    "{HI} needed {LCK} to depart and had to wait for it.",
                    "{HI} could not take off until {LCK} was clear.",
                    "{HI} needs {LCK} to get airborne, so it idled.",
                ),
                "stuck": (
                    "Since {LO} kept getting halted, it never finished crossing, {LCK} never cleared, and {HI} sat on the ground.",
                    "With {LO} stopped again and again, {LCK} stayed occupied and {HI} could not go.",
                    "Each pause for {LO} kept {LCK} occupied longer and pinned {HI} to the apron.",
                ),
            },
            symptom=(
                "{HI} left forty minutes behind its slot while {MID} landed one after another.",
                "The most urgent flight of the day sat on the apron for forty minutes.",
                "{HI} spent forty minutes waiting to depart as {MID} kept landing.",
            ),
            variants={
                MEDIATOR: {
                    "bump": (
                        "Because {LO} kept stalling, {MID} rank above {LO}, and every arrival made it give way.",
                    )
                },
                DELETE: {
                    "stuck": (
                        "With {LO} stopped again and again, {LCK} stayed occupied, and {HI} could not go anyway.",
                    )
                },
                "partial": {"rank": ("{HI} ranks alongside {MID} with the tower.",)},
                "split": {
                    "waiting": ("{HI} needed {LCK} to depart and had to wait for it at {QUE}.",)
                },
            },
        ),
        Skin(
            name="theatre",
            domain="medicine",
            kind="ordinary",
            entities={
                "HI": "the emergency caesarean",
                "MID": "the elective day-case transfers",
                "LO": "the orthopaedic patient in recovery",
                "LCK": "the one ventilated recovery bay",
                "QUE": "the bed manager's list",
            },
            setting=(
                "Theatre suite incident review.",
                "Maternity escalation report, Friday.",
                "Obstetric delay review, Monday.",
            ),
            facts={
                "rank": (
                    "{HI} outranks {MID} for every resource in the unit.",
                    "In the unit's rules, {HI} comes ahead of {MID}.",
                    "Unit policy says {HI} must be dealt with before {MID}.",
                ),
                "bump": (
                    "The porters serve {MID} before {LO}, so {LO} kept being passed over for a transfer.",
                    "Because {MID} rank above {LO}, no porter came for {LO} all afternoon.",
                    "{MID} gets porters first, so {LO} went all afternoon without a move.",
                ),
                "holding": (
                    "{LO} was in {LCK} and stays there until moved.",
                    "{LCK} was taken by {LO}.",
                    "{LO} lies in {LCK}, so the bay cannot be turned over.",
                ),
                "waiting": (
                    "{HI} could not go ahead until {LCK} was free.",
                    "{HI} needed {LCK} and could only wait.",
                    "{HI} may not begin unless {LCK} is ready.",
                ),
                "stuck": (
                    "With {LO} never moved, {LCK} never came free, and {HI} waited.",
                    "Because nobody moved {LO}, {LCK} stayed full and {HI} could not start.",
                    "No transfer for {LO} meant {LCK} was never vacated and {HI} could not come in.",
                ),
            },
            symptom=(
                "{HI} started fifty minutes after the decision to operate while {MID} went ahead.",
                "The most urgent case on the floor waited almost an hour for a bay.",
                "{HI} began almost an hour after it was called, while {MID} carried on.",
            ),
            variants={
                MEDIATOR: {
                    "bump": (
                        "{LO} kept being passed over as too unwell for a transfer, so the porters serve {MID} before {LO}.",
                    )
                },
                DELETE: {
                    "stuck": (
                        "Nobody moved {LO} and {LCK} stayed full, but {HI} could not start in any case.",
                    )
                },
                "partial": {
                    "rank": ("{HI} ranks level with {MID} for every resource in the unit.",)
                },
                "split": {"waiting": ("{HI} needed {LCK} and could only wait on {QUE}.",)},
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "HI": "the {w1} {w2}",
                "MID": "the {w3} {w4}",
                "LO": "the {w5} {w6}",
                "LCK": "the {w9} bridge",
                "QUE": "the {w10} line",
            },
            glossary=(
                "The {w1} {w2} is the healer's cart, the {w3} {w4} is the market procession, and the {w5} {w6} is an old hay wagon.",
            ),
            setting=(
                "In {w8}, one who {w7}s another is let through first.",
                "Among the {w8}, to {w7} someone is to be let through ahead of them.",
                "The {w8} say one {w7}s another when it is owed the road first.",
            ),
            facts={
                "rank": (
                    "{HI} {w7}s {MID}.",
                    "By custom {HI} {w7}s {MID}.",
                    "{MID} is {w7}ed by {HI} wherever they meet.",
                ),
                "bump": (
                    "{MID} {w7}s {LO}, so {LO} kept being sent back.",
                    "Because {MID} {w7}s {LO}, {LO} never got to move.",
                    "{LO} is {w7}ed by {MID}, so it waited its turn over and over.",
                ),
                "holding": (
                    "{LO} stood on {LCK} and would not leave it until across.",
                    "{LO} had {LCK} to itself.",
                    "{LO} is parked on {LCK}, where no further wheel may roll meanwhile.",
                ),
                "waiting": (
                    "{HI} needed {LCK} and could only wait.",
                    "{HI} could not pass until {LCK} was clear.",
                    "{HI} has no road onward but {LCK}, so it lingered.",
                ),
                "stuck": (
                    "With {LO} never moving, {LCK} stayed taken and {HI} stood waiting.",
                    "Since {LO} could not move, {HI} could not cross {LCK}.",
                    "{LO} made no headway, so {LCK} was never free for {HI}.",
                ),
            },
            symptom=(
                "{HI} arrived a whole day behind, while {MID} passed freely.",
                "{HI} waited from dawn to dusk.",
                "{HI} crossed only at nightfall, though {MID} went by all day.",
            ),
            variants={
                MEDIATOR: {
                    "bump": ("Because {LO} froze and never got to move, {MID} {w7}s {LO}.",)
                },
                DELETE: {
                    "stuck": ("{LO} could not move, but {HI} could not cross {LCK} either way.",)
                },
                "partial": {"rank": ("By custom {HI} does not {w7} {MID}.",)},
                "split": {"waiting": ("{HI} needed {LCK} and could only wait in {QUE}.",)},
            },
        ),
    ),
)
