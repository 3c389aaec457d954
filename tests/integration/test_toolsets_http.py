"""Declared HTTP tools through the real server, against a local HTTP server on 127.0.0.1:
URL templates, query and body, headers from the environment, JMESPath, the destination
rules of http_request with the toolset's allowed networks, retries and the cache."""

from __future__ import annotations

import ipaddress
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agentd.v1 import tasks_pb2, tools_pb2
from agentd_client import errors as client_errors
from agentd_client.client import to_python
from tests.integration.harness import assert_well_formed, final, harness, of_kind
from tests.integration.toolsets import FAST, write_toolsets
from tools.builtin.addresses import refusal

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING


class _Api(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return

    def _answer(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _seen(self, body: str = "") -> list[str]:
        seen: list[str] = self.server.seen  # type: ignore[attr-defined]
        seen.append(f"{self.command} {self.path} {self.headers.get('X-Api-Key', '')} {body}")
        return seen

    def do_GET(self) -> None:
        seen = self._seen()
        if self.path.startswith("/customers/"):
            customer = self.path.split("?")[0].rsplit("/", 1)[1]
            self._answer(200, {"customer": {"id": customer, "name": "Ada"}, "orders": [1, 2]})
        elif self.path.startswith("/moved"):
            self.send_response(302)
            self.send_header("Location", "/customers/1")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path.startswith("/progress"):  # JSON lines: three reports, then the answer
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.end_headers()
            for n in (1, 2, 3):
                report = {"progress": n, "total": 3, "message": f"part {n}"}
                self.wfile.write(json.dumps(report).encode() + b"\n")
                self.wfile.flush()
                time.sleep(0.3)
            self.wfile.write(json.dumps({"parts": 3}).encode() + b"\n")
        elif self.path.startswith("/deep/"):  # an object nested that many levels deep
            levels = int(self.path.rsplit("/", 1)[1])
            self._answer(200, json.loads('{"inner":' * (levels - 1) + "{}" + "}" * (levels - 1)))
        elif self.path.startswith("/flaky"):  # 503 twice, then an answer
            tries = sum(1 for line in seen if line.startswith("GET /flaky"))
            self._answer(503 if tries <= 2 else 200, {"try": tries})
        else:
            self._answer(404, {"error": "no such thing"})

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
        self._seen(body)
        if self.path.startswith("/busy"):
            self._answer(503, {"error": "busy"})
        else:
            self._answer(201, {"created": json.loads(body)})


@contextmanager
def api_server() -> Iterator[tuple[str, list[str]]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Api)
    seen: list[str] = []
    server.seen = seen  # type: ignore[attr-defined]
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def crm(url: str, **http: Any) -> dict[str, Any]:
    return {
        "http": {"headers": {"X-Api-Key": "${CRM_KEY}"}, **http},
        "level": "read",
        "tools": {
            "customer": {
                "description": "A customer's name and orders",
                "method": "GET",
                "url": f"{url}/customers/{{id}}",
                "parameters": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}, "fields": {"type": "string"}},
                    "required": ["id"],
                },
                "result": "{name: customer.name, orders: length(orders)}",
                "cache_seconds": 60,
            },
            "flaky": {"url": f"{url}/flaky", "timeout_seconds": 5},
            "deep": {"url": f"{url}/deep/200"},
            "create": {
                "method": "POST",
                "url": f"{url}/orders",
                "level": "write",
                "parameters": {"type": "object", "properties": {"item": {"type": "string"}}},
            },
            "busy": {"method": "POST", "url": f"{url}/busy", "level": "write"},
        },
    }


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CRM_KEY", "k-123")


async def test_declared_tools_make_their_requests(tmp_path: Path) -> None:
    with api_server() as (url, seen):
        networks = {"allowed_networks": ["127.0.0.1/32"]}
        toolsets = write_toolsets(tmp_path / "toolsets.yaml", {"crm": crm(url, **networks)})
        async with harness(tmp_path, [], toolsets_file=toolsets, **FAST) as h:
            listed = {t.name: t for t in await h.client.list_tools(toolset="crm")}
            assert set(listed) == {
                "crm.customer",
                "crm.flaky",
                "crm.create",
                "crm.busy",
                "crm.deep",
            }
            assert listed["crm.customer"].source == "http"
            assert listed["crm.customer"].idempotent  # GET
            assert not listed["crm.create"].idempotent  # POST

            found = await h.client.call_tool("crm.customer", {"id": "a/b c", "fields": "all"})
            assert to_python(found.result) == {"name": "Ada", "orders": 2}
            assert seen[-1] == "GET /customers/a%2Fb%20c?fields=all k-123 "  # the env's key

            made = await h.client.call_tool("crm.create", {"item": "tea"})
            assert to_python(made.result) == {"created": {"item": "tea"}}
            assert seen[-1] == 'POST /orders k-123 {"item": "tea"}'
            with pytest.raises(client_errors.InvalidArgumentError, match=r"cannot be \. or \.\."):
                await h.client.call_tool("crm.customer", {"id": ".."})


async def test_a_destination_the_toolset_does_not_allow_is_refused(tmp_path: Path) -> None:
    with api_server() as (url, seen):
        toolsets = write_toolsets(tmp_path / "toolsets.yaml", {"crm": crm(url)})  # no networks
        async with harness(tmp_path, [], toolsets_file=toolsets, **FAST) as h:
            with pytest.raises(client_errors.DestinationNotAllowedError, match="loopback"):
                await h.client.call_tool("crm.customer", {"id": "1"})
            assert seen == []  # refused before connecting
            records = await h.server.durable.tool_calls.query("default")
            assert [(r.tool_name, r.outcome) for r in records] == [("crm.customer", "refused")]

    # The toolset's allowed networks, checked in-process (no request leaves the machine).
    toolsets = write_toolsets(
        tmp_path / "other.yaml", {"crm": crm("http://10.20.0.5", allowed_networks=["10.20.0.0/16"])}
    )
    async with harness(tmp_path / "b", [], toolsets_file=toolsets, **FAST) as h:
        tool: Any = h.server.registry.catalog.get("crm.customer")
        allowed = tool._allowed
        assert refusal(ipaddress.ip_address("10.20.3.4"), allowed) is None
        assert "private" in str(refusal(ipaddress.ip_address("10.21.3.4"), allowed))
        assert "loopback" in str(refusal(ipaddress.ip_address("127.0.0.1"), allowed))


async def test_retries_and_the_cache_are_counted(tmp_path: Path) -> None:
    with api_server() as (url, seen):
        networks = {"allowed_networks": ["127.0.0.1/32"]}
        toolsets = write_toolsets(tmp_path / "toolsets.yaml", {"crm": crm(url, **networks)})
        async with harness(tmp_path, [], toolsets_file=toolsets, **FAST) as h:
            flaky = await h.client.call_tool("crm.flaky", {})
            assert to_python(flaky.result) == {"try": 3}
            busy = await h.client.call_tool("crm.busy", {})  # POST: never repeated
            assert busy.error.kind == tools_pb2.TOOL_ERROR_KIND_FAILED
            assert "HTTP 503" in busy.error.message

            first = await h.client.call_tool("crm.customer", {"id": "7"})
            second = await h.client.call_tool("crm.customer", {"id": "7"})
            assert (first.cached, second.cached) == (False, True)

            assert [line.split()[1] for line in seen] == ["/flaky"] * 3 + ["/busy", "/customers/7"]
            records = await h.server.durable.tool_calls.query("default")
            attempts = [(r.tool_name, r.attempt, r.outcome, r.cached) for r in records]
            assert attempts == [
                ("crm.flaky", 1, "failed", False),
                ("crm.flaky", 2, "failed", False),
                ("crm.flaky", 3, "ok", False),
                ("crm.busy", 1, "failed", False),
                ("crm.customer", 1, "ok", False),
                ("crm.customer", 1, "ok", True),
            ]


async def test_what_a_declared_tool_does_not_declare_or_expect_fails_clearly(
    tmp_path: Path,
) -> None:
    tools = {
        "customer": {
            "url": "${CRM_BASE}/customers/{id}",
            "parameters": {"type": "object", "properties": {"id": {"type": "string"}}},
        },
        "moved": {"url": "${CRM_BASE}/moved"},
        "typed": {"url": "${CRM_BASE}/customers/{id}", "result": "abs(customer.name)"},
    }
    with api_server() as (url, seen):
        crm = {"http": {"allowed_networks": ["127.0.0.1/32"]}, "level": "read", "tools": tools}
        toolsets = write_toolsets(tmp_path / "toolsets.yaml", {"crm": crm})
        with pytest.MonkeyPatch.context() as env:
            env.setenv("CRM_BASE", url)
            async with harness(tmp_path, [], toolsets_file=toolsets, **FAST) as h:
                listed = {t.name: t for t in await h.client.list_tools(toolset="crm")}
                # The template as written: the variable's value is nobody's business.
                assert listed["crm.moved"].description == "GET ${CRM_BASE}/moved"
                assert url not in str(listed)
                with pytest.raises(client_errors.ToolArgumentsInvalidError, match="admin"):
                    await h.client.call_tool("crm.customer", {"id": "1", "admin": "true"})

                moved = await h.client.call_tool("crm.moved", {})
                assert moved.error.kind == tools_pb2.TOOL_ERROR_KIND_FAILED
                assert "HTTP 302: declared HTTP tools do not follow redirects" in moved.text
                typed = await h.client.call_tool("crm.typed", {"id": "1"})
                assert typed.error.kind == tools_pb2.TOOL_ERROR_KIND_FAILED  # not a crash
                assert "does not fit the tool's result expression" in typed.text
        assert [line.split()[1] for line in seen] == ["/moved", "/customers/1"]


async def test_a_status_the_file_declares_resumable_makes_a_resumable_failure(
    tmp_path: Path,
) -> None:
    tools = {
        "missing": {"url": "${CRM_BASE}/nothing", "resumable_errors": [404]},
        "plain": {"url": "${CRM_BASE}/nothing"},
    }
    with api_server() as (url, _):
        crm = {"http": {"allowed_networks": ["127.0.0.1/32"]}, "level": "read", "tools": tools}
        toolsets = write_toolsets(tmp_path / "toolsets.yaml", {"crm": crm})
        with pytest.MonkeyPatch.context() as env:
            env.setenv("CRM_BASE", url)
            async with harness(tmp_path, [], toolsets_file=toolsets, **FAST) as h:
                missing = await h.client.call_tool("crm.missing", {})
                assert missing.error.kind == tools_pb2.TOOL_ERROR_KIND_RESUMABLE
                assert missing.text.startswith("HTTP 404")
                plain = await h.client.call_tool("crm.plain", {})
                assert plain.error.kind == tools_pb2.TOOL_ERROR_KIND_FAILED


async def test_an_answer_nested_200_deep_reaches_the_caller_and_the_model_as_text(
    tmp_path: Path,
) -> None:
    """protobuf refuses a Struct nested past 100 messages: every tool's result is held to
    one depth cap where results are made (`core.text.within_depth`), so a deeper one comes
    as its JSON text, by CallTool and in a task, never as INTERNAL."""
    call = {"tool_calls": [{"name": "crm_deep", "arguments": {}}]}
    with api_server() as (url, _):
        networks = {"allowed_networks": ["127.0.0.1/32"]}
        toolsets = write_toolsets(tmp_path / "toolsets.yaml", {"crm": crm(url, **networks)})
        replies = [call, {"text": "deep indeed"}]
        async with harness(tmp_path, replies, toolsets_file=toolsets, **FAST) as h:
            called = await h.client.call_tool("crm.deep", {})
            assert called.error.message == ""
            text = to_python(called.result)
            assert isinstance(text, str)
            assert text == '{"inner":' * 199 + "{}" + "}" * 199

            events = await h.run("dig", mode=FC, tools=["crm.deep"])
            assert_well_formed(events)
            [finished] = of_kind(events, "tool_call_finished")
            assert to_python(finished.result) == text
            assert final(events).text == "deep indeed"
            sent = h.llm.requests[-1]["messages"][-1]
            assert sent["role"] == "tool"
            assert sent["content"].count('"inner"') == 199
