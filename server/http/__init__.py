"""The one HTTP address (AGENTD_HTTP_ADDRESS): uvicorn and Starlette, every request
through the same guard (authentication, rate limits, a body limit, the RPC audit), and
the doors mounted on it: A2A, MCP, OpenAI-compatible (`server.http.door`)."""
