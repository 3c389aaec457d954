"""The schema's one `MetaData`: `stores.sql.schema` defines its tables on it, and so do
the tables kept beside their store (`stores.webhooks.tables`), which it imports."""

from __future__ import annotations

from sqlalchemy import MetaData

metadata = MetaData()
