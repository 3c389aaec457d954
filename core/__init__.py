"""Types shared by every layer of agentd: the error hierarchy and the caller's identity."""
