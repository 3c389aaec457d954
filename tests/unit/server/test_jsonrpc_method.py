"""The method a JSON-RPC body names, as the A2A and MCP doors tell the guard (for rate
limits and the audit): a body that is not JSON, names none, or is nested past what can
be parsed is named by the door's fallback, never raised."""

from __future__ import annotations

from server.a2a.http import A2ADoor
from server.http.door import jsonrpc_method
from server.mcp.door import method_of_body

DEEP = b"[" * 100_000 + b"]" * 100_000


def test_the_method_is_read_and_cut_to_64_characters() -> None:
    assert jsonrpc_method(b'{"jsonrpc": "2.0", "method": "SendMessage", "id": 1}') == "SendMessage"
    assert jsonrpc_method(b'{"method": "' + b"m" * 100 + b'"}') == "m" * 64


def test_what_names_no_method_is_none() -> None:
    for body in (b"", b"not json", b"[1, 2]", b'{"method": 3}', b'{"method": ""}', DEEP):
        assert jsonrpc_method(body) is None


def test_a2a_and_mcp_name_a_deeply_nested_body_by_their_fallbacks() -> None:
    door = object.__new__(A2ADoor)  # method_of reads nothing of the door
    assert door.method_of(None, DEEP) == "unknown"  # type: ignore[arg-type]
    assert method_of_body(DEEP) == "invalid"
