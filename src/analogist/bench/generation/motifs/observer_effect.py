"""Measurement changes the measured (held-out motif).

The act of measuring draws on the measured system and disturbs it; the disturbance is then
reported as the system's own state. Fix: measure more lightly. Decoys: the system was already
in trouble and that made the measurement heavier (a common cause), or the conclusion was wrong
for unrelated reasons.
"""

from analogist.bench.generation.motif import DELETE, MEDIATOR, Edit, Motif, Skin, Split, Variant
from analogist.bench.generation.simulate import Dynamics

MOTIF = Motif(
    name="observer_effect",
    title="measurement changes the measured",
    aliases=("observer effect", "heisenbug", "hawthorne"),
    roles={
        "PRB": "measuring instrument or procedure",
        "TGT": "measured system",
        "ANA": "analysis that reports the measurements",
    },
    relations=("observes(PRB,TGT)", "consumes(PRB,TGT)", "trusts_as_authoritative(ANA,PRB)"),
    chain=(
        ("consumes(PRB,TGT)", "causes", "degraded(TGT)"),
        ("degraded(TGT)", "causes", "false_claim(ANA)"),
        ("trusts_as_authoritative(ANA,PRB)", "enables", "false_claim(ANA)"),
    ),
    symptom_node="false_claim(ANA)",
    symptom="a conclusion produced by the act of measuring",
    invariant="measurement does not disturb what it measures, or its disturbance is subtracted",
    fix="cap_usage(PRB,TGT)",
    qualifier="lighter sampling",
    wrong_fixes=("repair(TGT)", "scale_up(TGT)", "refresh(PRB)"),
    alt_fixes=("distrust(ANA,PRB)",),
    levels={
        "L1": "{PRB} disturbed {TGT} while measuring it, and {ANA} reported the disturbance as a property of {TGT}",
        "L2": "Measurement disturbs the measured system and the disturbance is reported as its state",
        "L3": "The ruler bends what it measures",
    },
    dynamics=Dynamics(),
    facts={
        "probe": ("observes(PRB,TGT)",),
        "cost": ("consumes(PRB,TGT)", "c1"),
        "read": ("trusts_as_authoritative(ANA,PRB)", "c3"),
        "conclude": ("c2",),
    },
    decoys=(
        Variant(
            MEDIATOR,
            Edit(MEDIATOR, "c1"),
            "repair(TGT)",
            "Troubled system makes the measurement heavier; the trouble is real",
            "Real fault, heavier probe",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c2"),
            "distrust(ANA,PRB)",
            "Conclusion wrong for reasons unrelated to the measuring load",
            "Coincident disturbance",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DELETE, "c3"),
        "cap_usage(PRB,TGT)",
        "Measurement disturbs the measured system and the disturbance is reported automatically",
        "The ruler bends what it measures",
    ),
    split=Split("observes(PRB,TGT)", "LOG", "record the measurements pass through"),
    skins=(
        Skin(
            name="terns",
            domain="ecology",
            kind="ordinary",
            entities={
                "PRB": "the daily nest inspections",
                "TGT": "the tern colony",
                "ANA": "the regional conservation bulletin",
                "LOG": "the field team's tally sheets",
            },
            setting=(
                "Seabird survey review, east spit.",
                "Breeding season summary, coastal reserve.",
                "Shorebird warden's season debrief.",
            ),
            facts={
                "probe": (
                    "{PRB} record every clutch in {TGT}.",
                    "{TGT} is counted through {PRB}.",
                    "{PRB} tally the eggs of {TGT}.",
                ),
                "cost": (
                    "Each of {PRB} flushes the birds off their eggs for half an hour, which costs {TGT} dearly.",
                    "{PRB} disturb {TGT}, keeping adults off their eggs for long spells.",
                    "{PRB} send the adults of {TGT} wheeling off their nests, and the eggs chill each time.",
                ),
                "read": (
                    "{ANA} takes the figures from {PRB} as the state of {TGT}.",
                    "{ANA} treats {PRB} as the true picture.",
                    "{ANA} prints the tallies of {PRB} unquestioned.",
                ),
                "conclude": (
                    "The losses that the visits themselves caused went straight into {ANA}.",
                    "What the visits did to {TGT} showed up in {ANA} as a fact about the colony.",
                    "So {ANA} reported a real decline in {TGT}, one the inspections had made.",
                ),
            },
            symptom=(
                "{ANA} declared {TGT} in steep decline and recommended culling gulls; hatching was normal on undisturbed plots.",
                "{ANA} blamed predators for low hatching that was not seen where nobody visited.",
                "Gull culling was proposed on the back of {ANA}, though plots nobody visited hatched as usual.",
            ),
            variants={
                MEDIATOR: {
                    "cost": (
                        "Because {TGT} is doing badly, each of {PRB} flushes the birds off their eggs for half an hour.",
                    )
                },
                DELETE: {
                    "conclude": (
                        "What the visits did to {TGT} showed up in {ANA} as a fact about the visits.",
                    )
                },
                "partial": {"read": ("{ANA} treats {PRB} as the true picture only by default.",)},
                "split": {"probe": ("{PRB} record every clutch in {TGT} on {LOG}.",)},
            },
        ),
        Skin(
            name="pressure",
            domain="medicine",
            kind="ordinary",
            entities={
                "PRB": "the frequent blood-pressure checks",
                "TGT": "the patient's blood pressure",
                "ANA": "the cardiology referral letter",
                "LOG": "the observation chart",
            },
            setting=(
                "Clinical review, admissions ward.",
                "Medication incident report, elderly care.",
                "Ward round audit, hypertension referrals.",
            ),
            facts={
                "probe": (
                    "{PRB} track {TGT} every fifteen minutes.",
                    "{TGT} is followed through {PRB}.",
                    "{PRB} take {TGT} round the clock.",
                ),
                "cost": (
                    "Each of {PRB} wakes and startles the patient, which pushes {TGT} up.",
                    "{PRB} keep the patient anxious and awake, raising {TGT}.",
                    "The cuff inflating under {PRB} rouses the patient and lifts {TGT}.",
                ),
                "read": (
                    "{ANA} takes the readings from {PRB} at face value.",
                    "{ANA} treats {PRB} as the true picture.",
                    "{ANA} repeats the numbers from {PRB} without a second thought.",
                ),
                "conclude": (
                    "The rise caused by the checks themselves went straight into {ANA}.",
                    "What the checks did to {TGT} showed up in {ANA} as a fact about the patient.",
                    "{ANA} then blamed the patient's condition for the checks' own effect on {TGT}.",
                ),
            },
            symptom=(
                "{ANA} reported {TGT} as dangerously high, and a drug was started that the patient did not need.",
                "A new drug was started on the strength of {ANA}; at home the readings were normal.",
                "After {ANA} called {TGT} worrying, the patient went home on a drug they never needed.",
            ),
            variants={
                MEDIATOR: {
                    "cost": ("Because {TGT} is up, {PRB} keep the patient anxious and awake.",)
                },
                DELETE: {
                    "conclude": (
                        "What the checks did to {TGT} showed up in {ANA} as a fact about the checks.",
                    )
                },
                "partial": {"read": ("{ANA} treats {PRB} as the true picture merely by default.",)},
                "split": {"probe": ("{PRB} track {TGT} every fifteen minutes on {LOG}.",)},
            },
        ),
        Skin(
            name="inspection",
            domain="education",
            kind="ordinary",
            entities={
                "PRB": "the inspectors sitting in on lessons",
                "TGT": "the class's usual behaviour",
                "ANA": "the inspection report",
                "LOG": "the inspectors' note forms",
            },
            setting=(
                "Inspection appeal, Year 9 science.",
                "Head teacher's response to inspection.",
                "Governors' complaint, lesson grading.",
            ),
            facts={
                "probe": (
                    "{PRB} judge {TGT} from the back of the room.",
                    "{TGT} is assessed through {PRB}.",
                    "{PRB} watch {TGT} and grade it.",
                ),
                "cost": (
                    "The presence of {PRB} makes pupils restless and changes {TGT}.",
                    "{PRB} unsettle the pupils, which alters {TGT}.",
                    "Once {PRB} arrive, the pupils play up and {TGT} shifts.",
                ),
                "read": (
                    "{ANA} takes what {PRB} saw as the truth about {TGT}.",
                    "{ANA} treats {PRB} as the true picture.",
                    "{ANA} accepts the verdict of {PRB} wholesale.",
                ),
                "conclude": (
                    "The unrest that the visit itself caused went straight into {ANA}.",
                    "What the visit did to {TGT} showed up in {ANA} as a fact about the class.",
                    "{ANA} wrote up the restlessness that the visitors' arrival had stirred as if it were {TGT}.",
                ),
            },
            symptom=(
                "{ANA} rated the class disorderly and put the teacher on a support plan.",
                "The teacher was put on a support plan for behaviour that only appeared when visitors came.",
                "{ANA} judged the class unruly, and the teacher was sent on remedial training.",
            ),
            variants={
                MEDIATOR: {
                    "cost": (
                        "Changes in {TGT} lengthen the presence of {PRB}, which makes pupils restless.",
                    )
                },
                DELETE: {
                    "conclude": (
                        "What the visit did to {TGT} showed up in {ANA} as a fact about the visit.",
                    )
                },
                "partial": {"read": ("{ANA} treats {PRB} as the true picture only on paper.",)},
                "split": {"probe": ("{TGT} is assessed by {PRB} through {LOG}.",)},
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "PRB": "the {w1} {w2}",
                "TGT": "the {w3} hive",
                "ANA": "the {w4} {w5}",
                "LOG": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} is the hive-counter's round, and the {w4} {w5} is the elders' register.",
            ),
            setting=(
                "In {w8}, to {w7} a hive is to open it and count its dwellers.",
                "Among the {w8}, opening a hive to count its dwellers is called {w7}ing it.",
                "The {w8} say they {w7} a hive when they lift its lid to tally who lives inside.",
            ),
            facts={
                "probe": (
                    "{PRB} {w7}s {TGT} each morning.",
                    "{TGT} is {w7}ed daily by {PRB}.",
                    "Each dawn {PRB} {w7}s {TGT}.",
                ),
                "cost": (
                    "Every {w7}ing by {PRB} chills {TGT} and sets it back.",
                    "{PRB} chills {TGT} each time it opens it.",
                    "{PRB} lets cold into {TGT} with each opening.",
                ),
                "read": (
                    "{ANA} takes the count of {PRB} as the truth.",
                    "{ANA} treats {PRB} as the true picture.",
                    "{ANA} enters whatever {PRB} counts, no questions asked.",
                ),
                "conclude": (
                    "The chill the counting caused went straight into what {ANA} declared.",
                    "What the counting did to {TGT} showed up in what {ANA} declared.",
                    "{ANA} logged the hurt of the {w7}ing as the natural state of {TGT}.",
                ),
            },
            symptom=(
                "{ANA} declared {TGT} sickly and ordered it burned.",
                "On the count, {ANA} pronounced {TGT} dying.",
                "{ANA} named {TGT} ailing and had it put to the torch.",
            ),
            variants={
                MEDIATOR: {"cost": ("{TGT} chills, so {PRB} takes longer each time it opens it.",)},
                DELETE: {
                    "conclude": (
                        "What the counting did to {TGT} showed up in what {ANA} declared about the counting.",
                    )
                },
                "partial": {"read": ("{ANA} takes the count of {PRB} as the truth by custom.",)},
                "split": {"probe": ("{TGT} is {w7}ed daily by {PRB} through {LOG}.",)},
            },
        ),
    ),
)
