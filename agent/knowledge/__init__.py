"""Long-term memory and knowledge bases: chunking, retrieval, extraction, and the records
the stores (`stores.knowledge`) keep. What embeddings cost is counted in `agent.llm.usage`;
conversation memory is `agent.conversations`."""
