"""Every piece of state agentd keeps, one subpackage per store interface.

Each subpackage holds `base.py` (the interface, with its contract in the docstring)
and one module per backend, named by backend: `memory.py` (this process only: the
embedded default and tests), `redis.py` (live state shared by replicas) and `sql.py`
(durable records, SQLite or PostgreSQL). `build.py` builds every store from one
`StoreSettings`; `redis.py` holds the process's Redis connections and `sql/` the SQL
engine, schema, migrations and the one writer that groups commits. The records the
stores keep belong to their owners (`records.tasks`, `records.events`, `records.tools.grants`,
`records.tools.audit`, `records.audit`, `records.keys`). `tests/contract/` runs one suite per
interface against every backend.
"""
