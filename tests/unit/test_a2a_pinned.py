"""The gRPC target a remote A2A agent is called at: the address its destination check
approved, with the host's own name as the authority (server/a2a/pinned.py)."""

from __future__ import annotations

import pytest

from server.a2a.pinned import PinnedChannels, pinned_target


@pytest.mark.parametrize(
    ("url", "address", "target", "authority"),
    [
        ("http://agents.local:50051/", "127.0.0.2", "127.0.0.2:50051", "agents.local:50051"),
        ("https://agents.local/", "127.0.0.3", "127.0.0.3:443", "agents.local:443"),
        ("http://agents.local/", "127.0.0.3", "127.0.0.3:80", "agents.local:80"),
        ("http://localhost:7000/", "::1", "[::1]:7000", "localhost:7000"),
        ("http://[::1]:7000/", "::1", "[::1]:7000", "[::1]:7000"),
    ],
)
def test_the_target_is_the_checked_address(
    url: str, address: str, target: str, authority: str
) -> None:
    assert pinned_target(url, address) == (target, authority)


def test_an_interface_that_was_not_checked_gets_no_channel() -> None:
    channels = PinnedChannels()
    channels.pin("localhost:7000", "http://localhost:7000/", "127.0.0.1")
    with pytest.raises(ValueError, match="was not checked"):
        channels("elsewhere:7000")
