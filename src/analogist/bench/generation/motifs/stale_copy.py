"""Stale derived copy trusted over its source (development motif).

A consumer reads a periodic copy instead of the record it was made from; the copy lags, the
claim built on it is wrong. Fix: bring the copy level with the source at the moment of use.
Decoys: the copy is really independent state with its own errors (re-syncing it overwrites good
data: worse), or the wrong claim came first and was written back into the copy.
"""

from analogist.bench.generation.motif import (
    COPIED,
    DELETE,
    REVERSE,
    Edit,
    Motif,
    Skin,
    Split,
    Variant,
)
from analogist.bench.generation.simulate import Dynamics

MOTIF = Motif(
    name="stale_copy",
    title="stale derived copy trusted over source",
    aliases=("stale copy", "derived copy"),
    roles={
        "SRC": "authoritative source",
        "DER": "derived copy",
        "CON": "consumer that makes a claim",
    },
    relations=(
        "derives_from(DER,SRC)",
        "trusts_as_authoritative(CON,DER)",
        "skips_check(CON,SRC)",
        "diverges_from(DER,SRC)",
    ),
    chain=(
        ("derives_from(DER,SRC)", "enables", "stale(DER)"),
        ("derives_from(DER,SRC)", "prevents", "corrupted(DER)"),
        ("stale(DER)", "causes", "diverges_from(DER,SRC)"),
        ("corrupted(DER)", "causes", "diverges_from(DER,SRC)"),
        ("diverges_from(DER,SRC)", "causes", "false_claim(CON)"),
        ("trusts_as_authoritative(CON,DER)", "enables", "false_claim(CON)"),
    ),
    symptom_node="false_claim(CON)",
    symptom="confident assertion contradicted by later evidence",
    invariant="claims about state are read from the authoritative source",
    fix="reconcile(CON,DER,SRC)",
    qualifier="before assert",
    wrong_fixes=("refresh(DER)", "repair(DER)", "cross_check(CON,SRC)"),
    alt_fixes=("distrust(CON,DER)",),
    levels={
        "L1": "{CON} read {DER} in place of {SRC} and repeated its gap",
        "L2": "Derived copy treated as authoritative; divergence propagated",
        "L3": "Proxy mistaken for referent",
    },
    dynamics=Dynamics(),
    facts={
        "copy": ("derives_from(DER,SRC)", "c2"),
        "lag": ("c1", "c3"),
        "trust": ("trusts_as_authoritative(CON,DER)", "skips_check(CON,SRC)", "c6"),
        "claim": ("diverges_from(DER,SRC)", "c5"),
    },
    decoys=(
        Variant(
            COPIED,
            Edit(COPIED, "derives_from(DER,SRC)"),
            "repair(DER)",
            "Independently kept record with its own errors trusted by a consumer",
            "Unreliable witness believed",
        ),
        Variant(
            REVERSE,
            Edit(REVERSE, "c5"),
            "distrust(CON,DER)",
            "Consumer's own error written back into the record it reads",
            "Error flows back into its own evidence",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DELETE, "c1"),
        "reconcile(CON,DER,SRC)",
        "Lagging record treated as authoritative",
        "Proxy mistaken for referent",
    ),
    split=Split(
        "derives_from(DER,SRC)", "MID", "intermediate copy between source and derived copy"
    ),
    skins=(
        Skin(
            name="ward",
            domain="medicine",
            kind="ordinary",
            entities={
                "SRC": "the electronic medication chart",
                "DER": "the ward whiteboard",
                "CON": "the night handover",
                "MID": "the pharmacy printout",
            },
            setting=(
                "Ward 7B, night of the 12th.",
                "Incident review from the surgical ward.",
                "Medication incident, surgical floor, Thursday.",
            ),
            facts={
                "copy": (
                    "Everything on {DER} is transcribed by hand from {SRC}; nobody writes on it directly.",
                    "{DER} is filled in only by transcribing {SRC} at the start of each shift.",
                    "{DER} is redrawn from {SRC} at each changeover, with no other entries.",
                ),
                "lag": (
                    "By the end of a shift, {DER} can be hours behind {SRC}.",
                    "Towards the end of each shift {DER} no longer matches {SRC}.",
                    "Changes made in {SRC} after the round are absent from {DER}.",
                ),
                "trust": (
                    "At {CON} the nurses read doses straight off {DER} and never open {SRC}.",
                    "{CON} takes {DER} as the record and nobody looks at {SRC}.",
                    "Whoever leads {CON} recites doses from {DER}; {SRC} stays unopened.",
                ),
                "claim": (
                    "The gap between {DER} and {SRC} went straight into {CON}.",
                    "Whatever {DER} had wrong compared with {SRC} was repeated at {CON}.",
                    "Each mismatch of {DER} with {SRC} was spoken aloud, unchanged, at {CON}.",
                ),
            },
            symptom=(
                "{CON} reported that bed 4 had been given the evening antibiotic; the dose had been cancelled hours earlier.",
                "A patient was handed over as due an antibiotic that had already been stopped and swapped that afternoon.",
                "{CON} listed an antibiotic as due that had been withdrawn at lunchtime.",
            ),
            variants={
                COPIED: {
                    "copy": (
                        "Nothing on {DER} is transcribed from {SRC}; everyone writes on it directly, by hand.",
                    )
                },
                REVERSE: {
                    "claim": (
                        "The gap between {DER} and {SRC} went straight from {CON} onto {DER}.",
                    )
                },
                "partial": {
                    "lag": (
                        "By the end of a shift, {DER} can be hours behind {SRC}, for reasons other than the transcribing.",
                    )
                },
                "split": {
                    "copy": (
                        "{DER} is filled in only by transcribing {MID}, printed from {SRC} at the start of each shift.",
                    )
                },
            },
        ),
        Skin(
            name="ledger",
            domain="finance",
            kind="ordinary",
            entities={
                "SRC": "the bank's settlement system",
                "DER": "the treasury spreadsheet",
                "CON": "the quarter-end cash statement",
                "MID": "the overnight export file",
            },
            setting=(
                "Finance close, third quarter.",
                "Write-up from the audit committee meeting.",
                "Treasury review after the Q3 close.",
            ),
            facts={
                "copy": (
                    "{DER} is pasted in from {SRC} every evening and never edited by hand.",
                    "Balances in {DER} come only from an evening paste of {SRC}.",
                    "{DER} is loaded solely from a nightly dump of {SRC}.",
                ),
                "lag": (
                    "By mid-afternoon {DER} is missing every payment {SRC} has booked that day.",
                    "By mid-afternoon {DER} is missing every movement since the night before.",
                    "Whatever {SRC} settles during the trading day surfaces in {DER} a day later.",
                ),
                "trust": (
                    "{CON} is built from {DER}; the team never logs in to {SRC} for it.",
                    "The authors of {CON} treat {DER} as the books and do not query {SRC}.",
                    "Every figure in {CON} is lifted from {DER}; {SRC} goes unconsulted.",
                ),
                "claim": (
                    "Any gap between {DER} and {SRC} flows straight into {CON}.",
                    "What {DER} got wrong against {SRC} ended up printed in {CON}.",
                    "Each discrepancy of {DER} relative to {SRC} is carried into {CON}.",
                ),
            },
            symptom=(
                "{CON} showed two million more cash on hand than the bank held; a supplier run had cleared that afternoon.",
                "The board signed off {CON} with a cash figure the bank contradicted a week on.",
                "The cash figure in {CON} was overstated by two million, as the bank showed a week on.",
            ),
            variants={
                COPIED: {
                    "copy": (
                        "{DER} is never pasted in from {SRC}; it is edited by hand every evening.",
                    )
                },
                REVERSE: {
                    "claim": ("What {DER} got wrong against {SRC} was printed first in {CON}.",)
                },
                "partial": {
                    "lag": (
                        "By mid-afternoon {DER} is missing every payment {SRC} has booked that day, for reasons other than the paste.",
                    )
                },
                "split": {
                    "copy": (
                        "{DER} is pasted in from {MID}, written by {SRC} every evening, and never edited by hand.",
                    )
                },
            },
        ),
        Skin(
            name="depot",
            domain="logistics",
            kind="ordinary",
            entities={
                "SRC": "the warehouse scanner database",
                "DER": "the stock board in the dispatch office",
                "CON": "the customer promise-date desk",
                "MID": "the shift summary sheet",
            },
            setting=(
                "Regional depot, Tuesday dispatch.",
                "Notes from the depot's weekly ops review.",
                "Customer complaints review, regional depot.",
            ),
            facts={
                "copy": (
                    "{DER} is rewritten from {SRC} at each shift change and nothing else goes on it.",
                    "Counts on {DER} are only ever rewritten from {SRC} when shifts swap.",
                    "A clerk updates {DER} from {SRC} as crews change, adding no figure of their own.",
                ),
                "lag": (
                    "Mid-shift, {DER} still shows the counts from hours before.",
                    "Hours into a shift, {DER} no longer matches what {SRC} has on record.",
                    "Picks scanned into {SRC} after a crew change reach {DER} only at the next one.",
                ),
                "trust": (
                    "{CON} quotes availability from {DER} and has no login to {SRC}.",
                    "Staff at {CON} treat {DER} as the truth about stock and never query {SRC}.",
                    "Agents at {CON} go by {DER} and have no access to {SRC}.",
                ),
                "claim": (
                    "Every gap between {DER} and {SRC} turns into a promise at {CON}.",
                    "The difference between {DER} and {SRC} was passed on word for word by {CON}.",
                    "Any count on {DER} that disagrees with {SRC} is quoted to callers by {CON}.",
                ),
            },
            symptom=(
                "{CON} promised forty pallets of tiles for Friday; the scanners showed the bay had been emptied that morning.",
                "Customers were promised next-day delivery on items that had already left the building.",
                "{CON} quoted Friday stock that the scanners had shown gone since breakfast.",
            ),
            variants={
                COPIED: {
                    "copy": (
                        "{DER} is rewritten by hand at each shift change, and nothing from {SRC} goes on it.",
                    )
                },
                REVERSE: {
                    "claim": ("Every gap between {DER} and {SRC} began as a promise at {CON}.",)
                },
                "partial": {
                    "lag": (
                        "Just after a shift change {DER} still shows the counts from hours before.",
                    )
                },
                "split": {
                    "copy": (
                        "{DER} is rewritten from {MID}, itself taken from {SRC} at each shift change, and nothing else goes on it.",
                    )
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "SRC": "the {w1} {w2}",
                "DER": "the {w3} {w4}",
                "CON": "the {w5} {w6}",
                "MID": "the {w9} {w4}",
            },
            glossary=(
                "The {w1} {w2} is the master tally kept in the store-house, the {w3} {w4} is a board hung in the yard, and the {w5} {w6} is the crier who calls out what is in stock.",
            ),
            setting=(
                "In the {w8} works, to {w7} a tally means to copy it over by hand.",
                "Among the {w8}, to {w7} is to make a hand copy of a tally.",
                "The {w8} say a tally is {w7}ed when it is copied over by hand.",
            ),
            facts={
                "copy": (
                    "{DER} is {w7}ed from {SRC} at each bell and nothing else is written on it.",
                    "{DER} carries only what was {w7}ed from {SRC} at the last bell.",
                    "At every bell {SRC} is {w7}ed onto {DER}, and that is all it ever bears.",
                ),
                "lag": (
                    "Between bells {DER} falls behind {SRC}.",
                    "Long after a bell, {DER} no longer matches {SRC}.",
                    "{DER} shows {SRC} as it was at the last bell.",
                ),
                "trust": (
                    "{CON} reads only {DER} and never goes to {SRC}.",
                    "{CON} takes {DER} as the true tally and never looks at {SRC}.",
                    "{CON} calls out whatever {DER} says and has no dealings with {SRC}.",
                ),
                "claim": (
                    "The gap between {DER} and {SRC} went straight into what {CON} announced.",
                    "What {DER} had wrong against {SRC} was announced by {CON}.",
                    "Wherever {DER} parts from {SRC}, {CON} cries out what {DER} shows.",
                ),
            },
            symptom=(
                "{CON} announced a full count of {w10}; {SRC} had shown none for half a day.",
                "{CON} declared the {w10} all present, and it proved untrue.",
                "{CON} cried out {w10} in plenty when there were none left.",
            ),
            variants={
                COPIED: {
                    "copy": (
                        "{DER} is written on at each bell, and nothing on it is {w7}ed from {SRC}.",
                    )
                },
                REVERSE: {
                    "claim": (
                        "The gap between {DER} and {SRC} came straight from what {CON} announced.",
                    )
                },
                "partial": {"lag": ("Even at a bell, {DER} no longer matches {SRC}.",)},
                "split": {
                    "copy": (
                        "{MID} is {w7}ed from {SRC} at each bell, and {DER} is {w7}ed only from {MID}.",
                    )
                },
            },
        ),
    ),
)
