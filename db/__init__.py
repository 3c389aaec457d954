"""The SQL database: schema, engine and migrations (SQLite by default, PostgreSQL in production)."""
