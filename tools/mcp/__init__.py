"""MCP servers as tool sources: one connection per server in its own asyncio task
(`connection`), over stdio (`stdio`) or streamable HTTP (`streamable_http`), call slots
shared fairly between tenants (`slots`), and each server tool as an agentd `Tool`
(`tool`). The toolsets file that declares them is read by `tools.toolsets`."""
