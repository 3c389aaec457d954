"""The HTTP address (docs/http.md): one uvicorn listener for every front door agentd
serves over HTTP (A2A's JSON-RPC and cards, MCP, the OpenAI-compatible endpoints), behind
one guard (authentication, rate limits, a body limit, the RPC audit)."""

from __future__ import annotations

from pydantic import AliasChoices, Field, field_validator

from server.settings.base import CommaList, Section

DOORS = ("a2a", "mcp", "openai", "triggers")
"""The front doors AGENTD_HTTP_DOORS may name."""
REPLAY_MARGIN_SECONDS = 60
"""What a delivery's record is kept past twice the tolerance (the sweep's and the
clocks' slack)."""


class HttpSettings(Section):
    """The HTTP address (docs/http.md): where it listens, its front doors, its body limit."""

    http_address: str = Field(
        "",
        validation_alias=AliasChoices("AGENTD_HTTP_ADDRESS", "AGENTD_A2A_HTTP_ADDRESS"),
        description="host:port of the HTTP address serving the front doors of "
        "AGENTD_HTTP_DOORS (AGENTD_A2A_HTTP_ADDRESS, its former name, is read too); empty: "
        "not served",
    )
    http_doors: CommaList = Field(
        default_factory=list,
        description="the front doors the HTTP address serves, of a2a, mcp, openai and "
        "triggers (signed deliveries to /v1/triggers/<id>), e.g. "
        "a2a,mcp; empty: a2a when AGENTD_A2A is on, else none (the address is then not "
        "served)",
    )
    http_max_body_bytes: int | None = Field(
        None,
        gt=0,
        description="largest request body the HTTP address accepts (413 beyond it, by "
        "content-length or while a chunked body is read); unset: AGENTD_MAX_MESSAGE_BYTES",
    )

    trigger_tolerance_seconds: int = Field(
        300,
        gt=0,
        le=86_400,
        description="how far a trigger delivery's webhook-timestamp may be from the "
        "server's clock, either way (401 beyond it: a replayed delivery is refused)",
    )
    trigger_delivery_retention_seconds: int = Field(
        7 * 86_400,
        ge=0,
        description="how long a trigger delivery's record (the task its webhook-id started, "
        "which answers it sent again) is kept after it was delivered (the retention sweep "
        "deletes it then; a delivery replayed later is refused by the timestamp window); "
        "0 keeps them for ever. With the triggers door, at least twice "
        "AGENTD_TRIGGER_TOLERANCE_SECONDS plus 60 s (a replay older than that is refused "
        "by the window, whatever the task retention)",
    )
    trigger_max_body_bytes: int = Field(
        262_144,
        gt=0,
        description="largest body a trigger delivery may carry (413 beyond it); the HTTP "
        "address's own limit holds when it is smaller",
    )

    @field_validator("http_doors")
    @classmethod
    def _known_doors(cls, value: list[str]) -> list[str]:
        doors = [door.lower() for door in value]
        unknown = [door for door in doors if door not in DOORS]
        if unknown:
            raise ValueError(f"no front door {', '.join(unknown)}: choose from {', '.join(DOORS)}")
        return list(dict.fromkeys(doors))
