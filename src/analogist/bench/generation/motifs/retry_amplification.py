"""Retry amplification (development motif).

A caller repeats every timed-out request at once; when the callee slows, the repeats add to its
load, more calls time out, and a blip becomes a sustained overload. Fix: back off between
repeats. Decoys: the caller's own errors drive the load (a common cause), or the repeats run on
a fixed timer and are not a reaction to failures.
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
    name="retry_amplification",
    title="retry amplification",
    aliases=("retry storm", "retry"),
    roles={
        "CLI": "caller that repeats failed requests",
        "SRV": "callee under load",
        "UPS": "users whose requests the caller serves",
    },
    relations=("retries(CLI,SRV)", "depends_on(CLI,SRV)", "sends_to(CLI,SRV)", "sends_to(UPS,CLI)"),
    chain=(
        ("overloaded(SRV)", "causes", "fails(CLI)"),
        ("fails(CLI)", "causes", "retries(CLI,SRV)"),
        ("retries(CLI,SRV)", "amplifies", "overloaded(SRV)"),
    ),
    symptom_node="overloaded(SRV)",
    symptom="a brief slowdown that turned into a sustained overload",
    invariant="repeats of failed requests slow down as failures grow in number",
    fix="backoff(CLI,SRV)",
    qualifier="with jitter",
    wrong_fixes=("scale_up(SRV)", "repair(SRV)", "refresh(CLI)"),
    alt_fixes=("disable_retries(CLI,SRV)",),
    levels={
        "L1": "{CLI} repeated every timed-out call to {SRV} at once, turning a blip into a flood",
        "L2": "Immediate repeats of failed requests add load to an overloaded service",
        "L3": "Remedy multiplies the fault",
    },
    dynamics=Dynamics(pulses=frozenset({"overloaded(SRV)"}), gain=1.3),
    facts={
        "calls": ("sends_to(CLI,SRV)", "depends_on(CLI,SRV)", "sends_to(UPS,CLI)"),
        "timeouts": ("c1",),
        "repeat": ("retries(CLI,SRV)", "c2"),
        "pile": ("c3",),
    },
    decoys=(
        Variant(
            MEDIATOR,
            Edit(MEDIATOR, "c1"),
            "repair(CLI)",
            "Caller's own errors drive load onto the service",
            "Misattributed source of load",
        ),
        Variant(
            DELETE,
            Edit(DELETE, "c2"),
            "disable_retries(CLI,SRV)",
            "Fixed-rate repeat calls keep a service overloaded",
            "Constant pressure, no loop",
        ),
    ),
    partial=Variant(
        "partial",
        Edit(DROP_RELATION, "depends_on(CLI,SRV)"),
        "backoff(CLI,SRV)",
        "Immediate repeats of failed requests add load to an overloaded service",
        "Remedy multiplies the fault",
    ),
    split=Split("sends_to(CLI,SRV)", "PRX", "gateway between caller and callee"),
    skins=(
        Skin(
            name="scanners",
            domain="logistics",
            kind="ordinary",
            entities={
                "CLI": "the warehouse handheld scanners",
                "SRV": "the stock-lookup server",
                "UPS": "the pickers on the floor",
                "PRX": "the site's wireless gateway",
            },
            setting=(
                "Distribution centre outage, peak week.",
                "Site systems review, Monday night shift.",
                "Warehouse control room log, peak season.",
            ),
            facts={
                "calls": (
                    "{UPS} scan with {CLI}, and every scan asks {SRV} for a bin location.",
                    "Each scan by {UPS} makes {CLI} ask {SRV} where the item sits.",
                    "{CLI} must obtain a bin from {SRV} for each item {UPS} collect.",
                ),
                "timeouts": (
                    "When {SRV} slows, calls from {CLI} run out of time.",
                    "Any slowdown on {SRV} makes lookups from {CLI} time out.",
                    "Under load, {SRV} answers too slowly and {CLI} abandons the lookup.",
                ),
                "repeat": (
                    "{CLI} are set to fire the same lookup again the instant one times out.",
                    "A timed-out lookup is immediately sent again by {CLI}, and again.",
                    "{CLI} resubmits every abandoned lookup instantly, with no cap on attempts.",
                ),
                "pile": (
                    "Every repeat lands on {SRV} on top of the new work.",
                    "The repeats stack on top of the normal traffic to {SRV}.",
                    "Resubmitted lookups swell the work {SRV} is already struggling under.",
                ),
            },
            symptom=(
                "A thirty-second hiccup on {SRV} at 21:00 turned into a four-hour standstill.",
                "{SRV} stayed swamped for the whole night after a half-minute blip.",
                "Picking halted for four hours after {SRV} stumbled for half a minute.",
            ),
            variants={
                MEDIATOR: {"timeouts": ("When calls from {CLI} run out of time, {SRV} slows.",)},
                DELETE: {
                    "repeat": (
                        "{CLI} are set to fire the same lookup again every instant, timed out or answered.",
                    )
                },
                "partial": {
                    "calls": (
                        "{UPS} scan with {CLI}, and every scan asks {SRV} or their cache for a bin location.",
                    )
                },
                "split": {
                    "calls": (
                        "{UPS} scan with {CLI}, and every scan asks {SRV} through {PRX} for a bin location.",
                    )
                },
            },
        ),
        Skin(
            name="labresults",
            domain="medicine",
            kind="ordinary",
            entities={
                "CLI": "the ward order terminals",
                "SRV": "the laboratory results system",
                "UPS": "the junior doctors",
                "PRX": "the hospital integration engine",
            },
            setting=(
                "Clinical systems incident, Tuesday morning.",
                "IT service review, acute hospital.",
                "Pathology IT post-incident report.",
            ),
            facts={
                "calls": (
                    "{UPS} request results through {CLI}, which query {SRV}.",
                    "Every request from {UPS} makes {CLI} query {SRV}.",
                    "{CLI} has to fetch from {SRV} whatever results {UPS} want.",
                ),
                "timeouts": (
                    "When {SRV} is slow, queries from {CLI} time out.",
                    "A slow {SRV} means queries from {CLI} run out of time.",
                    "As {SRV} falls behind, {CLI} gives up waiting on it.",
                ),
                "repeat": (
                    "{CLI} resend any timed-out query straight away, as often as it takes.",
                    "Each timed-out query is sent again by {CLI} at once.",
                    "Each dropped fetch is reissued by {CLI} on the spot, endlessly.",
                ),
                "pile": (
                    "Every resend lands on {SRV} along with the fresh queries.",
                    "The resends arrive at {SRV} on top of normal traffic.",
                    "Reissued fetches deepen the queue {SRV} already faces.",
                ),
            },
            symptom=(
                "A brief pause in {SRV} during the morning round became a three-hour outage, and results were phoned through by hand.",
                "{SRV} was swamped all morning after a momentary stall.",
                "A momentary pause in {SRV} kept results from appearing for most of the morning.",
            ),
            variants={
                MEDIATOR: {"timeouts": ("When queries from {CLI} time out, {SRV} is slow.",)},
                DELETE: {
                    "repeat": (
                        "Each query is sent again by {CLI} at set times, timed out or answered.",
                    )
                },
                "partial": {
                    "calls": (
                        "{UPS} request results through {CLI}, which query {SRV} or their cache.",
                    )
                },
                "split": {
                    "calls": (
                        "{UPS} request results through {CLI}, which query {SRV} through {PRX}.",
                    )
                },
            },
        ),
        Skin(
            name="quotes",
            domain="finance",
            kind="ordinary",
            entities={
                "CLI": "the trading desk's pricing screens",
                "SRV": "the market-data feed handler",
                "UPS": "the traders",
                "PRX": "the desk's message broker",
            },
            setting=(
                "Trading floor incident, Monday open.",
                "Technology risk review, rates desk.",
                "Desk outage retrospective, market open.",
            ),
            facts={
                "calls": (
                    "{UPS} price deals on {CLI}, and each price asks {SRV} for the latest quote.",
                    "Every quote {UPS} pull up makes {CLI} ask {SRV}.",
                    "{CLI} pulls a tick from {SRV} per price {UPS} quote.",
                ),
                "timeouts": (
                    "When {SRV} lags, requests from {CLI} time out.",
                    "A lagging {SRV} makes requests from {CLI} run out of time.",
                    "If {SRV} stalls, each request {CLI} makes expires unanswered.",
                ),
                "repeat": (
                    "{CLI} fire the request again the moment it times out.",
                    "{CLI} send any timed-out request again immediately.",
                    "{CLI} hammers out a duplicate request the moment one expires.",
                ),
                "pile": (
                    "Every repeat adds to what {SRV} has to handle.",
                    "The repeats pile onto {SRV} alongside the fresh requests.",
                    "Duplicates heap extra strain on {SRV}.",
                ),
            },
            symptom=(
                "A two-second hitch at the open kept {SRV} swamped until lunchtime, and the desk traded blind.",
                "{SRV} stayed swamped for three hours after a two-second stall.",
                "A two-second hiccup at {SRV} left traders pricing nothing until lunch.",
            ),
            variants={
                MEDIATOR: {"timeouts": ("When requests from {CLI} time out, {SRV} lags.",)},
                DELETE: {
                    "repeat": (
                        "{CLI} fire the request again every moment, whether it times out or succeeds.",
                    )
                },
                "partial": {
                    "calls": ("Every quote {UPS} pull up makes {CLI} ask {SRV} or a cached price.",)
                },
                "split": {"calls": ("Every quote {UPS} pull up makes {CLI} ask {SRV} via {PRX}.",)},
            },
        ),
        Skin(
            name="nonce",
            domain="{w8}",
            kind="nonce",
            entities={
                "CLI": "the {w1} {w2}",
                "SRV": "the {w3} {w4}",
                "UPS": "the {w5} folk",
                "PRX": "the {w9} {w10}",
            },
            glossary=(
                "The {w1} {w2} is the messenger post, the {w3} {w4} is the keeper's house at the pass, and the {w5} folk are the villagers who send errands.",
            ),
            setting=(
                "In {w8}, to {w7} is to knock again at once when no one answers.",
                "Among the {w8}, knocking again at once when nobody answers is called {w7}ing.",
                "The {w8} call it {w7}ing when a caller who gets no answer knocks a second time straight away.",
            ),
            facts={
                "calls": (
                    "{UPS} send word through {CLI}, which knocks at {SRV}.",
                    "Every errand from {UPS} sends {CLI} knocking at {SRV}.",
                    "{CLI} carries errands from {UPS} to {SRV} and needs its answer.",
                ),
                "timeouts": (
                    "When {SRV} is slow to answer, the knocks of {CLI} go unanswered.",
                    "A slow {SRV} leaves {CLI} unanswered.",
                    "Once {SRV} is crowded, {CLI} waits at its door in vain.",
                ),
                "repeat": (
                    "{CLI} knocks at {SRV} again every time a knock goes unanswered.",
                    "Unanswered, {CLI} {w7}s again and again.",
                    "Left without reply, {CLI} {w7}s at once, over and over.",
                ),
                "pile": (
                    "Each new knock adds to the crowd at the door of {SRV}.",
                    "The extra knocks pile up at {SRV}.",
                    "All that knocking thickens the throng around {SRV}.",
                ),
            },
            symptom=(
                "A moment's pause at {SRV} became a whole day of clamour.",
                "{SRV} was swamped from dawn to dusk after a brief pause.",
                "A short hush at {SRV} turned into a day-long din.",
            ),
            variants={
                MEDIATOR: {
                    "timeouts": (
                        "The knocks of {CLI} go unanswered, leaving {SRV} slow to answer.",
                    )
                },
                DELETE: {
                    "repeat": (
                        "{CLI} knocks at {SRV} again every hour, whether a knock goes answered or unanswered.",
                    )
                },
                "partial": {
                    "calls": (
                        "{UPS} send word through {CLI}, which knocks at {SRV} or another door.",
                    )
                },
                "split": {
                    "calls": (
                        "Every errand from {UPS} sends {CLI} knocking at {SRV} through {PRX}.",
                    )
                },
            },
        ),
    ),
)
