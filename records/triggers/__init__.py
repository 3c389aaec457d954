"""A tenant's inbound triggers (`trigger`)."""

from records.triggers.trigger import (
    LABEL,
    SECRET_PURPOSE,
    Trigger,
    delivery_key,
    new_trigger_id,
    secret_binding,
)

__all__ = [
    "LABEL",
    "SECRET_PURPOSE",
    "Trigger",
    "delivery_key",
    "new_trigger_id",
    "secret_binding",
]
