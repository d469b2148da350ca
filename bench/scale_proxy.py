"""A k-times larger stand-in memory built from a measured one, for the query stage at sizes a
loaded machine cannot ingest in an afternoon.

It copies a (closed) database that ``bench/retrieval.py --keep`` left behind and writes beside the copy
a snapshot whose S0/S1 posting lists, WL-hash table, id tables and vector rows hold every
document ``k`` times (copy j of episode ``ep_i`` is ``ep_i#j``; the database itself is not
enlarged). The snapshot's generation is the database's, so the copy opens it as current and
nothing is caught up; ``bench/retrieval.py --query COPY --one-size N`` then measures open +
first answer, every channel, RSS and the numpy floor over ``k * n`` documents.

What it is and is not: every posting list is k times longer and every vector scan covers k
times the rows, with the same feature distribution as k * n i.i.d. episodes from the generator
would give — so the S0/S1/exact-vector *work* per query is that of the larger memory. But each
episode has k identical copies, so S0 exact matches and near-duplicate counts are k times
larger than fresh episodes would produce, and no HNSW graph is written (a graph over k
identical copies is degenerate): run the query stage with ``ANALOGIST_EXACT_VECTORS=1`` and
measure HNSW at size with ``bench/hnsw_scale.py``. M.bm25 still searches the original
database. Label figures from it as such.

Usage: ``python bench/scale_proxy.py SRC_DB OUT_DIR --times 10``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

import numpy as np

from analogist.retrieve.dense import VectorIndex
from analogist.retrieve.frozen import FrozenPostings, IdTable, LayeredPostings
from analogist.retrieve.mac import MacIndex
from analogist.retrieve.persist import (
    current_snapshot,
    load_fingerprints,
    load_mac,
    load_vectors,
    publish,
    save_fingerprints,
    save_mac,
    save_vectors,
)
from analogist.retrieve.wl import FingerprintIndex


def tile_sorted(keys: np.ndarray, docs: np.ndarray, n: int, k: int, *cols: np.ndarray) -> tuple:
    """(keys, docs, *cols) sorted by key then doc, with every entry repeated for docs + j*n."""
    all_keys = np.tile(keys, k)
    all_docs = np.concatenate([docs.astype(np.int64) + j * n for j in range(k)])
    order = np.argsort(all_keys, kind="stable")  # copies stay in j order: docs ascend per key
    return (
        all_keys[order],
        all_docs[order].astype(np.int32),
        *(np.tile(c, k)[order] for c in cols),
    )


def tile_postings(p: FrozenPostings, k: int) -> LayeredPostings:
    keys, docs, weights = p.triples()
    keys, docs, weights = tile_sorted(keys, docs, p.n_docs, k, weights)
    new = np.empty(len(keys), bool)
    new[:1], new[1:] = True, keys[1:] != keys[:-1]
    starts = np.flatnonzero(new)
    base = FrozenPostings(
        keys[starts],
        np.append(starts, len(keys)).astype(np.int64),
        docs,
        weights.astype(np.float32),
        np.tile(np.asarray(p.sums), k),
        np.tile(np.asarray(p.norms), k),
    )
    return LayeredPostings(base)  # hot columns are recomputed for the new size when saved


def tile_ids(ids: IdTable, k: int) -> IdTable:
    base = [ids[i] for i in range(len(ids))]
    return IdTable.build(base + [f"{e}#{j}" for j in range(1, k) for e in base])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("out")
    ap.add_argument("--times", type=int, default=10)
    ap.add_argument("--dim", type=int, default=384, help="the embedder's dimension")
    args = ap.parse_args()
    k, out = args.times, Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    db = out / "bench.db"
    for suffix in ("", "-wal"):  # a closed database: its file and write-ahead log
        if os.path.exists(args.db + suffix):
            shutil.copyfile(args.db + suffix, str(db) + suffix)
    snap = current_snapshot(Path(args.db + ".idx"))
    if snap is None:
        raise SystemExit(f"{args.db} has no live snapshot; run bench/retrieval.py with --keep")
    folder, manifest = snap
    root = Path(str(db) + ".idx")
    shutil.rmtree(root, ignore_errors=True)
    tmp = root / ".tmp-proxy"
    tmp.mkdir(parents=True)
    fp = load_fingerprints(folder, manifest["wl_version"])
    n = len(fp)
    hk, hd = tile_sorted(np.asarray(fp.hash_keys), np.asarray(fp.hash_docs), n, k)
    assert isinstance(fp.postings, LayeredPostings)
    big = FingerprintIndex(
        fp.version, tile_postings(fp.postings.base, k), tile_ids(fp.ids, k), hk, hd
    )
    save_fingerprints(tmp, big)
    mac = load_mac(folder)
    assert isinstance(mac.postings, LayeredPostings)
    save_mac(tmp, MacIndex(tile_postings(mac.postings.base, k), tile_ids(mac.ids, k)))
    entries = {}
    for key, entry in manifest["indexes"].items():
        entries[key] = {**entry, "n": entry["n"] * k}
        if not key.startswith("vec:"):
            continue
        _, level, name = key.split(":", 2)
        v = load_vectors(folder, level, name, args.dim, False, int(entry["n"]))
        os.environ["ANALOGIST_EXACT_VECTORS"] = "1"  # no graph over k identical copies
        tiled = VectorIndex(v.dim, base=np.tile(np.asarray(v.base), (k, 1)), ids=tile_ids(v.ids, k))
        entries[key].update(save_vectors(tmp, tiled, level, name, None))
        del tiled
    entries["fp"]["stale"] = 0
    final = root / f"{manifest['generation']}-proxy-x{k}"
    os.rename(tmp, final)
    publish(root, final, {**manifest, "indexes": entries})
    print(json.dumps({"db": str(db), "documents": n * k, "snapshot": str(final)}))


if __name__ == "__main__":
    main()
