"""The one `MetaData` every table of agentd's database is on (`stores.sql.schema` holds
most of them and names every one; some are kept beside their store:
`stores.sql.inbox_tables`, `stores.webhooks.tables`); Alembic's migrations and the
schema's check compare the database with it."""

from __future__ import annotations

from sqlalchemy import MetaData

metadata = MetaData()
