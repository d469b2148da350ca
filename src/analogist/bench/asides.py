"""Asides: structurally irrelevant sentences that make incident notes read like real ones.

Each domain has a small pool shared by every motif rendered in it, so two notes from the same
domain share background vocabulary whatever their structure (which strengthens the surface
trap), and about half the asides carry a negation. :func:`~analogist.bench.render.render` drops
some of a variant's asides to match its true twin's length and negation count, so neither text
length nor negation words give a decoy away (the audit checks both).
"""

from __future__ import annotations

ASIDES: dict[str, tuple[str, ...]] = {
    "software": (
        "The on-call handover notes from the previous week were complete.",
        "No deploys were scheduled for that window.",
        "The status page was updated twice during the day.",
        "Nobody on the team had touched the configuration in the previous month.",
        "Traffic was about average for the time of year.",
        "There was no planned maintenance in any region that day.",
        "A certificate warning seen that morning turned out to be unrelated.",
        "The brief network blip at noon was irrelevant, and the team had already ruled it out on its own evidence.",
        "A second alarm came first, though not because of anything in this service.",
    ),
    "finance": (
        "The quarter had otherwise been uneventful.",
        "No regulatory deadlines fell in that week.",
        "The team had just finished its annual controls review.",
        "Nobody was away from the desk at the time.",
        "Market volumes were close to normal.",
        "There had been no change to the chart of accounts.",
        "An audit query raised that week was unrelated.",
        "A currency movement that day proved irrelevant; the desk had already checked it on its own.",
        "A reporting deadline came first, though not because of anything here.",
    ),
    "medicine": (
        "Staffing on the unit was at the planned level.",
        "No agency nurses were on shift that night.",
        "The ward had passed its infection-control audit the week before.",
        "Nobody involved was new to the unit.",
        "Bed occupancy was close to the usual figure.",
        "There were no transfers in from other hospitals that day.",
        "A fire drill earlier that evening was unrelated.",
        "A pharmacy stock shortage that week proved irrelevant; the team had already ruled it out on its own.",
        "A handover came first, though not because of anything on this ward.",
    ),
    "logistics": (
        "Volumes were in line with the forecast for the week.",
        "No drivers called in sick that day.",
        "The weather was dry and the roads were clear.",
        "Nobody had changed the shift pattern recently.",
        "The site had been audited by the customer a month earlier.",
        "There were no public holidays in the period.",
        "A forklift inspection that morning was unrelated.",
        "Roadworks on the ring road proved irrelevant; the planners had already ruled them out on their own.",
        "A customer audit came first, though not because of anything in this depot.",
    ),
    "manufacturing": (
        "The line had completed its planned maintenance two weeks earlier.",
        "No new operators were on the shift.",
        "Raw material came from the usual supplier.",
        "Nobody had altered the control settings that month.",
        "Output for the week was close to plan.",
        "There had been no safety incidents on site that quarter.",
        "A power dip recorded that week was unrelated.",
        "A supplier change that month proved irrelevant; the engineers had already ruled it out on their own.",
        "A tool change came first, though not because of anything on this line.",
    ),
    "ecology": (
        "Rainfall for the season was close to the long-term average.",
        "No new survey staff joined that year.",
        "The site boundaries had not changed since the last survey.",
        "Access tracks were open throughout.",
        "Volunteer numbers were about the same as the previous year.",
        "There was no grazing on the site during the period.",
        "A storm earlier in the month was unrelated.",
        "A change of survey method that year proved irrelevant; the team had already ruled it out on its own.",
        "A flood warning came first, though not because of anything on this site.",
    ),
    "education": (
        "The term had started on time.",
        "No staff changes had taken place since September.",
        "Attendance was close to the usual figure.",
        "Nobody on the committee had a conflict of interest.",
        "The timetable had been published a month in advance.",
        "There were no exam board changes that year.",
        "A timetable clash that week was unrelated.",
        "A change of exam board proved irrelevant; the staff had already ruled it out on their own.",
        "A parents evening came first, though not because of anything in this matter.",
    ),
    "aviation": (
        "The weather was fine with light winds.",
        "No aircraft were on the deferred-defect list that day.",
        "The crew were all current on their training.",
        "Nobody involved was working beyond normal hours.",
        "Traffic levels were typical for the season.",
        "There were no notices in force for the airfield.",
        "A bird strike report that day was unrelated.",
        "A radio fault earlier that week proved irrelevant; the engineers had already ruled it out on their own.",
        "A runway inspection came first, though not because of anything in this event.",
    ),
    "nonce": (
        "The {w11} had been calm for many days.",
        "No strangers had come through {w8} that month.",
        "The {w12} came neither early nor tardy that year.",
        "Nobody in {w8} remembered anything like it.",
        "Folk went about the {w11} as on any other day.",
        "There was no feast or fast at the time.",
        "A quarrel at the {w12} that week was unrelated.",
        "A change in the wind proved irrelevant; the elders had already ruled it out on their own.",
        "A wedding came first, though not because of anything here.",
    ),
}
MAX_ASIDES = 4


def pool(domain: str, kind: str) -> tuple[str, ...]:
    """The asides for a skin: by domain, or the nonce pool for nonce skins."""
    return ASIDES["nonce" if kind == "nonce" else domain]
