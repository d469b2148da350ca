"""Tokens and seconds of a benchmark run's model calls, per call kind and per arm, and per model
when two took part (``bench run --encoder-model``: one answers, another encodes).

Reads the call log (``llm_calls``) of a run: each call's kind comes from its prompt version
(``staged-v1:<step>``, ``encode-v1``, ``target-v1`` -> encode; ``model-answer-*`` -> answer;
``*critic*`` -> critic; ``reabstract-*`` -> reabstract), and each answer is linked to its arm
through the ``cache_key`` the model answerer stores with it. Seconds are the recorded latencies of
the live calls; each cache key is counted once, so a request answered from the cache adds nothing. Encode calls belong to no arm: the encoder runs once per item. A run whose
encodings came from another run's call log (the same encoder model) shows those calls with the
latencies they had when they were made.

    .venv/bin/python bench/models.py --replay bench/reference/parb-small.replay.jsonl.gz
    .venv/bin/python bench/models.py --db runs.db [--run RUN_ID]

With ``--db`` every call in the database is counted (a database holding two runs counts both);
``--replay FILE`` counts exactly the calls of the recorded run.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict

from analogist.store import Store
from analogist.store.calls import CallLog


def kind_of(prompt_version: str) -> str:
    pv = prompt_version or ""
    if "critic" in pv:
        return "critic"
    if pv.startswith(("staged-", "encode-", "target-")):
        return "encode"
    if pv.startswith("model-answer"):
        return "answer"
    if pv.startswith("reabstract"):
        return "reabstract"
    return pv or "other"


def _row(label: str, calls: int, tin: int, tout: int, ms: float, n_ctx_max: int) -> str:
    s = ms / 1000
    per = s / calls if calls else 0.0
    rate = (tin + tout) / s if s else 0.0
    return (
        f"{label:<22} {calls:>6} {tin:>10} {tout:>9} {s:>9.1f} {per:>8.1f} {rate:>8.0f} "
        f"{n_ctx_max:>8}"
    )


HEAD = (
    f"{'':<22} {'calls':>6} {'in tok':>10} {'out tok':>9} {'seconds':>9} {'s/call':>8} "
    f"{'tok/s':>8} {'max in':>8}"
)


def report(store: Store, run_id: str) -> dict:
    """Per kind (and encode step), per arm and per model (``provider:name``, each with its
    kinds): calls, input/output tokens, seconds, largest input."""
    calls = {}
    for rec in CallLog(store).all():
        if rec.error is None:
            calls[rec.cache_key] = rec  # newest successful row per key
    kinds: dict[str, list] = defaultdict(lambda: [0, 0, 0, 0.0, 0])
    models: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0, 0.0, 0]))

    def add(acc: list, rec) -> None:
        acc[0] += 1
        acc[1] += rec.input_tokens or 0
        acc[2] += rec.output_tokens or 0
        acc[3] += rec.latency_ms or 0.0
        acc[4] = max(acc[4], rec.input_tokens or 0)

    for rec in calls.values():
        kind = kind_of(rec.prompt_version or "")
        add(kinds[kind], rec)
        add(models[f"{rec.provider}:{rec.model}"]["all"], rec)
        add(models[f"{rec.provider}:{rec.model}"][kind], rec)
        pv = rec.prompt_version or ""
        if kind == "encode" and ":" in pv:
            add(kinds[f"  encode {pv.split(':', 1)[1]}"], rec)
    arms: dict[str, list] = defaultdict(lambda: [0, 0, 0, 0.0, 0])
    for row in store.bench_results(run_id):
        if row.answerer != "model":
            continue
        key = (row.answer.get("run") or {}).get("cache_key")
        if key in calls:
            add(arms[row.arm], calls[key])
    return {
        "kinds": {k: v for k, v in sorted(kinds.items(), key=lambda kv: kv[0].strip())},
        "arms": dict(arms),
        "models": {m: dict(sorted(by.items())) for m, by in sorted(models.items())},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--replay", help="a replay file (re-scored here with zero model calls)")
    ap.add_argument("--db", help="the database the run was stored in")
    ap.add_argument("--run", help="run id (default: the newest run in --db)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.replay:
        from analogist.bench.execution.replay import replay_run

        store, run_id, header, _ = replay_run(args.replay)
        enc = header.get("encoder_model")
        who = f"answers {header['model']}, encodings {enc}" if enc else f"model {header['model']}"
        print(f"replayed {args.replay}: {who}, {header['calls']} calls")
    elif args.db:
        store = Store(args.db)
        runs = store.list_bench_runs()
        if not runs:
            sys.exit(f"{args.db}: no benchmark run stored; give the database of a bench run")
        run_id = args.run or runs[0]["run_id"]
    else:
        sys.exit("give --replay FILE or --db DATABASE")
    rep = report(store, run_id)
    if args.json:
        print(json.dumps(rep, indent=2))
        return
    print(f"run {run_id}\nper call kind\n{HEAD}")
    for k, v in rep["kinds"].items():
        print(_row(k, *v))
    print(f"per arm (answer calls only; encoding is shared by all arms)\n{HEAD}")
    for k, v in rep["arms"].items():
        print(_row(k, *v))
    if len(rep["models"]) > 1:  # one model answers, another encodes
        print(f"per model (all its calls, then per call kind)\n{HEAD}")
        for name, by in rep["models"].items():
            print(_row(name, *by["all"]))
            for kind, v in by.items():
                if kind != "all":
                    print(_row(f"  {kind}", *v))


if __name__ == "__main__":
    main()
