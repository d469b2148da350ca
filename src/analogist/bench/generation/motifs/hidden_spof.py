"""Single point of failure hidden by a redundancy illusion (held-out motif).

A primary and its backup both take their settings from one shared source at the same moment, so
one bad change takes out both. Fix: the backup takes changes later, from a separate path.
Decoy: the backup is really independent and failed from a fault of its own (copied state made
independent), so staggering its source changes nothing.
"""

from analogist.bench.generation.motif import (
    COPIED,
    DROP_RELATION,
    Edit,
    Motif,
    Skin,
    Split,
    Variant,
)
from analogist.bench.generation.simulate import Dynamics

MOTIF = Motif(
    name="hidden_spof",
    title="single point of failure hidden by redundancy",
    aliases=("single point of failure", "redundancy", "redundant"),
    roles={
        "PRI": "primary",
        "SEC": "backup meant to take over",
        "SHR": "shared source of settings",
    },
    relations=("derives_from(PRI,SHR)", "derives_from(SEC,SHR)", "sends_to(PRI,SEC)"),
    chain=(
        ("corrupted(SHR)", "causes", "fails(PRI)"),
        ("corrupted(SHR)", "propagates", "corrupted(SEC)"),
        ("derives_from(SEC,SHR)", "enables", "corrupted(SEC)"),
        ("derives_from(SEC,SHR)", "prevents", "degraded(SEC)"),
        ("corrupted(SEC)", "causes", "fails(SEC)"),
        ("degraded(SEC)", "causes", "fails(SEC)"),
    ),
    symptom_node="fails(SEC)",
    symptom="the backup failed at the same moment as the primary",
    invariant="a backup shares no single source with what it backs up",
    fix="diversify(SEC,SHR)",
    qualifier="stagger and separate its source",
    wrong_fixes=("repair(SEC)", "scale_up(SEC)", "refresh(SEC)"),
    alt_fixes=(),
    levels={
        "L1": "{PRI} and {SEC} both took their settings from {SHR}, so one bad change took out both",
        "L2": "Redundant pair shares a hidden common source, so one fault removes both",
        "L3": "Two of the same is still one",
    },
    dynamics=Dynamics(),
    facts={
        "pair": ("sends_to(PRI,SEC)",),
        "prim": ("derives_from(PRI,SHR)", "c1"),
        "sec": ("derives_from(SEC,SHR)", "c2", "c3", "c4"),
    },
    decoys=(
        Variant(
            COPIED,
            Edit(COPIED, "derives_from(SEC,SHR)"),
            "repair(SEC)",
            "Independent backup failing from its own fault at the same time",
            "Coincidence mistaken for common cause",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "derives_from(PRI,SHR)"),
        "diversify(SEC,SHR)",
        "Backup shares a source that one fault spoils while the primary goes too",
        "Two of the same is still one",
    ),
    split=Split("derives_from(SEC,SHR)", "STG", "local copy the backup loads from"),
    skins=(
        Skin(
            name="landing",
            domain="aviation",
            kind="ordinary",
            entities={
                "PRI": "the main landing-guidance transmitter",
                "SEC": "the standby transmitter",
                "SHR": "the shared configuration server",
                "STG": "the standby's local mirror",
            },
            setting=(
                "Navigation outage report, runway 27.",
                "Airfield systems review, Sunday morning.",
                "Air traffic engineering debrief, approach aids.",
            ),
            facts={
                "pair": (
                    "If {PRI} drops out, {SEC} is supposed to take over within seconds.",
                    "{SEC} exists to take over from {PRI}.",
                    "{SEC} stands ready to carry the approach the moment {PRI} quits.",
                ),
                "prim": (
                    "{PRI} loads its settings from {SHR}, and a bad update to {SHR} at 06:00 knocked it out.",
                    "A bad update pushed to {SHR} at 06:00 took {PRI} off the air, since {PRI} loads its settings from there.",
                    "A corrupt file arrived on {SHR} at 06:00, and {PRI}, which reads its configuration there, shut itself off.",
                ),
                "sec": (
                    "{SEC} loads the very same settings from {SHR}, at the same moment, and has none of its own.",
                    "{SEC} takes its settings from {SHR} too, in the same push, with nothing kept locally.",
                    "{SEC} boots from {SHR} as well, receiving the identical configuration in that update, with no fallback file on board.",
                ),
            },
            symptom=(
                "When {PRI} went off the air, {SEC} failed within a second, and the runway lost landing guidance for two hours.",
                "Both transmitters were out together, and inbound flights were diverted for two hours.",
                "For two hours the approach had no guidance at all, main and standby both dead.",
            ),
            variants={
                COPIED: {
                    "sec": (
                        "{SEC} loads none of the same settings from {SHR}, and has all of its own, kept locally.",
                    )
                },
                "partial": {
                    "prim": (
                        "A bad update pushed to {SHR} at 06:00 took {PRI} off the air, though it loads its settings from a disk of its own.",
                    )
                },
                "split": {
                    "sec": (
                        "{SEC} takes its settings from {STG}, filled from {SHR} in the same push, with nothing else kept locally.",
                    )
                },
            },
        ),
        Skin(
            name="recovery",
            domain="finance",
            kind="ordinary",
            entities={
                "PRI": "the primary trading data centre",
                "SEC": "the disaster-recovery site",
                "SHR": "the central certificate store",
                "STG": "the recovery site's sync job",
            },
            setting=(
                "Business continuity review, trading outage.",
                "Regulator notification, Tuesday outage.",
                "Operational resilience incident note, markets division.",
            ),
            facts={
                "pair": (
                    "If {PRI} goes dark, trading moves to {SEC}.",
                    "{SEC} is there to take over from {PRI}.",
                    "{SEC} inherits the trading should {PRI} be knocked out.",
                ),
                "prim": (
                    "{PRI} pulls its certificates from {SHR}, and an expired root certificate pushed to {SHR} brought it to a halt.",
                    "An expired root certificate pushed to {SHR} halted {PRI}, which pulls its certificates from there.",
                    "{PRI} gets its keys and trust chain via {SHR}; when a lapsed root landed there, {PRI} began refusing connections.",
                ),
                "sec": (
                    "{SEC} pulls the same certificates from {SHR} at the same moment and keeps none of its own.",
                    "{SEC} takes its certificates from {SHR} too, in the same push, with none kept locally.",
                    "{SEC} also draws its certificates from {SHR}, received in that very distribution, with no separate store.",
                ),
            },
            symptom=(
                "When {PRI} halted, {SEC} refused every connection too, and the firm could not trade for three hours.",
                "Trading moved over and {SEC} was just as dead.",
                "The switch to the recovery site achieved nothing; no client could connect for three hours.",
            ),
            variants={
                COPIED: {
                    "sec": (
                        "{SEC} pulls none of the same certificates from {SHR} and keeps every last one of its own.",
                    )
                },
                "partial": {
                    "prim": (
                        "{PRI} pulls its certificates from a separate store, yet an expired root certificate pushed to {SHR} brought it to a halt.",
                    )
                },
                "split": {
                    "sec": (
                        "{SEC} takes its certificates from {STG}, which copies them from {SHR} in the same push, with none kept locally.",
                    )
                },
            },
        ),
        Skin(
            name="orchid",
            domain="ecology",
            kind="ordinary",
            entities={
                "PRI": "the riverside population of the rare orchid",
                "SEC": "the insurance population on the reserve",
                "SHR": "the single nursery stock",
                "STG": "the propagation bed",
            },
            setting=(
                "County rare-plant report.",
                "Conservation partnership review, autumn.",
                "Plant recovery programme, species dossier.",
            ),
            facts={
                "pair": (
                    "{SEC} was planted so the orchid would survive if {PRI} was lost.",
                    "{SEC} exists as insurance for {PRI}.",
                    "Should {PRI} perish, {SEC} carries the species on.",
                ),
                "prim": (
                    "{PRI} was grown from {SHR}, and a fungus carried in {SHR} wiped it out this spring.",
                    "A fungus carried in {SHR} wiped out {PRI}, which was grown from it.",
                    "{PRI} traces back entirely to {SHR}, and a root rot harboured by {SHR} killed it this spring.",
                ),
                "sec": (
                    "{SEC} was raised from {SHR} as well, in the same batch, with no plants of any other origin.",
                    "{SEC} came from {SHR} too, in the same batch, and has no plants of its own origin.",
                    "Every plant in {SEC} descends from {SHR} too, propagated in that one round, with no outside genetic material.",
                ),
            },
            symptom=(
                "Within weeks of losing {PRI}, {SEC} died off too, and the orchid vanished from the county.",
                "{SEC} collapsed at the same time as {PRI}.",
                "The reserve plants sickened within weeks of the riverside loss, and the county lost the orchid.",
            ),
            variants={
                COPIED: {
                    "sec": (
                        "{SEC} came from wild seed, not {SHR}, in another batch, and has plants of its own origin.",
                    )
                },
                "partial": {
                    "prim": (
                        "A fungus carried in {SHR} wiped out {PRI}, which was grown from wild seed instead.",
                    )
                },
                "split": {
                    "sec": (
                        "{SEC} came from {SHR} too, through {STG}, in the same batch, and has no plants of its own origin.",
                    )
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "PRI": "the first {w1}",
                "SEC": "the second {w1}",
                "SHR": "the {w2} {w3}",
                "STG": "the {w9} {w10}",
            },
            glossary=(
                "Each {w1} is a beacon lamp on the headland, and the {w2} {w3} is the oil spring they both draw from.",
            ),
            setting=(
                "In {w8}, a lamp is said to {w7} from a spring when it draws its oil there.",
                "Among the {w8}, a lamp that draws its oil from a spring is said to {w7} from it.",
                "The {w8} say a lamp {w7}s from whichever spring fills it.",
            ),
            facts={
                "pair": (
                    "If {PRI} goes dark, {SEC} is meant to light.",
                    "{SEC} is kept to take over from {PRI}.",
                    "Once {PRI} is snuffed, {SEC} is to give the light.",
                ),
                "prim": (
                    "{PRI} {w7}s from {SHR}, and a sour batch in {SHR} put it out at dusk.",
                    "A sour batch in {SHR} put out {PRI}, which {w7}s from it.",
                    "When {SHR} soured, {PRI}, which {w7}s from it, lost its flame at dusk.",
                ),
                "sec": (
                    "{SEC} {w7}s from {SHR} too, in the same pour, with no oil of its own.",
                    "{SEC} also {w7}s from {SHR}, in the same pour, and keeps no oil of its own.",
                    "{SEC} likewise {w7}s from {SHR}, filled in that hour's pouring, with no reserve jar.",
                ),
            },
            symptom=(
                "When {PRI} went out, {SEC} guttered a moment later, and the pass was dark all night.",
                "{PRI} and {SEC} went dark together.",
                "That night both beacons stood unlit above the pass.",
            ),
            variants={
                COPIED: {
                    "sec": (
                        "{SEC} never {w7}s from {SHR}, in any pour, and keeps oil all of its own.",
                    )
                },
                "partial": {
                    "prim": (
                        "{PRI} {w7}s from its own well, yet a sour batch in {SHR} put it out at dusk.",
                    )
                },
                "split": {
                    "sec": (
                        "{SEC} {w7}s from {STG}, filled from {SHR} in the same pour, with no oil of its own.",
                    )
                },
            },
        ),
    ),
)
