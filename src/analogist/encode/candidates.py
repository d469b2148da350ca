"""Candidate roles read off an episode's text, deterministically (staged-v11's roles step).

A small model asked to *name* a mechanism's parts names surface entities and copies text
(issue 12, staged-v4 … v8). staged-v11 lets it only *score* candidates, so the candidates must
come from the text without the model: noun phrases found by a light chunker (no tagger is
installed, and none is needed for this).

The chunker splits the text into runs of words at punctuation, digits, function words and
words that are almost always verbs or adverbs (a closed list, ``-ly`` adverbs, ``-ed``/``-ing``
forms that are not in a short list of nouns that end that way). English noun phrases end in
their head, so each run gives its last one, two and three words ("midnight warm-up job" →
"job", "warm-up job", "midnight warm-up job"); each capitalised name (``Redis``, ``CoreDNS``) is
a candidate on its own too. Words that name only a time, a quantity or a unit ("hour",
"minutes", "UTC") are dropped: they are never a part of a mechanism.

With an entity table (query-time encoding of a benchmark target) the table's names are the
candidates and nothing is extracted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from analogist.encode.checks import _COMMON, stem

MAX_WORDS = 3  # the longest candidate, in words


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'’][A-Za-z0-9]+)*|\d[\d,.:%]*|\S")
_FUNCTION = _words(
    """about above across against along am among any anyone are around away be been being
    below between beyond can could did do does doing down else ever few further had has
    have having into is just least less like may me might more much must my near nearly
    never nor now of off out over own per quite rather same should than them themselves
    though through too under up upon very via was were whether whose will within without
    would yet again almost already always another anything everything fewer instead mostly
    nothing onto other others simply still such usually whole together behind back front
    right left max min previous next new old zero four five six seven eight nine ten twelve
    hundred thousand"""
)
# Words that are verbs (or verb-like) wherever they occur in incident reports; a run of words
# breaks at them. A closed list: anything it misses only adds a longer candidate.
_VERBS = _words(
    """become became begin began bring brought build built came come cut cuts get gets got
    give gave given go goes going gone grew grow hit hits hold holds keep keeps kept know
    knew lead leads led leave left let lets lose loses lost make makes made meant mean
    means need needs ran run runs read reads say says said saw see sees seen sent send
    sends set sets show shows shown take takes took taken tell told think thought use uses
    went find finds found feel fell rise rose put puts pull pulls serve serves return
    returns resolve resolves rebuild rebuilds issue issues open opens reach reaches watch
    watches wait waits miss misses held rolled landed"""
)
# -ed / -ing / -ly words that are nouns or adjectives inside a noun phrase (kept in a run)
_KEEP = _words(
    """nightly daily weekly monthly hourly yearly early bed beds speed seed feed shed thing things ceiling building ring string warning
    warnings setting settings meeting morning evening landing booking bookings logging
    caching routing timing pricing tracing wing spring"""
)
# Words that only say when, how much or how long: never a part of a mechanism on their own.
_INCIDENTAL = _words(
    """second seconds minute minutes hour hours day days week weeks month months year years
    weekend night midnight morning evening time times utc gmt percent ft km kg mg am pm
    monday tuesday wednesday thursday friday saturday sunday january february march april
    june july august september october november december usual end start life lot lots
    number way kind part parts half"""
)


def _breaks(word: str) -> bool:
    """Whether a run of noun-phrase words stops at ``word``."""
    low = word.lower()
    if not word[0].isalpha() or low in _COMMON or low in _FUNCTION or low in _VERBS:
        return True
    if low in _KEEP:
        return False
    return low.endswith(("ly", "ed", "ing")) and len(low) > 4


def runs(text: str) -> list[list[str]]:
    """The text's runs of words between breaks (see the module docstring), in order."""
    out: list[list[str]] = []
    cur: list[str] = []
    for tok in _TOKEN.findall(text):
        if _breaks(tok):
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(tok)
    if cur:
        out.append(cur)
    return out


def _incidental(words: list[str]) -> bool:
    return all(w.lower() in _INCIDENTAL or len(w) < 2 for w in words)


def _key(phrase: str) -> str:
    return " ".join(stem(w) for w in phrase.split())


def candidates(text: str, table: Iterable[str] | None = None) -> list[str]:
    """Candidate role names: the table's names when one is given, else the text's noun
    phrases (up to :data:`MAX_WORDS` words, heads last) and capitalised names, each once (by
    stem, first spelling kept), in order of first occurrence."""
    if table is not None:
        return list(dict.fromkeys(t.strip() for t in table if t.strip()))
    found: list[str] = []
    for run in runs(text):
        for i, w in enumerate(run):
            if w[0].isupper() and i + 1 < len(run) and not _incidental([w]):
                found.append(w)  # a name inside a longer run ("Redis key" -> "Redis")
        for n in range(1, MAX_WORDS + 1):
            if n <= len(run) and not _incidental(run[-n:]):
                found.append(" ".join(run[-n:]))
    out: dict[str, str] = {}
    for f in found:
        out.setdefault(_key(f), f)
    return list(out.values())


def same_part(a: str, b: str) -> bool:
    """Whether two candidates name one part: they share their head word or one's words are
    all in the other ("the primary" and "Postgres primary"; "PgBouncer" and "PgBouncer pool")."""
    wa, wb = [stem(w) for w in a.split()], [stem(w) for w in b.split()]
    return wa[-1] == wb[-1] or set(wa) <= set(wb) or set(wb) <= set(wa)
