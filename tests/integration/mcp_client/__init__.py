"""The official `mcp` client, run in a process of its own against agentd's MCP door."""
