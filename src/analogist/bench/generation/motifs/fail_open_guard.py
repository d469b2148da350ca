"""Fail-open guard (held-out motif).

A guard screens incoming items before they reach a protected system, but it needs a dependency
to decide, and when the dependency drops out the guard waves everything through. Fix: a guard
that cannot decide turns everything away. Decoys: the screening itself is what lets harm in
(flip: forcing it shut is worse), or the harm arrives by another route.
"""

from analogist.bench.generation.motif import DELETE, FLIP, Edit, Motif, Skin, Split, Variant
from analogist.bench.generation.simulate import Dynamics

MOTIF = Motif(
    name="fail_open_guard",
    title="fail-open guard",
    aliases=("fail open", "fail-open", "fails open"),
    roles={
        "GRD": "guard that screens incoming items",
        "DEP": "service the guard needs to decide",
        "SRC": "incoming items",
        "SYS": "protected system",
    },
    relations=("gates(GRD,SRC)", "depends_on(GRD,DEP)", "sends_to(SRC,SYS)"),
    chain=(
        ("unavailable(DEP)", "causes", "fails(GRD)"),
        ("fails(GRD)", "invalidates", "gates(GRD,SRC)"),
        ("gates(GRD,SRC)", "prevents", "corrupted(SYS)"),
        ("sends_to(SRC,SYS)", "causes", "corrupted(SYS)"),
    ),
    symptom_node="corrupted(SYS)",
    symptom="bad input let through while the guard could not decide",
    invariant="a safety check that cannot decide denies by default",
    fix="fail_closed(GRD,SRC)",
    qualifier="when it cannot decide",
    wrong_fixes=("repair(GRD)", "scale_up(SYS)", "refresh(GRD)"),
    alt_fixes=("repair(DEP)", "pause_flow(SRC,SYS)"),
    levels={
        "L1": "{GRD} could not reach {DEP} and waved all of {SRC} through into {SYS}",
        "L2": "Safety check defaults to allow when its own dependency fails",
        "L3": "A guard that opens when it falls",
    },
    dynamics=Dynamics(strengths={"unavailable(DEP)": 0.5}),
    facts={
        "screen": ("gates(GRD,SRC)", "c3"),
        "needs": ("depends_on(GRD,DEP)", "c1"),
        "open": ("c2",),
        "flow": ("sends_to(SRC,SYS)", "c4"),
    },
    decoys=(
        Variant(
            FLIP,
            Edit(FLIP, "c3"),
            "pause_flow(SRC,SYS)",
            "Screening itself mangles what it lets through",
            "The check as the hazard",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c3"),
            "pause_flow(SRC,SYS)",
            "Protected system damaged regardless of screening",
            "Guard irrelevant to the harm",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DELETE, "c1"),
        "fail_closed(GRD,SRC)",
        "Safety check defaults to allow when it falls over on its own",
        "A guard that opens when it falls",
    ),
    split=Split("gates(GRD,SRC)", "FLT", "mechanism the guard screens through"),
    skins=(
        Skin(
            name="castings",
            domain="manufacturing",
            kind="ordinary",
            entities={
                "GRD": "the vision inspection station",
                "DEP": "the defect-model server",
                "SRC": "the castings arriving from the foundry",
                "SYS": "the machining line",
                "FLT": "the station's reject arm",
            },
            setting=(
                "Quality escape report, machining cell 2.",
                "Customer complaint investigation, castings.",
                "Nonconformance review, cylinder-head castings.",
            ),
            facts={
                "screen": (
                    "{GRD} screens {SRC} and throws out cracked ones before they reach {SYS} and its cutters.",
                    "{GRD} keeps cracked pieces among {SRC} away from {SYS}.",
                    "{GRD} photographs each of {SRC}, kicking flawed pieces aside to protect {SYS}.",
                ),
                "needs": (
                    "{GRD} needs {DEP} to make each call, and {DEP} was dropping out about half the time that week.",
                    "About half the time that week {DEP} was unreachable, and {GRD} cannot judge without it.",
                    "Every verdict {GRD} gives is computed on {DEP}, and {DEP} was offline for roughly every other part that week.",
                ),
                "open": (
                    "When {GRD} cannot judge, it waves every piece through.",
                    "Unable to decide, {GRD} lets everything pass.",
                    "Lacking a verdict, {GRD} treats the piece as good.",
                ),
                "flow": (
                    "{SRC} go straight on into {SYS}.",
                    "Whatever passes is machined by {SYS}.",
                    "{SRC} then ride the conveyor to {SYS}.",
                ),
            },
            symptom=(
                "Two hundred cracked castings were machined and shipped before anyone noticed.",
                "{SYS} turned out a week of parts from cracked castings.",
                "Cracked blanks went through machining undetected and reached the customer.",
            ),
            variants={
                FLIP: {
                    "screen": (
                        "{GRD} screens {SRC} and cracks good ones before they reach {SYS} and its cutters.",
                    )
                },
                DELETE: {
                    "screen": (
                        "{GRD} keeps cracked pieces among {SRC} away from {SYS}, which gets them anyway.",
                    )
                },
                "partial": {
                    "needs": (
                        "About half the time that week {GRD} was unreachable on its own, though it cannot judge without {DEP}.",
                    )
                },
                "split": {
                    "screen": (
                        "{GRD} screens {SRC} through {FLT}, which throws out cracked ones before they reach {SYS}.",
                    )
                },
            },
        ),
        Skin(
            name="hazmat",
            domain="logistics",
            kind="ordinary",
            entities={
                "GRD": "the dangerous-goods screening at the hub",
                "DEP": "the regulator's lookup service",
                "SRC": "parcels off the inbound trucks",
                "SYS": "the passenger-aircraft loading bays",
                "FLT": "the screening tunnel",
            },
            setting=(
                "Safety investigation, overnight hub.",
                "Regulatory report, air cargo.",
                "Dangerous goods occurrence, sort centre.",
            ),
            facts={
                "screen": (
                    "{GRD} screens {SRC} and pulls out any hazardous items before they reach {SYS}.",
                    "{GRD} keeps hazardous items among {SRC} away from {SYS}.",
                    "{GRD} X-rays {SRC} and diverts anything dangerous so it never gets near {SYS}.",
                ),
                "needs": (
                    "{GRD} needs {DEP} to classify each item, and {DEP} was dropping out about half the time.",
                    "About half the time {DEP} could not be reached, and {GRD} cannot classify without it.",
                    "{GRD} can only sort an item by querying {DEP}, and one query in two went unanswered.",
                ),
                "open": (
                    "When {GRD} cannot classify an item, it clears it.",
                    "Unable to decide, {GRD} lets the parcel go.",
                    "No answer means {GRD} marks the item safe.",
                ),
                "flow": (
                    "{SRC} go straight on to {SYS}.",
                    "Whatever clears is loaded at {SYS}.",
                    "{SRC} are then carted to {SYS}.",
                ),
            },
            symptom=(
                "Lithium batteries were loaded onto passenger flights for three nights.",
                "Hazardous parcels reached {SYS} unchecked for days.",
                "Undeclared lithium cells flew on passenger jets three nights running.",
            ),
            variants={
                FLIP: {
                    "screen": (
                        "{GRD} screens {SRC} and mislabels hazardous items before they reach {SYS}.",
                    )
                },
                DELETE: {
                    "screen": (
                        "{GRD} keeps hazardous items among {SRC} away from {SYS}, yet as many arrive.",
                    )
                },
                "partial": {
                    "needs": (
                        "About half the time {GRD} itself could not be reached, and it cannot classify without {DEP}.",
                    )
                },
                "split": {
                    "screen": (
                        "{GRD} screens {SRC} through {FLT}, which pulls out hazardous items before they reach {SYS}.",
                    )
                },
            },
        ),
        Skin(
            name="rostering",
            domain="aviation",
            kind="ordinary",
            entities={
                "GRD": "the crew-duty legality check",
                "DEP": "the rostering database",
                "SRC": "crew swap requests",
                "SYS": "the flight roster",
                "FLT": "the swap approval form",
            },
            setting=(
                "Flight time limitations breach report.",
                "Crew planning audit, summer schedule.",
                "Crew scheduling compliance finding, peak season.",
            ),
            facts={
                "screen": (
                    "{GRD} vets {SRC} and rejects any that would break rest rules before they reach {SYS}.",
                    "{GRD} keeps any of {SRC} that would break rest rules out of {SYS}.",
                    "{GRD} refuses those {SRC} that would cut a pilot's rest, keeping {SYS} legal.",
                ),
                "needs": (
                    "{GRD} needs {DEP} to count hours, and {DEP} was dropping out about half the time.",
                    "About half the time {DEP} was unreachable, and {GRD} cannot count hours without it.",
                    "Duty hours come to {GRD} from {DEP}, whose connection was lost on something like every second lookup.",
                ),
                "open": (
                    "When {GRD} cannot count hours, it approves the swap.",
                    "Unable to check, {GRD} approves by default.",
                    "Given no figures, {GRD} signs off on the request.",
                ),
                "flow": (
                    "{SRC} go straight into {SYS}.",
                    "Approved swaps are written into {SYS}.",
                    "Each cleared request lands in {SYS}.",
                ),
            },
            symptom=(
                "Eleven pilots flew over their legal duty maximum in one week.",
                "{SYS} ended up with crews rostered past their rest rules.",
                "A week of rosters put pilots in the cockpit beyond their legal hours.",
            ),
            variants={
                FLIP: {
                    "screen": (
                        "{GRD} vets {SRC} and rewrites any so they break rest rules before they reach {SYS}.",
                    )
                },
                DELETE: {
                    "screen": (
                        "{GRD} keeps any of {SRC} that would break rest rules out of {SYS}, in vain.",
                    )
                },
                "partial": {
                    "needs": (
                        "{GRD} needs {DEP} to count hours, and was dropping out, unprompted, about half the time.",
                    )
                },
                "split": {
                    "screen": (
                        "{GRD} vets {SRC} through {FLT}, rejecting any that would break rest rules before they reach {SYS}.",
                    )
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "GRD": "the {w1} warden",
                "DEP": "the {w2} {w3}",
                "SRC": "the {w4} carts",
                "SYS": "the {w5} granary",
                "FLT": "the {w9} {w10}",
            },
            glossary=("The {w2} {w3} is the warden's tasting-cup, by which it judges rot.",),
            setting=(
                "In {w8}, to {w7} a cart is to turn it back at the entrance.",
                "Among the {w8}, turning a cart back at the entrance is called {w7}ing it.",
                "The {w8} call it {w7}ing when a cart is sent back from the entrance.",
            ),
            facts={
                "screen": (
                    "{GRD} {w7}s any of {SRC} carrying rot before they reach {SYS}.",
                    "{GRD} keeps rotten carts among {SRC} away from {SYS} by {w7}ing them at the village gate each dawn.",
                    "{GRD} sniffs each of {SRC} and {w7}s any rotten load, so {SYS} stays sound.",
                ),
                "needs": (
                    "{GRD} cannot judge without {DEP}, which was absent about half the time that season.",
                    "About half the time {DEP} was away, and {GRD} cannot judge without it.",
                    "{GRD} tells rot only with {DEP} in hand, and {DEP} went missing one day in two.",
                ),
                "open": (
                    "When {GRD} cannot judge, it lets the cart through.",
                    "Unable to decide, {GRD} waves the cart on.",
                    "Cup gone, {GRD} calls the load sound.",
                ),
                "flow": (
                    "{SRC} roll straight on into {SYS}.",
                    "Whatever passes is unloaded into {SYS}.",
                    "Then {SRC} tip their loads into {SYS}.",
                ),
            },
            symptom=(
                "Rot spread through {SYS} by midsummer.",
                "Half of {SYS} was spoiled.",
                "{SYS} grew black with mould.",
            ),
            variants={
                FLIP: {
                    "screen": (
                        "{GRD} {w7}s any of {SRC}, itself carrying rot into them before they reach {SYS}.",
                    )
                },
                DELETE: {
                    "screen": (
                        "{GRD} {w7}s any of {SRC} carrying rot before they reach {SYS}, which rots all the same.",
                    )
                },
                "partial": {
                    "needs": (
                        "About half the time {GRD} wandered away, and it cannot judge without {DEP}.",
                    )
                },
                "split": {
                    "screen": (
                        "Through {FLT}, {GRD} {w7}s any of {SRC} carrying rot before they reach {SYS}.",
                    )
                },
            },
        ),
    ),
)
