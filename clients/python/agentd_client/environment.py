"""Where a client connects and with which credential, when its caller does not say.

`AGENTD_ADDRESS` names the server (host:port; `AGENTD_TARGET` is the older name the CLI
read), `AGENTD_API_KEY` the key sent as `authorization: Bearer <key>`. Arguments given to
a client always win over these.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

DEFAULT_TARGET = "127.0.0.1:50051"
ADDRESS_VARIABLES = ("AGENTD_ADDRESS", "AGENTD_TARGET")
API_KEY_VARIABLE = "AGENTD_API_KEY"


def default_target() -> str:
    """`AGENTD_ADDRESS` (else `AGENTD_TARGET`), else 127.0.0.1:50051."""
    for name in ADDRESS_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return DEFAULT_TARGET


def default_api_key() -> str | None:
    """`AGENTD_API_KEY`, or None when it is unset or empty."""
    return os.environ.get(API_KEY_VARIABLE, "").strip() or None


def call_metadata(
    api_key: str | None, bearer_token: str | None, metadata: Sequence[tuple[str, str]]
) -> tuple[tuple[str, str], ...]:
    """The metadata every call sends: `metadata`, then the credential. `api_key=None`
    reads `AGENTD_API_KEY`; "" sends no key; a `bearer_token` (a JWT) wins over both."""
    headers = list(metadata)
    key = bearer_token or (default_api_key() if api_key is None else api_key)
    if key:
        headers.append(("authorization", f"Bearer {key}"))
    return tuple(headers)
