"""`analogist mcp --transport http`: the same tools over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp import Client

from analogist.cli.memory_cmd import example_memory_lines
from analogist.memory import Memory


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_serves_the_tools(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with Memory(str(db)) as m:
        m.add(example_memory_lines()[:10])
    port = _free_port()
    script = Path(sys.executable).with_name("analogist")
    cmd = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "from analogist.cli.main import cli; cli()"]
    )
    proc = subprocess.Popen(
        [
            *cmd,
            "--embedder",
            "hashing",
            "--db",
            str(db),
            "mcp",
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read().decode()
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)

        async def scenario():
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                names = {t.name for t in (await client.list_tools()).tools}
                found = await client.call_tool(
                    "search", {"target": "ep_ops_shared_dns_outage", "k": 3}
                )
                bad = await client.call_tool("log", {"limit": 0})
                return names, found, bad

        names, found, bad = anyio.run(scenario)
        assert {"add_episode", "analogize", "record_outcome"} <= names
        assert not found.is_error and found.structured_content["target"]["kind"] == "episode"
        assert bad.is_error and "out of range" in bad.content[0].text
    finally:
        proc.terminate()
        proc.wait(timeout=30)
