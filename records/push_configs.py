"""A push-notification config: a webhook of one task, where its A2A updates are POSTed,
and how far they have been delivered (kept by `stores.push_configs`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class PushConfig:
    """One webhook of one task."""

    tenant: str
    task_id: str
    config_id: str
    url: str
    """Checked against the destination rules when it was put."""
    token: str = ""
    """Sent as `X-A2A-Notification-Token`, for the receiver to check."""
    auth_scheme: str = ""
    """With `auth_credentials`: sent as `Authorization: <scheme> <credentials>`."""
    auth_credentials: str = field(default="", repr=False)
    created_by: str = ""
    delivered_through: int = 0
    """The last log position delivered (0: none)."""
    finished: bool = False
    """The task's last event was delivered: nothing more to send."""
