"""Version skew (held-out motif).

During a rollout a component on the new version passes data to one still on the old version,
and about half of it uses a changed format the old side misreads. Fix: bring the old side up to
the new version first. Decoys: the mismatch makes the old side reject records safely (flip:
upgrading it is worse), or the old side garbles records whatever their version.
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
    name="version_skew",
    title="version skew",
    aliases=("version skew", "skew"),
    roles={
        "OLD": "component on the old version",
        "NEW": "component on the new version",
        "CTR": "shared contract",
    },
    relations=(
        "incompatible_with(OLD,NEW)",
        "sends_to(NEW,OLD)",
        "depends_on(OLD,CTR)",
        "depends_on(NEW,CTR)",
    ),
    chain=(
        ("sends_to(NEW,OLD)", "causes", "corrupted(OLD)"),
        ("incompatible_with(OLD,NEW)", "enables", "corrupted(OLD)"),
    ),
    symptom_node="corrupted(OLD)",
    symptom="records garbled when a new version talked to an old one",
    invariant="parties exchanging data agree on the contract's version",
    fix="upgrade(OLD,NEW)",
    qualifier="before mixed traffic",
    wrong_fixes=("repair(OLD)", "backoff(NEW,OLD)", "refresh(OLD)"),
    alt_fixes=("pause_flow(NEW,OLD)",),
    levels={
        "L1": "{NEW} passed records in a changed format to {OLD}, which misread them",
        "L2": "Mixed versions of a shared contract exchange data during a rollout",
        "L3": "Two sides speaking different editions of one language",
    },
    dynamics=Dynamics(strengths={"incompatible_with(NEW,OLD)": 0.5}),
    facts={
        "contract": ("depends_on(OLD,CTR)", "depends_on(NEW,CTR)"),
        "handoff": ("sends_to(NEW,OLD)", "c1"),
        "mismatch": ("incompatible_with(OLD,NEW)", "c2"),
    },
    decoys=(
        Variant(
            FLIP,
            Edit(FLIP, "c2"),
            "pause_flow(NEW,OLD)",
            "Format mismatch makes the old side reject records safely",
            "Incompatibility as a guard",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c2"),
            "pause_flow(NEW,OLD)",
            "Old side damages records regardless of version",
            "Version change blamed for an unrelated fault",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "depends_on(NEW,CTR)"),
        "upgrade(OLD,NEW)",
        "Mixed versions exchange data while one side keeps its own format",
        "Two sides speaking different editions of one language",
    ),
    split=Split("sends_to(NEW,OLD)", "BUS", "channel between new and old side"),
    skins=(
        Skin(
            name="rollout",
            domain="software",
            kind="ordinary",
            entities={
                "OLD": "the billing service still on version 3",
                "NEW": "the ordering service already on version 4",
                "CTR": "the shared order schema",
                "BUS": "the event bus",
            },
            setting=(
                "Rollout incident, commerce platform.",
                "Billing error review, Thursday deploy.",
                "Post-deploy incident, billing.",
            ),
            facts={
                "contract": (
                    "Both {OLD} and {NEW} get built against {CTR}.",
                    "{CTR} is what {OLD} and {NEW} agree on.",
                    "{OLD} and {NEW} each take their field definitions from {CTR}.",
                ),
                "handoff": (
                    "{NEW} passes every order to {OLD}.",
                    "Orders go from {NEW} to {OLD}.",
                    "{OLD} takes in every order that {NEW} emits.",
                ),
                "mismatch": (
                    "About half the orders now carry a version 4 field layout that {OLD} reads differently, so it bills them wrongly.",
                    "Roughly every other order uses a version 4 layout that {OLD} does not understand the same way.",
                    "As often as not an order arrives in the v4 shape, which {OLD} misparses into bad charges.",
                ),
            },
            symptom=(
                "For six hours {OLD} billed customers for the wrong quantities.",
                "Invoices from {OLD} came out with quantities shifted into the price column.",
                "{OLD} sent out invoices with quantities and prices transposed for six hours.",
            ),
            variants={
                FLIP: {
                    "mismatch": (
                        "About half the orders now carry a version 4 field layout that {OLD} rejects, so it never bills them wrongly.",
                    )
                },
                DELETE: {
                    "mismatch": (
                        "About half the orders now carry a version 4 field layout that {OLD} reads differently, but it bills every order wrongly, whatever the layout.",
                    )
                },
                "partial": {"contract": ("{OLD} and not {NEW} are built against {CTR}.",)},
                "split": {"handoff": ("{NEW} passes every order to {OLD} over {BUS}.",)},
            },
        ),
        Skin(
            name="navdata",
            domain="aviation",
            kind="ordinary",
            entities={
                "OLD": "the older flight management computers",
                "NEW": "the airline's replacement route-planning system",
                "CTR": "the navigation database format",
                "BUS": "the dispatch upload link",
            },
            setting=(
                "Flight operations safety report.",
                "Fleet systems review, navigation data cycle.",
                "Avionics data integrity report.",
            ),
            facts={
                "contract": (
                    "Both {OLD} and {NEW} work to {CTR}.",
                    "{CTR} is shared by {OLD} and {NEW}.",
                    "{CTR} is the design basis for {OLD} and for {NEW}.",
                ),
                "handoff": (
                    "{NEW} uploads flight plans into {OLD}.",
                    "Flight plans go from {NEW} to {OLD}.",
                    "{OLD} is loaded with routes by {NEW}.",
                ),
                "mismatch": (
                    "About half the plans now use waypoint codes from the new edition that {OLD} reads differently, so the routes come out wrong.",
                    "Roughly every other plan carries new-edition codes that {OLD} interprets its own way.",
                    "In one plan out of two, the fresh-edition waypoints mean something else to {OLD}, and the route is garbled.",
                ),
            },
            symptom=(
                "Three aircraft took off with a departure route that {OLD} had quietly rewritten.",
                "Crews found routes in {OLD} that did not match their paperwork.",
                "Pilots found departure routes in {OLD} that differed from the filed plan.",
            ),
            variants={
                FLIP: {
                    "mismatch": (
                        "About half the plans now use waypoint codes from the new edition that {OLD} refuses, so the routes stay safe.",
                    )
                },
                DELETE: {
                    "mismatch": (
                        "About half the plans now use waypoint codes from the new edition that {OLD} reads differently, though the routes come out wrong whatever the edition.",
                    )
                },
                "partial": {"contract": ("Of {OLD} and {NEW}, only {OLD} work to {CTR}.",)},
                "split": {"handoff": ("{NEW} uploads flight plans into {OLD} through {BUS}.",)},
            },
        ),
        Skin(
            name="clearing",
            domain="finance",
            kind="ordinary",
            entities={
                "OLD": "the branch payment terminals",
                "NEW": "the central clearing platform launched this spring",
                "CTR": "the payment message standard",
                "BUS": "the interbank gateway",
            },
            setting=(
                "Payments operations incident, migration weekend.",
                "Reconciliation break report, retail branches.",
                "Branch payments post-mortem, spring migration.",
            ),
            facts={
                "contract": (
                    "Both {OLD} and {NEW} follow {CTR}.",
                    "{CTR} is the common ground of {OLD} and {NEW}.",
                    "{OLD} conforms to {CTR}, as does {NEW}.",
                ),
                "handoff": (
                    "{NEW} passes settlement messages back to {OLD}.",
                    "Settlement messages go from {NEW} to {OLD}.",
                    "{OLD} is sent clearing confirmations by {NEW}.",
                ),
                "mismatch": (
                    "About half the messages now use the revised field order that {OLD} reads differently, so payments get posted wrongly.",
                    "Roughly every other message uses a revised layout that {OLD} parses its own way.",
                    "Every second message comes in the amended field sequence, which {OLD} misconstrues, scrambling the postings.",
                ),
            },
            symptom=(
                "Customers' balances at {OLD} showed payments in the wrong currency for a day.",
                "{OLD} posted hundreds of payments with amounts and references swapped.",
                "{OLD} showed customer balances that matched no real payment for a day.",
            ),
            variants={
                FLIP: {
                    "mismatch": (
                        "About half the messages now use the revised field order that {OLD} turns away, so payments get held safely.",
                    )
                },
                DELETE: {
                    "mismatch": (
                        "About half the messages now use the revised field order that {OLD} reads differently, but payments get posted wrongly either way.",
                    )
                },
                "partial": {"contract": ("{OLD} follow {CTR}, and {NEW} its own.",)},
                "split": {
                    "handoff": ("{NEW} passes settlement messages back to {OLD} via {BUS}.",)
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "OLD": "the {w1} {w2}",
                "NEW": "the {w3} {w4}",
                "CTR": "the {w5} rite",
                "BUS": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} is the old temple scribe, and the {w3} {w4} is the young one trained in the new school.",
            ),
            setting=(
                "In {w8}, two scribes are said to {w7} when they follow different editions of the same rite.",
                "Among the {w8}, scribes who keep different editions of one rite are said to {w7}.",
                "The {w8} say two scribes {w7} when each copies from another edition of the one rite.",
            ),
            facts={
                "contract": (
                    "{OLD} and {NEW} both follow {CTR}.",
                    "{CTR} is kept by {OLD} and {NEW} alike.",
                    "{CTR} binds {OLD} and {NEW} equally.",
                ),
                "handoff": (
                    "{NEW} passes its scrolls to {OLD}.",
                    "Scrolls go from {NEW} to {OLD}.",
                    "{OLD} receives whatever scrolls {NEW} finishes.",
                ),
                "mismatch": (
                    "About half the scrolls are written in a way that makes {OLD} and {NEW} {w7}, so {OLD} copies them wrong.",
                    "On roughly every other scroll, {OLD} and {NEW} {w7}.",
                    "In alternate scrolls {OLD} and {NEW} {w7}, and {OLD} mangles the copy.",
                ),
            },
            symptom=(
                "{OLD} copied the harvest tallies into the wrong columns all season.",
                "The tallies kept by {OLD} came out jumbled.",
                "{OLD} wrote the harvest tallies in a muddle all season.",
            ),
            variants={
                FLIP: {
                    "mismatch": (
                        "About half the scrolls are written in a way that makes {OLD} and {NEW} {w7}, so {OLD} sets them aside uncopied.",
                    )
                },
                DELETE: {
                    "mismatch": (
                        "About half the scrolls are written in a way that makes {OLD} and {NEW} {w7}, but {OLD} copies every scroll wrong.",
                    )
                },
                "partial": {"contract": ("{CTR} is kept by {OLD} and not by {NEW}.",)},
                "split": {"handoff": ("{NEW} passes its scrolls through {BUS} to {OLD}.",)},
            },
        ),
    ),
)
