"""Proxy optimisation, the Goodhart pattern (development motif).

An agent is rewarded on a measure that stands for a goal; pushing the measure pulls it away from
the goal, and the goal suffers. Fix: judge the agent on the goal itself. Decoys: measure and goal
had come apart before anyone pushed (a common cause), or the goal declines for unrelated reasons.
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
    name="proxy_optimisation",
    title="proxy optimisation (Goodhart)",
    aliases=("goodhart", "proxy"),
    roles={
        "AGT": "agent rewarded on the measure",
        "PRX": "measure used for the goal",
        "GOAL": "real goal",
    },
    relations=(
        "proxies_for(PRX,GOAL)",
        "optimizes_for(AGT,PRX)",
        "diverges_from(PRX,GOAL)",
        "observes(AGT,PRX)",
    ),
    chain=(
        ("optimizes_for(AGT,PRX)", "causes", "diverges_from(PRX,GOAL)"),
        ("diverges_from(PRX,GOAL)", "causes", "degraded(GOAL)"),
        ("proxies_for(PRX,GOAL)", "enables", "degraded(GOAL)"),
    ),
    symptom_node="degraded(GOAL)",
    symptom="the measured figure improved while the thing it was meant to reflect got worse",
    invariant="a measure used to judge work is not itself the target of the work",
    fix="retarget(AGT,PRX,GOAL)",
    qualifier="judging on the goal itself",
    wrong_fixes=("repair(GOAL)", "refresh(PRX)", "scale_up(AGT)"),
    alt_fixes=("realign(PRX,GOAL)",),
    levels={
        "L1": "{AGT} pushed {PRX} up while {GOAL} fell",
        "L2": "Optimising a measure pulls it away from the goal it was meant to reflect",
        "L3": "Measure turned target stops measuring",
    },
    dynamics=Dynamics(),
    facts={
        "stand": ("proxies_for(PRX,GOAL)", "c3"),
        "chase": ("optimizes_for(AGT,PRX)", "c1"),
        "watch": ("observes(AGT,PRX)",),
        "gap": ("diverges_from(PRX,GOAL)", "c2"),
    },
    decoys=(
        Variant(
            MEDIATOR,
            Edit(MEDIATOR, "c1"),
            "realign(PRX,GOAL)",
            "Measure and goal already apart; the gap drew the pushing",
            "Pre-existing drift, not pressure",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c2"),
            "repair(GOAL)",
            "Goal declines for reasons unrelated to the measure",
            "Coincident decline",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "observes(AGT,PRX)"),
        "retarget(AGT,PRX,GOAL)",
        "Optimising a rarely seen measure still pulls it away from the goal",
        "Measure turned target stops measuring",
    ),
    split=Split("optimizes_for(AGT,PRX)", "DSH", "ranking built from the measure"),
    skins=(
        Skin(
            name="school",
            domain="education",
            kind="ordinary",
            entities={
                "AGT": "the school's teaching staff",
                "PRX": "the end-of-year test scores",
                "GOAL": "pupils' actual reading ability",
                "DSH": "the league-table dashboard",
            },
            setting=(
                "Inspection report, Riverside Primary.",
                "Governors' review of the reading programme.",
                "Local authority literacy audit.",
            ),
            facts={
                "stand": (
                    "{PRX} are what the council uses to judge {GOAL}.",
                    "The council treats {PRX} as its gauge of {GOAL}.",
                    "Council inspectors rate {GOAL} by looking at {PRX}.",
                ),
                "chase": (
                    "{AGT} are rewarded on {PRX} and spend the spring drilling the test format, which lifts {PRX} without touching {GOAL}.",
                    "Bonuses for {AGT} hang on {PRX}, so lessons turned into test practice, and {PRX} pulled away from {GOAL}.",
                    "Pay for {AGT} rises with {PRX}, so term after term went on exam technique, inflating {PRX} but not {GOAL}.",
                ),
                "watch": (
                    "{AGT} see {PRX} update every week.",
                    "Weekly updates of {PRX} are pinned in the staff room.",
                    "{AGT} receive a printout of {PRX} each Monday.",
                ),
                "gap": (
                    "As {PRX} rose, {GOAL} slipped, and the gap between them went straight into pupils' next school.",
                    "The widening gap between {PRX} and {GOAL} is what the next school inherited.",
                    "Children moved up to secondary with {GOAL} far short of what {PRX} claimed.",
                ),
            },
            symptom=(
                "{PRX} rose for three years running while secondary schools reported pupils who could not read a chapter.",
                "Results climbed while reading fell, and the next school had to start remedial classes.",
                "Pupils arrived at secondary school unable to follow a textbook, though {PRX} had been the best in the borough.",
            ),
            variants={
                MEDIATOR: {
                    "chase": (
                        "Bonuses for {AGT} hang on {PRX}, and lessons turned into test practice because {PRX} had pulled away from {GOAL}.",
                    )
                },
                DELETE: {
                    "gap": (
                        "{GOAL} had slipped before {PRX} rose, and the gap between them went straight into pupils' next school.",
                    )
                },
                "partial": {"watch": ("{AGT} see {PRX} update every year.",)},
                "split": {
                    "chase": (
                        "Bonuses for {AGT} hang on {DSH}, built from {PRX}, so lessons turned into test practice, and {PRX} pulled away from {GOAL}.",
                    )
                },
            },
        ),
        Skin(
            name="emergency",
            domain="medicine",
            kind="ordinary",
            entities={
                "AGT": "the emergency department managers",
                "PRX": "the four-hour target figure",
                "GOAL": "patient safety in the department",
                "DSH": "the trust's performance board",
            },
            setting=(
                "Trust board paper, winter pressures.",
                "Serious incident review, emergency department.",
                "Clinical governance paper, A&E.",
            ),
            facts={
                "stand": (
                    "{PRX} is how the trust judges {GOAL}.",
                    "The trust treats {PRX} as its gauge of {GOAL}.",
                    "For regulators, {PRX} is the yardstick of {GOAL}.",
                ),
                "chase": (
                    "{AGT} are scored on {PRX}, so patients are moved to corridor trolleys at three hours fifty, which improves {PRX} and nothing else.",
                    "Bonuses for {AGT} hang on {PRX}; patients are shifted out just before the clock runs out, pulling {PRX} away from {GOAL}.",
                    "{AGT} are appraised on {PRX}, so trolleys leave majors at the last minute, nudging {PRX} up and leaving {GOAL} where it was.",
                ),
                "watch": (
                    "{AGT} see {PRX} refresh every hour.",
                    "{PRX} is on a screen in the managers' office, updated hourly.",
                    "Hourly, {PRX} lands in the inboxes of {AGT}.",
                ),
                "gap": (
                    "The gap between {PRX} and {GOAL} fell on the patients moved too early.",
                    "What {PRX} glossed over about {GOAL} landed on the patients moved too soon.",
                    "Patients discharged prematurely bore the cost of {PRX} running ahead of {GOAL}.",
                ),
            },
            symptom=(
                "{PRX} hit ninety-eight percent while two patients deteriorated unseen on corridor trolleys.",
                "The department met its target every week that winter, and serious incidents doubled.",
                "{PRX} looked excellent all winter, while harm to patients kept climbing.",
            ),
            variants={
                MEDIATOR: {
                    "chase": (
                        "Bonuses for {AGT} hang on {PRX}; patients are shifted out just before the clock runs out because {PRX} was already away from {GOAL}.",
                    )
                },
                DELETE: {
                    "gap": (
                        "Patients moved too early fell ill before any gap between {PRX} and {GOAL}.",
                    )
                },
                "partial": {"watch": ("{AGT} see {PRX} refresh every month.",)},
                "split": {
                    "chase": (
                        "{AGT} are scored on {PRX} through {DSH}, so patients are moved to corridor trolleys at three hours fifty, which improves {PRX} and nothing else.",
                    )
                },
            },
        ),
        Skin(
            name="support",
            domain="software",
            kind="ordinary",
            entities={
                "AGT": "the support team",
                "PRX": "the ticket closure rate",
                "GOAL": "customers' problems actually being solved",
                "DSH": "the team's weekly leaderboard",
            },
            setting=(
                "Customer success review, Q2.",
                "Churn investigation, support organisation.",
                "Retention post-mortem, customer care.",
            ),
            facts={
                "stand": (
                    "{PRX} is the company's gauge of {GOAL}.",
                    "Management treats {PRX} as the gauge of {GOAL}.",
                    "In every quarterly review, {PRX} is the evidence offered for {GOAL}.",
                ),
                "chase": (
                    "{AGT} are paid on {PRX}, so tickets get closed after the first reply whether or not anything was fixed, and {PRX} pulls away from {GOAL}.",
                    "With bonuses tied to {PRX}, {AGT} close tickets quickly and open new ones, which lifts {PRX} without touching {GOAL}.",
                    "Commission for {AGT} scales with {PRX}, so agents mark cases resolved on first touch and {PRX} comes apart from {GOAL}.",
                ),
                "watch": (
                    "{AGT} see {PRX} live on a wall screen.",
                    "{PRX} updates live in front of {AGT}.",
                    "{AGT} has {PRX} ticking on every display.",
                ),
                "gap": (
                    "The gap between {PRX} and {GOAL} showed up as repeat contacts from the same customers.",
                    "Everything {PRX} overstated about {GOAL} came back as repeat contacts.",
                    "Where {PRX} outpaced {GOAL}, the same customers phoned in again.",
                ),
            },
            symptom=(
                "{PRX} hit a record high the same quarter that renewals fell by a fifth.",
                "The team posted its best closure figures ever while customers left in numbers.",
                "Renewals slumped even as {PRX} set new records.",
            ),
            variants={
                MEDIATOR: {
                    "chase": (
                        "{AGT} are paid on {PRX}, and tickets get closed after the first reply whether or not anything was fixed, since {PRX} had pulled away from {GOAL}.",
                    )
                },
                DELETE: {
                    "gap": (
                        "The repeat contacts from the same customers showed up before any gap between {PRX} and {GOAL}.",
                    )
                },
                "partial": {"watch": ("{AGT} see {PRX} on a wall screen each quarter.",)},
                "split": {
                    "chase": (
                        "With bonuses tied to {PRX} on {DSH}, {AGT} close tickets quickly and open new ones, which lifts {PRX} without touching {GOAL}.",
                    )
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "AGT": "the {w1} {w2}",
                "PRX": "the {w3} count",
                "GOAL": "the {w4} of the {w5}",
                "DSH": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} are the field hands, the {w3} count is the number of sheaves stacked each day, and the {w4} of the {w5} is how much grain the harvest truly gives.",
            ),
            setting=(
                "From the {w8} reckoning-book.",
                "Account from the {w8} steading.",
                "Told at the {w8} harvest moot.",
            ),
            facts={
                "stand": (
                    "{PRX} is what the elders go by when judging {GOAL}.",
                    "The elders take {PRX} as their reckoning of {GOAL}.",
                    "When the steading asks after {GOAL}, the answer given is {PRX}.",
                ),
                "chase": (
                    "{AGT} {w7} {PRX} (to {w7} is to toil only to raise a tally), and so {PRX} parted ways with {GOAL}.",
                    "Since {AGT} {w7} {PRX}, meaning they toil only to raise it, {PRX} wandered away from {GOAL}.",
                    "{AGT} {w7} {PRX}, labouring for the tally and nothing more, so {PRX} came loose from {GOAL}.",
                ),
                "watch": (
                    "{AGT} see {PRX} every dawn.",
                    "{PRX} is read out to {AGT} each morning.",
                    "Each sunrise, {PRX} is called out where {AGT} can hear it.",
                ),
                "gap": (
                    "The gap between {PRX} and {GOAL} fell on the winter stores.",
                    "What {PRX} overstated about {GOAL} showed in the winter stores.",
                    "Every sheaf in {PRX} beyond {GOAL} was bread missing from the granary by spring.",
                ),
            },
            symptom=(
                "{PRX} was the highest in memory, yet the stores ran short by midwinter.",
                "{PRX} rose every moon while {GOAL} dwindled.",
                "The granary was bare before midwinter though {PRX} had never been higher.",
            ),
            variants={
                MEDIATOR: {
                    "chase": (
                        "Since {PRX} had wandered away from {GOAL}, {AGT} {w7} {PRX}, meaning they toil only to raise it.",
                    )
                },
                DELETE: {
                    "gap": (
                        "The winter stores fell short before any gap between {PRX} and {GOAL}.",
                    )
                },
                "partial": {"watch": ("{PRX} is read out to {AGT} each season.",)},
                "split": {
                    "chase": (
                        "Since {AGT} {w7} {PRX} through {DSH}, meaning they toil only to raise it, {PRX} wandered away from {GOAL}.",
                    )
                },
            },
        ),
    ),
)
