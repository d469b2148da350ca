"""End to end: the MCP SDK's own client drives `analogist mcp` over stdio (a real subprocess)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from analogist.cli.memory_cmd import example_memory_lines
from analogist.memory import Memory

TOOLS = {"add_episode", "search", "analogize", "map", "log", "record_outcome"}


def _server(db: Path) -> StdioServerParameters:
    script = Path(sys.executable).with_name("analogist")
    command = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "from analogist.cli.main import cli; cli()"]
    )
    if not script.exists() and shutil.which("analogist"):
        command = [shutil.which("analogist")]
    return StdioServerParameters(
        command=command[0],
        args=[*command[1:], "--db", str(db), "mcp"],
        env={"ANALOGIST_EMBEDDER": "hashing"},
    )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "memory.db"
    with Memory(str(path)) as m:
        assert not m.add(example_memory_lines()).rejected
    return path


def _new_twin() -> dict:
    """A new episode: the spec's derived-copy shape in a domain the memory has not seen."""
    from tests.conftest import SPEC_EXAMPLE

    sig = json.loads(json.dumps(SPEC_EXAMPLE))
    sig["episode_id"] = "ep_new_intel_feed"
    return {
        "id": "ep_new_intel_feed",
        "kind": "failure",
        "text": "The status page said the intel feed was down; it had read a cached summary.",
        "signature": sig,
    }


def test_full_cycle_add_analogize_record_outcome(db: Path) -> None:
    async def scenario() -> dict:
        async with Client(_server(db)) as client:
            listed = await client.list_tools()
            names = {t.name for t in listed.tools}
            schema = next(t for t in listed.tools if t.name == "analogize").output_schema
            resources = await client.list_resources()
            vocab = await client.read_resource("analogist://vocabulary")
            added = await client.call_tool("add_episode", {"episode": _new_twin()})
            found = await client.call_tool("search", {"target": "ep_new_intel_feed", "k": 5})
            run = await client.call_tool("analogize", {"target": "ep_new_intel_feed", "tier": 1})
            tier0 = await client.call_tool("analogize", {"target": "ep_new_intel_feed", "tier": 0})
            rec = run.structured_content
            mapped = await client.call_tool(
                "map",
                {"base": rec["source"] or "ep_fin_ledger_copy", "target": "ep_new_intel_feed"},
            )
            outcome = await client.call_tool(
                "record_outcome", {"run_id": rec["run_id"], "outcome": "worse", "delta": 1.5}
            )
            logged = await client.call_tool("log", {"limit": 5})
            return {
                "names": names,
                "schema": schema,
                "resources": resources,
                "vocab": vocab,
                "added": added,
                "found": found,
                "run": run,
                "tier0": tier0,
                "mapped": mapped,
                "outcome": outcome,
                "logged": logged,
            }

    r = anyio.run(scenario)
    assert r["names"] >= TOOLS
    assert {"mapped", "transfer", "predict", "check"} <= set(r["schema"]["properties"])
    assert "analogist://vocabulary" in {str(x.uri) for x in r["resources"].resources}
    terms = json.loads(r["vocab"].contents[0].text)
    assert any(t["term"] == "derives_from" and t["count"] > 0 for t in terms)
    assert not r["added"].is_error
    assert r["added"].structured_content["added"] == "ep_new_intel_feed"
    pool = r["found"].structured_content
    assert pool["target"]["episode_id"] == "ep_new_intel_feed"
    assert pool["candidates"] and all(c["found_by"] for c in pool["candidates"])
    rec = r["run"].structured_content
    assert not r["run"].is_error and rec["accepted"] and rec["logged"]
    assert rec["source"] in {
        "ep_ops_feed_status_cache",
        "ep_fin_ledger_copy",
        "ep_med_discharge_medlist",
        "ep_log_wms_bin_count",
        "ep_edu_degree_audit_export",
    }
    assert rec["mapped"] and any(t["decision"] == "YES" for t in rec["transfer"])
    assert rec["record_text"].startswith("ANALOGY")
    t0 = r["tier0"].structured_content
    assert t0["tier"] == 0 and not t0["accepted"] and t0["cost"]["model_calls"] == 0
    assert r["mapped"].structured_content["role_mapping"]["role_map"]
    out = r["outcome"].structured_content
    assert not r["outcome"].is_error and out["negative"] is True and out["outcome"] == "worse"
    runs = r["logged"].structured_content["runs"]
    assert rec["run_id"] in {x["run_id"] for x in runs}
    with Memory(str(db)) as m:  # what the server wrote is in the store
        entries = [e.to_json() for e in m.store.ledger(rec["run_id"])]
        assert len(entries) == 1 and entries[0]["negative"] == 1 and entries[0]["delta"] == 1.5
        assert m.store.has_episode("ep_new_intel_feed")


def test_bad_input_is_a_tool_error_and_the_server_keeps_serving(db: Path) -> None:
    async def scenario() -> list:
        async with Client(_server(db)) as client:
            calls = [
                ("add_episode", {"episode": {"id": "x y", "kind": "failure", "text": "t"}}),
                ("add_episode", {"episode": "{not json"}),
                ("add_episode", {"episode": json.loads(example_memory_lines()[0])}),
                ("analogize", {"target": "ep_sw_coverage_gate", "tier": 7}),
                ("analogize", {}),
                ("map", {"base": "ep_nope", "target": "ep_sw_coverage_gate"}),
                ("log", {"run_id": "run_missing"}),
                ("record_outcome", {"run_id": "run_missing", "outcome": "resolved"}),
                ("search", {"target": "ep_sw_coverage_gate", "k": 0}),
            ]
            results = [await client.call_tool(name, args) for name, args in calls]
            fine = await client.call_tool("search", {"target": "ep_sw_coverage_gate", "k": 3})
            run = await client.call_tool("analogize", {"target": "ep_sw_coverage_gate"})
            bad_outcome = await client.call_tool(
                "record_outcome", {"run_id": run.structured_content["run_id"], "outcome": "great"}
            )
            return [*results, bad_outcome, fine]

    *errors, fine = anyio.run(scenario)
    texts = [e.content[0].text for e in errors]
    assert all(e.is_error for e in errors), texts
    assert "episode id" in texts[0] and "letters, digits" in texts[0]  # the `analogist add` text
    assert "already stored" in texts[2]
    assert "tier 7" in texts[3] and "exactly one of" in texts[4]
    assert "ep_nope" in texts[5] and "run_missing" in texts[6] and "run_missing" in texts[7]
    assert "out of range" in texts[8] and "resolved, unchanged, worse" in texts[9]
    assert not any("Traceback" in t for t in texts)
    assert not fine.is_error and fine.structured_content["candidates"]
    with Memory(str(db)) as m:  # rejected input wrote nothing
        assert m.store.count() == len(example_memory_lines())
        assert m.store.ledger() == []
