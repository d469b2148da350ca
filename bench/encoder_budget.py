"""Generated-token budget of the staged encoder per step: staged-v4 as recorded vs staged-v12's bound.

Generates nothing. Loads only the model's tokenizer (``vocab_only``: no weights) and prints, per
step:

- v4 measured: the calls and generated (output) tokens of each ``staged-v4:<step>`` call in a
  recorded replay file (the committed reference run by default), per call and per episode;
- the bound: the tokens of the longest answer each step's schema allows
  (:func:`analogist.encode.staged_v12.longest_answer`, 5 roles, free text filled with prose to its
  ``maxLength``), for v4 and v12, and v12's ``max_tokens``;
- prompt tokens per step for one sample episode (the whole prompt, and the user message alone:
  what a call evaluates when the shared system prompt is in llama.cpp's cache);

then checks that every v12 schema compiles to a llama.cpp grammar, and estimates the ``small``
bench on an idle machine with ``docs/results.md``'s formula (encoder call: new prompt tokens / 90
+ generated / 14 s; answer call 14.3 s; 88 encodings, 128 answer calls).

    .venv/bin/python bench/encoder_budget.py [--replay FILE.jsonl.gz] [--gguf MODEL.gguf]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from analogist.encode import staged_v12 as V12
from analogist.encode import steps as S
from analogist.models.local import DEFAULT_MODEL, cache_root, local_model
from analogist.signature.vocabulary import Vocabulary, default_vocabulary

ROOT = Path(__file__).resolve().parents[1]
REPLAY = ROOT / "bench/reference/parb-small-qwen-coder-1.5b.replay.jsonl.gz"
ROLES = ["R1", "R2", "R3", "R4", "R5"][: S.MAX_STEP_ROLES]  # the most roles v4 allows
ROLES12 = ROLES[: V12.MAX_ROLES]  # the most roles v12 allows
EPISODE = (
    "The nightly export job locked the orders table for an hour while the checkout service "
    "waited on it, so checkouts timed out."
)
SO_FAR = [
    "Roles: R1 = nightly export job (holder of a shared resource); R2 = orders table (resource "
    "that only one user may hold); R3 = checkout service (user that waits for the resource)",
    "Relations: holds(R1,R2); waits_for(R3,R2)",
    "Causal chain: holds(R1,R2) --blocks--> waits_for(R3,R2)",
]
# docs/results.md, "Where the time goes": idle 2-core speeds of the 1.5B model and bench sizes.
PROMPT_TPS, GEN_TPS, ANSWER_S, SMALL_ENCODINGS, SMALL_ANSWERS = 90.0, 14.0, 14.3, 88, 128


def measured(path: Path) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """Output and input tokens of each prompt version's calls in a replay file."""
    out: dict[str, list[int]] = defaultdict(list)
    inp: dict[str, list[int]] = defaultdict(list)
    with gzip.open(path, "rt") as f:
        for line in f:
            row = json.loads(line)
            if "prompt_version" in row and row.get("output_tokens") is not None:
                out[row["prompt_version"]].append(int(row["output_tokens"]))
                inp[row["prompt_version"]].append(int(row["input_tokens"]))
    return out, inp


_ID = re.compile(r"\be_[0-9a-f]{12}\b")


def as_r_names(value: Any) -> Any:
    """``value`` with entity-table ids replaced by R-names (in order of first appearance)."""
    text = json.dumps(value)
    names: dict[str, str] = {}
    for m in _ID.finditer(text):
        names.setdefault(m.group(0), f"R{len(names) + 1}")
    return json.loads(_ID.sub(lambda m: names[m.group(0)], text))


def recorded_as_v12(
    path: Path, vocab: Vocabulary
) -> tuple[dict[str, list[Any]], dict[str, list[Any]], list[tuple[str, Any]]]:
    """v4's first answers per step in a replay file rewritten into v12's form: R-names for ids,
    fields cut to v12's bounds, relation definitions as v12's short phrases, chain and levels
    of one episode in one object, each link a list. What v12 would write if the model wrote the same content."""
    short = {t: p for p, t in V12.short_phrases(vocab).items()}
    full = S.relation_phrases(vocab)
    by_ep: dict[str, dict[str, Any]] = defaultdict(dict)
    texts: list[tuple[str, Any]] = []
    with gzip.open(path, "rt") as f:
        for line in f:
            row = json.loads(line)
            step = str(row.get("prompt_version", "")).removeprefix("staged-v4:")
            user = (row.get("request") or {}).get("messages", [{}, {}])[1].get("content", "")
            bad = not isinstance(row.get("parsed"), dict) or "Your previous answer" in user
            if step == row.get("prompt_version") or not isinstance(row.get("parsed"), dict):
                continue
            texts.append((str(row.get("response_text") or ""), row["parsed"]))
            if bad:
                continue
            by_ep[user.split("\n\n")[0]][step] = as_r_names(row["parsed"])
    out: dict[str, list[Any]] = defaultdict(list)
    v4: dict[str, list[Any]] = defaultdict(list)
    for ep in by_ep.values():
        for step, answer in ep.items():
            v4[step].append(answer)
        if "roles" in ep:
            r = ep["roles"]
            out["roles"].append(
                {
                    "domain": r["domain"][: V12.DOMAIN_CHARS],
                    "roles": [
                        {
                            "entity": x["entity"][: V12.ENTITY_CHARS],
                            "part": x["part"][: V12.PART_CHARS],
                        }
                        for x in r["roles"][: V12.MAX_ROLES]
                    ],
                }
            )
        if "relations" in ep:
            out["relations"].append(
                {
                    k: {"relation": short[full[v["relation"]]], "to": v["to"]}
                    for k, v in list(ep["relations"].items())[: V12.MAX_ROLES]
                }
            )
        if "causal_chain" in ep and "levels" in ep:
            lv = ep["levels"]
            out["chain_levels"].append(
                {
                    "links": [
                        [x["cause"], x["link"], x["effect"]]
                        for x in ep["causal_chain"]["links"][: V12.MAX_LINKS]
                    ],
                    "fix": lv["fix"],
                    "L2": lv["L2"][: V12.L2_CHARS],
                    "L3": lv["L3"][: V12.L3_CHARS],
                }
            )
    return v4, out, texts


def schemas(vocab) -> dict[str, dict[str, dict]]:
    """Each version's step schemas at the most roles (and v12's repair halves)."""
    return {
        "staged-v4": {
            "roles": S.roles_schema(),
            "relations": S.relation_slots_schema(vocab, ROLES),
            "causal_chain": S.chain_schema(vocab, ROLES, S.MAX_STEP_LINKS),
            "levels": S.levels_schema(ROLES),
        },
        "staged-v12": {
            "roles": V12.roles_schema(),
            "relations": V12.relations_schema(vocab, ROLES12),
            "chain_levels": V12.chain_levels_schema(vocab, ROLES12),
            "(repair: levels half)": V12.chain_levels_schema(vocab, ROLES12, chain=False),
            "(repair: chain half)": V12.chain_levels_schema(vocab, ROLES12, levels=False),
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replay", type=Path, default=REPLAY)
    ap.add_argument("--gguf", type=Path, default=None, help="default: the local default model")
    args = ap.parse_args(argv)
    gguf = args.gguf or cache_root() / "models" / local_model(DEFAULT_MODEL).filename
    if not gguf.is_file():
        print(f"encoder_budget: no GGUF file at {gguf}; run `make local` or pass --gguf")
        return 2
    if not args.replay.is_file():
        print(f"encoder_budget: no replay file at {args.replay}; pass --replay")
        return 2
    t0 = time.process_time()
    from llama_cpp import Llama, LlamaGrammar

    tok = Llama(str(gguf), vocab_only=True, verbose=False)

    def n(text: str, special: bool = False) -> int:
        return len(tok.tokenize(text.encode(), add_bos=False, special=special))

    def chat(msgs: list[dict]) -> int:
        body = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in msgs)
        return n(body + "<|im_start|>assistant\n", special=True)

    vocab = default_vocabulary()
    out, inp = measured(args.replay)
    episodes = len(out.get("staged-v4:roles", [])) or 1
    print(f"tokenizer: {gguf.name} (vocab only); replay: {args.replay.name}, {episodes} episodes")
    print(
        "bound = tokens of the longest answer the schema allows (+1 end token; compact JSON, "
        f"no grammar whitespace), at the most roles (v4 {len(ROLES)}, v12 {len(ROLES12)})\n"
    )
    head = S.episode_head(EPISODE, "failure", None, target=False)
    per_episode: dict[str, int] = {}
    hdr = f"{'version':<11} {'step':<22} {'v4 calls':>8} {'v4 gen/call':>12} {'v4 gen/ep':>9} "
    print(hdr + f"{'bound':>6} {'max_tok':>7} {'prompt':>6} {'user msg':>8}")
    for version, steps in schemas(vocab).items():
        total = 0
        for step, schema in steps.items():
            answer = V12.longest_answer(schema, cost=lambda t: n(t))
            bound = n(json.dumps(answer)) + 1
            real = step.replace("(repair: ", "").removesuffix(" half)")
            name = "chain_levels" if step.startswith("(") else real
            msgs = S.step_messages(vocab, name, head, SO_FAR, version=version)
            got = out.get(f"{version}:{step}", [])
            mean = f"{sum(got) / len(got):.0f} (max {max(got)})" if got else "-"
            per_ep = f"{sum(got) / episodes:.0f}" if got else "-"
            cap = V12.max_tokens_for(schema) if version == V12.VERSION else 400
            print(
                f"{version:<11} {step:<22} {len(got) or '-':>8} {mean:>12} {per_ep:>9} "
                f"{bound:>6} {cap:>7} {chat(msgs):>6} {n(msgs[1]['content']):>8}"
            )
            if not step.startswith("("):
                total += bound
                per_episode[f"{version}:{step}"] = bound
            elif "levels" in step:
                per_episode["repair"] = bound
            if version == V12.VERSION:
                assert cap >= bound, f"{step}: max_tokens {cap} below the bound {bound}"
                LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
        print(f"{version:<11} {'per episode (no repair)':<22} {'':>8} {'':>12} {'':>9} {total:>6}")
        per_episode["v4" if version == "staged-v4" else "v12"] = total
    v4_gen = sum(sum(v) for k, v in out.items() if k.startswith("staged-v4:")) / episodes
    v4_calls = sum(len(v) for k, v in out.items() if k.startswith("staged-v4:")) / episodes
    v12_bound = sum(b for k, b in per_episode.items() if k.startswith(V12.VERSION))
    repair = per_episode["repair"]
    repairs = len(out.get("staged-v4:levels", [])) / episodes - 1  # v4's levels repair rate
    v12_gen = v12_bound + repairs * repair
    v12_calls = 3 + repairs
    print(
        f"\nper episode: v4 measured {v4_calls:.1f} calls, {v4_gen:.0f} generated tokens; "
        f"v12 bound {v12_calls:.1f} calls (v4's levels repair rate {repairs:.2f}; a repair "
        f"re-asks the levels half, <= {repair} tokens), <= {v12_gen:.0f} generated tokens: "
        f"{v4_gen / v12_gen:.2f}x fewer; bounds alone v4 {per_episode['v4']} vs v12 "
        f"{v12_bound}: {per_episode['v4'] / v12_bound:.2f}x"
    )
    rec4, rec12, texts = recorded_as_v12(args.replay, vocab)

    def mean_tokens(answers: list[Any]) -> float:
        return sum(n(json.dumps(a)) + 1 for a in answers) / max(1, len(answers))

    # the grammar lets the model put whitespace between tokens; v4's answers show how much
    ws = sum(n(t) for t, _ in texts) / max(1, sum(n(json.dumps(p)) for _, p in texts))
    same4 = sum(mean_tokens(v) for v in rec4.values())
    same12 = sum(mean_tokens(v) for v in rec12.values())
    print(
        "v4's recorded first answers, same content, compact JSON, ids as R-names: "
        + ", ".join(f"{k} {mean_tokens(v):.0f}" for k, v in rec4.items())
        + f" = {same4:.0f} per episode; rewritten in v12's form: "
        + ", ".join(f"{k} {mean_tokens(v):.0f}" for k, v in rec12.items())
        + f" = {same12:.0f} ({same4 / same12:.2f}x fewer)"
    )
    v12_same = (same12 + repairs * repair) * ws
    print(
        f"v4's answers carry {ws:.2f}x their compact tokens in grammar whitespace; with it and "
        f"v4's repair rate, v12 with v4's content: {v12_same:.0f} generated tokens per episode, "
        f"{v4_gen / v12_same:.2f}x fewer than v4 measured ({v4_gen:.0f}); at the bound "
        f"{v12_gen * ws:.0f} ({v4_gen / (v12_gen * ws):.2f}x)"
    )
    new_prompt = 320  # docs/results.md: new prompt tokens of an encoder call with the cache on
    answers = SMALL_ANSWERS * ANSWER_S
    for label, calls, gen in (
        ("v4 measured", v4_calls, v4_gen),
        ("v12 bound", v12_calls, v12_gen * ws),
        ("v12, v4's content", v12_calls, v12_same),
    ):
        enc = SMALL_ENCODINGS * (calls * new_prompt / PROMPT_TPS + gen / GEN_TPS)
        print(
            f"small bench, idle 2 cores, 1.5B, prompt cache on, {label}: encoder "
            f"{enc / 60:.0f} min + answers {answers / 60:.0f} min = {(enc + answers) / 60:.0f} min"
        )
    print("every staged-v12 schema compiles to a llama.cpp grammar")
    print(f"cpu {time.process_time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
