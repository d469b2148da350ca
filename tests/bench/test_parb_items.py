"""PARB items: inputs never carry key information, keys are consistent with the worlds, and
every transfer keyed as unsafe fails when simulated."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from analogist.bench import check_fix
from analogist.bench.analysis.structure import best_assignment
from analogist.bench.generation.edits import classify_edit
from analogist.bench.generation.motif import DECOY_EDITS, DROP_RELATION
from analogist.bench.generation.motifs import all_motifs
from analogist.signature import default_vocabulary, parse_signature, parse_term

from .parb_helpers import bench, named_terms

BENCHES = [(1, "dev", "mvp"), (1, "test", "mvp"), (4, "dev", "small"), (4, "test", "small")]
KEY_ONLY_WORDS = (
    "decoy",
    "gold_source",
    "role_mapping",
    "target_roles",
    "memory_roles",
    "decisions",
    "transfer_outcome",
    "same_domain",
    "target_signature",
    "target_variant",
    DROP_RELATION,
    *DECOY_EDITS,
)
ID = re.compile(r"^(it|ep|e|inf)_[0-9a-f]{12}$")


def _items():
    for args in BENCHES:
        yield from bench(*args).items


def _motif_words() -> list[str]:
    out = []
    for m in all_motifs():
        out += [m.name, m.name.replace("_", " "), m.title]
    return out


@pytest.mark.parametrize("args", BENCHES, ids=["-".join(map(str, a)) for a in BENCHES])
def test_inputs_never_contain_key_information(args):
    gold_roles = {r for m in all_motifs() for r in (*m.roles, m.split.part)} - {
        "L0",
        "L1",
        "L2",
        "L3",
    }
    for it in bench(*args).items:
        text = json.dumps(it.input_record(), sort_keys=True)
        lowered = text.lower()
        for word in KEY_ONLY_WORDS:
            assert word.lower() not in lowered, (it.item_id, word)
        for word in _motif_words():
            assert not re.search(rf"\b{re.escape(word.lower())}\b", lowered), (it.item_id, word)
        for role in gold_roles:
            assert not re.search(rf"\b{re.escape(role)}\b", text), (it.item_id, role)
        assert json.dumps(it.key["target_signature"]["relations"]) not in text


def test_every_id_is_random_hex_and_says_nothing():
    seen = set()
    for it in _items():
        ids = [it.item_id, *it.inputs["target"]["entities"]]
        for field in ("memory", "candidates"):
            ids += [ep["id"] for ep in it.inputs.get(field, [])]
        ids += [ep["id"] for ep in [it.inputs.get("source")] if ep]
        ids += [c["id"] for c in it.inputs.get("inferences", [])]
        for i in ids:
            assert ID.match(i), i
        assert it.item_id not in seen
        seen.add(it.item_id)


def test_the_valid_candidate_is_not_in_a_fixed_position():
    firsts = [
        it.inputs["candidates"][0]["id"] == it.key["gold_source"]
        for it in bench(0, "dev", "full").items
        if it.family == "F2"
    ]
    assert 0.25 <= sum(firsts) / len(firsts) <= 0.75


def test_text_fields_in_inputs_never_name_vocabulary_terms():
    for it in _items():
        texts = [it.inputs["target"]["text"]]
        for field in ("memory", "candidates"):
            texts += [ep["text"] for ep in it.inputs.get(field, [])]
            texts += [ep["outcome"] for ep in it.inputs.get(field, [])]
        if "source" in it.inputs:
            texts += [it.inputs["source"]["text"], it.inputs["source"]["outcome"]]
        for t in texts:
            assert not named_terms(t), (it.item_id, named_terms(t))


def test_f2_has_one_valid_and_one_decoy_one_edit_from_the_target():
    vocab = default_vocabulary()
    for it in _items():
        if it.family != "F2":
            continue
        assert sorted(it.key["valid"].values()) == [False, True]
        decoy = next(c for c in it.inputs["candidates"] if c["id"] == it.key["decoy"])
        target = parse_signature(it.key["target_signature"], vocab)
        mapping = best_assignment(decoy["signature"], it.key["target_signature"]).mapping
        renamed = parse_signature(_rename(decoy["signature"], mapping), vocab)
        # the key names the decoy structure's edit; when the target is itself the decoy
        # structure, the invalid candidate is the true one and the edit runs the other way
        pair = (renamed, target) if it.key["decoy_variant"] == "true" else (target, renamed)
        edit = classify_edit(*pair)
        assert edit is not None and edit.kind == it.key["edit"], it.item_id
        assert it.key["decoy_twin_overlap"] >= 0.5


def test_decoys_stay_close_in_wording_to_their_true_twin():
    overlaps = []
    for it in _items():
        recorded = it.key.get("decoy_twin_overlap")
        if isinstance(recorded, dict):
            overlaps += list(recorded.values())
        elif recorded is not None:
            overlaps.append(recorded)
    assert overlaps and min(overlaps) >= 0.5 and sum(overlaps) / len(overlaps) >= 0.7


def _rename(sig: dict, mapping: dict) -> dict:
    from analogist.bench.generation.signatures import rename_roles

    return rename_roles(sig, mapping)


def test_role_mapping_keys_agree_with_structure():
    for it in _items():
        if "role_mapping" not in it.key or "source" not in it.inputs:
            continue
        src = it.inputs["source"]["signature"]
        by_role = {role: eid for eid, role in it.key["target_roles"].items()}
        best = best_assignment(src, it.key["target_signature"]).mapping
        assert {r: by_role[best[r]] for r in it.key["role_mapping"]} == it.key["role_mapping"]


def test_keyed_fixes_resolve_their_target():
    for it in _items():
        if "check" in it.key and it.key.get("fix"):
            fix = it.key["fix"]
            assert check_fix(it.key["check"], fix["operator"], fix["args"]).result == "resolved"


def test_every_transfer_keyed_unsafe_fails_in_simulation():
    unsafe = 0
    for it in _items():
        if it.family == "F6" and not it.key["offered_is_valid"]:
            # an offered decoy's own fix may happen to work on the true structure; the key says
            # what it does, and most false pairs are unsafe
            fix = it.key["source_fix"]
            result = check_fix(it.key["check"], fix["operator"], fix["args"]).result
            assert result == it.key["transfer_outcome"]
            unsafe += result != "resolved"
        if it.family == "F5":
            for inf in it.inputs["inferences"]:
                if inf["kind"] != "fix":
                    continue
                t = parse_term(inf["claim"])  # in the source's role names
                args = [it.key["role_mapping"][str(a)] for a in t.args]
                result = check_fix(it.key["check"], t.functor, args).result
                keyed = it.key["decisions"][inf["id"]]
                assert (result == "resolved") == (keyed == "transfer"), it.item_id
                unsafe += keyed == "withhold"
    assert unsafe > 0


def test_f5_mixes_transfer_and_withhold_and_keys_the_edited_part():
    kinds = set()
    for it in _items():
        if it.family == "F5":
            # each target lacks a part of the source its pair's other target keeps, so every
            # item withholds something and transfers something
            assert set(it.key["decisions"].values()) == {"transfer", "withhold"}, it.item_id
            fix = next((c for c in it.inputs["inferences"] if c["kind"] == "fix"), None)
            if fix is not None:
                kinds.add(it.key["decisions"][fix["id"]])
    assert kinds == {"transfer", "withhold"}


def test_f5_claims_are_withheld_as_often_as_they_transfer():
    """A full bench holds both items of each pair: every claim offered (as the source states it,
    role names aside) is withheld in one and transfers in the other."""
    tally: Counter = Counter()
    for it in bench(0, "dev", "full").items:
        if it.family != "F5":
            continue
        for inf in it.inputs["inferences"]:
            shape = (it.motif, inf["kind"], re.sub(r"R\d+", "R", json.dumps(inf["claim"])))
            tally[shape] += 1 if it.key["decisions"][inf["id"]] == "transfer" else -1
    assert tally and not any(tally.values()), {k: v for k, v in tally.items() if v}


def test_f6_offered_structure_does_not_depend_on_validity():
    """A full bench holds both items of each pair: one valid, one not, offering a source of the
    same structure, so the offered source alone cannot say which."""
    pairs: dict[str, list] = {}
    for it in bench(0, "dev", "full").items:
        if it.family == "F6":
            pairs.setdefault(it.motif, []).append(it.key)
    assert pairs
    for keys in pairs.values():
        assert sorted(k["offered_is_valid"] for k in keys) == [False, True]
        assert len({k["source_variant"] for k in keys}) == 1
    assert {k["source_variant"] == "true" for keys in pairs.values() for k in keys} == {True, False}


def test_memory_snapshots_hold_traps_and_some_have_no_match():
    labels, no_match = set(), 0
    for it in _items():
        if it.family in ("F3", "F7", "F8"):
            labels |= set(it.key["memory_roles"].values())
            no_match += it.key["gold_source"] is None
            assert (
                it.key["gold_source"] is None
                or it.key["memory_roles"][it.key["gold_source"]] == "source"
            )
    assert {"source", "decoy_near", "decoy_far", "same_domain", "other"} <= labels
    assert no_match > 0


def test_f7_targets_are_nonce_and_f8_keys_give_the_level():
    for it in _items():
        if it.family == "F7":
            assert it.key["nonce"] is True
        if it.family == "F8":
            assert (
                it.key["level"] == "L2"
                and it.key["split"]["part"] in it.inputs["target"]["entities"]
            )


@pytest.mark.parametrize("split", ["dev", "test"])
def test_fillers_use_every_motif_equally_and_favour_close_ones(split):
    """Each row (a target motif) and each column (a filler motif) of the inclusion table sums
    to the number of filler motifs, so over a bench no motif fills more snapshots than
    another; within a row, closer motifs are included more often."""
    import numpy as np

    from analogist.bench.generation.fillers import closeness, inclusion
    from analogist.bench.generation.motifs import split_motifs

    names = tuple(m.name for m in split_motifs(split))
    for nonce in (False, True):
        p = np.array(inclusion(names, nonce, (True,) * len(names), 3))
        c = np.array(closeness(names, nonce))
        assert np.allclose(p.sum(axis=1), 3, atol=1e-3) and np.allclose(p.sum(axis=0), 3, atol=1e-3)
        assert np.all(np.diag(p) == 0) and p.min() >= 0 and p.max() <= 1 + 1e-9
        off = ~np.eye(len(names), dtype=bool)
        assert np.corrcoef(c[off], p[off])[0, 1] > 0.3


def test_draw_includes_each_motif_with_its_probability():
    import random

    from analogist.bench.generation.fillers import draw

    rng = random.Random(0)
    probs = [("a", 0.9), ("b", 0.6), ("c", 0.5), ("d", 0.7), ("e", 0.3)]
    counts: Counter = Counter()
    sizes = set()
    for _ in range(3000):
        got = draw(rng, probs)  # type: ignore[arg-type]
        sizes.add(len(got))
        counts.update(got)
    assert sizes == {3}
    for name, p in probs:
        assert abs(counts[name] / 3000 - p) < 0.03, name


def test_f8_snapshots_show_two_structures_of_every_motif():
    """One cluster size for every motif, so how many episodes a motif has in an F8 snapshot
    says nothing about whether it is the target's."""
    import random

    from analogist.bench.generation.asides import Dealer
    from analogist.bench.generation.family_rerepresentation import F8_CLUSTER, _f8_structures
    from analogist.bench.generation.items import Context
    from analogist.bench.generation.memory_snapshot import memory
    from analogist.bench.generation.motifs import split_motifs

    for split in ("dev", "test"):
        pool = split_motifs(split)
        for m in [x for x in pool if len(_f8_structures(x)) >= F8_CLUSTER][:3]:
            ctx = Context(random.Random(m.name), split, pool, set(), Dealer(m.name))
            t_case = ctx.case(m, "split", ctx.skin(m), least=2)
            shown, labels, _ = memory(
                ctx, t_case, with_source=True, structures=_f8_structures, per_motif=F8_CLUSTER
            )
            per = Counter(s.case.motif.name for s in shown)
            assert len(shown) == 10 and set(per.values()) == {F8_CLUSTER}, per
            assert all(len(_f8_structures(s.case.motif)) >= F8_CLUSTER for s in shown)
            assert sorted(labels.values()).count("source") == 1
    for it in _items():
        if it.family == "F8":
            roles = Counter(it.key["memory_roles"].values())
            assert roles["source"] == 1 and roles["decoy_near"] + roles["decoy_far"] == 1


def test_memory_spreads_the_sources_overlap_rank_by_the_targets_wording():
    """Episodes are drawn at random; the target's wording is chosen so that, over a bench, the
    source sits at every word-overlap rank among its snapshot's episodes about as often (the
    least-used rank that a wording reaches), and the wording keeps the target's structure,
    skin, invented words and asides."""
    import random

    from analogist.bench.generation.asides import Dealer
    from analogist.bench.generation.items import Context
    from analogist.bench.generation.memory_snapshot import memory
    from analogist.bench.generation.motifs import split_motifs
    from analogist.bench.generation.overlap_ranks import _rank
    from analogist.bench.generation.render import jaccard

    pool = split_motifs("dev")
    ranks: Counter[tuple[str, int]] = Counter()
    dealer, taken = Dealer("spread"), set()
    seen = []
    for i in range(12):
        m = pool[i % len(pool)]
        ctx = Context(random.Random(f"spread{i}"), "dev", pool, taken, dealer, ranks)
        t_case = ctx.case(m, "true", ctx.skin(m), least=2)
        shown, labels, chosen = memory(ctx, t_case, with_source=True)
        assert (chosen.motif, chosen.variant, chosen.skin) == (m, "true", t_case.skin)
        assert (chosen.lexicon, chosen.asides) == (t_case.lexicon, t_case.asides)
        vals = [jaccard(chosen.text, s.record["text"]) for s in shown]
        src = next(k for k, s in enumerate(shown) if labels[s.record["id"]] == "source")
        seen.append(round(_rank(vals, src)))
    source = Counter({k: n for k, n in ranks.items() if not k[0].endswith("/alike")})
    assert sum(source.values()) == 12 and Counter(seen) == Counter(r for _, r in source.elements())
    assert sum(ranks.values()) - 12 == 24  # the two look-alikes of every snapshot, tallied apart
    assert len(set(seen)) >= 6 and max(Counter(seen).values()) <= 3, seen
