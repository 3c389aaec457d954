"""The HTTP address's front doors against the native contract, in one run: an MCP tool
call against gRPC `Execute` (`mcp`)."""
