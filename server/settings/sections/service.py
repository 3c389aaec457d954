"""The process: where it listens, how it shuts down, streams, metrics and logs."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from server.settings.base import MiB, Section


class ServiceSettings(Section):
    address: str = Field("127.0.0.1:50051", description="host:port the gRPC server listens on")
    grace_period_seconds: float = Field(
        30.0, ge=0, description="time in-flight calls get to finish after SIGTERM"
    )
    shutdown_delay_seconds: float = Field(
        0.0,
        ge=0,
        description="time between reporting NOT_SERVING and refusing new calls on SIGTERM",
    )
    max_message_bytes: int = Field(
        16 * MiB,
        gt=0,
        description="largest gRPC message accepted or sent (a request's input parts travel in one)",
    )
    heartbeat_seconds: float = Field(
        15.0,
        ge=0,
        description="a stream silent this long gets a heartbeat event (sequence 0, not in "
        "the task's log); 0: never",
    )
    keepalive_min_ping_seconds: float = Field(
        5.0,
        gt=0,
        description="clients may send HTTP/2 keepalive pings this often (with or without calls "
        "in flight); more often is refused",
    )
    keepalive_seconds: float = Field(
        60.0,
        gt=0,
        description="the server pings an idle connection this often to find dead clients",
    )
    metrics_address: str = Field(
        "127.0.0.1:9464",
        description="host:port of the Prometheus /metrics endpoint; empty: not served",
    )
    metrics_agent_labels: int = Field(
        20,
        ge=0,
        description="agent ids the metrics name besides the agents of AGENTD_AGENTS_DIR "
        "(always named): the first this many seen; later ones are counted as `other`, the "
        "default agent as `default`",
    )
    secret_patterns: list[str] = Field(
        default_factory=list,
        description="JSON list of regular expressions of secrets to redact from logs, events "
        'and audit records, e.g. ["ghp_[A-Za-z0-9]{36}"] (API keys, bearer tokens and JWTs '
        "always are)",
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field("info", description="log level")
    log_format: Literal["json", "console"] = Field("json", description="log line format")

    @field_validator("secret_patterns")
    @classmethod
    def _patterns(cls, value: list[str]) -> list[str]:
        for pattern in value:
            re.compile(pattern)
        return value
