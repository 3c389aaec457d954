"""Tools: permissions without a grant, the file and HTTP tools, retries, the cache."""

from __future__ import annotations

import ipaddress
import math
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from records.tools.approval_rules import ApprovalRule, rule_from_json
from records.tools.model import TOOL_NAME_PATTERN, PermissionLevel
from server.settings.base import CommaList, MiB, Section


class ToolSettings(Section):
    workspace_dir: Path = Field(
        Path("workspace"), description="the only folder the file tools may touch"
    )
    tool_permission: Literal["deny", "none", "read", "write", "execute", "admin"] = Field(
        "deny",
        description="permission level every caller holds without a grant ('deny': no tool "
        "without a grant)",
    )
    approval_tools: CommaList = Field(
        default_factory=list,
        description="comma-separated tools whose every call waits for a human's approval",
    )
    approval_rule: str = Field(
        "",
        description="the server's approval rule, as JSON: who decides on calls that need "
        "approval through AGENTD_APPROVAL_TOOLS or a grant without a rule of its own, by "
        'when, and what the deadline does, e.g. {"approver_roles": ["approver"], '
        '"deadline_seconds": 300, "on_deadline": "escalate", "escalate_to_roles": ["ops"], '
        '"escalation_deadline_seconds": 600, "on_escalation_deadline": "deny", '
        '"remind_before_seconds": 60} (on_deadline: deny, approve, escalate, fail or '
        "cancel); unset: the approver roles, the task's wait limit and "
        "AGENTD_WAIT_DEADLINE_ACTIONS",
    )
    mcp_tools: bool = Field(
        False,
        description="the MCP door (docs/mcp-server.md) lists agentd's own tools the caller may "
        "use beside its agents, as agentd.<tool>, called as CallTool calls them (grants, "
        "approvals, guardrails, audit)",
    )
    grants_refresh_seconds: float = Field(
        5.0, gt=0, description="how often grants are reloaded from the database"
    )
    http_allowed_networks: CommaList = Field(
        default_factory=list,
        description="comma-separated CIDRs http_request may reach although not public",
    )
    replay_read_only_tools: CommaList = Field(
        default_factory=list,
        description="comma-separated tools, besides the built-ins of permission read or "
        "lower, that a READ_ONLY replay (ReplayTask) may run live when no recorded call "
        "matches (write_file, write_artifact, remember and http_request other than GET and "
        "HEAD never run during a replay)",
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

    @field_validator("http_allowed_networks")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for net in value:
            ipaddress.ip_network(net, strict=False)
        return value

    @field_validator("approval_rule")
    @classmethod
    def _approval_rule(cls, value: str) -> str:
        if value.strip():
            rule_from_json(value)  # ApprovalRuleError (a ValueError) names each problem
        return value

    @property
    def default_approval_rule(self) -> ApprovalRule | None:
        """The server's approval rule (AGENTD_APPROVAL_RULE); None when unset."""
        return rule_from_json(self.approval_rule) if self.approval_rule.strip() else None

    @field_validator("tool_cache_seconds")
    @classmethod
    def _cache_seconds(cls, value: str) -> str:
        parse_cache_seconds(value)
        return value

    @property
    def tool_cache_ttls(self) -> dict[str, float]:
        """Seconds a tool's results are cached, by tool name (AGENTD_TOOL_CACHE_SECONDS)."""
        return parse_cache_seconds(self.tool_cache_seconds)

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
