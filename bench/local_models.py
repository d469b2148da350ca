"""Speed and JSON quality of the bundled local models (``local:NAME``) on this machine.

For each installed model: load time; prompt evaluation and generation speed (tokens/s, from
llama.cpp's own counters, on a ~1,100-token prompt with nothing cached; also per CPU-second of
this process, which with 1 thread is close to the idle-machine speed however busy the machine
is); the KV-cache reuse of a
second prompt that shares the first one's prefix (prompt tokens actually evaluated, and its
latency against the cold call, measured in the same run); and a quick JSON-following check of
12 short questions with a known answer, asked twice: under the schema's grammar (enum fields,
as the encoder's schemas use) and as free text that must be JSON. Everything is greedy
(temperature 0, seed 0), so a rerun gives the same answers.

Usage: ``python bench/local_models.py [--models a,b] [--threads N] [--json]``
(needs ``make local-all`` or the models named; threads default to all cores).
"""

from __future__ import annotations

import argparse
import json
import os
import time

from analogist.models import ModelSettings, open_llm, parse_json_text
from analogist.models.local import CATALOGUE
from analogist.models.validate import schema_errors

CAUSES = [
    "stale_copy",
    "lock_contention",
    "dns_failure",
    "disk_full",
    "expired_credential",
    "clock_skew",
]
# (incident text, the cause it shows): plain wording, never the label's own words.
QUESTIONS = [
    ("The report read last week's totals from a copy nobody had refreshed.", "stale_copy"),
    ("Two jobs each held one table and waited for the other's for an hour.", "lock_contention"),
    (
        "The service could not resolve the database host name after the resolver moved.",
        "dns_failure",
    ),
    ("Writes failed with 'no space left on device' on the log volume.", "disk_full"),
    ("The nightly upload was refused: the API token had lapsed on Sunday.", "expired_credential"),
    (
        "Signed requests were rejected because the server's clock ran nine minutes ahead.",
        "clock_skew",
    ),
    (
        "Customers saw old prices because the page cache kept a snapshot from before the update.",
        "stale_copy",
    ),
    (
        "Checkout froze while a batch job kept an exclusive hold on the orders rows.",
        "lock_contention",
    ),
    (
        "After the certificate for the service account expired, every login failed.",
        "expired_credential",
    ),
    ("The database stopped accepting inserts once the volume reached 100% usage.", "disk_full"),
    ("Lookups of api.internal returned NXDOMAIN from the new name server.", "dns_failure"),
    ("Tokens were 'not yet valid' on one node whose time was set to the future.", "clock_skew"),
]
SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["cause", "evidence"],
    "properties": {"cause": {"enum": CAUSES}, "evidence": {"type": "string", "maxLength": 120}},
}
SYSTEM = (
    "You diagnose incidents. Answer with one JSON object: "
    '{"cause": one of ' + ", ".join(CAUSES) + ', "evidence": the few words that show it}.'
)
FILLER = " ".join(
    f"Note {i}: incidents are described in plain words; read them closely." for i in range(70)
)


def measure(name: str, threads: int | None, n_ctx: int, quality: bool = True) -> dict:
    settings = ModelSettings(threads=threads or 0, n_ctx=n_ctx)
    llm = open_llm(f"local:{name}", settings=settings)
    llm.complete([{"role": "user", "content": "Hello."}], max_tokens=2)  # load
    rt = llm.runtime
    # a cold prompt (nothing cached, one token out), then a prompt sharing its prefix that
    # generates 128 tokens; CPU seconds beside wall seconds show what the machine's load cost
    c0 = time.process_time()
    cold = llm.complete(
        [
            {"role": "system", "content": FILLER},
            {"role": "user", "content": "Summarise the notes."},
        ],
        max_tokens=1,
        seed=0,
    )
    c1 = time.process_time()
    warm = llm.complete(
        [
            {"role": "system", "content": FILLER},
            {"role": "user", "content": "Summarise the notes in a paragraph."},
        ],
        max_tokens=128,
        seed=0,
    )
    c2 = time.process_time()
    t, w = cold.timings, warm.timings
    out = {
        "model": name,
        "title": CATALOGUE[name].title,
        "size_mb": round(CATALOGUE[name].size / 1e6),
        "threads": rt["threads"],
        "n_ctx": rt["n_ctx"],
        "load_s": rt["load_s"],
        "loadavg_1min": round(os.getloadavg()[0], 1),
        "prompt_tokens": cold.input_tokens,
        "prompt_tok_s": round(t["prompt_eval_tokens"] / (t["prompt_eval_ms"] / 1000), 1),
        "prompt_tok_per_cpu_s": round(t["prompt_eval_tokens"] / (c1 - c0), 1),
        "gen_tokens": w["gen_tokens"],
        "gen_tok_s": round(w["gen_tokens"] / (w["gen_ms"] / 1000), 1),
        "gen_tok_per_cpu_s": round(w["gen_tokens"] / (c2 - c1), 1),
        "shared_prefix_prompt_tokens": warm.input_tokens,
        "shared_prefix_evaluated": w.get("prompt_eval_tokens"),
        "shared_prefix_prompt_ms": round(w.get("prompt_eval_ms", 0)),
        "cold_prompt_ms": round(t["prompt_eval_ms"]),
    }
    if not quality:
        return out
    grammar_ok = free_json = free_ok = 0
    t0 = time.perf_counter()
    for i, (text, cause) in enumerate(QUESTIONS):
        msgs = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]
        c = llm.inner.complete(msgs, schema=SCHEMA, max_tokens=80, seed=i)
        if c.parsed and not schema_errors(c.parsed, SCHEMA) and c.parsed["cause"] == cause:
            grammar_ok += 1
        f = llm.inner.complete(msgs, max_tokens=80, seed=i)
        try:
            v = parse_json_text(f.text)
            valid = isinstance(v, dict) and not schema_errors(v, SCHEMA)
        except ValueError:
            valid = False
        free_json += valid
        free_ok += valid and v["cause"] == cause
    out.update(
        questions=len(QUESTIONS),
        grammar_correct=grammar_ok,
        free_valid_json=free_json,
        free_correct=free_ok,
        quality_s=round(time.perf_counter() - t0, 1),
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(CATALOGUE))
    ap.add_argument("--threads", type=int, default=None, help="default: every available core")
    ap.add_argument("--ctx", type=int, default=4096)
    ap.add_argument("--no-quality", action="store_true", help="speed only")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    for name in args.models.split(","):
        if not CATALOGUE[name].installed():
            print(f"{name}: not installed (python -m analogist.models.install --models {name})")
            continue
        rows.append(measure(name, args.threads, args.ctx, not args.no_quality))
        r = rows[-1]
        if not args.json:
            quality = (
                (
                    f"JSON: grammar {r['grammar_correct']}/{r['questions']} correct, free "
                    f"{r['free_valid_json']}/{r['questions']} valid, {r['free_correct']} "
                    f"correct ({r['quality_s']} s)"
                )
                if "questions" in r
                else ""
            )
            print(
                f"{r['model']:16} {r['size_mb']:5} MB  threads {r['threads']}  "
                f"machine load {r['loadavg_1min']}  model load {r['load_s']:.1f} s  "
                f"prompt {r['prompt_tok_s']:6.1f} tok/s, {r['prompt_tok_per_cpu_s']} tok/CPU-s "
                f"({r['prompt_tokens']} tok)  gen {r['gen_tok_s']:5.1f} tok/s, "
                f"{r['gen_tok_per_cpu_s']} tok/CPU-s ({r['gen_tokens']} tok)  "
                f"shared prefix: {r['shared_prefix_evaluated']}/{r['shared_prefix_prompt_tokens']} "
                f"tok evaluated, {r['shared_prefix_prompt_ms']} ms vs {r['cold_prompt_ms']} ms cold  "
                f"{quality}",
                flush=True,
            )
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
