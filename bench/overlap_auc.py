"""Word-overlap leak of PARB memories: how well text overlap with the target alone tells the
gold source from the other memory episodes (F3, F7, F8).

Per family: the AUC of the source's overlap against each group of other episodes (0.5: overlap
carries no label; 1.0: the source always overlaps most), for word sets and word bigrams, and
how often the episode with the highest word overlap is the source. Keys (`memory_roles`) are
read only to label the groups: this measures the generator, like `analogist bench audit`.

    .venv/bin/python bench/overlap_auc.py --seeds 0,1,2,3 [--split dev] [--size full]
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Callable, Sequence

from analogist.bench.generation.generate import generate_bench
from analogist.bench.generation.render import bigram_jaccard, jaccard

FAMILIES = ("F3", "F7", "F8")


def auc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """P(a positive scores above a negative), ties counted half (nan when a side is empty)."""
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def group(role: str) -> str:
    """The episode group a memory role belongs to: source, look-alike (the target motif's
    other structures), or its own role name (same_domain, other, …)."""
    if role == "source":
        return "source"
    return "lookalike" if role.startswith("decoy") or role == "partial" else role


def measure(seeds: Sequence[int], split: str, size: str) -> dict[str, dict[str, float]]:
    """Per family: AUC of the source against every other group, per overlap measure."""
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    top: dict[str, list[bool]] = defaultdict(list)
    measures: dict[str, Callable[[str, str], float]] = {"words": jaccard, "bigrams": bigram_jaccard}
    for seed in seeds:
        for item in generate_bench(seed, split, size).items:
            if item.family not in FAMILIES:
                continue
            roles, target = item.key["memory_roles"], item.inputs["target"]["text"]
            best: tuple[float, str] | None = None
            for ep in item.inputs["memory"]:
                g = group(roles[ep["id"]])
                for name, fn in measures.items():
                    scores[item.family][f"{name}:{g}"].append(fn(target, ep["text"]))
                w = jaccard(target, ep["text"])
                if best is None or w > best[0]:
                    best = (w, g)
            if item.key.get("gold_source") and best is not None:
                top[item.family].append(best[1] == "source")
    out: dict[str, dict[str, float]] = {}
    for fam, s in sorted(scores.items()):
        row: dict[str, float] = {}
        for name in measures:
            others = sorted({k.split(":", 1)[1] for k in s if k.startswith(name)} - {"source"})
            for g in others:
                row[f"{name} src>{g}"] = auc(s[f"{name}:source"], s[f"{name}:{g}"])
        row["top overlap is source"] = sum(top[fam]) / len(top[fam]) if top[fam] else float("nan")
        out[fam] = row
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0,1,2,3", help="comma-separated bench seeds")
    ap.add_argument("--split", default="dev", choices=("dev", "test"))
    ap.add_argument("--size", default="full")
    a = ap.parse_args()
    seeds = [int(x) for x in a.seeds.split(",")]
    print(f"overlap AUC (0.5 = no leak), {a.split}/{a.size}, seeds {seeds}")
    for fam, row in measure(seeds, a.split, a.size).items():
        print(f"{fam}: " + "  ".join(f"{k} {v:.3f}" for k, v in row.items()))


if __name__ == "__main__":
    main()
