"""The HTTP address's front doors against the native contract, in one run: an MCP tool
call (`mcp`) and a Responses round trip (`responses`) against gRPC `Execute`."""
