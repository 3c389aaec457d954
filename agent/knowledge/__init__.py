"""Long-term memory and knowledge bases: embeddings' usage, chunking, retrieval, and the
records the stores (`stores.knowledge`) keep. Conversation memory is `agent.conversations`."""
