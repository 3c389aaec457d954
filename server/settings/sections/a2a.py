"""A2A: agentd's agents served over the A2A 1.0 protocol (docs/a2a.md); and webhooks
(docs/webhooks.md), delivered at least once as A2A push notifications are."""

from __future__ import annotations

from pydantic import Field

from server.settings.base import Section


class A2ASettings(Section):
    a2a: bool = Field(
        False,
        description="serve lf.a2a.v1.A2AService beside AgentService on the gRPC port (the "
        "A2A SDK is imported only when this is on)",
    )
    a2a_public_grpc_url: str = Field(
        "",
        description="the gRPC address agent cards name (host:port as clients reach it); "
        "empty: the address the server listens on",
    )
    a2a_public_http_url: str = Field(
        "",
        description="the HTTP base URL agent cards name for JSON-RPC (http://host:port); "
        "empty: the HTTP address the server listens on (AGENTD_HTTP_ADDRESS)",
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


class WebhookSettings(Section):
    """Webhooks (docs/webhooks.md): how their events are delivered, retried and kept."""

    webhook_retention_seconds: float = Field(
        259_200.0,
        gt=0,
        description="how long a webhook event is retried before it is given up (a dead "
        "letter, kept as long again for RedeliverWebhookEvents, then deleted); 3 days",
    )
    webhook_retry_base_seconds: float = Field(
        0.5,
        gt=0,
        description="the first wait between attempts of a webhook delivery (doubled "
        "after each, with full jitter)",
    )
    webhook_retry_cap_seconds: float = Field(
        300.0, gt=0, description="longest wait between attempts of a webhook delivery"
    )
    webhook_timeout_seconds: float = Field(
        10.0, gt=0, description="how long a webhook's receiver has to answer a delivery"
    )
    webhook_lease_seconds: float = Field(
        10.0,
        gt=0,
        description="how long a replica holds a webhook's stream of one task it delivers "
        "without renewing it; a dead replica's streams are taken over after this",
    )
    webhook_refresh_seconds: float = Field(
        5.0,
        gt=0,
        description="how old the copy of a tenant's webhooks that events are matched "
        "against may grow before it is read again (a change made on the same replica "
        "applies at once)",
    )
    webhook_sweep_seconds: float = Field(
        60.0,
        gt=0,
        description="how often each replica gives up webhook deliveries past the retention "
        "and deletes dead letters past theirs",
    )
