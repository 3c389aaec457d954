"""Ingestion jobs: the record of one document's ingestion, kept durably so that its
state and progress can be asked while it runs and after, by any replica. Plain types
(no numpy): the stores keep them, the runner (`agent.knowledge.ingestion`) moves them."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

JobState = Literal["QUEUED", "RUNNING", "SUCCEEDED", "FAILED"]
ENDED: tuple[JobState, ...] = ("SUCCEEDED", "FAILED")
MAX_ERROR_CHARS = 1000


def new_job_id() -> str:
    """`ing_` and 32 hexadecimal digits: 16 of nanoseconds, then random (ids grow)."""
    return f"ing_{time.time_ns():016x}{secrets.token_hex(8)}"


@dataclass(frozen=True, slots=True)
class IngestionJob:
    """One document's ingestion. `owner` and `lease_until` say which process runs it
    (or, QUEUED with an owner, holds it for an AddDocument call waiting on it) and until
    when it must renew that; a job whose owner let the lease lapse is taken over."""

    tenant: str
    job_id: str
    knowledge_base_id: str
    document_id: str
    name: str
    media_type: str
    size_bytes: int
    created_at: datetime
    external_id: str = ""
    state: JobState = "QUEUED"
    background: bool = False
    """Added with `background`: its content is stored with it and it is re-run when the
    process running it dies (a waiting AddDocument call's job is failed instead)."""
    chunks_done: int = 0
    chunks_total: int = 0
    attempts: int = 0
    """How many times it started running."""
    owner: str = ""
    lease_until: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    error_reason: str = ""
    """An ErrorReason name (without prefix) when FAILED."""
    error: str = ""


@dataclass(frozen=True, slots=True)
class JobCheck:
    """What a running job learns when it reports progress: whether to go on."""

    go_on: bool
    lost: bool = False
    """Another process holds the job now: stop and leave its chunks alone."""
    why: str = ""
    """When not going on (and not lost): why the job is cancelled."""
