"""Asides: structurally irrelevant sentences that make incident notes read like real ones.

An aside is a time phrase joined to a domain event ("The Tuesday before, a locum registrar
covered two of the night shifts."): every domain has its own events, about a third of them with
a negation, so a domain's pool holds a few hundred distinct sentences. A bench deals asides from
one seeded :class:`Dealer` without replacement, so no aside sentence is ever shared by two texts
of one bench (tested; a surface trap in a target's domain may tell the same events as the target
at other times, :meth:`Dealer.deal_like`), and how many asides a note gets is drawn the same way whatever its structure, so
neither length nor negation words tell a decoy from a true analogue.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

TIMES: tuple[str, ...] = (
    "Earlier that week",
    "The day before",
    "That morning",
    "A fortnight earlier",
    "The previous Tuesday",
    "In the small hours before",
    "Two days earlier",
    "Over the weekend before",
    "At the start of the month",
    "A month earlier",
    "The same afternoon",
    "Shortly before",
    "Three weeks earlier",
    "On the Monday",
    "The week before",
    "Earlier that day",
    "Some days before",
    "On the Friday before",
    "That same week",
    "Just after midnight",
)

EVENTS: dict[str, tuple[str, ...]] = {
    "software": (
        "the on-call engineer had swapped a shift with a colleague",
        "nobody had deployed anything to that cluster",
        "a certificate on an unrelated site was renewed",
        "the team moved its stand-up to the afternoon",
        "the status page was redesigned",
        "a brief network blip in another region was logged and closed",
        "no maintenance was scheduled in any region",
        "two engineers were away at a conference",
        "the build server was given more disk",
        "a new starter shadowed the on-call rota",
        "the logging vendor sent its usual monthly report",
        "the office wifi dropped out for an hour",
        "the payments side stayed quiet",
        "a library upgrade was postponed to the next sprint",
        "the team closed a backlog of old tickets",
        "the staging database was refreshed as usual",
        "nobody changed the firewall rules",
        "a customer asked for a copy of the uptime report",
        "the quarterly security scan came back clean",
        "the runbook for an older service was archived",
        "the team lead was on leave",
    ),
    "finance": (
        "the desk moved to the fourth floor",
        "no regulatory deadline fell in the period",
        "the controls review was signed off",
        "a junior analyst joined the team",
        "market volumes were close to normal",
        "nobody changed the chart of accounts",
        "an auditor asked about petty cash",
        "the currency desk reported a quiet session",
        "the office closed early for a fire drill",
        "the payroll run went out on time",
        "a supplier sent a corrected invoice",
        "the finance director was travelling",
        "no new bank accounts were opened",
        "the team finished migrating old spreadsheets",
        "the tax adviser sent a routine memo",
        "interest rates did not move",
        "a board pack was printed and bound",
        "the expense system was briefly offline",
        "two invoices were queried and settled",
        "the insurers renewed the usual cover",
        "nobody from the bank called about the account",
    ),
    "medicine": (
        "the ward passed its infection-control audit",
        "a locum registrar covered two night shifts",
        "no agency nurses were on the rota",
        "bed occupancy sat close to the usual figure",
        "a fire drill ran in the outpatient block",
        "the pharmacy was short of one brand of saline",
        "nobody new joined the nursing team",
        "the consultant was away at a meeting",
        "the hospital switched its catering supplier",
        "a porter strike was called off",
        "no patients transferred in from other hospitals",
        "the ward kitchen was repainted",
        "a student nurse began her placement",
        "the lifts in the east wing were serviced",
        "visiting hours were extended for the holiday",
        "the chaplain held a service on the ward",
        "the car park barrier broke and was mended",
        "the matron ran her usual spot checks",
        "the blood bank reported normal stock",
        "no one called in sick",
        "the ward ordered new pillows",
    ),
    "logistics": (
        "volumes ran in line with the forecast",
        "no drivers called in sick",
        "the roads were dry and clear",
        "nobody had changed the shift pattern",
        "a forklift passed its inspection",
        "the canteen reopened after a refit",
        "a customer audited the site",
        "roadworks closed one lane of the ring road",
        "the yard was resurfaced",
        "a new racking aisle was labelled",
        "the fuel card supplier changed its terms",
        "no public holiday fell in the period",
        "two agency pickers joined the night shift",
        "the depot manager was on leave",
        "the loading bay doors were serviced",
        "a trailer was returned to the hire company",
        "no pallets were damaged in transit",
        "the weighbridge was recalibrated",
        "the site ran its annual fire drill",
        "a driver retired after thirty years",
        "the parcel carrier moved its collection time",
    ),
    "manufacturing": (
        "the line finished its planned maintenance",
        "no new operators were on shift",
        "raw material came from the usual supplier",
        "nobody altered the control settings",
        "output ran close to plan",
        "a power dip was recorded and cleared",
        "the canteen changed its menu",
        "the quality manager hosted a customer visit",
        "a tool change took place on another line",
        "the site had no safety incidents",
        "the compressor was serviced",
        "a batch of packaging arrived a day behind but complete",
        "the plant manager was on holiday",
        "the paint shop ran a trial colour",
        "no overtime was booked",
        "an apprentice started in the toolroom",
        "the fire alarm was tested",
        "the union rep met the shift leads",
        "a pallet of spares was counted and shelved",
        "the floor was marked out afresh",
        "the warehouse took a delivery of steel",
    ),
    "ecology": (
        "rainfall ran close to the long-term average",
        "no new survey staff joined",
        "the site boundaries did not change",
        "the access tracks stayed open",
        "volunteer numbers matched the previous year",
        "there was no grazing on the site",
        "a storm felled a hedge on the far side",
        "the survey method was written up again",
        "a school group visited the reserve",
        "the warden's van was repaired",
        "no fires were reported nearby",
        "the river ran a little higher than usual",
        "a photographer asked for access to the hide",
        "the footpath signs were replaced",
        "a neighbouring farm changed hands",
        "the bird ringers held their annual meeting",
        "nobody reported any trespass",
        "the ponds froze for two nights",
        "a grant report went to the trust",
        "the car park was cleared of litter",
        "the reserve's website was updated",
    ),
    "education": (
        "the term started on time",
        "no staff changes took place",
        "attendance sat close to the usual figure",
        "nobody on the committee declared a conflict",
        "the timetable was published early",
        "the exam board did not change",
        "a timetable clash was sorted out",
        "the school hall was repainted",
        "a parents' evening overran",
        "the head was away at a conference",
        "the library extended its opening hours",
        "a supply teacher covered two classes",
        "the sports day was moved for rain",
        "the canteen began serving breakfast",
        "no inspections were announced",
        "the governors met as usual",
        "a new printer was installed in the staff room",
        "the school bus ran ten minutes behind",
        "the drama club put on its play",
        "nobody lost any coursework",
        "the heating failed in one classroom",
    ),
    "aviation": (
        "the weather was fine with light winds",
        "no aircraft sat on the deferred-defect list",
        "the crew were all current on their training",
        "nobody worked beyond normal hours",
        "traffic ran at typical levels",
        "no notices were in force for the airfield",
        "a bird strike was reported on another aircraft",
        "a radio fault was logged and closed",
        "a runway inspection took place",
        "the catering truck would not start",
        "the terminal ran a fire drill",
        "the chief pilot was on leave",
        "a new first officer joined the base",
        "the hangar doors were serviced",
        "no diversions came in",
        "fuel prices did not change",
        "the de-icing rig was tested",
        "the crew room was refurbished",
        "a simulator session was rescheduled",
        "nobody reported a near miss",
        "the airport changed its parking contractor",
    ),
    "nonce": (
        "the {w11} lay calm",
        "no strangers came through {w8}",
        "nobody in {w8} remembered anything like it",
        "folk went about the {w11} as usual",
        "there was no feast or fast",
        "a quarrel broke out at the {w12} and was settled",
        "the wind changed and changed back",
        "a wedding was held at the {w12}",
        "the elders met and agreed on nothing new",
        "a cart lost a wheel on the road to {w8}",
        "the children of {w8} held their games",
        "nobody fell ill",
        "the well was cleaned",
        "a traveller sold ribbons at the {w12}",
        "the {w11} flooded a little and drained again",
        "the old bell-ringer took a day off",
        "no one moved house",
        "the bakers of {w8} baked twice as much bread",
        "a goat got loose and was caught",
        "the lamp-lighters changed their round",
        "the roof of the {w12} was patched",
    ),
}


def pool(domain: str, kind: str) -> tuple[str, ...]:
    """Every aside sentence for a skin: its domain's events (the nonce pool for nonce skins),
    each after every time phrase."""
    events = EVENTS["nonce" if kind == "nonce" else domain]
    return tuple(f"{t}, {e}." for e in events for t in TIMES)


@dataclass
class Dealer:
    """Hands out asides without replacement, per domain pool, from one seeded shuffle.

    One dealer serves a whole bench, so no aside appears in two of its texts. When a pool runs
    out a note simply gets fewer asides.
    """

    seed: int | str
    _decks: dict[str, list[str]] = field(default_factory=dict)

    def deal(self, domain: str, kind: str, n: int) -> list[str]:
        key = "nonce" if kind == "nonce" else domain
        if key not in self._decks:
            deck = list(pool(domain, kind))
            random.Random(f"asides|{self.seed}|{key}").shuffle(deck)
            self._decks[key] = deck
        deck = self._decks[key]
        out: list[str] = []
        events: set[str] = set()
        for aside in list(deck):
            if len(out) == n:
                break
            event = aside.split(", ", 1)[1]
            if event not in events:  # one text never tells the same event twice
                events.add(event)
                out.append(aside)
                deck.remove(aside)
        return out

    def deal_like(self, domain: str, kind: str, asides: tuple[str, ...]) -> list[str]:
        """Asides telling the same events as ``asides`` at other times (still never a sentence
        dealt before): a surface trap in the target's domain reads like the target's own note."""
        self.deal(domain, kind, 0)
        deck = self._decks["nonce" if kind == "nonce" else domain]
        out = []
        for a in asides:
            event = a.split(", ", 1)[1]
            hit = next((x for x in deck if x.split(", ", 1)[1] == event), None)
            if hit is not None:
                deck.remove(hit)
                out.append(hit)
        return out


MAX_ASIDES = 3
