"""Confounded correlation (held-out motif).

A decider acts on a factor because it moves with an outcome, but a background factor drives
both; the intervention changes nothing. Fix: compare like with like on the background factor
before acting. Decoys: the decider's half-belief is what makes it cautious (flip: removing the
belief is worse), or the decision is forced by the pattern regardless of belief.
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
    name="confounded_correlation",
    title="confounded correlation",
    aliases=("confounder", "confounding", "confounded", "correlation"),
    roles={"CFD": "background factor", "OBS": "factor acted on", "OUT": "outcome", "DM": "decider"},
    relations=("correlates_with(OBS,OUT)", "assumes(DM,OBS)", "observes(DM,OUT)"),
    chain=(
        ("grows(CFD)", "confounds", "correlates_with(OBS,OUT)"),
        ("correlates_with(OBS,OUT)", "causes", "wrong_decision(DM)"),
        ("assumes(DM,OBS)", "enables", "wrong_decision(DM)"),
    ),
    symptom_node="wrong_decision(DM)",
    symptom="an intervention on a factor that only moved together with the outcome",
    invariant="a lever is tested with the common background held fixed",
    fix="stratify(DM,OBS,CFD)",
    qualifier="before acting",
    wrong_fixes=("review(DM)", "repair(OBS)", "refresh(OUT)"),
    alt_fixes=("randomize(DM,OBS,OUT)",),
    levels={
        "L1": "{DM} acted on {OBS} because it moved with {OUT}, though {CFD} drove both",
        "L2": "Correlation produced by a common cause read as a causal lever",
        "L3": "Shared cause mistaken for a link",
    },
    dynamics=Dynamics(strengths={"assumes(DM,OBS)": 0.5}),
    facts={
        "together": ("correlates_with(OBS,OUT)", "c1"),
        "watch": ("observes(DM,OUT)",),
        "belief": ("assumes(DM,OBS)", "c3"),
        "act": ("c2",),
    },
    decoys=(
        Variant(
            FLIP,
            Edit(FLIP, "c3"),
            "randomize(DM,OBS,OUT)",
            "A belief in the link makes the decider cautious, guarding against a hasty act",
            "Suspicion as a safeguard",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c3"),
            "randomize(DM,OBS,OUT)",
            "Decision forced by the pattern regardless of belief",
            "Rule-bound reaction to a pattern",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "observes(DM,OUT)"),
        "stratify(DM,OBS,CFD)",
        "Correlation produced by a common cause read second-hand as a lever",
        "Shared cause mistaken for a link",
    ),
    split=Split("assumes(DM,OBS)", "RPT", "report the decider takes its view from"),
    skins=(
        Skin(
            name="tutoring",
            domain="education",
            kind="ordinary",
            entities={
                "CFD": "family income",
                "OBS": "private tutoring hours",
                "OUT": "exam results",
                "DM": "the school board",
                "RPT": "the consultant's briefing",
            },
            setting=(
                "School board minutes, budget round.",
                "Policy review, district education office.",
                "Attainment subcommittee papers, spring.",
            ),
            facts={
                "together": (
                    "Across the district {OBS} and {OUT} rise and fall together, and both climb with {CFD}.",
                    "{OBS} track {OUT} closely, and both are higher wherever {CFD} is higher.",
                    "Schools logging more {OBS} post stronger {OUT}, and each scales with {CFD}.",
                ),
                "watch": (
                    "{DM} follows {OUT} every term, school by school, year by year.",
                    "{OUT} are reported to {DM} each term.",
                    "{DM} scrutinises {OUT} whenever a new cohort sits its papers.",
                ),
                "belief": (
                    "{DM} half believes that {OBS} are what lift {OUT}, and that belief pushes it to act.",
                    "Some on {DM} are convinced {OBS} drive {OUT} and are pressing to act at once; others are unsure.",
                    "A good part of {DM} takes it for granted that {OBS} raise {OUT}, and that conviction leans it toward spending.",
                ),
                "act": (
                    "On the strength of that pattern {DM} acted.",
                    "The pattern alone carried the vote.",
                    "Those matching figures were all {DM} needed to go ahead.",
                ),
            },
            symptom=(
                "{DM} paid for tutoring vouchers across the district, and {OUT} did not move.",
                "A year's budget went on vouchers that changed nothing.",
                "Vouchers for tutoring were handed to every family, yet {OUT} were no better a year on.",
            ),
            variants={
                FLIP: {
                    "belief": (
                        "{DM} half believes that {OBS} are what lift {OUT}, and that belief makes it wary of acting.",
                    )
                },
                DELETE: {
                    "belief": (
                        "{DM} half believes that {OBS} are what lift {OUT}, but the pattern alone pushes it to act.",
                    )
                },
                "partial": {"watch": ("{OUT} are reported to others each term, bypassing {DM}.",)},
                "split": {
                    "belief": (
                        "Through {RPT}, {DM} half believes that {OBS} are what lift {OUT}, and that belief pushes it to act.",
                    )
                },
            },
        ),
        Skin(
            name="songbirds",
            domain="ecology",
            kind="ordinary",
            entities={
                "CFD": "the spring temperature",
                "OBS": "the number of garden feeders",
                "OUT": "songbird breeding success",
                "DM": "the county wildlife trust",
                "RPT": "the volunteer survey summary",
            },
            setting=(
                "Wildlife trust annual review.",
                "Grant committee notes, county wildlife trust.",
                "Trustees' paper on garden bird support.",
            ),
            facts={
                "together": (
                    "{OBS} and {OUT} move together year to year, and both go up in warm springs.",
                    "{OBS} tracks {OUT} closely, and both rise with {CFD}.",
                    "Years when {OBS} is high are good for {OUT}, and a warm {CFD} lifts the pair.",
                ),
                "watch": (
                    "{DM} follows {OUT} through its annual counts.",
                    "{OUT} is counted for {DM} every year, in hundreds of gardens.",
                    "Volunteers compile nest records of {OUT} for {DM} each breeding round.",
                ),
                "belief": (
                    "{DM} half believes that {OBS} are what raises {OUT}, which makes it quick to act on the pattern.",
                    "Some at {DM} are sure {OBS} makes the difference; others are not.",
                    "Several trustees at {DM} reckon {OBS} is behind {OUT}, an idea that leaves them keen to move.",
                ),
                "act": (
                    "The pattern alone decided the matter.",
                    "{DM} acted on the pattern.",
                    "Two curves in step sufficed for {DM}.",
                ),
            },
            symptom=(
                "{DM} spent its grant on free feeders for every household, and {OUT} fell the next cold spring anyway.",
                "A feeder giveaway swallowed the grant and made no difference.",
                "Thousands of free feeders went out, and the next cold spring still brought a poor breeding year.",
            ),
            variants={
                FLIP: {
                    "belief": (
                        "{DM} half believes that {OBS} are what raises {OUT}, which makes it slow to act.",
                    )
                },
                DELETE: {
                    "belief": (
                        "{DM} half believes that {OBS} are what raises {OUT}, but it is quick to act regardless.",
                    )
                },
                "partial": {"watch": ("{OUT} is counted every year, out of sight of {DM}.",)},
                "split": {
                    "belief": (
                        "{DM} half believes, from {RPT}, that {OBS} are what raises {OUT}, which makes it quick to act.",
                    )
                },
            },
        ),
        Skin(
            name="adspend",
            domain="finance",
            kind="ordinary",
            entities={
                "CFD": "the seasonal demand cycle",
                "OBS": "advertising spend",
                "OUT": "monthly sales",
                "DM": "the marketing committee",
                "RPT": "the agency's attribution report",
            },
            setting=(
                "Marketing committee minutes, annual plan.",
                "Budget post-mortem, consumer division.",
                "Quarterly spend review, retail brands.",
            ),
            facts={
                "together": (
                    "{OBS} and {OUT} rise and fall together, and both peak with {CFD}.",
                    "Month by month {OBS} tracks {OUT}, and both follow {CFD}.",
                    "When {OBS} is heavy, {OUT} run strong, and {CFD} paces the two.",
                ),
                "watch": (
                    "{DM} sees {OUT} weekly, region by region, in its Monday pack.",
                    "{OUT} land on the desk of {DM} every week.",
                    "Each week {DM} goes over {OUT} by territory.",
                ),
                "belief": (
                    "{DM} half believes that {OBS} drives {OUT}, and that belief hurries the decision.",
                    "Some on {DM} are sure {OBS} brings in the sales; others doubt it, though all of them want a quick decision.",
                    "Most of {DM} take on faith that {OBS} buys {OUT}, and that faith speeds the sign-off.",
                ),
                "act": (
                    "On the strength of the pattern {DM} acted.",
                    "The pattern carried the decision.",
                    "Matching chart lines settled it for {DM}.",
                ),
            },
            symptom=(
                "{DM} doubled {OBS} for the quiet season, and {OUT} stayed flat.",
                "Millions went into off-season adverts with nothing to show.",
                "Off-season advertising was doubled and the quiet months sold no more than before.",
            ),
            variants={
                FLIP: {
                    "belief": (
                        "{DM} half believes that {OBS} drives {OUT}, and that belief slows the whole decision.",
                    )
                },
                DELETE: {
                    "belief": (
                        "{DM} half believes that {OBS} drives {OUT}, and the decision is hurried either way.",
                    )
                },
                "partial": {"watch": ("{OUT} land on the desk of finance instead of {DM}.",)},
                "split": {
                    "belief": (
                        "{DM} half believes {RPT}, which says {OBS} drives {OUT}, and that belief hurries the decision.",
                    )
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "CFD": "the {w1} {w2}",
                "OBS": "the {w3} {w4}",
                "OUT": "the {w5} yield",
                "DM": "the {w6} council",
                "RPT": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} is the spring rain, the {w3} {w4} is the number of frogs in the ditches, and the {w5} yield is the barley harvest.",
            ),
            setting=(
                "In {w8}, two things are said to {w7} when they rise and fall together.",
                "Among the {w8}, things that rise and fall together are said to {w7}.",
                "When two things climb and sink in step, the {w8} say they {w7}.",
            ),
            facts={
                "together": (
                    "{OBS} and {OUT} {w7}, and both swell with {CFD}.",
                    "{OBS} {w7}s with {OUT}; both follow {CFD}.",
                    "{OBS} and {OUT} {w7}, since {CFD} lifts them alike.",
                ),
                "watch": (
                    "{DM} hears of {OUT} every season, from every field and fold.",
                    "{OUT} is reported to {DM} each season.",
                    "Word of {OUT} is brought before {DM} at each harvest moot.",
                ),
                "belief": (
                    "{DM} half believes {OBS} is what swells {OUT}, and that spurs it to act.",
                    "Some of {DM} are sure {OBS} makes {OUT}; others are not, yet all are eager to act on it.",
                    "Many in {DM} credit {OBS} with {OUT}, and that view goads it into action.",
                ),
                "act": (
                    "On that pattern alone {DM} acted.",
                    "The pattern decided it.",
                    "{DM} ruled on that likeness.",
                ),
            },
            symptom=(
                "{DM} ordered {OBS} doubled, and {OUT} stayed as it was.",
                "{OBS} was doubled by decree, and nothing changed.",
                "{DM} had {OBS} multiplied, to no gain in barley.",
            ),
            variants={
                FLIP: {
                    "belief": (
                        "{DM} half believes {OBS} is what swells {OUT}, and that bids it wait before acting.",
                    )
                },
                DELETE: {
                    "belief": (
                        "{DM} half believes {OBS} is what swells {OUT}, but would act whatever it believes.",
                    )
                },
                "partial": {
                    "watch": ("{OUT} is reported to others each season, passing {DM} by.",)
                },
                "split": {
                    "belief": (
                        "From {RPT}, {DM} half believes {OBS} is what swells {OUT}, and that spurs it to act.",
                    )
                },
            },
        ),
    ),
)
