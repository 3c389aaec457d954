"""The fake model server (`agentd fake-llm`) and its parts: scripted replies, embeddings,
reranking, providers that fail on cue and a small context window. Deterministic and
offline, for tests, demos and benches; `agent.llm.testing` holds the in-process doubles."""
