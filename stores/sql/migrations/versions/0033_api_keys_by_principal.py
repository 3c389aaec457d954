"""api_keys: an index on (tenant, principal, created_at)

A stored principal (a schedule's, an inbound trigger's) is resolved again on every run
and every delivery from the keys it holds in its tenant (`KeyStore.held_by`); the index
answers that without reading every key of every tenant.

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-08 02:00:00.000000
"""

from __future__ import annotations

from alembic import op

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_api_keys_tenant_principal", "api_keys", ["tenant", "principal", "created_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_api_keys_tenant_principal", table_name="api_keys")
