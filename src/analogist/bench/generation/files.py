"""Benchmark files: ``items.jsonl``, ``keys.jsonl`` and ``manifest.json``, content-hashed.

``items.jsonl`` is everything a system under test may be given; ``keys.jsonl`` (one line per
item, same ids) is the scoring side; ``manifest.json`` holds counts, the audit, the sha256 of both
files, a ``bench_id`` over them and a ``manifest_sha256`` over the manifest itself. JSON is
written with sorted keys, fixed separators and ASCII only, and there are no timestamps, so the
same generator arguments give byte-identical files. :func:`load_bench` re-hashes everything and
refuses a bench whose files no longer match their manifest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analogist.bench.generation.items import Item
from analogist.errors import BenchError

ITEMS, KEYS, MANIFEST = "items.jsonl", "keys.jsonl", "manifest.json"


def dumps(obj: Any) -> str:
    """Canonical one-line JSON."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=True, separators=(",", ":"))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Bench:
    """A generated or loaded benchmark: its items (inputs and keys) and its manifest."""

    items: tuple[Item, ...]
    manifest: Mapping[str, Any]

    @property
    def items_text(self) -> str:
        return "".join(dumps(it.input_record()) + "\n" for it in self.items)

    @property
    def keys_text(self) -> str:
        return "".join(dumps(it.key_record()) + "\n" for it in self.items)

    def item(self, item_id: str) -> Item:
        for it in self.items:
            if it.item_id == item_id:
                return it
        raise BenchError(f"bench has no item {item_id!r}")

    def write(self, out: str | Path) -> Path:
        """Write the three files into directory ``out`` (created if needed)."""
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        (d / ITEMS).write_text(self.items_text, encoding="utf-8")
        (d / KEYS).write_text(self.keys_text, encoding="utf-8")
        (d / MANIFEST).write_text(
            json.dumps(dict(self.manifest), indent=2, sort_keys=True, ensure_ascii=True) + "\n",
            encoding="utf-8",
        )
        return d


def file_hashes(bench: Bench) -> dict[str, str]:
    return {ITEMS: _sha(bench.items_text), KEYS: _sha(bench.keys_text)}


def seal(manifest: Mapping[str, Any], hashes: Mapping[str, str]) -> dict[str, Any]:
    """The manifest with file hashes, ``bench_id`` and its own ``manifest_sha256``."""
    out = {k: v for k, v in manifest.items() if k not in ("files", "bench_id", "manifest_sha256")}
    out["files"] = dict(hashes)
    out["bench_id"] = _sha(hashes[ITEMS] + hashes[KEYS])
    out["manifest_sha256"] = _sha(dumps(out))
    return out


def _read(d: Path, name: str) -> str:
    try:
        return (d / name).read_text(encoding="utf-8")
    except OSError as e:
        raise BenchError(
            f"bench {d}: cannot read {name} ({e}); point at a directory written "
            "by `analogist bench generate`"
        ) from None


def load_bench(path: str | Path) -> Bench:
    """Load a bench directory, verifying every hash.

    Raises:
        BenchError: a file is missing, malformed, or differs from what its manifest records
            (the bench was modified after generation; regenerate it).
    """
    d = Path(path)
    try:
        manifest = json.loads(_read(d, MANIFEST))
    except json.JSONDecodeError as e:
        raise BenchError(f"bench {d}: manifest.json is not JSON ({e})") from None
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    if manifest.get("manifest_sha256") != _sha(dumps(body)):
        raise BenchError(f"bench {d}: manifest.json was modified after generation; regenerate it")
    texts = {name: _read(d, name) for name in (ITEMS, KEYS)}
    for name, text in texts.items():
        if manifest.get("files", {}).get(name) != _sha(text):
            raise BenchError(
                f"bench {d}: {name} does not match the sha256 in manifest.json; the "
                "bench was modified after generation; regenerate it"
            )
    return Bench(_parse(d, texts[ITEMS], texts[KEYS]), manifest)


def _parse(d: Path, items_text: str, keys_text: str) -> tuple[Item, ...]:
    keys = {}
    for line in keys_text.splitlines():
        rec = json.loads(line)
        keys[rec["item_id"]] = rec
    items = []
    for line in items_text.splitlines():
        rec = json.loads(line)
        k = keys.pop(rec["item_id"], None)
        if k is None:
            raise BenchError(f"bench {d}: item {rec['item_id']} has no line in {KEYS}")
        items.append(
            Item(rec["item_id"], rec["family"], rec["split"], k["motif"], rec["inputs"], k["key"])
        )
    if keys:
        raise BenchError(f"bench {d}: {KEYS} has keys for unknown items {sorted(keys)[:3]}")
    return tuple(items)
