"""The server's side of guardrails: the client of an operator's policy service
(`agentd.v1.PolicyService`, which agentd calls and does not serve), handed to the engine
as a check kind."""
