"""PARB text reads like a person wrote it: verbs agree with the entities they follow, "a"/"an"
match, no aside repeats within a bench, the setting opens every note, and nonce notes explain
their invented verb. Checked over every rendered sentence of a full bench of each split."""

from __future__ import annotations

import re
from collections import Counter

import inflect
import pytest

from analogist.bench.generation.asides import TIMES
from analogist.bench.generation.motifs import all_motifs
from analogist.bench.generation.render import ADVERBS, NOT_VERBS, PREPOSITIONS, number

from .parb_helpers import bench

ENGINE = inflect.engine()
SINGULAR_FORMS = {"is", "was", "has", "does"}
PLURAL_FORMS = {"are", "were", "have"}


def _texts(items) -> list[str]:
    out = []
    for it in items:
        inputs = it.inputs
        eps = list(inputs.get("memory", [])) + list(inputs.get("candidates", []))
        eps += [inputs["source"]] if inputs.get("source") else []
        out.append(inputs["target"]["text"])
        out += [ep["text"] for ep in eps] + [ep["outcome"] for ep in eps]
    return out


def _names() -> set[str]:
    names = set()
    for m in all_motifs():
        for s in m.skins:
            if s.kind == "ordinary":
                names.update(s.entities.values())
    return names


def _agreement_errors(text: str, names: set[str]) -> list[str]:
    errors = []
    low = text.lower()
    for name in names:
        for m in re.finditer(re.escape(name.lower()) + r"\s+([a-z'-]+)(?:\s+([a-z'-]+))?", low):
            before = low[max(0, m.start() - 12) : m.start()].split()
            if before and (
                before[-1] in PREPOSITIONS or " ".join(before[-2:]) in ("each of", "one of")
            ):
                continue
            word = m.group(1)
            if word in ADVERBS and m.group(2):
                word = m.group(2)
            if number(name) == "plural" and (
                word in SINGULAR_FORMS
                or (
                    word.endswith("s")
                    and not word.endswith("ss")
                    and word not in NOT_VERBS
                    and word not in ADVERBS
                    and ENGINE.plural_verb(word) != word
                    and ENGINE.singular_noun(word) is False
                )
            ):
                errors.append(f"{name} {word}")
            if number(name) == "singular" and word in PLURAL_FORMS:
                errors.append(f"{name} {word}")
    return errors


@pytest.mark.parametrize("split", ["dev", "test"])
def test_every_sentence_of_a_full_bench_agrees_in_number(split):
    names = _names()
    errors = Counter()
    for text in _texts(bench(0, split, "full").items):
        errors.update(_agreement_errors(text, names))
    assert not errors, errors.most_common(10)


@pytest.mark.parametrize("split", ["dev", "test"])
def test_articles_match_the_next_word(split):
    bad = Counter()
    for text in _texts(bench(0, split, "full").items):
        for m in re.finditer(r"\b([Aa]n?) ([A-Za-z][\w-]*)", text):
            want = ENGINE.a(m.group(2)).split(" ", 1)[0]
            if m.group(1).lower() != want:
                bad[m.group(0)] += 1
    assert not bad, bad.most_common(10)


@pytest.mark.parametrize("split", ["dev", "test"])
def test_no_aside_repeats_within_a_bench_and_none_twice_in_one_note(split):
    seen = Counter()
    times = "|".join(re.escape(t) for t in TIMES)
    time_re = re.compile(rf"(?:^|(?<=\. ))((?:{times}), [^.]+\.)")
    for it in bench(0, split, "full").items:
        inputs = it.inputs
        texts = [inputs["target"]["text"]]
        texts += [
            ep["text"] for ep in list(inputs.get("memory", [])) + list(inputs.get("candidates", []))
        ]
        texts += [inputs["source"]["text"]] if inputs.get("source") else []
        for text in texts:
            asides = time_re.findall(text)
            events = [a.split(", ", 1)[1] for a in asides]
            assert len(events) == len(set(events)), text
            seen.update(asides)
    assert seen and max(seen.values()) == 1, seen.most_common(3)


def test_notes_open_with_their_setting_and_the_symptom_never_comes_first():
    from analogist.bench.generation.render import fill, render

    for m in all_motifs():
        for s in m.skins:
            if s.kind != "ordinary":
                continue
            for seed in range(4):
                r = render(m, "true", s, seed)
                openings = [fill(opt, r.bindings) for opt in s.setting]
                assert any(r.text.startswith(o) for o in openings), (m.name, s.name, r.text[:80])
                assert not r.text.startswith(r.symptom)
