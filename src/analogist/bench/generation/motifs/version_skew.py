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
            ),
            facts={
                "contract": (
                    "Both {OLD} and {NEW} are built against {CTR}.",
                    "{CTR} is what {OLD} and {NEW} agree on.",
                ),
                "handoff": ("{NEW} passes every order to {OLD}.", "Orders go from {NEW} to {OLD}."),
                "mismatch": (
                    "About half the orders now carry a version 4 field layout that {OLD} reads differently.",
                    "Roughly every other order uses a version 4 layout that {OLD} does not understand the same way.",
                ),
            },
            symptom=(
                "For six hours {OLD} billed customers for the wrong quantities.",
                "Invoices from {OLD} came out with quantities shifted into the price column.",
            ),
            variants={
                FLIP: {
                    "mismatch": (
                        "About half the orders carry a version 4 layout, and {OLD} rejects those outright, which is what keeps them from being billed wrongly.",
                    )
                },
                DELETE: {
                    "mismatch": (
                        "The version difference is irrelevant here; {OLD} garbled orders of both layouts alike.",
                    )
                },
                "partial": {
                    "contract": (
                        "{OLD} is built against {CTR}; {NEW} carries its own definitions and pays {CTR} no attention.",
                    )
                },
                "split": {
                    "handoff": ("{NEW} puts every order on {BUS}, and {BUS} hands them to {OLD}.",)
                },
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
            ),
            facts={
                "contract": (
                    "Both {OLD} and {NEW} work to {CTR}.",
                    "{CTR} is shared by {OLD} and {NEW}.",
                ),
                "handoff": (
                    "{NEW} uploads flight plans into {OLD}.",
                    "Flight plans go from {NEW} to {OLD}.",
                ),
                "mismatch": (
                    "About half the plans now use waypoint codes from the new edition that {OLD} reads differently.",
                    "Roughly every other plan carries new-edition codes that {OLD} interprets its own way.",
                ),
            },
            symptom=(
                "Three aircraft took off with a departure route that {OLD} had quietly rewritten.",
                "Crews found routes in {OLD} that did not match their paperwork.",
            ),
            variants={
                FLIP: {
                    "mismatch": (
                        "About half the plans use the new edition's codes, and {OLD} refuses those outright, which is what keeps them from being loaded wrongly.",
                    )
                },
                DELETE: {
                    "mismatch": (
                        "The edition difference is irrelevant; {OLD} mangled plans of both editions alike.",
                    )
                },
                "partial": {
                    "contract": (
                        "{OLD} works to {CTR}; {NEW} uses its own internal format and pays {CTR} no attention.",
                    )
                },
                "split": {
                    "handoff": ("{NEW} passes plans over {BUS}, which loads them into {OLD}.",)
                },
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
            ),
            facts={
                "contract": (
                    "Both {OLD} and {NEW} follow {CTR}.",
                    "{CTR} is what {OLD} and {NEW} have in common.",
                ),
                "handoff": (
                    "{NEW} passes settlement messages back to {OLD}.",
                    "Settlement messages go from {NEW} to {OLD}.",
                ),
                "mismatch": (
                    "About half the messages now use the revised field order that {OLD} reads differently.",
                    "Roughly every other message uses a revised layout that {OLD} parses its own way.",
                ),
            },
            symptom=(
                "Customers' balances at {OLD} showed payments in the wrong currency for a day.",
                "{OLD} posted hundreds of payments with amounts and references swapped.",
            ),
            variants={
                FLIP: {
                    "mismatch": (
                        "About half the messages use the revised layout, and {OLD} bounces those outright, which is what keeps them from being posted wrongly.",
                    )
                },
                DELETE: {
                    "mismatch": (
                        "The revision is irrelevant; {OLD} scrambled messages of both layouts alike.",
                    )
                },
                "partial": {
                    "contract": (
                        "{OLD} follows {CTR}; {NEW} uses its own format and pays {CTR} no attention.",
                    )
                },
                "split": {
                    "handoff": (
                        "{NEW} passes settlement messages through {BUS}, which delivers them to {OLD}.",
                    )
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
            ),
            facts={
                "contract": (
                    "{OLD} and {NEW} both follow {CTR}.",
                    "{CTR} is kept by {OLD} and {NEW} alike.",
                ),
                "handoff": (
                    "{NEW} passes its scrolls to {OLD}.",
                    "Scrolls go from {NEW} to {OLD}.",
                ),
                "mismatch": (
                    "About half the scrolls are written in a way that makes {OLD} and {NEW} {w7}.",
                    "On roughly every other scroll, {OLD} and {NEW} {w7}.",
                ),
            },
            symptom=(
                "{OLD} copied the harvest tallies into the wrong columns all season.",
                "The tallies kept by {OLD} came out jumbled.",
            ),
            variants={
                FLIP: {
                    "mismatch": (
                        "On about half the scrolls {OLD} and {NEW} {w7}, and those {OLD} refuses outright, which is what keeps them from being copied wrongly.",
                    )
                },
                DELETE: {
                    "mismatch": (
                        "Whether they {w7} is irrelevant; {OLD} jumbled every scroll alike.",
                    )
                },
                "partial": {"contract": ("{OLD} follows {CTR}; {NEW} keeps a rite of its own.",)},
                "split": {
                    "handoff": ("{NEW} passes its scrolls to {BUS}, which carries them to {OLD}.",)
                },
            },
        ),
    ),
)
