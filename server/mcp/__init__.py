"""agentd's agents as MCP tools on the HTTP address (`/mcp`): the official `mcp` SDK's
server side, stateless streamable HTTP, over the engine and the task service."""
