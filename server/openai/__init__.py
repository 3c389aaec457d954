"""The OpenAI-compatible door on the HTTP address: Responses, Chat Completions and the
models list over agentd's engine (docs/openai.md)."""
