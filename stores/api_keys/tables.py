"""The API keys table (migrations 0003 and 0033), on the schema's one `metadata`
(`stores.sql.schema` imports this module, so it is part of it wherever it is read)."""

from __future__ import annotations

from sqlalchemy import JSON, Column, DateTime, Index, String, Table

from stores.sql.metadata import metadata

api_keys = Table(
    "api_keys",
    metadata,
    Column("key_id", String(32), primary_key=True),
    Column("secret_sha256", String(64), nullable=False),
    Column("tenant", String(128), nullable=False),
    Column("principal", String(256), nullable=False),
    Column("roles", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
    Index("ix_api_keys_tenant_principal", "tenant", "principal", "created_at"),
)
"""API keys: the key id and a digest of the secret; never the plaintext. The index
answers the keys one principal holds in its tenant (`KeyStore.held_by`)."""
