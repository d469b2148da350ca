"""Observer failure read as state failure (development motif).

The only watcher of a system dies and goes quiet; its silence is read as the system being gone,
and an operator acts on that. Fix: give the watcher a pulse of its own. Decoys: the system's
real silence is what knocked the watcher out (a common cause), or the absence report was genuine
and unrelated to the watcher's failure.
"""

from analogist.bench.generation.motif import DELETE, MEDIATOR, Edit, Motif, Skin, Split, Variant
from analogist.bench.generation.simulate import Dynamics

MOTIF = Motif(
    name="observer_failure",
    title="observer failure read as state failure",
    aliases=("observer failure",),
    roles={
        "MON": "watcher that reports on the system",
        "SYS": "watched system",
        "OPS": "operator who acts on the watcher's reports",
    },
    relations=("observes(MON,SYS)", "reports_absence(MON,SYS)", "trusts_as_authoritative(OPS,MON)"),
    chain=(
        ("fails(MON)", "causes", "silent(MON)"),
        ("silent(MON)", "causes", "reports_absence(MON,SYS)"),
        ("reports_absence(MON,SYS)", "causes", "wrong_decision(OPS)"),
        ("trusts_as_authoritative(OPS,MON)", "enables", "wrong_decision(OPS)"),
    ),
    symptom_node="wrong_decision(OPS)",
    symptom="action taken against a healthy system",
    invariant="absence of a report is evidence only when the reporter is known to be alive",
    fix="heartbeat(MON)",
    qualifier="before acting on absence",
    wrong_fixes=("repair(SYS)", "refresh(MON)", "scale_up(SYS)"),
    alt_fixes=("repair(MON)", "distrust(OPS,MON)"),
    levels={
        "L1": "{OPS} acted on the empty report from {MON} about {SYS} after {MON} itself had died",
        "L2": "Measurement mechanism failed and absence of evidence was read as evidence of absence",
        "L3": "Silence of the witness taken for silence of the world",
    },
    dynamics=Dynamics(),
    facts={
        "watch": ("observes(MON,SYS)",),
        "quiet": ("c1",),
        "absence": ("c2", "reports_absence(MON,SYS)"),
        "act": ("trusts_as_authoritative(OPS,MON)", "c4", "c3"),
    },
    decoys=(
        Variant(
            MEDIATOR,
            Edit(MEDIATOR, "c1"),
            "distrust(OPS,MON)",
            "The system's real silence both produced the absence report and knocked out its watcher",
            "Common cause behind signal loss and watcher loss",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c2"),
            "distrust(OPS,MON)",
            "Genuine absence reported by a watcher that also happened to fail",
            "Coincident failures, only one of them real",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DELETE, "c4"),
        "heartbeat(MON)",
        "Dead watcher's silence acted on by rule",
        "Silence of the witness taken for silence of the world",
    ),
    split=Split(
        "observes(MON,SYS)", "RLY", "relay that carries the system's signal to the watcher"
    ),
    skins=(
        Skin(
            name="oncall",
            domain="software",
            kind="ordinary",
            entities={
                "MON": "the health-check script",
                "SYS": "the payments API",
                "OPS": "the on-call engineer",
                "RLY": "the metrics relay",
            },
            setting=(
                "Production incident, early Sunday.",
                "Post-incident review, payments platform.",
                "Weekend outage writeup, card processing.",
            ),
            facts={
                "watch": (
                    "{MON} polls {SYS} every minute and is the only view anyone has of it.",
                    "The only window onto {SYS} is {MON}, which polls it once a minute.",
                    "{MON} pings {SYS} each minute, and no second probe exists.",
                ),
                "quiet": (
                    "{MON} crashed at 02:10 on an empty configuration value and sent nothing after that.",
                    "At 02:10 {MON} itself died on a missing setting and went quiet.",
                    "At 02:10 {MON} hit a blank config entry, died, and emitted no more results.",
                ),
                "absence": (
                    "With no results coming in, the dashboard marked {SYS} as not responding.",
                    "The lack of results from {MON} showed up as 'no response from {SYS}'.",
                    "The empty feed from {MON} was rendered on the board as {SYS} being unreachable.",
                ),
                "act": (
                    "{OPS} treats whatever {MON} shows as fact and acts on it without further checks.",
                    "{OPS} takes {MON} at its word; the runbook says to act on it directly.",
                    "{OPS} goes by {MON} alone; the playbook calls for action straight off its output.",
                ),
            },
            symptom=(
                "{OPS} restarted {SYS} twice in the night, and live transactions were dropped each time.",
                "{SYS} was restarted in the middle of the night and in-flight payments were lost.",
                "{SYS} was bounced twice overnight by {OPS}, killing live transactions each time.",
            ),
            variants={
                MEDIATOR: {
                    "quiet": (
                        "At 02:10 {MON} went quiet, and the silence itself made it die on a missing setting.",
                    )
                },
                DELETE: {
                    "absence": (
                        "'No response from {SYS}' showed up regardless of the lack of results from {MON}.",
                    )
                },
                "partial": {
                    "act": (
                        "{OPS} takes {MON} at its word only because the runbook says to act on it directly.",
                    )
                },
                "split": {
                    "watch": (
                        "{MON} polls {SYS} through {RLY} every minute and is the only view anyone has of it.",
                    )
                },
            },
        ),
        Skin(
            name="reserve",
            domain="ecology",
            kind="ordinary",
            entities={
                "MON": "the camera trap at the waterhole",
                "SYS": "the leopard population in the north valley",
                "OPS": "the reserve's conservation board",
                "RLY": "the solar-powered uplink",
            },
            setting=(
                "Annual survey review, northern reserve.",
                "Minutes of the reserve's spring meeting.",
                "Big cat census review, valley sector.",
            ),
            facts={
                "watch": (
                    "{MON} is the only record anyone keeps of {SYS}.",
                    "Nobody surveys {SYS} except through {MON}.",
                    "All that is on file about {SYS} comes from {MON}.",
                ),
                "quiet": (
                    "In March the battery in {MON} gave out, and it recorded nothing for eleven weeks.",
                    "{MON} lost power in March and took no pictures for eleven weeks.",
                    "{MON} ran flat in March and captured no images for eleven weeks.",
                ),
                "absence": (
                    "Eleven weeks without a single image were logged as no sightings of {SYS}.",
                    "The blank weeks from {MON} went into the records as zero sightings of {SYS}.",
                    "Each empty memory card from {MON} went into the tally as a night without {SYS}.",
                ),
                "act": (
                    "{OPS} takes the survey record from {MON} as settled fact.",
                    "{OPS} works from the record of {MON} and never commissions a second survey.",
                    "{OPS} deems the tally of {MON} beyond dispute and orders no other census.",
                ),
            },
            symptom=(
                "{OPS} declared {SYS} locally extinct and moved the anti-poaching patrols elsewhere.",
                "On the strength of the record, {SYS} was written off and the patrols were reassigned.",
                "{SYS} was struck off the species list, and rangers were redeployed.",
            ),
            variants={
                MEDIATOR: {
                    "quiet": (
                        "{MON} took no pictures in March, so went unchecked and lost power for eleven weeks.",
                    )
                },
                DELETE: {
                    "absence": (
                        "The zero sightings of {SYS} went into the records before the blank weeks from {MON}.",
                    )
                },
                "partial": {
                    "act": (
                        "{OPS} takes the survey record from {MON} by rule, not as settled fact.",
                    )
                },
                "split": {
                    "watch": ("{MON}, read over {RLY}, is the only record anyone keeps of {SYS}.",)
                },
            },
        ),
        Skin(
            name="pressline",
            domain="manufacturing",
            kind="ordinary",
            entities={
                "MON": "the vibration sensor on press 3",
                "SYS": "press 3",
                "OPS": "the shift supervisor",
                "RLY": "the sensor gateway",
            },
            setting=(
                "Stamping plant, Thursday afternoon shift.",
                "Shift report, body-panel line.",
                "Press shop downtime inquiry.",
            ),
            facts={
                "watch": (
                    "{MON} is the only thing that tells the control room whether {SYS} is running.",
                    "Nobody can see {SYS} from the control room except through {MON}.",
                    "The control room's sole sign of life from {SYS} is what {MON} sends.",
                ),
                "quiet": (
                    "At 14:00 a forklift cut the cable of {MON}, and it sent no readings after that.",
                    "{MON} came off its bracket at 14:00 and went quiet.",
                    "A passing forklift severed the lead to {MON} at 14:00, killing its channel.",
                ),
                "absence": (
                    "The missing readings were shown on the control screen as '{SYS} idle'.",
                    "With no readings arriving, the screen displayed {SYS} as standing idle.",
                    "The empty data channel showed on the display as {SYS} sitting unused.",
                ),
                "act": (
                    "{OPS} acts on whatever the control screen says about {SYS} without walking to the floor.",
                    "{OPS} treats the reading from {MON} as the state of {SYS}.",
                    "{OPS} runs the floor off the feed about {SYS} and never goes out to look.",
                ),
            },
            symptom=(
                "{OPS} pulled the crew off {SYS} and moved the order to another line, losing a full shift.",
                "An order was moved off {SYS} for a day and its crew stood about.",
                "A healthy press sat unmanned for a day after its order went to another line.",
            ),
            variants={
                MEDIATOR: {
                    "quiet": (
                        "At 14:00 {MON} sent no readings, and after that a timeout cut it off.",
                    )
                },
                DELETE: {
                    "absence": (
                        "On the control screen, '{SYS} idle' was shown before readings went missing.",
                    )
                },
                "partial": {
                    "act": ("{OPS} treats the reading from {MON} as the state of {SYS} by rule.",)
                },
                "split": {
                    "watch": (
                        "{MON}, via {RLY}, is the only thing that tells the control room whether {SYS} is running.",
                    )
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "MON": "the {w1} {w2}",
                "SYS": "the {w3} {w4}",
                "OPS": "the {w5} {w6}",
                "RLY": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} is a listening-horn set against the wall, the {w3} {w4} is the great wheel that turns the works, and the {w5} {w6} is the night steward.",
            ),
            setting=(
                "Among the {w8}, to {w7} something is to listen for its hum.",
                "In the {w8} yards, folk {w7} a thing by listening for its hum.",
                "The {w8} {w7} a thing by putting an ear to it for its hum.",
            ),
            facts={
                "watch": (
                    "{MON} {w7}s {SYS}, and nothing else does.",
                    "Only {MON} {w7}s {SYS}.",
                    "{MON} alone {w7}s {SYS}.",
                ),
                "quiet": (
                    "{MON} cracked at dusk and made no sound after that.",
                    "At dusk {MON} split open and fell quiet.",
                    "A dusk frost burst {MON}, and it has been mute since.",
                ),
                "absence": (
                    "With nothing from {MON}, the slate read: no hum from {SYS}.",
                    "Hearing nothing from {MON}, the slate marked {SYS} as humless.",
                    "The hush from {MON} was chalked up as {SYS} lying still.",
                ),
                "act": (
                    "{OPS} takes the word of {MON} as final.",
                    "{OPS} acts on whatever {MON} says.",
                    "{OPS} heeds {MON} and no other.",
                ),
            },
            symptom=(
                "{OPS} had {SYS} dug up and re-sown before dawn.",
                "{OPS} ordered {SYS} torn out and replaced that night.",
                "Before dawn {OPS} had {SYS} ripped out.",
            ),
            variants={
                MEDIATOR: {"quiet": ("At dusk {MON} fell quiet, and so split open.",)},
                DELETE: {
                    "absence": (
                        "Hearing from {MON} or not, the slate marked {SYS} as humless, and rightly.",
                    )
                },
                "partial": {"act": ("{OPS} takes the word of {MON} as final by rule.",)},
                "split": {"watch": ("Only {MON} {w7}s {SYS}, through {RLY}.",)},
            },
        ),
    ),
)
