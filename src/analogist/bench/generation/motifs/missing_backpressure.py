"""Missing backpressure (held-out motif).

A producer pushes into a buffer faster than a slowed consumer drains it, and nothing tells the
producer to wait, so the buffer grows until it runs out of room. Fix: make the buffer hold the
producer back when full. Decoys: the backed-up buffer is what provoked the producer (a common
cause), or the buffer fills from some other inflow.
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
    name="missing_backpressure",
    title="missing backpressure",
    aliases=("backpressure", "back pressure", "back-pressure"),
    roles={
        "PRD": "producer",
        "Q": "buffer between producer and consumer",
        "CNS": "slower consumer",
    },
    relations=("sends_to(PRD,Q)", "sends_to(Q,CNS)", "depends_on(CNS,Q)"),
    chain=(
        ("limits(Q,PRD)", "prevents", "sends_to(PRD,Q)"),
        ("sends_to(PRD,Q)", "causes", "backlogged(Q)"),
        ("backlogged(Q)", "causes", "grows(Q)"),
        ("degraded(CNS)", "enables", "backlogged(Q)"),
    ),
    symptom_node="grows(Q)",
    symptom="a buffer that kept growing until it ran out of room",
    invariant="a full buffer makes its producer wait",
    fix="backpressure(Q,PRD)",
    qualifier="when full",
    wrong_fixes=("rate_limit(Q,PRD)", "scale_up(Q)", "refresh(Q)"),
    alt_fixes=("repair(CNS)", "pause_flow(PRD,Q)"),
    levels={
        "L1": "{PRD} kept pushing into {Q} faster than {CNS} could take from it, and nothing told {PRD} to wait",
        "L2": "Producer outpaces consumer with no signal back to slow it",
        "L3": "Flow without a return signal",
    },
    dynamics=Dynamics(stocks=frozenset({"grows(Q)"})),
    facts={
        "flow": ("sends_to(Q,CNS)", "depends_on(CNS,Q)"),
        "push": ("sends_to(PRD,Q)", "c2"),
        "slow": ("c4",),
        "nocap": ("c1",),
        "pileup": ("c3",),
    },
    decoys=(
        Variant(
            MEDIATOR,
            Edit(MEDIATOR, "c2"),
            "repair(CNS)",
            "Backed-up buffer provokes the producer to send more",
            "Backlog as cause, not effect",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c2"),
            "repair(CNS)",
            "Buffer fills from a source other than the producer",
            "Wrong inflow blamed",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "depends_on(CNS,Q)"),
        "backpressure(Q,PRD)",
        "Producer outpaces a consumer with other sources, with no signal back to slow it",
        "Flow without a return signal",
    ),
    split=Split("sends_to(Q,CNS)", "WRK", "workers that carry items from buffer to consumer"),
    skins=(
        Skin(
            name="port",
            domain="logistics",
            kind="ordinary",
            entities={
                "PRD": "the inbound container ships",
                "Q": "the port's stacking yard",
                "CNS": "the rail loading crews",
                "WRK": "the yard tractors",
            },
            setting=(
                "Port congestion review, third week.",
                "Terminal operations report, east quay.",
                "Harbour master's note, container dwell times.",
            ),
            facts={
                "flow": (
                    "{CNS} draw containers from {Q} to load onto trains.",
                    "{Q} empties only as {CNS} load trains from it, box by box, around the clock.",
                    "Trains leave loaded only with what {CNS} lift out of {Q}.",
                ),
                "push": (
                    "{PRD} unload into {Q} on their own schedule, faster than it empties.",
                    "Every day {PRD} put more into {Q} than leaves it.",
                    "{PRD} discharge boxes into {Q} at a rate well beyond what goes out by rail.",
                ),
                "slow": (
                    "{CNS} were short-staffed and working at half pace.",
                    "With half their people out, {CNS} were loading slowly.",
                    "Sickness had cut {CNS} to a crawl.",
                ),
                "nocap": (
                    "Nothing tells {PRD} to ease off or wait when {Q} fills.",
                    "{Q} has no way to turn {PRD} away when full.",
                    "However crowded {Q} gets, {PRD} are never kept at anchor.",
                ),
                "pileup": (
                    "So the stacks in {Q} rose day after day.",
                    "The excess simply piled up in {Q}.",
                    "Boxes mounted higher in {Q} with every tide.",
                ),
            },
            symptom=(
                "By the third week {Q} was stacked six high and spilling onto the access roads.",
                "{Q} ran out of ground, and boxes were left on the quay.",
                "Containers ended up parked along the access roads for want of ground in {Q}.",
            ),
            variants={
                MEDIATOR: {"push": ("Every day {PRD} put more into {Q} because less leaves it.",)},
                DELETE: {"push": ("Every day {PRD} put fewer boxes into {Q} than leave it.",)},
                "partial": {
                    "flow": (
                        "{CNS} draw containers from {Q} or the inland depot to load onto trains.",
                    )
                },
                "split": {
                    "flow": ("{CNS} draw containers from {Q} through {WRK} to load onto trains.",)
                },
            },
        ),
        Skin(
            name="bottling",
            domain="manufacturing",
            kind="ordinary",
            entities={
                "PRD": "the filling machine",
                "Q": "the accumulation table",
                "CNS": "the labelling machine",
                "WRK": "the infeed conveyor",
            },
            setting=(
                "Line stoppage report, bottling hall.",
                "Shift log, Friday morning.",
                "Packaging line downtime summary.",
            ),
            facts={
                "flow": (
                    "{CNS} takes its bottles off {Q} and from nowhere else.",
                    "{Q} is emptied by {CNS} alone, one bottle at a time, all shift long.",
                    "Bottles reach {CNS} by way of {Q} and no other route.",
                ),
                "push": (
                    "{PRD} pushes bottles onto {Q} at full speed, faster than they leave, every minute of the shift.",
                    "{PRD} puts bottles onto {Q} faster than {Q} empties.",
                    "{PRD} keeps loading {Q} at a speed the far end cannot clear.",
                ),
                "slow": (
                    "{CNS} was running slow on a worn roller.",
                    "A worn roller had {CNS} at two-thirds speed.",
                    "{CNS} had lost speed to a bearing fault.",
                ),
                "nocap": (
                    "Nothing slows {PRD} when {Q} fills up.",
                    "{Q} has no way of making {PRD} wait.",
                    "{PRD} runs flat out no matter how packed {Q} becomes.",
                ),
                "pileup": (
                    "Bottles kept piling up on {Q}.",
                    "The excess collected on {Q} minute by minute.",
                    "{Q} became more crowded by the minute.",
                ),
            },
            symptom=(
                "Within the hour {Q} overflowed and bottles were smashing onto the floor.",
                "{Q} filled completely and the line had to be halted for a clean-up.",
                "Bottles cascaded off {Q} onto the floor and the line stopped for a clean-up.",
            ),
            variants={
                MEDIATOR: {"push": ("{PRD} puts bottles onto {Q} faster the slower {Q} empties.",)},
                DELETE: {
                    "push": ("{PRD} puts bottles onto {Q} a little slower than {Q} empties.",)
                },
                "partial": {
                    "flow": ("{CNS} takes its bottles off {Q} and from somewhere else too.",)
                },
                "split": {
                    "flow": (
                        "{CNS} takes its bottles off {Q} through {WRK} and from nowhere else.",
                    )
                },
            },
        ),
        Skin(
            name="events",
            domain="software",
            kind="ordinary",
            entities={
                "PRD": "the clickstream collector",
                "Q": "the event queue",
                "CNS": "the analytics loader",
                "WRK": "the loader's worker pool",
            },
            setting=(
                "Data platform incident, overnight.",
                "Data loss review, analytics pipeline.",
                "Pipeline postmortem, ingestion tier.",
            ),
            facts={
                "flow": (
                    "{CNS} reads events off {Q} and has no other source.",
                    "{Q} is drained by {CNS}.",
                    "{CNS} pulls its whole input from {Q}.",
                ),
                "push": (
                    "{PRD} pushes events onto {Q} as fast as they arrive, faster than they are read.",
                    "{PRD} puts events on {Q} faster than {Q} is drained.",
                    "{PRD} writes every incoming event to {Q}, outpacing the reads.",
                ),
                "slow": (
                    "{CNS} had slowed after a schema change.",
                    "Since a schema change, {CNS} ran at a third of its old pace.",
                    "{CNS} had become sluggish on its new indexes.",
                ),
                "nocap": (
                    "Nothing makes {PRD} ease off when {Q} is full.",
                    "{Q} has no way to tell {PRD} to wait.",
                    "{PRD} writes at the same rate whatever the depth of {Q}.",
                ),
                "pileup": (
                    "So {Q} kept getting deeper.",
                    "The excess piled up in {Q} hour after hour.",
                    "Unread events stacked up in {Q} hour on hour.",
                ),
            },
            symptom=(
                "{Q} ran out of memory at 03:00 and six hours of events were lost.",
                "{Q} filled its disk overnight and the oldest data was thrown away.",
                "Hours of clickstream data were discarded when {Q} ran out of room.",
            ),
            variants={
                MEDIATOR: {
                    "push": ("{PRD} puts events on {Q} faster because {Q} is drained slowly.",)
                },
                DELETE: {"push": ("{PRD} puts events on {Q} more slowly than {Q} is drained.",)},
                "partial": {"flow": ("{CNS} reads events off {Q} and has other sources.",)},
                "split": {
                    "flow": ("{CNS} reads events off {Q} through {WRK} and has no other source.",)
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "PRD": "the {w1} {w2}",
                "Q": "the {w3} basin",
                "CNS": "the {w4} {w5}",
                "WRK": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} is the upper spring, the {w3} basin is the stone tank below it, and the {w4} {w5} is the band of water-carriers.",
            ),
            setting=(
                "In {w8}, a basin is said to {w7} when it tells those filling it to wait.",
                "Among the {w8}, a basin that makes its fillers wait is said to {w7}.",
                "In {w8} speech, when a basin makes its fillers pause, it is said to {w7}.",
            ),
            facts={
                "flow": (
                    "{CNS} dips from {Q} and from no river.",
                    "{Q} is emptied by {CNS}, one dip at a time, all season.",
                    "Every drop {CNS} hauls is drawn out of {Q}.",
                ),
                "push": (
                    "{PRD} pours into {Q} faster than it empties.",
                    "{PRD} pours more into {Q} each hour than leaves it, day after day.",
                    "{PRD} spills into {Q} more swiftly than any dipping drains it.",
                ),
                "slow": (
                    "{CNS} was slow that season.",
                    "{CNS} dipped at half its usual pace.",
                    "{CNS} plodded, hobbled by a lame mule.",
                ),
                "nocap": (
                    "{Q} does not {w7}: nothing tells {PRD} to wait.",
                    "Since {Q} cannot {w7}, {PRD} pours on regardless.",
                    "{Q} lacks the power to {w7}, so {PRD} pours unchecked.",
                ),
                "pileup": (
                    "So {Q} rose and rose.",
                    "The excess gathered in {Q}.",
                    "Water climbed the walls of {Q}.",
                ),
            },
            symptom=(
                "{Q} brimmed over and flooded the lower terraces.",
                "{Q} overflowed by the third day.",
                "Water poured over the rim of {Q}.",
            ),
            variants={
                MEDIATOR: {"push": ("{PRD} pours into {Q} faster whenever it empties slowly.",)},
                DELETE: {"push": ("{PRD} pours less into {Q} each hour than leaves it.",)},
                "partial": {"flow": ("{CNS} dips from {Q} and from the river as well.",)},
                "split": {"flow": ("{CNS} dips from {Q} through {WRK}, and from no river.",)},
            },
        ),
    ),
)
