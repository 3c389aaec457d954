"""The settings of long-term memory and knowledge bases: embeddings, recall and retrieval
(`memory`), and reranking what a search finds (`rerank`)."""
