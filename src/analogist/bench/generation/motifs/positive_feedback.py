"""Runaway positive feedback (development motif).

An actor responds to a rising level in a way that raises the level further, and the damper
meant to restrain the response is too weak: the loop runs away. Fix: make the damper bite.
Decoys: the actor is not responding to the level at all but driving it on its own account
(reversed or missing link), so capping it only trims a standing push.
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
    name="positive_feedback",
    title="runaway positive feedback",
    aliases=("positive feedback", "feedback loop", "vicious circle", "runaway"),
    roles={
        "ACT": "actor that responds to the level",
        "LVL": "level that the response pushes further",
        "DMP": "damper meant to restrain the response",
    },
    relations=("observes(ACT,LVL)", "limits(DMP,ACT)"),
    chain=(
        ("grows(LVL)", "causes", "overloaded(ACT)"),
        ("overloaded(ACT)", "amplifies", "grows(LVL)"),
        ("limits(DMP,ACT)", "prevents", "overloaded(ACT)"),
    ),
    symptom_node="grows(LVL)",
    symptom="a level that kept climbing faster the more it was acted on",
    invariant="a response to a signal must not feed the signal without a damper",
    fix="rate_limit(DMP,ACT)",
    qualifier="on the response",
    wrong_fixes=("shed_load(ACT)", "scale_up(ACT)", "refresh(LVL)"),
    alt_fixes=("backpressure(DMP,ACT)",),
    levels={
        "L1": "{ACT} answered every rise in {LVL} in a way that raised {LVL} again, with {DMP} too weak to restrain it",
        "L2": "Response to a signal feeds back into the signal; the damper is too weak",
        "L3": "Self-reinforcing loop without a brake",
    },
    dynamics=Dynamics(
        strengths={"limits(DMP,ACT)": 0.2}, pulses=frozenset({"grows(LVL)"}), gain=1.8
    ),
    facts={
        "respond": ("observes(ACT,LVL)", "c1"),
        "loop": ("c2",),
        "damper": ("limits(DMP,ACT)", "c3"),
    },
    decoys=(
        Variant(
            REVERSE,
            Edit(REVERSE, "c1"),
            "shed_load(ACT)",
            "Self-driven activity pushing a level up rather than responding to it",
            "Reversed causation taken for a loop",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c1"),
            "shed_load(ACT)",
            "Independent activity raising a level",
            "External driver, no loop",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "observes(ACT,LVL)"),
        "rate_limit(DMP,ACT)",
        "Second-hand response to a signal feeds back into the signal",
        "Self-reinforcing loop without a brake",
    ),
    split=Split("limits(DMP,ACT)", "GOV", "governor between damper and actor"),
    skins=(
        Skin(
            name="selloff",
            domain="finance",
            kind="ordinary",
            entities={
                "ACT": "the fund's automatic stop-loss selling",
                "LVL": "the slide in the share price",
                "DMP": "the daily selling ceiling in the fund's mandate",
                "GOV": "the risk desk's order router",
            },
            setting=(
                "Trading desk post-mortem, equities.",
                "Risk committee note on Thursday's sell-off.",
                "Fund governance note, equity drawdown.",
            ),
            facts={
                "respond": (
                    "{ACT} kicks in whenever {LVL} deepens, selling more the further it goes.",
                    "Each time {LVL} deepened, {ACT} sold another block.",
                    "The deeper {LVL} runs, the harder {ACT} dumps stock.",
                ),
                "loop": (
                    "Every block sold by {ACT} pushed {LVL} further.",
                    "The selling itself deepened {LVL}.",
                    "Those sales dragged {LVL} deeper still.",
                ),
                "damper": (
                    "{DMP} is meant to cap the selling, but it is set so high it barely bites.",
                    "{DMP} exists, but at its current setting it hardly restrains {ACT}.",
                    "{DMP} should curb {ACT}, though its threshold sits far beyond any real day's volume.",
                ),
            },
            symptom=(
                "By the close {LVL} had gone from two percent to thirty, and the fund had sold most of its position at the bottom.",
                "What began as a small dip ended the day as the worst drop in the fund's history.",
                "A two percent dip snowballed into a thirty percent collapse by the close.",
            ),
            variants={
                REVERSE: {
                    "respond": (
                        "{ACT} kicks in by itself, selling more, and {LVL} deepens the further it goes.",
                    )
                },
                DELETE: {
                    "respond": ("Each hour, however far {LVL} deepened, {ACT} sold another block.",)
                },
                "partial": {
                    "respond": (
                        "Each time a broker said {LVL} deepened, {ACT} sold another block.",
                    )
                },
                "split": {
                    "damper": (
                        "{DMP} is meant to cap the selling through {GOV}, but it is set so high it barely bites.",
                    )
                },
            },
        ),
        Skin(
            name="peat",
            domain="ecology",
            kind="ordinary",
            entities={
                "ACT": "the gas release from the thawing peat",
                "LVL": "the rise in local soil temperature",
                "DMP": "the winter snow cover",
                "GOV": "the moss layer under the snow",
            },
            setting=(
                "Permafrost survey report, station 12.",
                "Field season summary, northern peatland.",
                "Arctic soil carbon fieldwork summary.",
            ),
            facts={
                "respond": (
                    "{ACT} speeds up whenever {LVL} climbs, as it has all summer.",
                    "As {LVL} went up, so did {ACT}.",
                    "{ACT} picks up pace as {LVL} mounts.",
                ),
                "loop": (
                    "{ACT} trapped more heat and pushed {LVL} higher still.",
                    "Every extra bit of {ACT} added to {LVL}.",
                    "What {ACT} puts into the air warms the ground, lifting {LVL} again.",
                ),
                "damper": (
                    "{DMP} usually keeps {ACT} in check, but this year it was thin and patchy.",
                    "{DMP} normally restrains {ACT}; this winter there was little of it.",
                    "In most years {DMP} smothers {ACT}; this winter it lay thin.",
                ),
            },
            symptom=(
                "Over the season {LVL} ran far past anything on record and the site slumped into a new lake.",
                "{LVL} kept climbing all summer, faster each month, until the bank collapsed.",
                "The bank gave way by August, and the site sank into a fresh lake.",
            ),
            variants={
                REVERSE: {
                    "respond": ("{LVL} climbs whenever {ACT} speeds up, as it has all summer.",)
                },
                DELETE: {
                    "respond": (
                        "{ACT} speeds up whenever {LVL} climbs or falls, as it has all summer.",
                    )
                },
                "partial": {"respond": ("As {LVL} went up, unrecorded, so did {ACT}.",)},
                "split": {
                    "damper": (
                        "{DMP} usually keeps {ACT} in check through {GOV}, but this year it was thin and patchy.",
                    )
                },
            },
        ),
        Skin(
            name="clinic",
            domain="education",
            kind="ordinary",
            entities={
                "ACT": "the study clinic's drop-in sessions",
                "LVL": "the waiting list for the study clinic",
                "DMP": "the booking cap set by the dean",
                "GOV": "the booking website",
            },
            setting=(
                "Student services review, spring term.",
                "Notes from the learning-support committee.",
                "Academic support board paper, term two.",
            ),
            facts={
                "respond": (
                    "More of {ACT} are scheduled whenever {LVL} lengthens.",
                    "Each time {LVL} got longer, more of {ACT} were added.",
                    "The clinic answers any growth in {LVL} by adding to {ACT}.",
                ),
                "loop": (
                    "Every added session was announced to the whole year group, and each announcement drew more names onto {LVL}.",
                    "The more of {ACT} there were, the more students heard of the clinic and joined {LVL}.",
                    "Word of {ACT} travelled, and every new slot brought a fresh crowd onto {LVL}.",
                ),
                "damper": (
                    "{DMP} is supposed to restrain {ACT}, but it is set far above what the clinic can staff.",
                    "{DMP} barely touches {ACT} at its present level.",
                    "{DMP} ought to rein in {ACT}, yet it is pitched at a level no rota could cover.",
                ),
            },
            symptom=(
                "By week eight {LVL} had passed six hundred names and tutors were running sessions at midnight.",
                "{LVL} went from twenty names to six hundred in a term, faster every week.",
                "Six hundred students were queued for help by week eight, with tutors working past midnight.",
            ),
            variants={
                REVERSE: {"respond": ("Each time more of {ACT} were added, {LVL} got longer.",)},
                DELETE: {
                    "respond": ("Each term, however long {LVL} got, more of {ACT} were added.",)
                },
                "partial": {
                    "respond": ("Each time staff said {LVL} got longer, more of {ACT} were added.",)
                },
                "split": {
                    "damper": ("{DMP} barely touches {ACT} through {GOV} at its present level.",)
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "ACT": "the {w1} {w2}",
                "LVL": "the {w3} {w4}",
                "DMP": "the {w5} {w6}",
                "GOV": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} is the paddle-wheel in the pool, the {w3} {w4} is how high the water stands, and the {w5} {w6} is a weighted gate meant to slow the wheel.",
            ),
            setting=(
                "In the {w8} valley, to {w7} is to stir a pool harder.",
                "Among the {w8}, a pool is {w7}ed when someone stirs it harder.",
                "The {w8} say they {w7} a pool when they churn it more fiercely.",
            ),
            facts={
                "respond": (
                    "{ACT} {w7}s harder whenever {LVL} rises.",
                    "As {LVL} went up, {ACT} {w7}ed more.",
                    "{ACT} {w7}s with more vigour each time {LVL} climbs.",
                ),
                "loop": (
                    "Each stirring by {ACT} lifted {LVL} further.",
                    "The more {ACT} {w7}ed, the higher {LVL} went.",
                    "The churning of {ACT} only raised {LVL} more.",
                ),
                "damper": (
                    "{DMP} should hold {ACT} back, but it is feeble.",
                    "{DMP} barely restrains {ACT}.",
                    "{DMP} hangs too light to slow {ACT}.",
                ),
            },
            symptom=(
                "{LVL} rose faster each day until it spilled over the dykes.",
                "{LVL} climbed without pause, quicker each hour, and flooded the lower fields.",
                "{LVL} crept over the dykes by the week's end.",
            ),
            variants={
                REVERSE: {"respond": ("As {ACT} {w7}ed more, {LVL} went up.",)},
                DELETE: {"respond": ("As {LVL} went up or held, {ACT} {w7}ed more.",)},
                "partial": {"respond": ("As {LVL} went up unseen, {ACT} {w7}ed more.",)},
                "split": {"damper": ("{DMP} barely restrains {ACT} through {GOV}.",)},
            },
        ),
    ),
)
