"""The memory as an MCP server: tools an agent calls over stdio or streamable HTTP.

:mod:`analogist.mcp.tools` holds the operations as plain functions on a
:class:`~analogist.memory.Memory` (they reuse the library and the CLI's JSON shapes);
:mod:`analogist.mcp.server` registers them on the official ``mcp`` SDK's ``MCPServer``.
"""
