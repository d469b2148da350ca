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
                "Root-cause analysis, coronary care unit.",
            ),
            facts={
                "sense": (
                    "{ALM} track {EVT} around the clock.",
                    "{EVT} is what {ALM} are there to catch, at every bed, day and night.",
                    "Wired to each patient's leads, {ALM} register {EVT} at once.",
                ),
                "noise": (
                    "{ALM} sounded several hundred times a shift, almost all for loose leads, and {RSP} stopped reacting to them.",
                    "{RSP} grew numb to the sound because {ALM} kept chiming every few minutes for nothing.",
                    "Constant beeping from {ALM}, mostly set off by patients moving in bed, taught {RSP} to tune the tone out.",
                ),
                "tuneout": (
                    "{RSP} routinely turn {ALM} to mute and carry on, not even looking up.",
                    "On most shifts {RSP} silence {ALM} without looking.",
                    "{RSP} press mute on {ALM} out of sheer routine.",
                ),
                "miss": (
                    "When a real one came, it went unanswered, as {RSP} were numb to them by then.",
                    "The one genuine alarm that night got the same non-response from {RSP} as all the others.",
                    "Deadened to the tone by then, {RSP} treated the one that signalled an actual arrhythmia as more clutter.",
                ),
            },
            symptom=(
                "A patient's rhythm change went unanswered for eleven minutes.",
                "A genuine cardiac alarm sounded for eleven minutes before anyone came.",
                "In bay four a patient's arrhythmia ran eleven minutes before a nurse reached the bed.",
            ),
            variants={
                MEDIATOR: {
                    "noise": (
                        "{ALM} kept chiming every few minutes, unanswered, because {RSP} had grown numb to the sound.",
                    )
                },
                REVERSE: {
                    "miss": (
                        "When a real one came, it went unanswered, and {RSP} were numb to them from then on.",
                    )
                },
                "partial": {
                    "sense": ("{ALM} track loose leads around the clock, instead of {EVT}.",)
                },
                "split": {
                    "noise": (
                        "{ALM} sounded several hundred times a shift through {DSP}, almost all for loose leads, and {RSP} stopped reacting to them.",
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
                "Postmortem notes, storage operations.",
            ),
            facts={
                "sense": (
                    "{ALM} watch for {EVT} on every server.",
                    "{ALM} exist to catch {EVT} before any database fills its disk.",
                    "{ALM} poll each host so {EVT} gets flagged early.",
                ),
                "noise": (
                    "{ALM} fired dozens of times a night, nearly all false, and {RSP} learned to shrug them off.",
                    "After months of {ALM} going off for nothing, {RSP} barely glanced at them.",
                    "{ALM} woke {RSP} all night over harmless blips, until every notification read as background chatter.",
                ),
                "tuneout": (
                    "{RSP} acknowledge {ALM} from bed without reading them.",
                    "{RSP} clear {ALM} with a swipe.",
                    "{RSP} dismisses {ALM} from a phone's lock screen, half asleep.",
                ),
                "miss": (
                    "Numb by then, {RSP} swiped the one that mattered away with the rest.",
                    "When the real one came, it got the same swipe from {RSP}, numb as they were by then.",
                    "Inured after months of this, {RSP} dismissed the notification that finally counted along with all the junk.",
                ),
            },
            symptom=(
                "A database filled its disk at 04:00 and went read-only for three hours.",
                "A real disk-full event sat unanswered until customers complained.",
                "A full volume froze the primary database at 04:00, and writes were refused for three hours.",
            ),
            variants={
                MEDIATOR: {
                    "noise": (
                        "{RSP} had learned to shrug them off, so {ALM} re-fired dozens of times a night.",
                    )
                },
                REVERSE: {
                    "miss": (
                        "{RSP} swiped the one that mattered away with the rest, and stayed numb ever after.",
                    )
                },
                "partial": {
                    "sense": ("{ALM} watch for a timer, blind to {EVT}, on every server.",)
                },
                "split": {
                    "noise": (
                        "{ALM} fired dozens of times a night through {DSP}, nearly all false, and {RSP} learned to shrug them off.",
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
            setting=(
                "Process safety review, steam plant.",
                "Near-miss report, boiler house.",
                "Plant engineering memo, utilities block.",
            ),
            facts={
                "sense": (
                    "{ALM} are wired to sound on {EVT}.",
                    "{EVT} is what {ALM} are meant to catch, anywhere in the plant.",
                    "{ALM} take their signal from the pressure transmitters to announce {EVT}.",
                ),
                "noise": (
                    "{ALM} blared twenty times a shift for sensor glitches, and {RSP} stopped hearing them.",
                    "{RSP} grew numb to them because {ALM} had sounded for nothing all day.",
                    "Faulty transducers set {ALM} blasting again and again, until {RSP} no longer registered the racket.",
                ),
                "tuneout": (
                    "{RSP} reset {ALM} by reflex, not by choice.",
                    "{RSP} press reset on {ALM} without looking up.",
                    "{RSP} cancel {ALM} at the console out of habit.",
                ),
                "miss": (
                    "The genuine one was reset like all the rest, since {RSP} had long grown numb.",
                    "So when a real one sounded, {RSP}, numb to the noise by now, gave it the same reflex reset.",
                    "By then deaf to the racket, {RSP} cancelled the horn that counted as casually as any glitch.",
                ),
            },
            symptom=(
                "A relief valve lifted after a real excursion had sounded for six minutes.",
                "A genuine pressure excursion ran for six minutes with its horn ringing.",
                "The safety valve popped six minutes into an excursion that the horns had announced from the start.",
            ),
            variants={
                MEDIATOR: {
                    "noise": (
                        "{ALM} blared twenty times a shift because {RSP} had stopped hearing them.",
                    )
                },
                REVERSE: {
                    "miss": (
                        "When a real one sounded and {RSP} gave it the same reset, it made them numb to the rest.",
                    )
                },
                "partial": {"sense": ("{ALM} are wired to sound on a timer, deaf to {EVT}.",)},
                "split": {
                    "noise": (
                        "{ALM} blared twenty times a shift via {DSP} for sensor glitches, and {RSP} stopped hearing them.",
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
                "The folk of {w8} say they {w7} a person when they ring a bell at them.",
            ),
            facts={
                "sense": (
                    "{ALM} is meant to catch {EVT} before it reaches the gate of the village.",
                    "{ALM} is set to ring when {EVT} comes.",
                    "{ALM} hangs high on the tower to warn of {EVT}.",
                ),
                "noise": (
                    "{ALM} {w7}s {RSP} dozens of times a day, nearly always for nothing, and {RSP} stopped stirring.",
                    "{RSP} no longer stirred, because of endless {w7}ing by {ALM}.",
                    "{ALM} {w7}s {RSP} over every stray goat, and {RSP} have ceased to heed it.",
                ),
                "tuneout": (
                    "{RSP} wave {ALM} away, not even looking.",
                    "{RSP} pay {ALM} no mind.",
                    "{RSP} turn their backs on {ALM}.",
                ),
                "miss": (
                    "So {RSP}, no longer stirring, waved the true ringing away with the rest.",
                    "When the real one rang, {RSP}, long unmoved by ringing, gave it the same wave.",
                    "Ears long dulled, {RSP} let the ringing for a raid in earnest pass unheeded.",
                ),
            },
            symptom=(
                "{EVT} passed through the village unanswered.",
                "When {EVT} came, no one rose.",
                "{EVT} reached the gate unopposed.",
            ),
            variants={
                MEDIATOR: {
                    "noise": (
                        "{ALM} {w7}s {RSP} again dozens of times a day because {RSP} stopped stirring.",
                    )
                },
                REVERSE: {
                    "miss": (
                        "{RSP} waved the true ringing away with the rest, and so no longer stirred.",
                    )
                },
                "partial": {
                    "sense": ("{ALM} is set to ring by the sundial rather than when {EVT} comes.",)
                },
                "split": {
                    "noise": (
                        "{ALM} {w7}s {RSP} by way of {DSP} dozens of times a day, nearly always for nothing, and {RSP} stopped stirring.",
                    )
                },
            },
        ),
    ),
)
