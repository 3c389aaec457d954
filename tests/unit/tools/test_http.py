"""http_request against a real HTTP server on 127.0.0.1 (allowed explicitly),
and refusals of non-public destinations, which are decided before any connection."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterator

import pytest

from core.errors import DestinationNotAllowedError, InvalidArgumentError
from core.identity import CallContext
from records.tools.model import ToolFile
from records.tools.outcomes import ToolFailed
from tests.helpers import http_server, tiny_png
from tools.builtin.addresses import refusal
from tools.builtin.bodies import is_binary
from tools.builtin.http import HttpLimits, HttpRequest

LOOPBACK = (ipaddress.ip_network("127.0.0.1/32"),)


@pytest.fixture
def base_url() -> Iterator[str]:
    with http_server() as url:
        yield url


@pytest.fixture
def tool() -> HttpRequest:
    return HttpRequest(HttpLimits(timeout_seconds=2, allowed_networks=LOOPBACK))


async def test_get_json(tool: HttpRequest, base_url: str, ctx: CallContext) -> None:
    out = await tool.run({"url": f"{base_url}/json"}, ctx)
    assert out.data["status"] == 200
    assert out.data["json"] == {"items": [1, 2, 3], "name": "agentd"}
    assert out.data["headers"]["content-type"] == "application/json"
    assert out.text.startswith("HTTP 200\n")


async def test_post_json_and_body(tool: HttpRequest, base_url: str, ctx: CallContext) -> None:
    out = await tool.run({"url": f"{base_url}/echo", "method": "POST", "json": {"a": 1}}, ctx)
    assert out.data["json"] == {"body": '{"a": 1}', "content_type": "application/json"}
    out = await tool.run(
        {
            "url": f"{base_url}/echo",
            "method": "POST",
            "body": "x=1",
            "headers": {"Content-Type": "text/plain"},
        },
        ctx,
    )
    assert out.data["json"] == {"body": "x=1", "content_type": "text/plain"}


async def test_headers_sent_and_hop_headers_dropped(
    tool: HttpRequest, base_url: str, ctx: CallContext
) -> None:
    out = await tool.run(
        {"url": f"{base_url}/headers", "headers": {"X-Test": "1", "Host": "evil.example"}}, ctx
    )
    sent = out.data["json"]
    assert sent["x-test"] == "1"
    assert sent["host"].startswith("127.0.0.1:")
    assert sent["user-agent"].startswith("agentd/")


async def test_non_2xx_is_a_result_not_a_failure(
    tool: HttpRequest, base_url: str, ctx: CallContext
) -> None:
    out = await tool.run({"url": f"{base_url}/status/404"}, ctx)
    assert out.data["status"] == 404
    assert out.data["body"] == "not here"


async def test_response_size_limit(base_url: str, ctx: CallContext) -> None:
    small = HttpRequest(HttpLimits(max_response_bytes=1000, allowed_networks=LOOPBACK))
    out = await small.run({"url": f"{base_url}/big"}, ctx)
    assert out.data["truncated"] is True
    assert len(out.data["body"]) == 1000


async def test_time_limit(base_url: str, ctx: CallContext) -> None:
    quick = HttpRequest(HttpLimits(timeout_seconds=0.3, allowed_networks=LOOPBACK))
    with pytest.raises(ToolFailed, match=r"in time|within"):
        await quick.run({"url": f"{base_url}/slow=2"}, ctx)


async def test_redirects_followed_and_limited(
    tool: HttpRequest, base_url: str, ctx: CallContext
) -> None:
    out = await tool.run({"url": f"{base_url}/redirect-ok"}, ctx)
    assert out.data["status"] == 200
    assert out.data["redirects"] == [f"{base_url}/json"]
    with pytest.raises(ToolFailed, match="more than 5 redirects"):
        await tool.run({"url": f"{base_url}/redirect-loop"}, ctx)
    none = HttpRequest(HttpLimits(max_redirects=0, allowed_networks=LOOPBACK))
    with pytest.raises(ToolFailed, match="more than 0 redirects"):
        await none.run({"url": f"{base_url}/redirect-ok"}, ctx)


async def test_303_turns_post_into_get(tool: HttpRequest, base_url: str, ctx: CallContext) -> None:
    out = await tool.run({"url": f"{base_url}/see-other", "method": "POST", "body": "x"}, ctx)
    assert out.data["json"]["name"] == "agentd"


async def test_redirect_to_a_private_address_is_refused(
    tool: HttpRequest, base_url: str, ctx: CallContext
) -> None:
    with pytest.raises(DestinationNotAllowedError, match="private"):
        await tool.run({"url": f"{base_url}/redirect-private"}, ctx)
    with pytest.raises(InvalidArgumentError, match="only http and https"):
        await tool.run({"url": f"{base_url}/redirect-ftp"}, ctx)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:9/", "loopback"),
        ("http://localhost:9/", "loopback"),
        ("http://[::1]:9/", "loopback"),
        ("http://[::ffff:127.0.0.1]:9/", "loopback"),
        ("http://10.0.0.1/", "private"),
        ("http://192.168.1.1/", "private"),
        ("http://172.16.0.1/", "private"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[fe80::1]/", "link-local"),
        ("http://0.0.0.0:9/", "unspecified|private|this network"),
        ("http://100.64.0.1/", "non-public|private|shared"),
        ("http://224.0.0.1/", "multicast"),
        ("http://2130706433:9/", "loopback"),
    ],
)
async def test_non_public_destinations_refused_by_default(
    url: str, why: str, ctx: CallContext
) -> None:
    tool = HttpRequest(HttpLimits(timeout_seconds=2))
    with pytest.raises(DestinationNotAllowedError, match=why):
        await tool.run({"url": url}, ctx)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"url": "file:///etc/passwd"}, "arguments.url"),
        ({"url": "gopher://x/"}, "arguments.url"),
        ({"url": "http:///nohost"}, "arguments.url"),
        ({"url": "http://example.com", "method": "GET", "body": "x"}, "arguments.method"),
        (
            {"url": "http://example.com", "method": "POST", "body": "x", "json": {}},
            "arguments.json",
        ),
    ],
)
async def test_bad_arguments(args: dict[str, object], field: str, ctx: CallContext) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        await HttpRequest().run(dict(args), ctx)
    assert info.value.field_violations[0].field == field


def test_refusal_rules() -> None:
    assert refusal(ipaddress.ip_address("8.8.8.8"), ()) is None
    assert refusal(ipaddress.ip_address("2001:4860:4860::8888"), ()) is None
    assert refusal(ipaddress.ip_address("127.0.0.1"), LOOPBACK) is None
    assert refusal(ipaddress.ip_address("127.0.0.2"), LOOPBACK) is not None
    assert json.dumps(refusal(ipaddress.ip_address("::ffff:10.0.0.1"), ()))


async def test_the_shared_request_helper_cuts_or_fails_past_the_limit(base_url: str) -> None:
    from tools.builtin.http import guarded_pool, read_capped, timeouts

    async with (
        guarded_pool(LOOPBACK, 1) as pool,
        pool.stream("GET", f"{base_url}/big", extensions={"timeout": timeouts(2)}) as response,
    ):
        assert await read_capped(response, 1000) == (b"x" * 1000, True)  # http_request
    async with (
        guarded_pool(LOOPBACK, 1) as pool,
        pool.stream("GET", f"{base_url}/big", extensions={"timeout": timeouts(2)}) as response,
    ):
        with pytest.raises(ToolFailed, match=r"over 1,000 bytes \(A_SETTING\)"):  # declared
            await read_capped(response, 1000, oversize="A_SETTING")
    with pytest.raises(DestinationNotAllowedError):  # the destination rules, for both
        async with guarded_pool((), 1) as pool:
            await pool.request("GET", f"{base_url}/json")


async def test_a_png_body_is_a_file_not_text(
    tool: HttpRequest, base_url: str, ctx: CallContext
) -> None:
    out = await tool.run({"url": f"{base_url}/image.png"}, ctx)
    assert out.files == (ToolFile("image.png", "image/png", tiny_png()),)
    assert "\ufffd" not in out.text
    assert "\ufffd" not in out.data["body"]
    assert out.text == f"HTTP 200\n({len(tiny_png())} bytes of image/png: kept as a file)"


async def test_untyped_bytes_that_are_not_utf8_are_a_file(
    tool: HttpRequest, base_url: str, ctx: CallContext
) -> None:
    out = await tool.run({"url": f"{base_url}/untyped-binary"}, ctx)
    assert out.files == (ToolFile("untyped-binary", "application/octet-stream", bytes(range(256))),)
    assert "\ufffd" not in out.text


async def test_text_bodies_stay_text(tool: HttpRequest, base_url: str, ctx: CallContext) -> None:
    for path in ("/json", "/status/404", "/charset-idna"):
        out = await tool.run({"url": f"{base_url}{path}"}, ctx)
        assert out.files == ()
    assert out.data["body"] == "héllo"


@pytest.mark.parametrize(
    ("content_type", "body", "binary"),
    [
        ("image/png", b"abc", True),
        ("application/pdf", b"%PDF-1.4", True),
        ("application/octet-stream", b"abc", True),
        ("text/plain", b"abc", False),
        ("text/plain; charset=utf-8", b"\xff\xfe", True),
        ("text/plain; charset=latin-1", b"\xff\xfe", False),
        ("application/xhtml+xml", b"<a/>", False),
        ("application/javascript", b"1", False),
        ("", b"plain words", False),
        ("", b"a\x00b", True),
        ("application/x-yaml", b"a: 1", False),
        ("application/x-foo", b"\xff\xfe", True),
        (
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            b"PK\x03\x04\x14\x00",
            True,
        ),
        ("audio/wav", b"RIFF", True),
    ],
)
def test_what_is_binary(content_type: str, body: bytes, binary: bool) -> None:
    assert is_binary(content_type, body) is binary
