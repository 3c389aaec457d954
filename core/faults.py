"""Which failures mean that a store (Redis or the database) is out of reach.

Such a failure is not the caller's fault and not a bug: the call is answered
UNAVAILABLE with a retry delay (`StoreUnavailableError`), never INTERNAL,
and a task it hits fails with that reason instead of crashing.
"""

from __future__ import annotations

import sys
from types import ModuleType

import sqlalchemy.exc

from core.errors import StoreUnavailableError

_SQLSTATE_CLASSES = ("08", "53", "57P")
"""Connection exceptions, insufficient resources, operator intervention (PostgreSQL)."""
_SQLITE_TRANSIENT = ("locked", "busy", "disk I/O error", "unable to open database file")


def _redis() -> ModuleType | None:
    """redis.exceptions once something has imported Redis's client; before that no error
    can be one of Redis's, and an embedded server never loads it (start-up time)."""
    return sys.modules.get("redis.exceptions")


def is_unavailable(error: BaseException) -> bool:
    """Whether `error` says a store could not be reached or is overloaded."""
    if isinstance(error, StoreUnavailableError):
        return True
    redis = _redis()
    if redis is not None and isinstance(error, redis.ConnectionError | redis.TimeoutError):
        return True  # MaxConnectionsError, BusyLoadingError and pool timeouts included
    if isinstance(error, sqlalchemy.exc.TimeoutError | sqlalchemy.exc.DisconnectionError):
        return True  # the connection pool stayed exhausted
    if isinstance(error, sqlalchemy.exc.DBAPIError):
        return _database_unavailable(error)
    return isinstance(error, ConnectionError)


def _database_unavailable(error: sqlalchemy.exc.DBAPIError) -> bool:
    if error.connection_invalidated or isinstance(error, sqlalchemy.exc.InterfaceError):
        return True
    state = str(getattr(error.orig, "sqlstate", "") or "")
    if state:
        return state.startswith(_SQLSTATE_CLASSES)
    if type(error.orig).__module__.startswith("sqlite3"):
        # "database is locked" and I/O trouble pass; "no such table" is no outage.
        return any(part in str(error.orig) for part in _SQLITE_TRANSIENT)
    return isinstance(error, sqlalchemy.exc.OperationalError)


def as_store_error(error: BaseException, store: str = "a store") -> StoreUnavailableError | None:
    """The `StoreUnavailableError` for `error`, or None when it is something else."""
    if isinstance(error, StoreUnavailableError):
        return error
    if not is_unavailable(error):
        return None
    redis = _redis()
    name = "Redis" if redis is not None and isinstance(error, redis.RedisError) else store
    if isinstance(error, sqlalchemy.exc.SQLAlchemyError):
        name = "the database"
    return StoreUnavailableError(name, type(error).__name__)
