"""Agent definitions as the engine uses them: the agents a tenant may use and manages
(`catalog`), those defined in AGENTD_AGENTS_DIR (`files`), and what an agent changes
about a request (`selection`). The definition record itself is `records.agents`."""
