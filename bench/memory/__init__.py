"""The memory and knowledge benchmark (`make bench`): what it measures and prints
(`figures`), the memories and chunks it searches (`corpus`) and the pgvector database it
builds once and keeps (`pgvector_db`)."""

from bench.memory.figures import main as main
