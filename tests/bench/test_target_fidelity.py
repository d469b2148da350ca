"""Encoder fidelity of model-written targets: the fix step has a gold (the item's keyed fix),
and each group's figures come with their chance floor. No model is called: the written target
is put in the encoder's cache, as a finished run leaves it."""

from __future__ import annotations

from dataclasses import replace

from analogist.bench.execution.answer import target_signature
from analogist.bench.execution.model_encoding import EncodedItem, ItemEncoder, fidelity_target
from analogist.encode.encoder import EncodeResult
from analogist.models.scripted import ScriptedLLM
from analogist.signature.terms import parse_fix_operator
from tests.bench.parb_helpers import bench


def _scored(vocab, written, item):
    enc = ItemEncoder(ScriptedLLM(), vocab)
    enc._items[item.item_id] = EncodedItem(item, written, EncodeResult("target", written))
    return enc.fidelity([item])["targets"]


def test_a_target_that_writes_the_keyed_fix_scores_on_the_fix_step(vocab):
    item = bench(0, "dev", "small").items[0]
    args = item.key["fix"]["args"]
    perfect = replace(
        target_signature(item.key, vocab),
        fix_operator=parse_fix_operator(f"any_operator({','.join(args)})"),
    )
    fix = _scored(vocab, perfect, item)["steps"]["fix"]
    assert fix["matched"] == fix["written"] == fix["gold"] == len(set(args)) > 0


def test_the_fidelity_gold_of_a_target_is_the_answer_gold_plus_the_keyed_fix(vocab):
    item = bench(0, "dev", "small").items[0]
    gold = fidelity_target(item.key, vocab)
    assert gold.fix_operator is not None
    assert list(gold.fix_operator.term.roles()) == item.key["fix"]["args"]
    assert replace(gold, fix_operator=None) == target_signature(item.key, vocab)
    # what the answer path uses stays without the fix (finding it is the task)
    assert target_signature(item.key, vocab).fix_operator is None


def test_each_group_reports_its_chance_floor(vocab):
    item = bench(0, "dev", "small").items[0]
    fid = _scored(vocab, target_signature(item.key, vocab), item)
    # one target: no other gold to score it against, so the floor is empty (0 with 0 pairs)
    assert fid["chance"] == {"micro_f1": 0.0, "role_accuracy": 0.0, "pairs": 0}
    assert fid["micro_f1"] == 1.0
