"""Masking cause (development motif).

A compensating layer absorbs a worsening fault, so the watcher sees nothing and nobody is
warned until the fault fails outright. Fix: let the watcher see what the compensator absorbs.
Decoys: the warning could not have changed the outcome, or warnings only follow the
missed failure.
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
    name="masking_cause",
    title="masking cause",
    aliases=("masking",),
    roles={
        "FLT": "component with a worsening fault",
        "CMP": "compensating layer that absorbs the fault",
        "MON": "watcher",
        "OPS": "people who would act on a warning",
    },
    relations=("retries(CMP,FLT)", "filters(CMP,MON)", "alerts(MON,OPS)", "depends_on(CMP,FLT)"),
    chain=(
        ("degraded(FLT)", "causes", "alerts(MON,OPS)"),
        ("filters(CMP,MON)", "masks", "alerts(MON,OPS)"),
        ("degraded(FLT)", "causes", "missed_event(OPS)"),
        ("alerts(MON,OPS)", "prevents", "missed_event(OPS)"),
    ),
    symptom_node="missed_event(OPS)",
    symptom="a slowly worsening fault went unnoticed until it failed outright",
    invariant="compensation is itself reported, so a hidden fault stays visible",
    fix="expose(MON,CMP)",
    qualifier="so compensation is visible",
    wrong_fixes=("disable_retries(CMP,FLT)", "backoff(CMP,FLT)", "scale_up(CMP)"),
    alt_fixes=("repair(FLT)",),
    levels={
        "L1": "{CMP} absorbed the wear of {FLT}, so {MON} never warned {OPS}",
        "L2": "Compensating mechanism hid a worsening fault from monitoring",
        "L3": "Cause hidden by its own remedy",
    },
    dynamics=Dynamics(),
    facts={
        "wear": ("c1", "c3"),
        "absorb": ("retries(CMP,FLT)", "depends_on(CMP,FLT)"),
        "view": ("filters(CMP,MON)", "c2"),
        "warn": ("alerts(MON,OPS)", "c4"),
    },
    decoys=(
        Variant(
            DELETE,
            Edit(DELETE, "c4"),
            "repair(FLT)",
            "A warning that could not have changed the outcome",
            "Unheeded signal",
        ),
        Variant(
            REVERSE,
            Edit(REVERSE, "c4"),
            "repair(FLT)",
            "Warnings that only follow the missed failure",
            "Lagging indicator taken for early warning",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "retries(CMP,FLT)"),
        "expose(MON,CMP)",
        "Reserve capacity hid a worsening fault from monitoring",
        "Cause hidden by its own remedy",
    ),
    split=Split("filters(CMP,MON)", "AGG", "summary layer between compensator and watcher"),
    skins=(
        Skin(
            name="hydraulics",
            domain="aviation",
            kind="ordinary",
            entities={
                "FLT": "the left hydraulic pump",
                "CMP": "the standby accumulator",
                "MON": "the cockpit pressure gauge",
                "OPS": "the line maintenance crew",
                "AGG": "the flight-data recorder digest",
            },
            setting=(
                "Maintenance occurrence report, regional turboprop fleet.",
                "Fleet technical review, aircraft G-XR.",
                "Airworthiness investigation, turboprop hydraulics.",
            ),
            facts={
                "wear": (
                    "For several weeks {FLT} had been losing output a little more each flight.",
                    "{FLT} was wearing out, delivering less pressure every week.",
                    "Output from {FLT} had been sagging, flight after flight.",
                ),
                "absorb": (
                    "{CMP} sits behind {FLT} and tops the system up whenever {FLT} falls short, as often as needed.",
                    "Whenever {FLT} came up short, {CMP} made it up again.",
                    "{CMP} compensates for {FLT} by recharging the lines on every dip, however frequent.",
                ),
                "view": (
                    "{MON} reads the pressure only after {CMP} has made up the shortfall, so it showed normal figures throughout.",
                    "What reached {MON} was the pressure after {CMP} had topped it up, which always looked normal.",
                    "{MON} senses downstream of {CMP}, so the needle held steady on every flight.",
                ),
                "warn": (
                    "A low reading on {MON} would have been written up and passed to {OPS} the same day.",
                    "Had {MON} shown a drop, {OPS} would have been told before the next flight and grounded the aircraft there and then.",
                    "Any pressure dip showing on {MON} goes in the tech log for {OPS} to act on before departure.",
                ),
            },
            symptom=(
                "{FLT} seized on approach, and {OPS} had no prior write-up of any kind.",
                "The first {OPS} heard of the problem was a pump that seized completely on approach.",
                "{FLT} jammed on finals with nothing in the tech log to foretell it.",
            ),
            variants={
                DELETE: {
                    "warn": (
                        "A low reading on {MON} would have been written up and passed to {OPS} the same day, uselessly.",
                    )
                },
                REVERSE: {
                    "warn": (
                        "A low reading on {MON} would have been written up and passed to {OPS} only after {FLT} had quit.",
                    )
                },
                "partial": {
                    "absorb": ("Whenever {FLT} came up short, {CMP} made it up in one stroke.",)
                },
                "split": {
                    "view": (
                        "{MON} reads the pressure from {AGG} only after {CMP} has made up the shortfall, so it showed normal figures throughout.",
                    )
                },
            },
        ),
        Skin(
            name="dialysis",
            domain="medicine",
            kind="ordinary",
            entities={
                "FLT": "the patient's slowly bleeding ulcer",
                "CMP": "the routine transfusions on the dialysis unit",
                "MON": "the weekly blood count",
                "OPS": "the gut specialists",
                "AGG": "the unit's monthly summary sheet",
            },
            setting=(
                "Serious incident review, renal unit.",
                "Case conference, dialysis outpatients.",
                "Nephrology mortality and morbidity meeting.",
            ),
            facts={
                "wear": (
                    "For two months {FLT} had been losing a little blood every day.",
                    "Week by week {FLT} was getting worse.",
                    "{FLT} had oozed for months, ever more heavily.",
                ),
                "absorb": (
                    "{CMP} topped the patient up whenever levels dipped, and were repeated as often as needed.",
                    "Each time the patient's levels dipped, {CMP} made up the loss, over and over.",
                    "{CMP} restored the lost blood, bag by bag, each time a dip appeared.",
                ),
                "view": (
                    "{MON} was drawn after {CMP}, so it always came back within range.",
                    "Because {MON} was taken after each top-up, the results looked normal.",
                    "Samples for {MON} followed {CMP}, so each figure sat inside the reference band.",
                ),
                "warn": (
                    "A falling result on {MON} would have been referred to {OPS} within a day.",
                    "Any drop on {MON} goes straight to {OPS} for review, and they would have found the bleed in time.",
                    "A slide on {MON} gets flagged to {OPS}, who scope the patient promptly.",
                ),
            },
            symptom=(
                "The patient collapsed with a major bleed, and {OPS} had never been asked to look.",
                "The ulcer was found only after an emergency admission; nobody had flagged it.",
                "A massive haemorrhage put the patient in resus; no referral had ever gone out.",
            ),
            variants={
                DELETE: {
                    "warn": (
                        "A falling result on {MON} would have been referred to {OPS} within a day, to little purpose.",
                    )
                },
                REVERSE: {
                    "warn": (
                        "A falling result on {MON} would have been referred to {OPS} only after an emergency admission.",
                    )
                },
                "partial": {
                    "absorb": (
                        "Each time the patient's levels dipped, {CMP} made up the loss with a single bag.",
                    )
                },
                "split": {
                    "view": (
                        "{MON} was drawn after {CMP} and reported through {AGG}, so it always came back within range.",
                    )
                },
            },
        ),
        Skin(
            name="storage",
            domain="software",
            kind="ordinary",
            entities={
                "FLT": "the primary disk in the database server",
                "CMP": "the storage driver's automatic re-read",
                "MON": "the error dashboard",
                "OPS": "the platform engineers",
                "AGG": "the log aggregator",
            },
            setting=(
                "Outage review, customer database.",
                "Incident write-up, month-end processing.",
                "Postmortem, billing database.",
            ),
            facts={
                "wear": (
                    "For weeks {FLT} had been returning more and more bad reads.",
                    "{FLT} was slowly wearing out, failing more reads each day.",
                    "{FLT} had been accumulating bad sectors at a quickening rate.",
                ),
                "absorb": (
                    "{CMP} repeats any read from {FLT} that comes back bad, time after time until one succeeds.",
                    "Whenever {FLT} returned garbage, {CMP} simply tried again until it got good data.",
                    "{CMP} reissues each failed read on {FLT}, looping until the data comes back clean.",
                ),
                "view": (
                    "{MON} only counts errors that survive {CMP}, and none did, so it stayed green.",
                    "Errors swallowed by {CMP} never reached {MON}, which showed nothing wrong.",
                    "{CMP} absorbs each error before it is counted, leaving {MON} clean.",
                ),
                "warn": (
                    "Any error on {MON} opens a ticket for {OPS} automatically, and {OPS} would swap {FLT} before it died.",
                    "A red tile on {MON} puts a ticket in front of {OPS} within minutes.",
                    "Errors on {MON} land with {OPS} as tickets, and a disk that raises them is swapped in good time.",
                ),
            },
            symptom=(
                "{FLT} gave out completely during month-end processing, and {OPS} had no warning at all.",
                "The first sign {OPS} had was a dead disk in the middle of the month-end run.",
                "Month-end ground to a halt when {FLT} died, and nobody had been warned.",
            ),
            variants={
                DELETE: {
                    "warn": (
                        "A red tile on {MON} puts a ticket in front of {OPS} within minutes, for all the good it does.",
                    )
                },
                REVERSE: {
                    "warn": (
                        "A red tile on {MON} puts a ticket in front of {OPS} within minutes of {FLT} dying, at the earliest.",
                    )
                },
                "partial": {
                    "absorb": (
                        "Whenever {FLT} returned garbage, {CMP} simply read the mirror until it got good data.",
                    )
                },
                "split": {
                    "view": (
                        "{MON} only counts errors that survive {CMP} and reach {AGG}, and none did, so it stayed green.",
                    )
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "FLT": "the {w1} {w2}",
                "CMP": "the {w3} {w4}",
                "MON": "the {w5} glass",
                "OPS": "the {w6} keepers",
                "AGG": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} is the old cistern under the floor, and the {w3} {w4} is the pump that tops it up.",
            ),
            setting=(
                "In the {w8} mill, to {w7} is to pour extra in until a vessel reads full.",
                "At {w8}, folk say a vessel is {w7}ed when extra is poured in to keep it full.",
                "In {w8}, folk call it {w7}ing when a vessel is kept brimming by pouring more in.",
            ),
            facts={
                "wear": (
                    "{FLT} had been leaking a little more every day.",
                    "Day by day {FLT} let more slip away.",
                    "{FLT} was seeping worse with each dawn.",
                ),
                "absorb": (
                    "{CMP} {w7}s {FLT} whenever it runs low, as often as it takes.",
                    "Each time {FLT} ran low, {CMP} {w7}ed it again.",
                    "Every sag in {FLT} was {w7}ed away by {CMP}, tirelessly.",
                ),
                "view": (
                    "{MON} is read only after {CMP} has {w7}ed, so it always showed full.",
                    "Because {CMP} {w7}s first, {MON} never showed anything amiss.",
                    "{MON} is consulted once {CMP} has {w7}ed, and so it reads brim-full.",
                ),
                "warn": (
                    "A low level in {MON} would have sent word to {OPS} that same hour.",
                    "Any dip in {MON} is carried to {OPS} at once, and they would fill {FLT} again before it ran dry.",
                    "When {MON} shows a shortfall, a runner fetches {OPS} before nightfall.",
                ),
            },
            symptom=(
                "{FLT} ran dry all at once, and {OPS} had heard nothing beforehand.",
                "{OPS} learned of the leak only when {FLT} emptied completely.",
                "{OPS} found {FLT} empty one morning, with no word sent ahead.",
            ),
            variants={
                DELETE: {
                    "warn": (
                        "A low level in {MON} would have sent word to {OPS} that same hour, in vain.",
                    )
                },
                REVERSE: {
                    "warn": (
                        "A low level in {MON} would have sent word to {OPS} that same hour, once {FLT} had run dry.",
                    )
                },
                "partial": {"absorb": ("Each time {FLT} ran low, {CMP} {w7}ed it just once.",)},
                "split": {
                    "view": (
                        "{MON} is read from {AGG} only after {CMP} has {w7}ed, so it always showed full.",
                    )
                },
            },
        ),
    ),
)
