"""Starvation (development motif).

A heavy user draws a shared supply dry and, when both ask at once, often gets served first; the
other user gets nothing. Fix: let waiting raise a claim (ageing). Decoys: going first actually
protects the other user (flip: putting the other first is worse), or precedence plays no part.
"""

from analogist.bench.generation.motif import DELETE, FLIP, Edit, Motif, Skin, Split, Variant
from analogist.bench.generation.simulate import Dynamics

MOTIF = Motif(
    name="starvation",
    title="starvation",
    aliases=("starvation",),
    roles={
        "HOG": "heavy user of the shared supply",
        "VIC": "user left without",
        "RES": "shared supply",
    },
    relations=(
        "consumes(HOG,RES)",
        "consumes(VIC,RES)",
        "has_priority_over(HOG,VIC)",
        "shares_resource(HOG,VIC)",
    ),
    chain=(
        ("consumes(HOG,RES)", "causes", "exhausted(RES)"),
        ("exhausted(RES)", "causes", "starved(VIC)"),
        ("has_priority_over(HOG,VIC)", "enables", "starved(VIC)"),
    ),
    symptom_node="starved(VIC)",
    symptom="a user that got nothing from a shared supply for long stretches",
    invariant="every user of a shared supply is eventually served",
    fix="age_priority(HOG,VIC)",
    qualifier="so waiting raises a claim",
    wrong_fixes=("scale_up(RES)", "repair(VIC)", "backoff(VIC,RES)"),
    alt_fixes=("cap_usage(HOG,RES)",),
    levels={
        "L1": "{HOG} kept getting first pick of {RES}, and {VIC} was left with nothing",
        "L2": "Precedence scheme lets one consumer take all of a shared supply",
        "L3": "Perpetual loser of a shared contest",
    },
    dynamics=Dynamics(strengths={"has_priority_over(HOG,VIC)": 0.5}),
    facts={
        "share": ("consumes(VIC,RES)", "shares_resource(HOG,VIC)"),
        "draw": ("consumes(HOG,RES)", "c1"),
        "empty": ("c2",),
        "first": ("has_priority_over(HOG,VIC)", "c3"),
    },
    decoys=(
        Variant(
            FLIP,
            Edit(FLIP, "c3"),
            "cap_usage(HOG,RES)",
            "Going first lets the heavy user finish and leave, protecting the other",
            "Precedence as protection",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c3"),
            "cap_usage(HOG,RES)",
            "Other user goes without regardless of precedence",
            "Shortage not caused by the pecking order",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DELETE, "c1"),
        "age_priority(HOG,VIC)",
        "Precedence decides who goes without when a supply runs dry for other reasons",
        "Perpetual loser of a shared contest",
    ),
    split=Split("consumes(HOG,RES)", "BUF", "staging step between the heavy user and the supply"),
    skins=(
        Skin(
            name="dock",
            domain="logistics",
            kind="ordinary",
            entities={
                "HOG": "the express parcel contract",
                "VIC": "the bulk freight customers",
                "RES": "the two loading docks",
                "BUF": "the yard marshalling lane",
            },
            setting=(
                "Cross-dock centre, weekly ops review.",
                "Complaint investigation, north cross-dock.",
                "Customer service escalation, cross-dock operations.",
            ),
            facts={
                "share": (
                    "{VIC} and {HOG} both load from {RES}.",
                    "{RES} serve {HOG} and {VIC} alike.",
                    "{RES} handles trailers for {HOG} and {VIC}.",
                ),
                "draw": (
                    "{HOG} books {RES} for almost every hour it can, which leaves them fully taken.",
                    "Between them, the trucks of {HOG} keep {RES} busy around the clock.",
                    "{HOG} reserves {RES} at every opening, so the dock diary has no gaps left.",
                ),
                "empty": (
                    "With {RES} fully taken, {VIC} simply do not get a slot.",
                    "When {RES} are full, {VIC} are the ones turned away.",
                    "Once {RES} is booked solid, {VIC} finds no door to back up to.",
                ),
                "first": (
                    "About half the time, when both ask at once, {HOG} is given the slot first.",
                    "Roughly every other contested slot goes to {HOG} ahead of {VIC}.",
                    "As often as not, a door wanted by {VIC} as well is handed to {HOG} instead.",
                ),
            },
            symptom=(
                "{VIC} went nine days without a single loading slot, and two of them cancelled contracts.",
                "Some of {VIC} waited over a week for a slot that never came.",
                "{VIC} lost more than a week of loading time, and two of them walked away.",
            ),
            variants={
                FLIP: {
                    "first": (
                        "About half the time, when both ask at once, {HOG} is given the slot first and is gone sooner, which spares {VIC}.",
                    )
                },
                DELETE: {
                    "first": (
                        "About half the time, when both ask at once, {HOG} is given the slot first, which makes little difference to {VIC}.",
                    )
                },
                "partial": {
                    "draw": (
                        "{HOG} books {RES} for almost every hour it can, but something else leaves them fully taken.",
                    )
                },
                "split": {
                    "draw": (
                        "{HOG} books {RES} through {BUF} for almost every hour it can, which leaves them fully taken.",
                    )
                },
            },
        ),
        Skin(
            name="cpu",
            domain="software",
            kind="ordinary",
            entities={
                "HOG": "the nightly reindex job",
                "VIC": "the customer search requests",
                "RES": "the shared database CPU",
                "BUF": "the job queue",
            },
            setting=(
                "Performance incident, search service.",
                "Weekly reliability review, search team.",
                "Latency post-mortem, database platform.",
            ),
            facts={
                "share": (
                    "{VIC} and {HOG} run against {RES}.",
                    "{RES} serves both {HOG} and {VIC}.",
                    "{VIC} executes on {RES}, as does {HOG}.",
                ),
                "draw": (
                    "{HOG} takes every cycle of {RES} it can get, and {RES} runs at full use while it runs.",
                    "While {HOG} is running, {RES} is pinned at one hundred percent.",
                    "{HOG} soaks up all the compute {RES} has, leaving it with zero headroom.",
                ),
                "empty": (
                    "With nothing left on {RES}, {VIC} sit unanswered.",
                    "Once {RES} is fully taken, {VIC} get no time at all.",
                    "When {RES} has no headroom, {VIC} hangs with no reply.",
                ),
                "first": (
                    "In roughly half the contested moments the scheduler lets {HOG} go ahead of {VIC}.",
                    "About every other time both want {RES}, {HOG} is served first.",
                    "In one collision out of two, the kernel favours {HOG} over {VIC}.",
                ),
            },
            symptom=(
                "{VIC} timed out for four hours every night, and customers in Asia saw empty result screens.",
                "For hours each night {VIC} got no answer at all.",
                "Every night for hours, {VIC} came back with errors.",
            ),
            variants={
                FLIP: {
                    "first": (
                        "In roughly half the contested moments the scheduler lets {HOG} go ahead of {VIC}, which gets {VIC} served sooner.",
                    )
                },
                DELETE: {
                    "first": (
                        "In roughly half the contested moments the scheduler lets {HOG} go ahead of {VIC}, and {VIC} sit unanswered regardless.",
                    )
                },
                "partial": {
                    "draw": (
                        "{HOG} takes every cycle of {RES} it can get, and {RES} runs at full use even while {HOG} is idle.",
                    )
                },
                "split": {
                    "draw": (
                        "{HOG} takes every cycle of {RES} it can get through {BUF}, and {RES} runs at full use while it runs.",
                    )
                },
            },
        ),
        Skin(
            name="lab",
            domain="education",
            kind="ordinary",
            entities={
                "HOG": "the final-year project groups",
                "VIC": "the first-year students",
                "RES": "the computer lab",
                "BUF": "the booking spreadsheet",
            },
            setting=(
                "Department teaching review, autumn term.",
                "Complaint file, computing department.",
                "Student feedback panel minutes, spring.",
            ),
            facts={
                "share": (
                    "{VIC} and {HOG} both need {RES}.",
                    "{RES} is shared by {HOG} and {VIC}.",
                    "{VIC} and {HOG} each use {RES}.",
                ),
                "draw": (
                    "{HOG} book {RES} for every free hour, so it is always full.",
                    "Every free hour of {RES} is taken by {HOG}.",
                    "{HOG} claims {RES} from morning to night, so the timetable is packed.",
                ),
                "empty": (
                    "With {RES} fully booked, {VIC} never get a seat.",
                    "{VIC} are the ones left without a seat when {RES} is full.",
                    "Because {RES} is packed, {VIC} is shut out.",
                ),
                "first": (
                    "When both ask for the same hour, {HOG} get it about half the time.",
                    "About half of the clashing requests are settled in favour of {HOG}.",
                    "The timetabler sides with {HOG} in fifty percent of clashes.",
                ),
            },
            symptom=(
                "{VIC} finished the term without a single practical session, and their coursework marks collapsed.",
                "Most of {VIC} never got into {RES} all term.",
                "{VIC} reached their exams without ever having sat at a machine in {RES}.",
            ),
            variants={
                FLIP: {
                    "first": (
                        "When both ask for the same hour, {HOG} get it about half the time, which helps {VIC}.",
                    )
                },
                DELETE: {
                    "first": (
                        "When both ask for the same hour, {HOG} get it about half the time, but {VIC} rarely get a seat either way.",
                    )
                },
                "partial": {
                    "draw": (
                        "{HOG} book {RES} for the odd free hour, but it is always full anyway.",
                    )
                },
                "split": {
                    "draw": (
                        "{HOG} book {RES} through {BUF} for every free hour, so it is always full.",
                    )
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "HOG": "the {w1} {w2}",
                "VIC": "the {w3} {w4}",
                "RES": "the {w5} well",
                "BUF": "the {w9} trough",
            },
            glossary=(
                "The {w1} {w2} is the great ox of the upper farm, and the {w3} {w4} are the goats of the widow's yard.",
            ),
            setting=(
                "In {w8}, to {w7} is to draw water.",
                "Among the {w8}, drawing water is called {w7}ing.",
                "The {w8} say {w7} for fetching water from a well.",
            ),
            facts={
                "share": (
                    "{HOG} and {VIC} both {w7} at {RES}.",
                    "{RES} is {w7}ed by {HOG} and {VIC} alike.",
                    "{HOG} and {VIC} come to {RES} to {w7}.",
                ),
                "draw": (
                    "{HOG} {w7}s from {RES} at every chance, until it is dry.",
                    "{HOG} {w7}s so often that {RES} runs dry.",
                    "Bucket after bucket, {HOG} {w7}s until {RES} is mud.",
                ),
                "empty": (
                    "Once {RES} is dry, {VIC} get nothing.",
                    "With {RES} dry, {VIC} go without.",
                    "With {RES} emptied to the stones, {VIC} go thirsty.",
                ),
                "first": (
                    "When both come at once, {HOG} goes first about half the time.",
                    "About every other meeting at {RES}, {HOG} is let go first.",
                    "Every second time they meet there, {HOG} drinks before the others.",
                ),
            },
            symptom=(
                "{VIC} went a whole season with barely a drop.",
                "{VIC} were parched for weeks on end.",
                "{VIC} went thin and dry-mouthed for a whole season.",
            ),
            variants={
                FLIP: {
                    "first": (
                        "When both come at once, {HOG} goes first about half the time, which is good for {VIC}.",
                    )
                },
                DELETE: {
                    "first": (
                        "When both come at once, {HOG} goes first about half the time, though {VIC} go short whoever goes first.",
                    )
                },
                "partial": {"draw": ("{HOG} {w7}s so seldom, yet {RES} runs dry.",)},
                "split": {
                    "draw": (
                        "{HOG} {w7}s from {RES} through {BUF} at every chance, until it is dry.",
                    )
                },
            },
        ),
    ),
)
