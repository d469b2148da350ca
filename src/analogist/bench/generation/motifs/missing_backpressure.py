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
            ),
            facts={
                "flow": (
                    "{CNS} draw containers from {Q} to load onto trains.",
                    "{Q} empties only as {CNS} load trains from it.",
                ),
                "push": (
                    "{PRD} unload into {Q} on their own schedule, faster than it empties.",
                    "Every day {PRD} put more into {Q} than leaves it.",
                ),
                "slow": (
                    "{CNS} were short-staffed and working at half pace.",
                    "With half their people out, {CNS} were loading slowly.",
                ),
                "nocap": (
                    "Nothing tells {PRD} to ease off or wait when {Q} fills.",
                    "{Q} has no way to turn {PRD} away when full.",
                ),
                "pileup": (
                    "So the stacks in {Q} rose day after day.",
                    "The excess simply piled up in {Q}.",
                ),
            },
            symptom=(
                "By the third week {Q} was stacked six high and spilling onto the access roads.",
                "{Q} ran out of ground, and boxes were left on the quay.",
            ),
            variants={
                MEDIATOR: {
                    "push": (
                        "{Q} was already jammed by a broken crane, and the jam is what made {PRD} keep unloading extra boxes to clear their decks.",
                    )
                },
                DELETE: {
                    "push": (
                        "{PRD} unloading is not what fills {Q}; the pile comes from customs detentions that are never collected.",
                    )
                },
                "partial": {
                    "flow": (
                        "{CNS} draw containers from {Q}, but they can also load from the inland depot.",
                    )
                },
                "split": {
                    "flow": (
                        "{CNS} draw containers from {Q} only through {WRK}, which shuttle boxes to the trains.",
                    )
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
            setting=("Line stoppage report, bottling hall.", "Shift log, Friday morning."),
            facts={
                "flow": ("{CNS} takes bottles off {Q}.", "{Q} is emptied by {CNS}."),
                "push": (
                    "{PRD} pushes bottles onto {Q} at full speed, faster than they leave.",
                    "{PRD} puts bottles onto {Q} faster than {Q} empties.",
                ),
                "slow": (
                    "{CNS} was running slow on a worn roller.",
                    "A worn roller had {CNS} at two-thirds speed.",
                ),
                "nocap": (
                    "Nothing slows {PRD} when {Q} fills up.",
                    "{Q} has no way of making {PRD} wait.",
                ),
                "pileup": (
                    "Bottles kept piling up on {Q}.",
                    "The excess collected on {Q} minute by minute.",
                ),
            },
            symptom=(
                "Within the hour {Q} overflowed and bottles were smashing onto the floor.",
                "{Q} filled completely and the line had to be halted for a clean-up.",
            ),
            variants={
                MEDIATOR: {
                    "push": (
                        "{Q} was already jammed by a tipped bottle, and the jam tripped {PRD} into refilling its rejects onto {Q}.",
                    )
                },
                DELETE: {
                    "push": (
                        "{PRD} is not what fills {Q}; bottles rejected further on are being sent back onto it.",
                    )
                },
                "partial": {
                    "flow": ("{CNS} takes bottles off {Q}, but it can also be loaded by hand.",)
                },
                "split": {"flow": ("{CNS} gets bottles from {Q} only through {WRK}.",)},
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
            setting=("Data platform incident, overnight.", "Data loss review, analytics pipeline."),
            facts={
                "flow": ("{CNS} reads events off {Q}.", "{Q} is drained by {CNS}."),
                "push": (
                    "{PRD} pushes events onto {Q} as fast as they arrive, faster than they are read.",
                    "{PRD} puts events on {Q} faster than {Q} is drained.",
                ),
                "slow": (
                    "{CNS} had slowed after a schema change.",
                    "Since a schema change, {CNS} ran at a third of its old pace.",
                ),
                "nocap": (
                    "Nothing makes {PRD} ease off when {Q} is full.",
                    "{Q} has no way to tell {PRD} to wait.",
                ),
                "pileup": (
                    "So {Q} kept getting deeper.",
                    "The excess piled up in {Q} hour after hour.",
                ),
            },
            symptom=(
                "{Q} ran out of memory at 03:00 and six hours of events were lost.",
                "{Q} filled its disk overnight and the oldest data was thrown away.",
            ),
            variants={
                MEDIATOR: {
                    "push": (
                        "{Q} was already clogged by poison messages, and the clog made {PRD} resend its unacknowledged batches.",
                    )
                },
                DELETE: {
                    "push": (
                        "{PRD} is not what fills {Q}; the bulk is failed work that {Q} keeps putting back on itself.",
                    )
                },
                "partial": {
                    "flow": (
                        "{CNS} reads events off {Q}, though it can also replay from cold storage.",
                    )
                },
                "split": {"flow": ("{CNS} reads events off {Q} only through {WRK}.",)},
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
                "The {w1} {w2} is the upper spring, the {w3} basin is the stone tank below it, and the {w4} {w5} are the water-carriers.",
            ),
            setting=(
                "In {w8}, a basin is said to {w7} when it tells those filling it to wait.",
                "Among the {w8}, a basin that makes its fillers wait is said to {w7}.",
            ),
            facts={
                "flow": ("{CNS} dips from {Q}.", "{Q} is emptied by {CNS}."),
                "push": (
                    "{PRD} pours into {Q} faster than it empties.",
                    "{PRD} pours more into {Q} each hour than leaves it.",
                ),
                "slow": ("{CNS} was slow that season.", "{CNS} dipped at half its usual pace."),
                "nocap": (
                    "{Q} does not {w7}: nothing tells {PRD} to wait.",
                    "Since {Q} cannot {w7}, {PRD} pours on regardless.",
                ),
                "pileup": ("So {Q} rose and rose.", "The excess gathered in {Q}."),
            },
            symptom=(
                "{Q} brimmed over and flooded the lower terraces.",
                "{Q} overflowed by the third day.",
            ),
            variants={
                MEDIATOR: {
                    "push": (
                        "{Q} was already choked with silt, and the choking is what set {PRD} pouring harder.",
                    )
                },
                DELETE: {"push": ("{PRD} is not what fills {Q}; a hidden spring does.",)},
                "partial": {"flow": ("{CNS} dips from {Q}, but it can dip from the river too.",)},
                "split": {"flow": ("{CNS} dips from {Q} only through {WRK}.",)},
            },
        ),
    ),
)
