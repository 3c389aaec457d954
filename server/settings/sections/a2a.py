"""A2A: agentd's agents served over the A2A 1.0 protocol (docs/a2a.md)."""

from __future__ import annotations

from pydantic import Field

from server.settings.base import Section


class A2ASettings(Section):
    a2a: bool = Field(
        False,
        description="serve lf.a2a.v1.A2AService beside AgentService on the gRPC port (the "
        "A2A SDK is imported only when this is on)",
    )
    a2a_http_address: str = Field(
        "",
        description="host:port of the A2A HTTP address: the agent cards at "
        "/.well-known/agent-card.json and the JSON-RPC binding; empty: not served",
    )
    a2a_public_grpc_url: str = Field(
        "",
        description="the gRPC address agent cards name (host:port as clients reach it); "
        "empty: the address the server listens on",
    )
    a2a_public_http_url: str = Field(
        "",
        description="the HTTP base URL agent cards name for JSON-RPC (http://host:port); "
        "empty: the A2A HTTP address the server listens on",
    )
    a2a_organization: str = Field("agentd", description="the provider named on agent cards")
    a2a_push_lease_seconds: float = Field(
        10.0,
        gt=0,
        description="how long a replica holds a push-notification config it delivers without "
        "renewing it; a dead replica's configs are taken over after this",
    )
    a2a_push_retry_cap_seconds: float = Field(
        30.0, gt=0, description="longest wait between retries of a push notification"
    )
    a2a_remote_follow_seconds: float = Field(
        10.0,
        gt=0,
        description="how long a child task run on a remote A2A agent follows the remote "
        "task's stream before it parks (its running place given back; the remote task then "
        "polled with back-off)",
    )
