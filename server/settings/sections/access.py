"""Who may call: authentication, JWTs, the roles of each power, rate limits."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator

from server.settings.base import CommaList, Section
from stores.rate_limits.base import Rate, parse_limits


class AccessSettings(Section):
    auth: Literal["on", "off"] = Field(
        "on", description="'off' lets every caller in as the anonymous principal (logs a warning)"
    )
    development_key: bool = Field(
        True,
        description="on a fresh embedded (SQLite) database with no API key, create a "
        "development admin key at start-up and print it once; false: only say how to make one "
        "(what images and any deployment want)",
    )
    gateway_roles: CommaList = Field(
        default_factory=lambda: ["gateway"],
        description="comma-separated roles that may name the end user they call for "
        "(header agentd-on-behalf-of)",
    )
    anonymous_roles: CommaList = Field(
        default_factory=lambda: ["approver", "auditor"],
        description="with AGENTD_AUTH=off: the roles every (anonymous) caller holds, so that "
        "someone can approve tool calls and read the audit log",
    )
    auth_public_methods: CommaList = Field(
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
    approver_roles: CommaList = Field(
        default_factory=lambda: ["approver", "admin"],
        description="comma-separated roles that may approve or reject tool calls",
    )
    grant_admin_roles: CommaList = Field(
        default_factory=lambda: ["admin"],
        description="comma-separated roles that may manage their tenant's grants by RPC",
    )
    budget_admin_roles: CommaList = Field(
        default_factory=lambda: ["admin"],
        description="comma-separated roles that may create, change and delete their tenant's "
        "budgets (reading them, usage and statistics: AGENTD_AUDITOR_ROLES)",
    )
    webhook_admin_roles: CommaList = Field(
        default_factory=lambda: ["admin"],
        description="comma-separated roles that may create, read, change and delete their "
        "tenant's webhooks, list their dead letters and redeliver them",
    )
    eval_admin_roles: CommaList = Field(
        default_factory=lambda: ["operator", "admin"],
        description="comma-separated roles that may store datasets and run evaluations "
        "(RunEval); reading them: these and AGENTD_AUDITOR_ROLES",
    )
    trigger_admin_roles: CommaList = Field(
        default_factory=lambda: ["operator", "admin"],
        description="comma-separated roles that may create, read, rotate and delete their "
        "tenant's inbound triggers (TriggerService)",
    )
    grant_admin_max_level: Literal["none", "read", "write", "execute", "admin"] = Field(
        "execute",
        description="the highest level a grant made through the API may give (ADMIN grants "
        "are the operator's, made with `agentd grants` on the database)",
    )
    auditor_roles: CommaList = Field(
        default_factory=lambda: ["auditor", "admin"],
        description="comma-separated roles that may read the audit log (ListAuditRecords)",
    )
    agent_admin_roles: CommaList = Field(
        default_factory=lambda: ["admin"],
        description="comma-separated roles that may create, update, delete and promote "
        "(PromoteAgentVersion) their tenant's agents by RPC",
    )
    rate_limits: str = Field(
        "Execute=100/m,*=3000/m",
        description="per principal: METHOD=CALLS/PERIOD, comma-separated; '*' is every other "
        "method; empty: no limit",
    )
    tenant_rate_limits: str = Field(
        "Execute=1000/m,*=30000/m", description="per tenant, in the same form; empty: no limit"
    )

    @field_validator("rate_limits", "tenant_rate_limits")
    @classmethod
    def _rates(cls, value: str) -> str:
        parse_limits(value)
        return value

    @field_validator("auth_failure_limit")
    @classmethod
    def _failure_rate(cls, value: str) -> str:
        if value.strip():
            Rate.parse(value)
        return value

    @property
    def failure_throttle_rate(self) -> Rate | None:
        """Refused credentials allowed per client address; None: no limit."""
        return Rate.parse(self.auth_failure_limit) if self.auth_failure_limit.strip() else None
