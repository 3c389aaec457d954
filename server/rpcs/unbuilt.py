"""RPCs of the contract whose handlers are being built on this branch: each answers
UNIMPLEMENTED until its handler takes its name off `RPCS`. This module must be gone
before the branch lands (a test of the servicer checks that every RPC is served)."""

from __future__ import annotations

from typing import Any, ClassVar

from core.errors import AgentdError

RPCS_UNBUILT = (
    "ListActionHistory",
    "CreateWebhook",
    "GetWebhook",
    "ListWebhooks",
    "UpdateWebhook",
    "DeleteWebhook",
    "RotateWebhookSecret",
    "ListWebhookDeadLetters",
    "RedeliverWebhookEvents",
)


class UnbuiltRpcs:
    RPCS: ClassVar[tuple[str, ...]] = RPCS_UNBUILT

    def __getattr__(self, name: str) -> Any:
        if name not in RPCS_UNBUILT:
            raise AttributeError(name)

        async def unbuilt(request: Any, call: Any) -> Any:
            raise AgentdError(f"{name} is not built yet")

        return unbuilt
