"""The inbound triggers' door on the HTTP address (`triggers` in AGENTD_HTTP_DOORS)."""
