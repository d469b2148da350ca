"""Cascade through a shared dependency (development motif).

A shared dependency slows; the service that relies on it piles up waiting, and the service above
goes with it. Fix: the middle service fails fast instead of piling up (a circuit breaker).
Decoys: the upper service fell first and its callers swamped the middle one (reversed), or the
upper service failed on its own.
"""

from analogist.bench.generation.motif import (
    DELETE,
    DROP_RELATION,
    REVERSE,
    Edit,
    Motif,
    Skin,
    Split,
    Variant,
)
from analogist.bench.generation.simulate import Dynamics

MOTIF = Motif(
    name="shared_dependency_cascade",
    title="cascade through shared dependency",
    aliases=("cascade", "cascading", "domino"),
    roles={
        "DEP": "shared dependency",
        "MID": "service that relies on the dependency",
        "TOP": "service that relies on both",
    },
    relations=("depends_on(MID,DEP)", "depends_on(TOP,MID)", "depends_on(TOP,DEP)"),
    chain=(
        ("degraded(DEP)", "propagates", "overloaded(MID)"),
        ("overloaded(MID)", "propagates", "fails(TOP)"),
        ("depends_on(TOP,MID)", "enables", "fails(TOP)"),
    ),
    symptom_node="fails(TOP)",
    symptom="an outage spreading from a slow shared dependency to everything above it",
    invariant="a slow dependency is cut off before waiting on it exhausts its callers",
    fix="circuit_break(MID,DEP)",
    qualifier="fail fast when the dependency is slow",
    wrong_fixes=("repair(TOP)", "scale_up(MID)", "backoff(TOP,MID)"),
    alt_fixes=("repair(DEP)",),
    levels={
        "L1": "{DEP} slowed, {MID} piled up waiting on it, and {TOP} went with it",
        "L2": "Failure travels up a dependency chain from a shared dependency",
        "L3": "One weak link takes everything resting on it",
    },
    dynamics=Dynamics(),
    facts={
        "base": ("depends_on(MID,DEP)", "depends_on(TOP,DEP)"),
        "chain": ("depends_on(TOP,MID)", "c3"),
        "slow": ("c1",),
        "spread": ("c2",),
    },
    decoys=(
        Variant(
            REVERSE,
            Edit(REVERSE, "c2"),
            "repair(TOP)",
            "Upper service fails first and its callers swamp the middle one",
            "Cascade running backwards",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c2"),
            "repair(TOP)",
            "Upper service fails independently of the middle one",
            "Coincident outages",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "depends_on(TOP,DEP)"),
        "circuit_break(MID,DEP)",
        "Failure travels up a dependency chain",
        "One weak link takes everything resting on it",
    ),
    split=Split(
        "depends_on(MID,DEP)", "POOL", "pool the middle service reaches the dependency through"
    ),
    skins=(
        Skin(
            name="checkout",
            domain="software",
            kind="ordinary",
            entities={
                "DEP": "the shared session database",
                "MID": "the login service",
                "TOP": "the checkout service",
                "POOL": "the login service's connection pool",
            },
            setting=(
                "Major incident review, Black Friday.",
                "Outage report, web storefront.",
                "Post-incident write-up, online shop.",
            ),
            facts={
                "base": (
                    "Both {MID} and {TOP} rely on {DEP}.",
                    "{DEP} sits under {MID} and {TOP} alike.",
                    "{MID} keeps sessions in {DEP}; {TOP} reads it too.",
                ),
                "chain": (
                    "{TOP} cannot take an order without {MID}.",
                    "Every request to {TOP} goes through {MID} first.",
                    "{TOP} needs {MID} to vouch for each shopper.",
                ),
                "slow": (
                    "{DEP} slowed to a crawl at 11:02, and {MID} piled up threads waiting on it.",
                    "When {DEP} turned sluggish, requests inside {MID} stacked up until it choked.",
                    "At 11:02 {DEP} began answering in seconds, and {MID} ran out of threads.",
                ),
                "spread": (
                    "Once {MID} choked, {TOP} went with it.",
                    "The pile-up in {MID} carried straight on into {TOP}.",
                    "The collapse of {MID} brought {TOP} to a halt.",
                ),
            },
            symptom=(
                "{TOP} was out for forty minutes at peak, and every order attempt returned an error.",
                "For forty minutes nobody could pay for anything.",
                "No customer could complete a purchase for forty minutes at the busiest hour.",
            ),
            variants={
                REVERSE: {"spread": ("The pile-up in {TOP} carried straight back into {MID}.",)},
                DELETE: {"spread": ("The pile-up in {MID} carried on and missed {TOP}.",)},
                "partial": {"base": ("{DEP} sits under {MID}, and {MID} under {TOP}.",)},
                "split": {
                    "base": ("Both {MID} and {TOP} rely on {DEP}, {MID} only through {POOL}.",)
                },
            },
        ),
        Skin(
            name="fuelfarm",
            domain="aviation",
            kind="ordinary",
            entities={
                "DEP": "the airport's single fuel farm",
                "MID": "the refuelling trucks",
                "TOP": "the departure schedule",
                "POOL": "the hydrant dispatch desk",
            },
            setting=(
                "Airport operations review, August bank holiday.",
                "Disruption report, main terminal.",
                "Ground handling debrief, peak Saturday.",
            ),
            facts={
                "base": (
                    "Both {MID} and {TOP} rely on {DEP} directly.",
                    "{DEP} is underneath {MID} and {TOP} alike.",
                    "{MID} fills up at {DEP}, and {TOP} hangs on it as well.",
                ),
                "chain": (
                    "{TOP} cannot move without {MID}.",
                    "Every departure on {TOP} waits on {MID}.",
                    "{TOP} hinges on {MID} fuelling each flight.",
                ),
                "slow": (
                    "{DEP} pumped at half rate from six o'clock, and {MID} queued up at its gate.",
                    "When {DEP} slowed, {MID} bunched up waiting to fill.",
                    "From six {DEP} gave half its usual flow, and {MID} lined up at its gate.",
                ),
                "spread": (
                    "Once {MID} jammed, {TOP} fell apart with it.",
                    "The jam among {MID} carried straight into {TOP}.",
                    "As {MID} stood idle in line, {TOP} unravelled.",
                ),
            },
            symptom=(
                "Forty departures were cancelled and {TOP} was abandoned by noon.",
                "By noon {TOP} had collapsed and most flights were scrubbed.",
                "Most of the afternoon's flights never left, and {TOP} was scrapped.",
            ),
            variants={
                REVERSE: {"spread": ("Once {TOP} fell apart, {MID} jammed with it.",)},
                DELETE: {"spread": ("The jam among {MID} never carried into {TOP}.",)},
                "partial": {"base": ("{MID} rely on {DEP}, and {TOP} only on {MID}.",)},
                "split": {
                    "base": (
                        "{DEP} is underneath {MID} and {TOP} alike, with {POOL} between it and {MID}.",
                    )
                },
            },
        ),
        Skin(
            name="aquifer",
            domain="ecology",
            kind="ordinary",
            entities={
                "DEP": "the aquifer beneath the valley",
                "MID": "the village wells",
                "TOP": "the market gardens",
                "POOL": "the pumping station",
            },
            setting=(
                "Drought report, upper valley.",
                "Water board summary, dry season.",
                "Catchment authority note, summer.",
            ),
            facts={
                "base": (
                    "Both {MID} and {TOP} draw on {DEP}.",
                    "{DEP} lies under {MID} and {TOP} alike.",
                    "{MID} taps {DEP}, and so do {TOP}.",
                ),
                "chain": (
                    "{TOP} get their water from {MID}.",
                    "Without {MID}, {TOP} have no water.",
                    "{TOP} is irrigated from {MID}.",
                ),
                "slow": (
                    "{DEP} dropped through a dry spring, and {MID} were pumped around the clock to keep up.",
                    "When {DEP} fell, {MID} were worked day and night and still came up short.",
                    "{DEP} sank in a rainless spring, and {MID} were worked nonstop for ever less.",
                ),
                "spread": (
                    "Once {MID} were spent, {TOP} withered with them.",
                    "The strain on {MID} carried straight through to {TOP}.",
                    "When {MID} gave out, {TOP} went thirsty in turn.",
                ),
            },
            symptom=(
                "By July {TOP} had lost their whole crop.",
                "{TOP} dried out in midsummer and the harvest was lost.",
                "{TOP} lost the season's produce before August.",
            ),
            variants={
                REVERSE: {"spread": ("Once {TOP} withered, {MID} were spent on them.",)},
                DELETE: {"spread": ("None of the strain on {MID} carried through to {TOP}.",)},
                "partial": {"base": ("{MID} draw on {DEP}, and {TOP} draw only on {MID}.",)},
                "split": {"base": ("Both {MID} and {TOP} draw on {DEP}, {MID} via {POOL}.",)},
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "DEP": "the {w1} {w2}",
                "MID": "the {w3} {w4}",
                "TOP": "the {w5} {w6}",
                "POOL": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} is the spring above the village, the {w3} {w4} is the mill-wheel, and the {w5} {w6} is the bakery at the end of it.",
            ),
            setting=(
                "In {w8}, a thing is said to {w7} another when it cannot work without it.",
                "Among the {w8}, to {w7} something is to be unable to work without it.",
                "The {w8} say one thing {w7}s another if it is helpless without it.",
            ),
            facts={
                "base": (
                    "{MID} and {TOP} both {w7} {DEP}.",
                    "{DEP} is {w7}ed by {MID} and {TOP} alike.",
                    "{MID} {w7}s {DEP}, as {TOP} does.",
                ),
                "chain": (
                    "{TOP} {w7}s {MID}.",
                    "{TOP} cannot work without {MID}.",
                    "{TOP} can bake nothing if {MID} is idle.",
                ),
                "slow": (
                    "{DEP} turned sluggish at noon, and {MID} clogged up waiting.",
                    "When {DEP} slowed, {MID} jammed.",
                    "At noon {DEP} ebbed, and {MID} creaked to a near halt.",
                ),
                "spread": (
                    "Once {MID} jammed, {TOP} stopped with it.",
                    "The jam in {MID} carried on into {TOP}.",
                    "With {MID} at a standstill, {TOP} grew cold too.",
                ),
            },
            symptom=(
                "{TOP} stood dead for the rest of the day.",
                "By evening {TOP} had gone dark.",
                "No bread came from {TOP} for the rest of the day.",
            ),
            variants={
                REVERSE: {"spread": ("Once {TOP} stopped, {MID} jammed with it.",)},
                DELETE: {"spread": ("The jam in {MID} carried on, past {TOP}.",)},
                "partial": {"base": ("{DEP} is {w7}ed by {MID}, and {TOP} only {w7}s {MID}.",)},
                "split": {"base": ("{MID} and {TOP} both {w7} {DEP}, {MID} through {POOL}.",)},
            },
        ),
    ),
)
