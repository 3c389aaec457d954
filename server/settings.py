"""Service settings, read from `AGENTD_*` environment variables."""

from __future__ import annotations

import ipaddress
import math
import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from stores.rate_limits.base import Rate, parse_limits
from tools.model import TOOL_NAME_PATTERN, PermissionLevel

MiB = 1024 * 1024


class Settings(BaseSettings):
    """Every setting has a default that lets `make run` work on a bare machine."""

    model_config = SettingsConfigDict(env_prefix="AGENTD_", extra="ignore", populate_by_name=True)

    address: str = Field("127.0.0.1:50051", description="host:port the gRPC server listens on")
    grace_period_seconds: float = Field(
        30.0, ge=0, description="time in-flight calls get to finish after SIGTERM"
    )
    shutdown_delay_seconds: float = Field(
        0.0,
        ge=0,
        description="time between reporting NOT_SERVING and refusing new calls on SIGTERM",
    )
    workspace_dir: Path = Field(
        Path("workspace"), description="the only folder the file tools may touch"
    )
    agents_dir: Path | None = Field(
        None,
        description="a folder of agent definitions (YAML, one agent per file), read at start "
        "and again when they change; unset: only the default agent",
    )
    agent_admin_roles: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["admin"],
        description="comma-separated roles that may create, update and delete their "
        "tenant's agents by RPC",
    )
    tool_permission: Literal["deny", "none", "read", "write", "execute", "admin"] = Field(
        "deny",
        description="permission level every caller holds without a grant ('deny': no tool "
        "without a grant)",
    )
    approval_tools: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="comma-separated tools whose every call waits for a human's approval",
    )
    approver_roles: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["approver", "admin"],
        description="comma-separated roles that may approve or reject tool calls",
    )
    grants_refresh_seconds: float = Field(
        5.0, gt=0, description="how often grants are reloaded from the database"
    )
    http_allowed_networks: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="comma-separated CIDRs http_request may reach although not public",
    )
    http_timeout_seconds: float = Field(15.0, gt=0, description="http_request time limit")
    http_max_response_bytes: int = Field(1_000_000, gt=0, description="http_request body limit")
    http_max_redirects: int = Field(5, ge=0, description="redirects http_request follows")
    max_file_bytes: int = Field(MiB, gt=0, description="largest file read_file/write_file handle")
    workspace_max_bytes: int = Field(
        256 * MiB, gt=0, description="bytes the workspace may hold in all (write_file's quota)"
    )
    workspace_max_files: int = Field(
        10_000, gt=0, description="files and folders the workspace may hold"
    )
    max_tool_argument_bytes: int = Field(256 * 1024, gt=0, description="largest tool arguments")
    max_message_bytes: int = Field(4 * MiB, gt=0, description="largest gRPC message accepted")
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
    llm_base_url: str | None = Field(
        None,
        validation_alias=AliasChoices("AGENTD_LLM_BASE_URL", "OPENAI_BASE_URL"),
        description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1",
    )
    llm_api_key: str | None = Field(
        None,
        validation_alias=AliasChoices("AGENTD_LLM_API_KEY", "OPENAI_API_KEY"),
        description="API key for the endpoint",
    )
    llm_model: str | None = Field(
        None, description="default model name; the engine is off without it"
    )
    llm_planner_model: str | None = Field(None, description="planner model (default: llm_model)")
    llm_executor_model: str | None = Field(None, description="executor model (default: llm_model)")
    llm_critic_model: str | None = Field(None, description="critic model (default: llm_model)")
    llm_synthesizer_model: str | None = Field(
        None, description="synthesizer model (default: llm_model)"
    )
    llm_temperature: float | None = Field(None, ge=0, le=2, description="sampling temperature")
    llm_max_tokens: int | None = Field(None, gt=0, description="max tokens per model reply")
    llm_timeout_seconds: float = Field(60.0, gt=0, description="per-request timeout")
    llm_max_attempts: int = Field(
        4, ge=1, le=10, description="attempts on 429/5xx/connection errors"
    )
    llm_tool_calling: bool = Field(True, description="whether the model supports native tool calls")
    max_running_tasks: int = Field(100, ge=1, description="tasks one process runs at once")
    max_queued_tasks: int = Field(100, ge=0, description="tasks waiting for a slot before refusal")
    tenant_queue_share: float = Field(
        0.5,
        gt=0,
        le=1,
        description="share of the queue places one tenant may hold while every slot is busy; "
        "the rest stays free for other tenants (1: no limit)",
    )
    max_concurrent_llm_calls: int = Field(
        100, ge=1, description="model calls in flight per process; more wait their turn"
    )
    delta_flush_ms: float = Field(
        25.0,
        ge=0,
        description="text and reasoning deltas of a model reply arriving within this many "
        "milliseconds are sent as one event (0: one event per chunk)",
    )
    delta_max_chars: int = Field(
        1024, ge=1, description="a coalesced delta is sent once it holds this many characters"
    )
    max_concurrent_tool_calls: int = Field(5, ge=1, le=64, description="tool calls run at once")
    tool_cache_seconds: str = Field(
        "",
        description="how long results of built-in read-only tools are reused per tenant, by "
        'tool, e.g. "json_query=60,read_file=5" (unset tools: never cached)',
    )
    tool_max_attempts: int = Field(
        3,
        ge=1,
        le=10,
        description="attempts at a call of an idempotent tool that fails transiently (timeout, "
        "connection error, a transient failure), with exponential backoff and jitter within "
        "the call's deadline; 1: never retried",
    )
    url_placeholder_min_chars: int = Field(
        60,
        ge=0,
        le=100_000,
        description="URLs this long or longer reach the model as short placeholders "
        "(restored in its tool arguments and answers); 0 turns this off",
    )
    max_tool_calls_per_turn: int = Field(
        32, ge=1, le=256, description="tool calls run from one model reply; more are not run"
    )
    step_timeout_seconds: float = Field(30.0, gt=0, description="time limit of one step")
    task_timeout_seconds: float = Field(600.0, gt=0, description="time limit of one task")
    token_budget: int = Field(200_000, gt=0, description="default token budget per task")
    critic_policy: Literal["every_step", "every_n", "end", "off"] = Field(
        "end", description="when the critic reviews plan-and-execute results"
    )
    critic_every_n: int = Field(3, ge=1, description="steps between reviews with every_n")
    max_corrections: int = Field(
        3, ge=0, le=10, description="critic-requested corrections per task"
    )
    database_url: str = Field(
        "sqlite+aiosqlite:///var/agentd.db",
        description="SQLAlchemy URL of the database (task history, audit); PostgreSQL: "
        "postgresql+asyncpg://user@host/db",
    )
    redis_url: str | None = Field(
        None,
        description="Redis for task state and event logs (shared by replicas); in-process if unset",
    )
    redis_prefix: str = Field("agentd:", description="prefix of every Redis key agentd writes")
    redis_max_connections: int = Field(
        32,
        ge=2,
        description="connections of the Redis pool serving calls and tasks (the background "
        "loops and pub/sub keep 3 more of their own)",
    )
    redis_pool_timeout_seconds: float = Field(
        5.0,
        gt=0,
        description="how long a call waits for a free Redis connection before it is answered "
        "UNAVAILABLE",
    )
    database_pool_size: int = Field(
        10, ge=1, description="PostgreSQL connections kept open (reads; writes use one at a time)"
    )
    database_max_overflow: int = Field(
        10, ge=0, description="PostgreSQL connections opened beyond the pool size under load"
    )
    database_pool_timeout_seconds: float = Field(
        30.0,
        gt=0,
        description="how long a call waits for a free PostgreSQL connection before it is "
        "answered UNAVAILABLE",
    )
    retention_seconds: int = Field(
        3600, gt=0, description="how long a finished task and its events are kept"
    )
    lease_seconds: float = Field(
        10.0,
        gt=0,
        description="with Redis: how long a task stays with a process that stopped renewing its "
        "lease before another process takes it over",
    )
    takeover_interval_seconds: float = Field(
        1.0, gt=0, description="with Redis: how often a process looks for tasks to take over"
    )
    replica_id: str | None = Field(
        None, description="this process's name in leases (default: host name, pid, random)"
    )
    auth: Literal["on", "off"] = Field(
        "on", description="'off' lets every caller in as the anonymous principal (logs a warning)"
    )
    gateway_roles: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["gateway"],
        description="comma-separated roles that may name the end user they call for "
        "(header agentd-on-behalf-of)",
    )
    anonymous_roles: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["approver", "auditor"],
        description="with AGENTD_AUTH=off: the roles every (anonymous) caller holds, so that "
        "someone can approve tool calls and read the audit log",
    )
    auth_public_methods: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["/grpc.health.v1.Health/", "/grpc.reflection."],
        description="comma-separated method prefixes callable without credentials",
    )
    auth_cache_seconds: float = Field(
        5.0, ge=0, description="how long a looked-up API key is trusted (revocation delay)"
    )
    auth_failure_limit: str = Field(
        "30/m",
        description="refused credentials allowed per client address (e.g. 30/m; '' for no limit);"
        " past it the address gets RESOURCE_EXHAUSTED before any lookup",
    )
    jwt_issuer: str | None = Field(None, description="required `iss` of JWTs (enables JWTs)")
    jwt_audience: str | None = Field(None, description="required `aud` of JWTs")
    jwt_hs256_secret: SecretStr | None = Field(
        None, description="shared secret for HS256 JWTs (32 bytes or more)"
    )
    jwt_jwks_file: Path | None = Field(None, description="JWKS file with RS256/ES256 public keys")
    jwt_tenant_claim: str = Field("tenant", description="JWT claim naming the tenant")
    jwt_roles_claim: str = Field("roles", description="JWT claim listing the roles")
    jwt_max_lifetime_seconds: float = Field(
        86_400.0, gt=0, description="how far ahead a JWT's `exp` may lie (longer is refused)"
    )
    grant_admin_roles: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["admin"],
        description="comma-separated roles that may manage their tenant's grants by RPC",
    )
    grant_admin_max_level: Literal["none", "read", "write", "execute", "admin"] = Field(
        "execute",
        description="the highest level a grant made through the API may give (ADMIN grants "
        "are the operator's, made with `agentd grants` on the database)",
    )
    auditor_roles: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["auditor", "admin"],
        description="comma-separated roles that may read the audit log (ListAuditRecords)",
    )
    rate_limits: str = Field(
        "Execute=100/m,*=3000/m",
        description="per principal: METHOD=CALLS/PERIOD, comma-separated; '*' is every other "
        "method; empty: no limit",
    )
    tenant_rate_limits: str = Field(
        "Execute=1000/m,*=30000/m", description="per tenant, in the same form; empty: no limit"
    )
    metrics_address: str = Field(
        "127.0.0.1:9464",
        description="host:port of the Prometheus /metrics endpoint; empty: not served",
    )
    secret_patterns: list[str] = Field(
        default_factory=list,
        description="JSON list of regular expressions of secrets to redact from logs, events "
        'and audit records, e.g. ["ghp_[A-Za-z0-9]{36}"] (API keys, bearer tokens and JWTs '
        "always are)",
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field("info", description="log level")
    log_format: Literal["json", "console"] = Field("json", description="log line format")

    @field_validator(
        "http_allowed_networks",
        "auth_public_methods",
        "approval_tools",
        "approver_roles",
        "anonymous_roles",
        "gateway_roles",
        "auditor_roles",
        "grant_admin_roles",
        "agent_admin_roles",
        mode="before",
    )
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("http_allowed_networks")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for net in value:
            ipaddress.ip_network(net, strict=False)
        return value

    @field_validator("secret_patterns")
    @classmethod
    def _patterns(cls, value: list[str]) -> list[str]:
        for pattern in value:
            re.compile(pattern)
        return value

    @field_validator("rate_limits", "tenant_rate_limits")
    @classmethod
    def _rates(cls, value: str) -> str:
        parse_limits(value)
        return value

    @field_validator("tool_cache_seconds")
    @classmethod
    def _cache_seconds(cls, value: str) -> str:
        parse_cache_seconds(value)
        return value

    @field_validator("auth_failure_limit")
    @classmethod
    def _failure_rate(cls, value: str) -> str:
        if value.strip():
            Rate.parse(value)
        return value

    @property
    def tool_cache_ttls(self) -> dict[str, float]:
        """Seconds a tool's results are cached, by tool name (AGENTD_TOOL_CACHE_SECONDS)."""
        return parse_cache_seconds(self.tool_cache_seconds)

    @property
    def failure_throttle_rate(self) -> Rate | None:
        """Refused credentials allowed per client address; None: no limit."""
        return Rate.parse(self.auth_failure_limit) if self.auth_failure_limit.strip() else None

    @property
    def permission_level(self) -> PermissionLevel | None:
        """The level held without a grant; None denies every tool without a grant."""
        if self.tool_permission == "deny":
            return None
        return PermissionLevel[self.tool_permission.upper()]

    def allowed_networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        return [ipaddress.ip_network(net, strict=False) for net in self.http_allowed_networks]


def parse_cache_seconds(value: str) -> dict[str, float]:
    """`"json_query=60,read_file=5"` as {"json_query": 60.0, "read_file": 5.0}; ValueError
    names the part that is not `tool=seconds` with a positive, finite number."""
    ttls: dict[str, float] = {}
    for part in (p.strip() for p in value.split(",")):
        if not part:
            continue
        name, sep, seconds = (s.strip() for s in part.partition("="))
        try:
            ttl = float(seconds) if sep and TOOL_NAME_PATTERN.fullmatch(name) else math.nan
        except ValueError:
            ttl = math.nan
        if not (0 < ttl < math.inf) or name in ttls:
            raise ValueError(
                f"{part!r} is not tool=seconds (a tool named once, seconds a positive number)"
            )
        ttls[name] = ttl
    return ttls
