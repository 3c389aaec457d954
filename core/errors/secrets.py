"""Errors of the server's keys and of the webhooks whose secrets they keep."""

from __future__ import annotations

from core.errors.base import AgentdError


class KeyRequiredError(AgentdError):
    """A secret would be stored and the server holds no key to encrypt it with."""

    reason = "KEY_REQUIRED"

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} is kept encrypted, and the server holds no key: set AGENTD_KEYS "
            "(`agentd keys new` makes one; every replica needs the same)",
            metadata={"setting": "AGENTD_KEYS"},
        )


class SecretUnreadableError(AgentdError):
    """A secret kept encrypted does not open: the key it was sealed with is no longer in
    AGENTD_KEYS (or the stored value was altered). Reported as KEY_REQUIRED: the fix is the
    server's keys (or storing the secret again), not the request."""

    reason = "KEY_REQUIRED"

    def __init__(self, what: str, why: str) -> None:
        super().__init__(
            f"{what} does not open ({why}): put the key it was sealed with back in "
            "AGENTD_KEYS, or store it again",
            metadata={"setting": "AGENTD_KEYS"},
        )


class WebhookNotFoundError(AgentdError):
    """No webhook of that id in the caller's tenant."""

    reason = "WEBHOOK_NOT_FOUND"

    def __init__(self, webhook_id: str) -> None:
        super().__init__(f"no webhook {webhook_id!r}", metadata={"webhook_id": webhook_id})
