"""`engram mcp`: Engram's memory tools for any MCP host (stdio, or streamable HTTP), built on the official
`mcp` package. One server serves one user (`--user-id` / ENGRAM_USER_ID): the host's model picks what to
remember, never whose memory it touches."""

from __future__ import annotations

import json
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from engram_client.client import Engram
from engram_client.errors import EngramError
from engram_client.tools import TOOLS, MemoryTools

INSTRUCTIONS = (
    "Long-term memory about the user. Call fetch_memory before answering anything that may depend on what "
    "the user said in earlier conversations; save_memory for durable facts; update_memory or forget_memory "
    "when a stored fact changed or the user asks to forget it."
)
DESCRIPTIONS = {tool["name"]: str(tool["description"]) for tool in TOOLS}


def build_server(client: Engram, user_id: str) -> MCPServer:
    tools = MemoryTools(client)
    server: MCPServer = MCPServer("engram", instructions=INSTRUCTIONS)

    def call(name: str, arguments: dict[str, Any]) -> str:
        try:
            return tools.handle(name, arguments, user_id)
        except EngramError as error:
            # A ToolError's text reaches the host (anything else shows as "Error executing tool"): the
            # user reading it learns the URL tried and the setting to fix (ENGRAM_URL, ENGRAM_API_KEY).
            raise ToolError(str(error)) from error

    @server.tool(description=DESCRIPTIONS["fetch_memory"])
    def fetch_memory(query: str, limit: int = 5) -> str:
        return call("fetch_memory", {"query": query, "limit": limit})

    @server.tool(description=DESCRIPTIONS["save_memory"])
    def save_memory(content: str) -> str:
        return call("save_memory", {"content": content})

    @server.tool(description=DESCRIPTIONS["update_memory"])
    def update_memory(memory_id: str, new_content: str) -> str:
        return call("update_memory", {"memory_id": memory_id, "new_content": new_content})

    @server.tool(description=DESCRIPTIONS["forget_memory"])
    def forget_memory(memory_id: str) -> str:
        return call("forget_memory", {"memory_id": memory_id})

    @server.resource(
        "engram://memories",
        name="memories",
        description=f"Every current memory of {user_id}",
        mime_type="application/json",
    )
    def memories() -> str:
        listed = [m.model_dump(mode="json", exclude_none=True) for m in client.list(user_id)]
        return json.dumps(listed, ensure_ascii=False)

    return server


def serve(
    user_id: str,
    transport: Literal["stdio", "streamable-http"] = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    client: Engram | None = None,
) -> None:
    engram = client or Engram()
    server = build_server(engram, user_id)
    try:
        if transport == "stdio":
            server.run("stdio")
        else:
            server.run("streamable-http", host=host, port=port)
    finally:
        engram.close()
