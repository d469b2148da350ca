"""Thundering herd on expiry (held-out motif).

Many clients read one cached item whose expiry falls at the same instant for all of them; when
it lapses they all go to the backend together and swamp it. Fix: spread the expiry times.
Decoys: the client rush came first and also used up the cached item (a common cause), or the
backend was swamped first and its slowness kept the clients coming back (reversed).
"""

from analogist.bench.generation.motif import (
    DROP_RELATION,
    MEDIATOR,
    REVERSE,
    Edit,
    Motif,
    Skin,
    Split,
    Variant,
)
from analogist.bench.generation.simulate import Dynamics

MOTIF = Motif(
    name="thundering_herd",
    title="thundering herd on expiry",
    aliases=("thundering herd", "herd", "stampede"),
    roles={
        "CCH": "cached item with an expiry",
        "CLN": "many clients using the cached item",
        "SRV": "backend that refills it",
    },
    relations=("depends_on(CLN,CCH)", "sends_to(CLN,SRV)", "derives_from(CCH,SRV)"),
    chain=(
        ("exhausted(CCH)", "causes", "sends_to(CLN,SRV)"),
        ("sends_to(CLN,SRV)", "causes", "overloaded(SRV)"),
    ),
    symptom_node="overloaded(SRV)",
    symptom="a backend swamped the moment a shared item expired",
    invariant="refreshes of a shared item are spread out in time",
    fix="jitter(CCH)",
    qualifier="spread expiry times",
    wrong_fixes=("scale_up(SRV)", "refresh(CCH)", "backoff(CLN,SRV)"),
    alt_fixes=("coalesce(CLN,SRV)",),
    levels={
        "L1": "{CCH} expired for all of {CLN} at once and they all went to {SRV} together",
        "L2": "Synchronised expiry sends every client to the backend at the same moment",
        "L3": "Everyone moves at the same signal",
    },
    dynamics=Dynamics(),
    facts={
        "copy": ("derives_from(CCH,SRV)", "depends_on(CLN,CCH)"),
        "expiry": ("c1",),
        "rush": ("sends_to(CLN,SRV)", "c2"),
    },
    decoys=(
        Variant(
            MEDIATOR,
            Edit(MEDIATOR, "c1"),
            "coalesce(CLN,SRV)",
            "Client rush both uses up the cached item and swamps the backend",
            "Common surge mistaken for expiry",
        ),
        Variant(
            REVERSE,
            Edit(REVERSE, "c2"),
            "shed_load(SRV)",
            "Swamped backend draws repeated client requests",
            "Overload as cause of the rush",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "derives_from(CCH,SRV)"),
        "jitter(CCH)",
        "Synchronised expiry of an item from elsewhere sends every client to the backend",
        "Everyone moves at the same signal",
    ),
    split=Split("sends_to(CLN,SRV)", "LB", "router between clients and backend"),
    skins=(
        Skin(
            name="rates",
            domain="logistics",
            kind="ordinary",
            entities={
                "CCH": "the daily freight-rate sheet",
                "CLN": "the two hundred booking agents",
                "SRV": "the carrier's pricing desk",
                "LB": "the call-routing switchboard",
            },
            setting=(
                "Carrier service review, Monday.",
                "Customer-service incident, freight booking.",
                "Booking desk post-mortem, freight.",
            ),
            facts={
                "copy": (
                    "{CLN} quote from {CCH}, which is printed each morning from the figures of {SRV}.",
                    "{CCH} is a copy of the figures of {SRV}, and {CLN} quote from it all day.",
                    "{CLN} price bookings off {CCH}, whose numbers come from {SRV} every morning.",
                ),
                "expiry": (
                    "{CCH} lapses at exactly noon, and when it does every one of {CLN} needs fresh figures at once.",
                    "At noon {CCH} runs out for everyone at the same instant.",
                    "{CCH} becomes void at 12:00 sharp for every agent simultaneously.",
                ),
                "rush": (
                    "So at noon {CLN} all phone {SRV} together, and {SRV} is swamped.",
                    "The simultaneous calls from {CLN} flood {SRV}.",
                    "At 12:00 {CLN} dial {SRV} as one, and its lines jam.",
                ),
            },
            symptom=(
                "Every day at noon {SRV} stopped answering for forty minutes.",
                "{SRV} was unreachable for most of every lunchtime.",
                "Each lunchtime {SRV} went dead for the better part of an hour.",
            ),
            variants={
                MEDIATOR: {
                    "expiry": (
                        "At exactly noon every one of {CLN} needs fresh figures at once, and when they do, {CCH} lapses.",
                    )
                },
                REVERSE: {
                    "rush": (
                        "So at noon {CLN} all phone {SRV} together, because {SRV} is swamped.",
                    )
                },
                "partial": {
                    "copy": (
                        "{CCH} is a copy of another carrier's figures, and {CLN} quote from it all day.",
                    )
                },
                "split": {
                    "rush": (
                        "So at noon {CLN} all phone {SRV} through {LB} together, and {SRV} is swamped.",
                    )
                },
            },
        ),
        Skin(
            name="enrolment",
            domain="education",
            kind="ordinary",
            entities={
                "CCH": "the course registration token",
                "CLN": "the three thousand first-years",
                "SRV": "the registration server",
                "LB": "the university's login gateway",
            },
            setting=(
                "Enrolment day review, registry office.",
                "IT incident report, start of term.",
                "Registry systems debrief, welcome week.",
            ),
            facts={
                "copy": (
                    "{CLN} sign up using {CCH}, which is issued by {SRV}.",
                    "{CCH} comes from {SRV}, and {CLN} need it to register.",
                    "{SRV} mints {CCH}, and without it {CLN} cannot enrol.",
                ),
                "expiry": (
                    "Every copy of {CCH} runs out at 09:00 on enrolment day, for everyone at once.",
                    "At 09:00 every copy of {CCH} lapses together.",
                    "{CCH} expires at 09:00 for the whole cohort in one go.",
                ),
                "rush": (
                    "So at 09:00 all of {CLN} go to {SRV} in the same minute and swamp it.",
                    "The same-minute requests from {CLN} flood {SRV}.",
                    "{CLN} descend on {SRV} in a single surge and overwhelm it.",
                ),
            },
            symptom=(
                "{SRV} collapsed within a minute of opening, and enrolment slipped by two days.",
                "Nobody could register for most of the morning.",
                "{SRV} fell over minutes after opening, and enrolment ran two days behind.",
            ),
            variants={
                MEDIATOR: {
                    "expiry": (
                        "At 09:00 on enrolment day everyone goes to {SRV} at once, and so every copy of {CCH} runs out.",
                    )
                },
                REVERSE: {
                    "rush": (
                        "At 09:00 {SRV} is already swamped, so all of {CLN} go back to it in the same minute.",
                    )
                },
                "partial": {
                    "copy": ("{CCH} comes from the faculty, and {CLN} need it to register.",)
                },
                "split": {
                    "rush": (
                        "So at 09:00 all of {CLN} go through {LB} to {SRV} in the same minute and swamp it.",
                    )
                },
            },
        ),
        Skin(
            name="prescriptions",
            domain="medicine",
            kind="ordinary",
            entities={
                "CCH": "the repeat-prescription authorisations",
                "CLN": "the practice's chronic-care patients",
                "SRV": "the GP practice phone line",
                "LB": "the regional phone router",
            },
            setting=(
                "Practice complaints review, March.",
                "Access audit, village surgery.",
                "Patient access survey, GP surgery.",
            ),
            facts={
                "copy": (
                    "{CCH} are renewed from the records kept at {SRV}, and {CLN} collect medicine on them.",
                    "{CLN} collect medicine on {CCH}, which are copies of the records at {SRV}.",
                    "{CCH} is drawn up from files at {SRV}, and {CLN} need them for medicines.",
                ),
                "expiry": (
                    "All {CCH} were set to lapse on the same day, the first of the month.",
                    "On the first of the month every one of {CCH} ran out together.",
                    "Each of {CCH} had the 1st as its end date.",
                ),
                "rush": (
                    "So on the first, {CLN} all rang {SRV} at once, and {SRV} was swamped.",
                    "The same-morning calls from {CLN} flooded {SRV}.",
                    "On the 1st {CLN} phoned {SRV} en masse, tying up every line.",
                ),
            },
            symptom=(
                "{SRV} was engaged for the whole of the first week, and urgent callers could not get through.",
                "For days nobody could reach {SRV}.",
                "Patients spent the first week of the month getting no answer from {SRV}.",
            ),
            variants={
                MEDIATOR: {
                    "expiry": (
                        "On the first of the month {CLN} all rang, so every one of {CCH} ran out together.",
                    )
                },
                REVERSE: {
                    "rush": (
                        "So on the first, {SRV} was swamped, and {CLN} all rang {SRV} at once because of it.",
                    )
                },
                "partial": {
                    "copy": (
                        "{CCH} are renewed from the hospital's records, and {CLN} collect medicine on them.",
                    )
                },
                "split": {
                    "rush": (
                        "So on the first, {CLN} all rang {SRV} through {LB} at once, and {SRV} was swamped.",
                    )
                },
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "CCH": "the {w1} {w6}",
                "CLN": "the {w2} {w3}",
                "SRV": "the {w4} {w5}",
                "LB": "the {w9} {w10}",
            },
            glossary=(
                "A {w6} is a trading token, the {w2} {w3} are the pedlars, and the {w4} {w5} is the counting-house that issues tokens.",
            ),
            setting=(
                "In {w8}, a {w6} is said to {w7} when its time runs out.",
                "Among the {w8}, a {w6} whose time has run out is said to {w7}.",
                "The {w8} say a {w6} has {w7}ed once its time is up.",
            ),
            facts={
                "copy": (
                    "{CCH} is struck from the stock of {SRV}, and {CLN} trade on it.",
                    "{CLN} trade on {CCH}, which is struck from the stock of {SRV}.",
                    "{SRV} issues {CCH}, and {CLN} can do no business unless they carry one.",
                ),
                "expiry": (
                    "{CCH} {w7}s at the same bell, for everyone at once.",
                    "At the noon bell all of them {w7} together.",
                    "{CCH} {w7}s for each holder at a single stroke of the bell.",
                ),
                "rush": (
                    "So at that bell {CLN} all crowd to {SRV} at once.",
                    "The crowd of {CLN} floods {SRV}.",
                    "{CLN} throng the doors of {SRV} until it can take no more.",
                ),
            },
            symptom=(
                "{SRV} was overrun every noon and turned everyone away.",
                "Each noon {SRV} could serve no one.",
                "{SRV} shut its doors each noon, unable to cope.",
            ),
            variants={
                MEDIATOR: {
                    "expiry": ("At the same bell everyone comes to {SRV} at once, so {CCH} {w7}s.",)
                },
                REVERSE: {
                    "rush": (
                        "So at that bell {CLN} all crowd to {SRV} at once, as {SRV} is already overrun.",
                    )
                },
                "partial": {
                    "copy": (
                        "{CCH} is struck from stock other than that of {SRV}, and {CLN} trade on it.",
                    )
                },
                "split": {
                    "rush": ("So at that bell {CLN} all crowd through {LB} to {SRV} at once.",)
                },
            },
        ),
    ),
)
