"""Alarm fatigue (held-out motif).

An alarm sounds so often for nothing that its responders stop reacting, and the real event is
missed. Fix: cut the alarm down to the few signals that matter. Decoys: the responders were worn
out for other reasons and the alarm re-sounded because nobody answered (a common cause), or an
earlier miss produced the indifference (reversed).
"""

from analogist.bench.generation.motif import (
    DROP_RELATION,
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
    name="alarm_fatigue",
    title="alarm fatigue",
    aliases=("alarm fatigue", "fatigue", "cry wolf"),
    roles={
        "ALM": "alarm source",
        "RSP": "responder",
        "EVT": "real event the alarm is meant to catch",
    },
    relations=("alerts(ALM,RSP)", "observes(ALM,EVT)", "ignores(RSP,ALM)"),
    chain=(
        ("alerts(ALM,RSP)", "causes", "desensitized(RSP)"),
        ("desensitized(RSP)", "causes", "missed_event(RSP)"),
        ("ignores(RSP,ALM)", "enables", "missed_event(RSP)"),
    ),
    symptom_node="missed_event(RSP)",
    symptom="a real warning passed over among constant false ones",
    invariant="an alarm sounds only when someone must act",
    fix="dedupe(ALM,RSP)",
    qualifier="to the few that matter",
    wrong_fixes=("scale_up(ALM)", "repair(ALM)", "refresh(ALM)"),
    alt_fixes=("require_ack(RSP,ALM)",),
    levels={
        "L1": "{ALM} sounded so often that {RSP} stopped reacting, and {EVT} went unanswered",
        "L2": "Constant non-actionable signals train the receiver to disregard the channel",
        "L3": "Signal drowned by its own repetition",
    },
    dynamics=Dynamics(),
    facts={
        "sense": ("observes(ALM,EVT)",),
        "noise": ("alerts(ALM,RSP)", "c1"),
        "tuneout": ("ignores(RSP,ALM)", "c3"),
        "miss": ("c2",),
    },
    decoys=(
        Variant(
            MEDIATOR,
            Edit(MEDIATOR, "c1"),
            "rotate(RSP)",
            "Worn-out responders prompt repeated signals; their exhaustion causes the miss",
            "Fatigue from elsewhere",
        ),
        Variant(
            REVERSE,
            Edit(REVERSE, "c2"),
            "require_ack(RSP,ALM)",
            "An earlier miss produced the indifference",
            "Indifference as a consequence",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "observes(ALM,EVT)"),
        "dedupe(ALM,RSP)",
        "Constant signals from an indirect alarm train the receiver to disregard it",
        "Signal drowned by its own repetition",
    ),
    split=Split("alerts(ALM,RSP)", "DSP", "station that relays the alarm to the responder"),
    skins=(
        Skin(
            name="icu",
            domain="medicine",
            kind="ordinary",
            entities={
                "ALM": "the bedside alarm units",
                "RSP": "the ward nurses",
                "EVT": "a patient's heart rhythm change",
                "DSP": "the central alarm station",
            },
            setting=(
                "Intensive care incident review.",
                "Patient safety investigation, cardiac ward.",
            ),
            facts={
                "sense": (
                    "{ALM} track {EVT} around the clock.",
                    "{EVT} is what {ALM} are there to catch.",
                ),
                "noise": (
                    "{ALM} sounded several hundred times a shift, almost all for loose leads, and {RSP} stopped reacting to them.",
                    "With {ALM} chiming every few minutes for nothing, {RSP} grew numb to the sound.",
                ),
                "tuneout": (
                    "{RSP} routinely turn {ALM} to mute and carry on.",
                    "On most shifts {RSP} silence {ALM} without looking.",
                ),
                "miss": (
                    "When a real one came, it went unanswered.",
                    "The one genuine alarm that night got the same non-response as the others.",
                ),
            },
            symptom=(
                "A patient's rhythm change went unanswered for eleven minutes.",
                "A genuine cardiac alarm sounded for eleven minutes before anyone came.",
            ),
            variants={
                MEDIATOR: {
                    "noise": (
                        "{RSP} were already worn out from double shifts, and because nobody acknowledged them, {ALM} kept sounding again.",
                    )
                },
                REVERSE: {
                    "miss": (
                        "It ran the other way: {RSP} had missed an earlier real alarm while off the ward, and the inquiry that followed is what left them numb.",
                    )
                },
                "partial": {
                    "sense": (
                        "{ALM} do not read {EVT} directly; they sound on a risk score computed every minute.",
                    )
                },
                "split": {
                    "noise": (
                        "{ALM} reach {RSP} through {DSP}, which relayed several hundred alarms a shift, almost all for loose leads, and {RSP} stopped reacting.",
                    )
                },
            },
        ),
        Skin(
            name="oncall",
            domain="software",
            kind="ordinary",
            entities={
                "ALM": "the disk-space checks",
                "RSP": "the on-call rota",
                "EVT": "a real capacity crunch",
                "DSP": "the paging gateway",
            },
            setting=(
                "Incident review, database platform.",
                "On-call health report, infrastructure team.",
            ),
            facts={
                "sense": ("{ALM} watch for {EVT}.", "{ALM} exist to catch {EVT}."),
                "noise": (
                    "{ALM} fired dozens of times a night, nearly all false, and {RSP} learned to shrug them off.",
                    "After months of {ALM} going off for nothing, {RSP} barely glanced at them.",
                ),
                "tuneout": (
                    "{RSP} acknowledge {ALM} from bed without reading them.",
                    "{RSP} clear {ALM} with a swipe.",
                ),
                "miss": (
                    "So the one that mattered was swiped away with the rest.",
                    "The real one got the same swipe.",
                ),
            },
            symptom=(
                "A database filled its disk at 04:00 and went read-only for three hours.",
                "A real disk-full event sat unanswered until customers complained.",
            ),
            variants={
                MEDIATOR: {
                    "noise": (
                        "{RSP} were already drained by a month of launches, and because nothing was being acknowledged, {ALM} kept firing again.",
                    )
                },
                REVERSE: {
                    "miss": (
                        "It ran the other way: {RSP} had missed a real crunch in the spring, and the blame that followed is what wore them out.",
                    )
                },
                "partial": {
                    "sense": (
                        "{ALM} do not look at {EVT} itself; they fire on a fixed timer and a guess.",
                    )
                },
                "split": {
                    "noise": (
                        "{ALM} reach {RSP} through {DSP}, which passed on dozens of calls a night, nearly all false, so {RSP} learned to shrug them off.",
                    )
                },
            },
        ),
        Skin(
            name="boiler",
            domain="manufacturing",
            kind="ordinary",
            entities={
                "ALM": "the boiler-room horns",
                "RSP": "the plant operators",
                "EVT": "a genuine pressure excursion",
                "DSP": "the control-room annunciator panel",
            },
            setting=("Process safety review, steam plant.", "Near-miss report, boiler house."),
            facts={
                "sense": (
                    "{ALM} are wired to sound on {EVT}.",
                    "{EVT} is what {ALM} are meant to catch.",
                ),
                "noise": (
                    "{ALM} blared twenty times a shift for sensor glitches, and {RSP} stopped hearing them.",
                    "With {ALM} sounding for nothing all day, {RSP} grew numb to them.",
                ),
                "tuneout": (
                    "{RSP} reset {ALM} by reflex.",
                    "{RSP} press reset on {ALM} without looking up.",
                ),
                "miss": (
                    "The genuine one was reset like all the rest.",
                    "So when a real one sounded, it got the same reflex reset.",
                ),
            },
            symptom=(
                "A relief valve lifted after a real excursion had sounded for six minutes.",
                "A genuine pressure excursion ran for six minutes with its horn ringing.",
            ),
            variants={
                MEDIATOR: {
                    "noise": (
                        "{RSP} were already dead on their feet after a twelve-hour outage, and because nothing was acknowledged, {ALM} kept sounding.",
                    )
                },
                REVERSE: {
                    "miss": (
                        "It ran the other way: {RSP} missed a real excursion last winter, and the fallout from that is what left them numb.",
                    )
                },
                "partial": {
                    "sense": (
                        "{ALM} are not tied to {EVT} directly; they sound on a timer-based estimate.",
                    )
                },
                "split": {
                    "noise": (
                        "{ALM} reach {RSP} through {DSP}, which relayed twenty soundings a shift for sensor glitches, and {RSP} stopped hearing them.",
                    )
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "ALM": "the {w1} {w2}",
                "RSP": "the {w3} watchers",
                "EVT": "a {w4} {w5}",
                "DSP": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} is the watch-bell on the tower, the {w3} watchers are the guards below, and a {w4} {w5} is a raid from the hills.",
            ),
            setting=(
                "In {w8}, to {w7} someone is to ring a bell at them.",
                "Among the {w8}, ringing a bell at someone is called {w7}ing them.",
            ),
            facts={
                "sense": (
                    "{ALM} is meant to catch {EVT}.",
                    "{ALM} is set to ring when {EVT} comes.",
                ),
                "noise": (
                    "{ALM} {w7}s {RSP} dozens of times a day, nearly always for nothing, and {RSP} stopped stirring.",
                    "After endless {w7}ing by {ALM}, {RSP} no longer stirred.",
                ),
                "tuneout": ("{RSP} wave {ALM} away without looking.", "{RSP} pay {ALM} no mind."),
                "miss": (
                    "So the true ringing was waved away with the rest.",
                    "The real one got the same wave.",
                ),
            },
            symptom=(
                "{EVT} passed through the village unanswered.",
                "When {EVT} came, no one rose.",
            ),
            variants={
                MEDIATOR: {
                    "noise": (
                        "{RSP} were already spent from the harvest, and because nobody answered, {ALM} kept {w7}ing them.",
                    )
                },
                REVERSE: {
                    "miss": (
                        "It ran the other way: {RSP} missed an earlier one, and the shame of it is what left them unmoved.",
                    )
                },
                "partial": {
                    "sense": ("{ALM} does not sense {EVT} at all; it rings by the sundial.",)
                },
                "split": {
                    "noise": (
                        "{ALM} {w7}s {RSP} only by way of {DSP}, dozens of times a day, nearly always for nothing, and {RSP} stopped stirring.",
                    )
                },
            },
        ),
    ),
)
