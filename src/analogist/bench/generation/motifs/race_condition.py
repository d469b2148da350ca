"""Race condition (development motif).

One party checks shared state and then writes it, another writes the same state, and nothing
orders them: their updates interleave and leave the state wrong. Fix: make them take turns.
Decoys: flapping state set both parties off at once (a common cause), or the damage came from
elsewhere.
"""

from analogist.bench.generation.motif import DELETE, MEDIATOR, Edit, Motif, Skin, Split, Variant
from analogist.bench.generation.simulate import Dynamics

MOTIF = Motif(
    name="race_condition",
    title="race condition",
    aliases=("race condition", "race"),
    roles={
        "CHK": "party that checks shared state and then acts",
        "MUT": "party that changes the same state meanwhile",
        "ST": "shared state",
    },
    relations=("races_with(CHK,MUT)", "assumes(CHK,ST)", "sends_to(CHK,ST)", "sends_to(MUT,ST)"),
    chain=(
        ("races_with(CHK,MUT)", "causes", "inconsistent(ST)"),
        ("inconsistent(ST)", "causes", "corrupted(ST)"),
        ("assumes(CHK,ST)", "enables", "corrupted(ST)"),
    ),
    symptom_node="corrupted(ST)",
    symptom="shared record left wrong after two parties changed it at once",
    invariant="a check and the action that depends on it happen with nothing in between",
    fix="serialize(CHK,MUT)",
    qualifier="around the read and write",
    wrong_fixes=("repair(ST)", "backoff(CHK,ST)", "refresh(ST)"),
    alt_fixes=(),
    levels={
        "L1": "{CHK} and {MUT} changed {ST} at the same moment and left it wrong",
        "L2": "Unordered concurrent updates interleave and corrupt shared state",
        "L3": "Outcome depends on timing nobody controls",
    },
    dynamics=Dynamics(),
    facts={
        "check": ("assumes(CHK,ST)", "c3"),
        "writes": ("sends_to(CHK,ST)", "sends_to(MUT,ST)"),
        "overlap": ("races_with(CHK,MUT)", "c1"),
        "damage": ("c2",),
    },
    decoys=(
        Variant(
            MEDIATOR,
            Edit(MEDIATOR, "c1"),
            "repair(ST)",
            "Flapping state sets off both parties and damages itself",
            "Common trigger mistaken for interference",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c2"),
            "repair(ST)",
            "Shared state damaged by something other than the overlap",
            "Coincident overlap",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DELETE, "c3"),
        "serialize(CHK,MUT)",
        "Unordered concurrent writes corrupt shared state",
        "Outcome depends on timing nobody controls",
    ),
    split=Split("sends_to(MUT,ST)", "BUF", "staging area the second party writes through"),
    skins=(
        Skin(
            name="account",
            domain="finance",
            kind="ordinary",
            entities={
                "CHK": "the overdraft test in the card system",
                "MUT": "the direct-debit batch",
                "ST": "the customer's account balance",
                "BUF": "the posting queue",
            },
            setting=(
                "Payments incident review, retail bank.",
                "Complaint investigation, card payments.",
                "Ledger integrity review, card platform.",
            ),
            facts={
                "check": (
                    "{CHK} reads {ST}, decides the payment is covered, and then writes the new figure, taking for granted that {ST} has not moved in between.",
                    "Before approving, {CHK} looks at {ST} and acts as if that reading still stands when it writes.",
                    "{CHK} approves on a glance at {ST} and posts as if that glance were current.",
                ),
                "writes": (
                    "Both {CHK} and {MUT} write to {ST}.",
                    "{ST} is updated by {CHK} and by {MUT}.",
                    "{CHK} posts to {ST}, as does {MUT}.",
                ),
                "overlap": (
                    "Nothing makes {CHK} and {MUT} take turns, so at month-end they hit {ST} in the same second and their updates interleave.",
                    "{CHK} and {MUT} run with no ordering between them, and on the 1st they touched {ST} in the same instant.",
                    "No sequencing keeps {CHK} apart from {MUT}; on payday the two sets of postings to {ST} were tangled together.",
                ),
                "damage": (
                    "The interleaved updates left {ST} wrong.",
                    "Half of one update and half of the other ended up in {ST}.",
                    "{ST} carries a figure no honest sum could give.",
                ),
            },
            symptom=(
                "A card payment went through against money a debit had already taken, and {ST} showed a figure that never existed.",
                "{ST} ended the day three hundred pounds off, and two payments went through that should have bounced.",
                "{ST} showed an amount no statement could explain, and a payment cleared that should have been refused.",
            ),
            variants={
                MEDIATOR: {
                    "overlap": (
                        "{ST} was already flipping, so at month-end {CHK} and {MUT} hit it within the same second; nothing makes them take turns.",
                    )
                },
                DELETE: {
                    "damage": ("The interleaved updates left {ST} wrong, as it already was.",)
                },
                "partial": {
                    "check": (
                        "Before approving, {CHK} looks at {ST} and acts as if that reading still stands when it writes, which by itself is harmless.",
                    )
                },
                "split": {"writes": ("{ST} is updated by {CHK}, and by {MUT} through {BUF}.",)},
            },
        ),
        Skin(
            name="manifest",
            domain="logistics",
            kind="ordinary",
            entities={
                "CHK": "the depot clerk's slot lookup",
                "MUT": "the automatic route planner",
                "ST": "the van's delivery manifest",
                "BUF": "the planner's change log",
            },
            setting=(
                "Last-mile delivery failure, Thursday.",
                "Depot operations review, van 14.",
                "Van routing complaint, east depot.",
            ),
            facts={
                "check": (
                    "{CHK} reads {ST}, sees room, and writes in a new drop, taking for granted nothing changed in between.",
                    "{CHK} counts on its first look at {ST} still being true when it adds a stop.",
                    "{CHK} books a drop into a gap it spotted on {ST}, supposing the gap survives till then.",
                ),
                "writes": (
                    "Both {CHK} and {MUT} write to {ST}.",
                    "{ST} is edited by {CHK} and by {MUT}.",
                    "{ST} takes changes from {CHK} and from {MUT}.",
                ),
                "overlap": (
                    "Nothing makes {CHK} and {MUT} take turns, and at 6 a.m. they edited {ST} in the same moment.",
                    "{CHK} and {MUT} run unordered, and their edits to {ST} landed together.",
                    "No rule says whether {CHK} or {MUT} goes first, and at 6 a.m. their amendments to {ST} collided.",
                ),
                "damage": (
                    "The interleaved edits left {ST} garbled.",
                    "Parts of both edits ended up in {ST}, in the wrong order.",
                    "{ST} became a jumble of two sets of changes.",
                ),
            },
            symptom=(
                "Van 14 left with a manifest listing two drops at the same address and none at the hospital.",
                "{ST} came out mangled, and a hospital delivery was never made.",
                "{ST} sent the driver to one address twice and skipped the hospital.",
            ),
            variants={
                MEDIATOR: {
                    "overlap": (
                        "{CHK} and {MUT} run unordered, and {ST} flipping made their edits to it land together.",
                    )
                },
                DELETE: {"damage": ("Parts of both edits ended up in {ST}, in the right order.",)},
                "partial": {
                    "check": (
                        "{CHK} counts on its first look at {ST} still being true when it adds a stop, which is harmless.",
                    )
                },
                "split": {"writes": ("{ST} is edited by {CHK}, and by {MUT} via {BUF}.",)},
            },
        ),
        Skin(
            name="recipe",
            domain="manufacturing",
            kind="ordinary",
            entities={
                "CHK": "the operator's sign-off",
                "MUT": "the scheduled recipe update",
                "ST": "the mixer's recipe record",
                "BUF": "the recipe staging table",
            },
            setting=(
                "Quality incident, resin plant.",
                "Scrap investigation, mixing hall B.",
                "Batch deviation report, resin line.",
            ),
            facts={
                "check": (
                    "{CHK} reads {ST}, confirms the settings, and then writes the batch number, taking for granted nothing moved in between.",
                    "{CHK} acts on its first reading of {ST} as though it were still current when it writes.",
                    "{CHK} stamps {ST} on the strength of a check made seconds before, presuming it unaltered.",
                ),
                "writes": (
                    "Both {CHK} and {MUT} write to {ST}.",
                    "{ST} is written by {CHK} and by {MUT}.",
                    "{CHK} and {MUT} each save into {ST}.",
                ),
                "overlap": (
                    "Nothing orders {CHK} and {MUT}, and at shift start they wrote {ST} in the same second.",
                    "{CHK} and {MUT} run unordered, and their writes to {ST} overlapped.",
                    "No interlock separates {CHK} from {MUT}, and at the shift start their saves to {ST} coincided.",
                ),
                "damage": (
                    "The interleaved writes left {ST} half old and half new.",
                    "{ST} ended up with a mix of both writes.",
                    "{ST} is now a patchwork of old settings and new.",
                ),
            },
            symptom=(
                "Batch 4471 was mixed with the old temperature and the new timing, and two tonnes of resin were scrapped.",
                "A batch ran on a recipe that was half last week's and half this week's.",
                "Two tonnes of resin came out of spec from a recipe no one had written.",
            ),
            variants={
                MEDIATOR: {
                    "overlap": (
                        "{CHK} and {MUT} run unordered, and {ST} toggling made their writes to it overlap.",
                    )
                },
                DELETE: {
                    "damage": (
                        "The interleaved writes left {ST} half old and half new, as it already was.",
                    )
                },
                "partial": {
                    "check": (
                        "{CHK} acts on its first reading of {ST} as though it were still current when it writes, which is harmless in itself.",
                    )
                },
                "split": {"writes": ("{ST} is written by {CHK}, and by {MUT} from {BUF}.",)},
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "CHK": "the {w1} {w2}",
                "MUT": "the {w3} {w4}",
                "ST": "the {w5} slate",
                "BUF": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} is the miller's boy, and the {w3} {w4} is the carter's girl; the {w5} slate records how many sacks are in the loft.",
            ),
            setting=(
                "In {w8}, to {w7} a slate is to scratch a new mark over the old.",
                "Among the {w8}, scratching a new mark over an old one is called {w7}ing.",
                "The {w8} word {w7} means to cut a fresh mark across an old one on a slate.",
            ),
            facts={
                "check": (
                    "{CHK} looks at {ST}, decides, then {w7}s it, as though nothing changed in between.",
                    "{CHK} {w7}s {ST} counting on its first look is still good.",
                    "{CHK} {w7}s {ST} on the faith of what it showed a while back.",
                ),
                "writes": (
                    "Both {CHK} and {MUT} {w7} {ST}.",
                    "{ST} is {w7}ed by {CHK} and {MUT} alike.",
                    "{CHK} {w7}s {ST}; {MUT} {w7}s it too.",
                ),
                "overlap": (
                    "No one makes {CHK} and {MUT} take turns, and at dawn both {w7}ed {ST} at once.",
                    "{CHK} and {MUT} {w7} {ST} in no set order, and today they did it together.",
                    "{CHK} and {MUT} {w7} {ST} in no agreed turn, and this morning their marks crossed.",
                ),
                "damage": (
                    "The crossed marks left {ST} unreadable.",
                    "Half of each mark ended up on {ST}.",
                    "{ST} bears a muddle no one can make sense of.",
                ),
            },
            symptom=(
                "{ST} came out garbled and the whole flock went to the wrong pasture.",
                "By noon {ST} made no sense, and the wrong gate was opened.",
                "{ST} read as nonsense by midday, and sacks were sent where none were owed.",
            ),
            variants={
                MEDIATOR: {
                    "overlap": (
                        "{ST} flickered at dawn, so both {CHK} and {MUT} {w7}ed it at once; no one makes them take turns.",
                    )
                },
                DELETE: {"damage": ("The crossed marks left {ST} as unreadable as before.",)},
                "partial": {
                    "check": (
                        "{CHK} {w7}s {ST} counting on its first look is still good, and that is harmless.",
                    )
                },
                "split": {"writes": ("Both {CHK} and {MUT} {w7} {ST}, {MUT} through {BUF}.",)},
            },
        ),
    ),
)
