"""``analogist mcp``: the memory's tools on the official MCP SDK (stdio or streamable HTTP).

Tools: ``add_episode``, ``search``, ``analogize``, ``map``, ``log``, ``record_outcome``;
resource ``analogist://vocabulary``. Every tool returns structured content; bad input comes
back as a tool error (``is_error``) whose text is the CLI's one-line message, never a crash.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from analogist import __version__
from analogist.errors import AnalogistError
from analogist.mcp import tools
from analogist.memory import Memory

VOCAB_URI = "analogist://vocabulary"
INSTRUCTIONS = (
    "Episodic memory with analogical reasoning. Store what happened with add_episode (an episode "
    "or a bare structural signature; the vocabulary resource lists the relation terms). When "
    "stuck, call analogize on the episode id of the current problem: it retrieves a structurally "
    "similar past episode, maps roles, and says what transfers and what does not, with a "
    "prediction to check. After acting on a transfer, call record_outcome with the run id."
)


class TransferRow(BaseModel):
    """One candidate inference and whether it transfers (TRANSFER line of spec §10.1)."""

    inference: str
    decision: str
    reason: str


class AnalogyRecord(BaseModel):
    """The likeness / difference / unknown record of spec §10.1 for one logged run."""

    run_id: str
    tier: int
    accepted: bool = Field(description="An analogy was accepted (source is set).")
    source: str | None
    mapped: list[list[str]] = Field(description="[source role, target role] pairs.")
    matches: list[str]
    fails: list[str] = Field(description="Source relations unknown in the target.")
    blockers: list[str]
    transfer: list[TransferRow]
    predict: str | None
    check: str | None
    critic: dict[str, Any] | None
    candidates: list[str]
    attempts: list[dict[str, Any]]
    cost: dict[str, Any]
    trigger: dict[str, Any]
    applied: dict[str, Any] | None
    logged: bool
    log_error: str | None
    record_text: str | None = Field(description="The record as the CLI prints it.")


def _tool_call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run one tool function; the library's one-line errors become MCP tool errors."""
    try:
        return fn(*args, **kwargs)
    except AnalogistError as e:
        raise ToolError(" ".join(str(e).split())) from None


def build_server(memory: Memory) -> MCPServer:
    """An MCPServer whose tools read and write ``memory``."""
    server = MCPServer("analogist", version=__version__, instructions=INSTRUCTIONS)

    @server.tool(name="add_episode", description=tools.add_episode.__doc__)
    def add_episode(
        episode: Annotated[
            dict[str, Any] | str,
            Field(
                description="An episode {id, kind, text, ...; signature} or a bare signature "
                "{episode_id, kind, roles, relations, ...}, as an object or JSON text."
            ),
        ],
    ) -> dict[str, Any]:
        return _tool_call(tools.add_episode, memory, episode)

    @server.tool(name="search", description=tools.search.__doc__)
    def search(
        target: Annotated[str, Field(description="A stored episode id, or text.")],
        channels: Annotated[
            str | None, Field(description="e.g. 'S0,S1,S2' or 'M'; all by default.")
        ] = None,
        k: Annotated[int, Field(description="Hits per channel (1-1000).")] = 10,
        exclude: Annotated[list[str] | None, Field(description="Episode ids to keep out.")] = None,
    ) -> dict[str, Any]:
        return _tool_call(tools.search, memory, target, channels, k, exclude)

    @server.tool(name="analogize", description=tools.analogize.__doc__)
    def analogize(
        target: Annotated[
            str | None, Field(description="A stored episode id (or text, which needs a model).")
        ] = None,
        signature: Annotated[
            dict[str, Any] | None,
            Field(description="A target signature object instead of a stored id."),
        ] = None,
        tier: Annotated[
            int,
            Field(
                description="0: fingerprint + predicate lookup only; "
                "1: full loop; 2: with re-representation."
            ),
        ] = 1,
        why: Annotated[
            str, Field(description="Why this run fired (kept in the log).")
        ] = "agent request",
        model: Annotated[
            str | None, Field(description="provider:name to encode a text target.")
        ] = None,
    ) -> AnalogyRecord:
        return AnalogyRecord(
            **_tool_call(tools.analogize, memory, target, signature, tier, why, model)
        )

    @server.tool(name="map", description=tools.map_episodes.__doc__)
    def map_(
        base: Annotated[str, Field(description="Stored episode id of the base (source).")],
        target: Annotated[str, Field(description="Stored episode id of the target.")],
    ) -> dict[str, Any]:
        return _tool_call(tools.map_episodes, memory, base, target)

    @server.tool(name="log", description=tools.log.__doc__)
    def log(
        run_id: Annotated[str | None, Field(description="One run in full.")] = None,
        limit: Annotated[int, Field(description="How many recent runs (1-200).")] = 20,
    ) -> dict[str, Any]:
        return _tool_call(tools.log, memory, run_id, limit)

    @server.tool(name="record_outcome", description=tools.record_outcome.__doc__)
    def record_outcome(
        run_id: Annotated[str, Field(description="The analogize run whose transfer was applied.")],
        outcome: Annotated[
            str, Field(description="resolved | unchanged | worse, versus doing nothing.")
        ],
        action: Annotated[
            str | None,
            Field(description="What was applied (default: the run's first transferred inference)."),
        ] = None,
        delta: Annotated[
            float | None,
            Field(description="Measured change versus the control; positive means worse."),
        ] = None,
    ) -> dict[str, Any]:
        return _tool_call(tools.record_outcome, memory, run_id, outcome, action, delta)

    @server.resource(
        VOCAB_URI,
        name="vocabulary",
        mime_type="application/json",
        description="The controlled structural vocabulary with usage counts.",
    )
    def vocabulary() -> str:
        return json.dumps(tools.vocabulary(memory), ensure_ascii=False)

    return server


def serve(
    memory: Memory, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765
) -> None:
    """Serve until the client disconnects (stdio) or the process is stopped (HTTP)."""
    server = build_server(memory)
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)
