"""Where memories and knowledge base chunks are kept with their vectors (`base`): in
process (`memory`), SQLite (`sqlite`: exact cosine with numpy, FTS5) and PostgreSQL with
pgvector (`pgvector`: HNSW cosine, full-text tsvector)."""
