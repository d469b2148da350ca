"""Survivorship filter (development motif).

An analyst draws conclusions about a whole population from what passes a filter that only the
survivors pass. Fix: look at the whole population, losses included. Decoys: the skew was in the
record from the start and also decides what passes (a common cause), or the decision came first
and shaped the sample (reversed).
"""

from analogist.bench.generation.motif import (
    DELETE,
    MEDIATOR,
    REVERSE,
    Edit,
    Motif,
    Skin,
    Split,
    Variant,
)
from analogist.bench.generation.simulate import Dynamics

MOTIF = Motif(
    name="survivorship_filter",
    title="survivorship filter",
    aliases=("survivorship", "survivor bias", "survivors bias"),
    roles={
        "POP": "whole population",
        "FIL": "filter that only survivors pass",
        "ANA": "analyst drawing conclusions",
    },
    relations=("filters(FIL,POP)", "observes(ANA,FIL)", "assumes(ANA,POP)"),
    chain=(
        ("filters(FIL,POP)", "causes", "biased(FIL)"),
        ("biased(FIL)", "causes", "wrong_decision(ANA)"),
        ("observes(ANA,FIL)", "enables", "wrong_decision(ANA)"),
    ),
    symptom_node="wrong_decision(ANA)",
    symptom="a decision based on the cases that happened to survive",
    invariant="conclusions about a population use the whole population, losses included",
    fix="sample_all(ANA,POP)",
    qualifier="including the losses",
    wrong_fixes=("recalibrate(FIL)", "review(ANA)", "refresh(FIL)"),
    alt_fixes=(),
    levels={
        "L1": "{ANA} drew conclusions about {POP} from what came through {FIL}",
        "L2": "Selection on the outcome skews the sample used for a decision",
        "L3": "Only the survivors are counted",
    },
    dynamics=Dynamics(),
    facts={
        "gate": ("filters(FIL,POP)", "c1"),
        "look": ("observes(ANA,FIL)", "c3"),
        "assume": ("assumes(ANA,POP)",),
        "conclude": ("c2",),
    },
    decoys=(
        Variant(
            MEDIATOR,
            Edit(MEDIATOR, "c1"),
            "recalibrate(FIL)",
            "Skewed record decides both what is kept and what passes",
            "Bias at the source, not at the gate",
        ),
        Variant(
            REVERSE,
            Edit(REVERSE, "c2"),
            "review(ANA)",
            "Decision made first, sample shaped to match",
            "Conclusion selecting its evidence",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DELETE, "c3"),
        "sample_all(ANA,POP)",
        "Second-hand survivor sample skews a decision",
        "Only the survivors are counted",
    ),
    split=Split("filters(FIL,POP)", "STG", "first screening stage"),
    skins=(
        Skin(
            name="bootcamp",
            domain="education",
            kind="ordinary",
            entities={
                "POP": "everyone who enrolled in the bootcamp",
                "FIL": "the alumni survey",
                "ANA": "the marketing director",
                "STG": "the graduation list",
            },
            setting=(
                "Marketing review, coding bootcamp.",
                "Board paper on the new course launch.",
                "Expansion post-mortem, bootcamp leadership.",
            ),
            facts={
                "gate": (
                    "{FIL} only reaches people who finished and kept in touch, so it is made up of the success stories.",
                    "Only graduates who stayed in contact ever get {FIL}, which makes it a list of the ones who did well.",
                    "Dropouts and graduates who lost touch never receive {FIL}, so it samples the successes.",
                ),
                "look": (
                    "{ANA} works from {FIL} and nothing else.",
                    "The only figures {ANA} sees come from {FIL}.",
                    "{ANA} has no data to hand beyond {FIL}.",
                ),
                "assume": (
                    "{ANA} takes {FIL} as a picture of {POP}.",
                    "{ANA} reads {FIL} as if it spoke for {POP}.",
                    "In the eyes of {ANA}, {FIL} mirrors {POP}.",
                ),
                "conclude": (
                    "The rosy numbers in {FIL} drove the call.",
                    "What {FIL} showed became the basis of the decision.",
                    "The expansion plan rests on the glowing answers in {FIL}.",
                ),
            },
            symptom=(
                "{ANA} opened a second campus on a promised 92 percent job rate; the true rate across {POP} was under half.",
                "A new campus was opened on job figures that were true only for the graduates who answered.",
                "{ANA} advertised a job rate true only of the alumni who wrote back.",
            ),
            variants={
                MEDIATOR: {
                    "gate": (
                        "{FIL} was made up of the success stories from the start, so it only reaches people who finished and kept in touch.",
                    )
                },
                REVERSE: {"conclude": ("The decision became the basis of what {FIL} showed.",)},
                "partial": {"look": ("The only figures {ANA} sees come second-hand from {FIL}.",)},
                "split": {
                    "gate": (
                        "{STG} lists only people who finished, and {FIL} only reaches those who kept in touch, so it is made up of the success stories.",
                    )
                },
            },
        ),
        Skin(
            name="funds",
            domain="finance",
            kind="ordinary",
            entities={
                "POP": "all the funds launched in the last ten years",
                "FIL": "the fund database's live register",
                "ANA": "the pension trustee",
                "STG": "the data vendor's cleaning step",
            },
            setting=(
                "Pension scheme investment review.",
                "Trustee meeting notes, March.",
                "Investment committee retrospective.",
            ),
            facts={
                "gate": (
                    "Funds that closed vanish from {FIL}, so only the survivors remain on it.",
                    "{FIL} keeps only funds still trading; the closed ones disappear.",
                    "Once a fund is wound up, {FIL} deletes it, so just the going concerns remain.",
                ),
                "look": (
                    "{ANA} reads performance straight off {FIL}.",
                    "All the figures {ANA} uses come from {FIL}.",
                    "{ANA} pulls every return number from {FIL}.",
                ),
                "assume": (
                    "{ANA} treats {FIL} as representative of {POP}.",
                    "{ANA} reads {FIL} as the record of {POP}.",
                    "{ANA} accepts {FIL} as a fair sample of {POP}.",
                ),
                "conclude": (
                    "The flattering averages from {FIL} shaped the decision.",
                    "The averages on {FIL} became the case for the move.",
                    "The trustees argued for the switch using the returns on {FIL}.",
                ),
            },
            symptom=(
                "{ANA} moved the scheme into active funds on an average return of nine percent; across {POP} it was under five.",
                "The scheme switched managers on returns that only the surviving funds ever earned.",
                "{ANA} chose active funds for returns that, across {POP}, were never earned.",
            ),
            variants={
                MEDIATOR: {
                    "gate": (
                        "Only the survivors were on {FIL} from the outset, so funds that closed vanish from it.",
                    )
                },
                REVERSE: {"conclude": ("The decision shaped the flattering averages from {FIL}.",)},
                "partial": {"look": ("{ANA} reads performance off {FIL} second-hand.",)},
                "split": {
                    "gate": (
                        "Funds that closed vanish at {STG}, before reaching {FIL}, so only the survivors remain on it.",
                    )
                },
            },
        ),
        Skin(
            name="armour",
            domain="aviation",
            kind="ordinary",
            entities={
                "POP": "every aircraft sent on missions",
                "FIL": "the returning aircraft inspected at base",
                "ANA": "the engineering board",
                "STG": "the recovery crews",
            },
            setting=(
                "Engineering board minutes, bomber squadron.",
                "Survivability study, squadron records.",
                "Technical directorate file, wartime repairs.",
            ),
            facts={
                "gate": (
                    "Only aircraft that made it home become {FIL}; the ones hit in the engines never came back.",
                    "{FIL} are, by definition, the ones that survived.",
                    "{FIL} consist of whatever limped home; every airframe that fell over the target is absent.",
                ),
                "look": (
                    "{ANA} bases its work on the damage seen on {FIL}.",
                    "{ANA} counts bullet holes on {FIL} and nothing else.",
                    "{ANA} charts the shrapnel strikes recorded on {FIL}.",
                ),
                "assume": (
                    "{ANA} treats the damage pattern on {FIL} as the pattern across {POP}.",
                    "{ANA} reads {FIL} as speaking for {POP}.",
                    "{ANA} supposes {FIL} are typical of {POP}.",
                ),
                "conclude": (
                    "The hole counts on {FIL} decided where the armour went.",
                    "What {FIL} showed drove the plating decision.",
                    "Extra plate was bolted on wherever {FIL} bore scars.",
                ),
            },
            symptom=(
                "{ANA} added plating to the wings and tail, where the holes were; losses did not fall at all.",
                "Armour went onto the parts that were already surviving hits, and losses stayed the same.",
                "Plating the wings changed nothing: aircraft kept going missing as often as before.",
            ),
            variants={
                MEDIATOR: {
                    "gate": (
                        "The bias in {FIL} decided which aircraft made it home to become {FIL}; the ones hit in the engines never came back.",
                    )
                },
                REVERSE: {"conclude": ("The plating decision drove what {FIL} showed.",)},
                "partial": {
                    "look": ("{ANA} bases its work on the damage seen on {FIL} by others.",)
                },
                "split": {
                    "gate": (
                        "Only aircraft that made it home to {STG} become {FIL}; the ones hit in the engines never came back.",
                    )
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "POP": "the whole flock of {w1} {w2}",
                "FIL": "the {w3} {w4}",
                "ANA": "the {w5} {w6}",
                "STG": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} are the grazing beasts of the valley, the {w3} {w4} is the fold gate at dusk, and the {w5} {w6} is the tally-keeper.",
            ),
            setting=(
                "In {w8}, a gate is said to {w7} a flock when it lets through only those that come back.",
                "Among the {w8}, to {w7} a flock is to let pass only the ones that return.",
                "The {w8} say a gate {w7}s a flock when none but the homecoming beasts pass it.",
            ),
            facts={
                "gate": (
                    "{FIL} {w7}s {POP}, so it sees only the ones that returned.",
                    "Because {FIL} {w7}s {POP}, everything on it came back.",
                    "{FIL} {w7}s {POP}: beasts that perish on the hills never pass it.",
                ),
                "look": (
                    "{ANA} counts only what is on {FIL}.",
                    "{ANA} sees nothing but {FIL}.",
                    "{ANA} keeps the tally at {FIL} alone.",
                ),
                "assume": (
                    "{ANA} takes {FIL} to speak for {POP}.",
                    "{ANA} reads {FIL} as if it were all of {POP}.",
                    "{ANA} believes the count at {FIL} tells the state of {POP}.",
                ),
                "conclude": (
                    "What {FIL} showed decided the matter.",
                    "The tally on {FIL} became the ruling.",
                    "Judgment was given on the word of {FIL}.",
                ),
            },
            symptom=(
                "{ANA} ruled that the long road was safe; most who took it never returned.",
                "On the tally, {ANA} sent everyone by the long road, and many were lost.",
                "{ANA} sent the young ones by the long road, and few came home.",
            ),
            variants={
                MEDIATOR: {
                    "gate": (
                        "From the first, {FIL} sees only the ones that returned, so it {w7}s {POP}.",
                    )
                },
                REVERSE: {"conclude": ("The ruling decided what {FIL} showed.",)},
                "partial": {"look": ("{ANA} counts only what others say is on {FIL}.",)},
                "split": {
                    "gate": (
                        "{FIL} {w7}s {STG}, which {w7}s {POP}, so it sees only the ones that returned.",
                    )
                },
            },
        ),
    ),
)
