"""The toolsets file's rules, tool names on the wire, `<toolset>.*` grants, and a server
that lists a tool twice."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpcore
import mcp_types as types
import pytest

from agent.llm.tool_names import WireNames
from records.tools.grants import Grant
from records.tools.model import TOOL_NAME_PATTERN, PermissionLevel, ToolFile
from records.tools.outcomes import ToolFailed
from tools.catalog import ToolCatalog
from tools.mcp.connection import ConnectionLimits
from tools.mcp.tool import settings_for, spec_of
from tools.toolsets.config import ToolsetConfig
from tools.toolsets.http_tool import HttpTool
from tools.toolsets.http_tool import spec_of as http_spec_of
from tools.toolsets.manager import Toolsets
from tools.toolsets.parsing import parse_file
from tools.toolsets.yaml_file import load_yaml
from tools.validation import ArgumentValidator

RESERVED = ("calculator", "http_request")


def _parse(text: str) -> tuple[dict[str, ToolsetConfig], dict[str, str]]:
    found, problems, _ = parse_file(load_yaml(text), "f.yaml", RESERVED)
    return found, {p.field: p.problem for p in problems}


@pytest.mark.parametrize(
    ("body", "field", "problem"),
    [
        ("{mcp: {command: x}, http: {}}", "toolsets.t", "either `mcp:`"),
        ("{mcp: {command: x, url: 'http://h'}}", "toolsets.t.mcp", "give `command`"),
        ("{mcp: {url: 'ftp://h'}}", "toolsets.t.mcp.url", "http:// or https://"),
        ("{mcp: {command: x}, level: root}", "toolsets.t.level", "is one of"),
        ("{mcp: {command: x}, timeout_seconds: 0}", "toolsets.t.timeout_seconds", "between"),
        ("{mcp: {command: x}, colour: red}", "toolsets.t.colour", "not a known key"),
        ("{mcp: {command: x}, tools: {s: {url: 'http://h'}}}", "toolsets.t.tools.s.url", "known"),
        ("{http: {}, tools: {}}", "toolsets.t.tools", "declares 1 to"),
        (
            "{http: {}, tools: {a: {url: 'http://h', result: '[['}}}",
            "toolsets.t.tools.a.result",
            "JMESPath",
        ),
        (
            "{http: {}, tools: {a: {url: 'http://h', parameters: {type: array}}}}",
            "toolsets.t.tools.a.parameters",
            "of an object",
        ),
        (
            "{http: {allowed_networks: [nonsense]}, tools: {a: {url: 'http://h'}}}",
            "toolsets.t.http.allowed_networks",
            "does not appear",
        ),
        ("{mcp: {url: 'http://h?api_key=abcdef123'}}", "toolsets.t.mcp.url", "secret written"),
        (
            "{mcp: {command: x, env: {PASSWORD: hunter22}}}",
            "toolsets.t.mcp.env.PASSWORD",
            "secret written",
        ),
        (
            "{mcp: {command: x, args: ['--token=abcdefgh']}}",
            "toolsets.t.mcp.args[0]",
            "secret written",
        ),
        (
            "{mcp: {command: x, env: {PGPASSWORD: hunter2hunter2}}}",
            "toolsets.t.mcp.env.PGPASSWORD",
            "secret written",
        ),
        (
            "{mcp: {command: x, args: ['-v', '--api-key', 'abcdef0123456789abcdef']}}",
            "toolsets.t.mcp.args[2]",
            "secret written",
        ),
        (
            "{mcp: {command: x, args: ['--client-secret=abcdef0123456789abcdef']}}",
            "toolsets.t.mcp.args[0]",
            "secret written",
        ),
        (
            "{mcp: {command: x, env: {A: '${NOT_SET_VARIABLE_1}'}}}",
            "toolsets.t.mcp.env.A",
            "NOT_SET_VARIABLE_1 is not set",
        ),
    ],
)
def test_a_toolset_that_cannot_be_used_is_refused_naming_the_field(
    body: str, field: str, problem: str
) -> None:
    found, problems = _parse(f"toolsets:\n  t: {body}\n  ok: {{mcp: {{command: y}}}}\n")
    assert set(found) == {"ok"}  # the good one is untouched
    assert list(problems) == [field]
    assert problem in problems[field]


def test_secrets_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEARCH_TOKEN", "s3cr3t-value")
    found, problems = _parse(
        "toolsets:\n"
        "  s: {mcp: {url: 'http://127.0.0.1:1/mcp',"
        " headers: {Authorization: 'Bearer ${SEARCH_TOKEN}', X-Team: agentd}}}\n"
    )
    assert problems == {}
    server: Any = found["s"].mcp.server if found["s"].mcp else None
    assert dict(server.headers) == {"Authorization": "Bearer s3cr3t-value", "X-Team": "agentd"}


def test_a_key_written_twice_refuses_its_value() -> None:
    found, problems = _parse("toolsets:\n  t: {mcp: {command: x}, level: read, level: write}\n")
    assert found == {}
    assert problems == {"toolsets.t.level": "is written 2 times"}


def test_settings_come_from_the_tool_then_the_toolset_then_the_annotations() -> None:
    found, _ = _parse(
        "toolsets:\n  n: {mcp: {command: x}, level: read, tools: {w: {level: write}}}\n"
    )
    config = found["n"]
    hints = types.ToolAnnotations(read_only_hint=True)
    assert settings_for(config, "r", hints).idempotent is True
    assert settings_for(config, "r", None).idempotent is False
    assert settings_for(config, "w", None).level is PermissionLevel.WRITE
    assert settings_for(config, "r", None).level is PermissionLevel.READ
    tool = types.Tool(name="bad name", input_schema={"type": "object"})
    with pytest.raises(ValueError, match="not 1-96 letters"):
        spec_of(config, tool)


def test_tool_names_keep_built_ins_and_take_toolset_names() -> None:
    for good in ("calculator", "notes.search", "notes.a.b-c_D", "n." + "x" * 126):
        assert TOOL_NAME_PATTERN.fullmatch(good), good
    for bad in ("Notes.x", "notes.", ".x", "notes.x y", "n." + "x" * 127, "9lives"):
        assert not TOOL_NAME_PATTERN.fullmatch(bad), bad


def test_wire_names_round_trip() -> None:
    long = "notes." + "x" * 100
    names = WireNames(["calculator", "notes.search", "notes_search", long])
    assert names.wire("calculator") == "calculator"
    assert names.wire("notes_search") == "notes_search"
    taken = names.wire("notes.search")
    assert taken != "notes_search"
    assert taken.startswith("notes_search_")
    assert len(names.wire(long)) <= 64
    for name in ("calculator", "notes.search", "notes_search", long):
        assert names.local(names.wire(name)) == name
    assert names.local("unknown_tool") == "unknown_tool"


def test_a_toolset_grant_covers_its_tools_only() -> None:
    grant = Grant("g", "t", "role:r", "notes.*", PermissionLevel.READ, datetime.now(UTC))
    assert grant.covers("notes.search", "notes")
    assert not grant.covers("notesx.search", "notes")
    assert not grant.covers("calculator", "math")
    with pytest.raises(ValueError, match="not a tool name"):
        Grant("g", "t", "role:r", "notes.*x", PermissionLevel.READ, datetime.now(UTC))


def test_a_server_listing_a_tool_twice_offers_neither(tmp_path: Path) -> None:
    found, _ = _parse("toolsets:\n  n: {mcp: {command: x}}\n")
    catalog = ToolCatalog()
    toolsets = Toolsets(tmp_path / "f.yaml", catalog, ConnectionLimits())
    connection: Any = type("C", (), {"toolset": found["n"]})()
    toolsets._connections["n"] = connection
    schema = {"type": "object"}
    listed = [types.Tool(name=n, input_schema=schema) for n in ("a", "b", "a")]
    toolsets._publish(connection, listed)
    assert [tool.spec.name for tool in catalog.ordered()] == ["n.b"]
    assert [p.field for p in toolsets.problems] == ["toolsets.n"]
    assert "lists 'a' 2 times" in toolsets.problems[0].problem


def test_a_secret_anywhere_in_a_toolset_refuses_it_without_quoting_it() -> None:
    secret = "ghp_" + "a1B2" * 9
    schema = f"{{type: object, properties: {{q: {{type: string, description: 'use {secret}'}}}}}}"
    found, problems = _parse(
        f"toolsets:\n  t: {{http: {{}}, tools: {{a: {{url: 'http://h', parameters: {schema}}}}}}}\n"
    )
    assert found == {}
    assert list(problems) == ["toolsets.t.tools.a.parameters.properties.q.description"]
    assert secret not in repr(problems)


@pytest.mark.parametrize(
    ("head", "tail", "request_id"),
    [
        (b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"xxxx', b'xxxx"}]}}', 7),
        (b'{"result":{"content":[{"text":"xxxx', b'xxxx"}]},"jsonrpc":"2.0","id":"r-9"}', "r-9"),
        (b'{"result":{"content":[{"text":"xxxx', b'xxxx"}]},"id":12,"jsonrpc":"2.0"}', 12),
    ],
)
def test_an_oversized_answer_is_matched_to_its_call(
    head: bytes, tail: bytes, request_id: int | str
) -> None:
    from tools.mcp.stdio import RESULT_TOO_LARGE, _Oversized

    oversized = _Oversized(head)
    oversized.feed(head + b"x" * 10_000 + tail)
    answer = oversized.answer(1000)
    assert answer is not None
    message: Any = answer.message
    assert (message.id, message.error.code) == (request_id, RESULT_TOO_LARGE)
    assert "over 1,000 bytes" in message.error.message
    assert _Oversized(b'{"method":"notifications/x"').answer(1000) is None


def test_anchors_and_merge_keys_may_override() -> None:
    found, problems = _parse(
        "x-common: &common {mcp: {command: x}, level: read}\n"
        "toolsets:\n  a: {<<: *common, level: write}\n  b: *common\n"
    )
    assert "toolsets.a" not in str(problems)
    assert found["a"].defaults.level is PermissionLevel.WRITE
    assert found["b"].defaults.level is PermissionLevel.READ
    assert problems == {}  # x- keys hold anchors


@pytest.mark.parametrize(
    "url",
    [
        "http://{host}:8080/status",
        "http://127.0.0.1:{port}/status",
        "https://{sub}.example.com/",
        "http://user{x}@example.com/",
        "http://{host}",
    ],
)
def test_a_placeholder_before_the_path_is_refused(url: str) -> None:
    found, problems = _parse(f"toolsets:\n  t: {{http: {{}}, tools: {{a: {{url: '{url}'}}}}}}\n")
    assert found == {}
    assert "may stand only in the path or the query" in problems["toolsets.t.tools.a.url"]


def _declared(text: str) -> tuple[HttpTool, ToolsetConfig]:
    found, problems = _parse(text)
    assert problems == {}
    config = next(iter(found.values()))
    [tool] = config.http_tools
    return HttpTool(http_spec_of(config, tool), tool, (), 1000), config


def test_a_declared_url_is_shown_as_written_and_expanded_per_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CRM_HOST_9", "crm.internal.example")
    monkeypatch.setenv("CRM_TENANT_9", "t-{id}-secretish")
    tool, _ = _declared(
        "toolsets:\n  crm: {http: {}, tools: {c: {"
        "url: 'https://${CRM_HOST_9}/t/${CRM_TENANT_9}/customers/{id}',"
        " parameters: {type: object, properties: {id: {type: string}}}}}}\n"
    )
    assert tool.spec.description == "GET https://${CRM_HOST_9}/t/${CRM_TENANT_9}/customers/{id}"
    assert "crm.internal.example" not in repr(tool.spec)
    url, _ = tool._request({"id": "a/b"})
    # The variable's value is not read as a template: its `{id}` stays as it is.
    assert url == "https://crm.internal.example/t/t-%7Bid%7D-secretish/customers/a%2Fb"


def test_a_declared_tool_sends_only_the_arguments_it_declares() -> None:
    tool, _ = _declared(
        "toolsets:\n  crm: {http: {}, tools: {c: {url: 'http://h.example/c/{id}',"
        " parameters: {type: object, properties: {id: {type: string}, q: {type: string}}}}}}\n"
    )
    assert tool.spec.parameters["additionalProperties"] is False  # told to the model too
    assert ArgumentValidator(tool.spec.parameters).violations({"id": "1", "admin": "yes"})
    url, body = tool._request({"id": "1", "q": "tea", "admin": "yes"})  # were it let through
    assert (url, body) == ("http://h.example/c/1?q=tea", None)

    composed, _ = _declared(
        "toolsets:\n  crm: {http: {}, tools: {c: {url: 'http://h.example/c', method: POST,"
        " parameters: {type: object, allOf: [{properties: {a: {type: string}}}],"
        " properties: {b: {type: string}}}}}}\n"
    )
    assert "additionalProperties" not in composed.spec.parameters  # would refuse `a`
    assert composed._request({"a": "1", "b": "2"}) == ("http://h.example/c", b'{"b": "2"}')


def test_a_result_expression_that_does_not_fit_the_answer_is_a_failure() -> None:
    tool, _ = _declared(
        "toolsets:\n  crm: {http: {}, tools: {c: {url: 'http://h.example/c',"
        " result: 'abs(name)'}}}\n"
    )
    response = httpcore.Response(200)
    with pytest.raises(ToolFailed, match="does not fit the tool's result expression"):
        tool._output(response, b'{"name": "Ada"}')
    with pytest.raises(ToolFailed, match="not JSON"):
        tool._output(response, b"[" * 100_000)


def test_url_placeholders_are_declared_parameters() -> None:
    tool, _ = _declared(
        "toolsets:\n  crm: {http: {}, tools: {c: {url: 'http://h.example/{id}'}}}\n"
    )
    assert tool.spec.parameters["required"] == ["id"]
    assert set(tool.spec.parameters["properties"]) == {"id"}
    _, problems = _parse(
        "toolsets:\n  crm: {http: {}, tools: {c: {url: 'http://h.example/{id}',"
        " parameters: {type: object, properties: {q: {type: string}}}}}}\n"
    )
    assert problems == {"toolsets.crm.tools.c.parameters": "does not declare {id} of the URL"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ("files: {mcp: {command: x}}", "toolsets.files"),
        ("t: {mcp: {command: x}, category: web}", "toolsets.t.category"),
        ("t: {mcp: {command: x}, tools: {p: {category: files}}}", "toolsets.t.tools.p.category"),
        (
            "t: {http: {}, tools: {a: {url: 'http://h.example/', category: math}}}",
            "toolsets.t.tools.a.category",
        ),
    ],
)
def test_no_toolset_tool_takes_a_built_in_category(body: str, field: str) -> None:
    found, problems = _parse(f"toolsets:\n  {body}\n  ok: {{mcp: {{command: y}}, category: crm}}\n")
    assert set(found) == {"ok"}
    assert list(problems) == [field]
    assert "is the category of built-in tools" in problems[field]


async def test_the_built_in_tools_categories_are_reserved(tmp_path: Path) -> None:
    from tools.builtin import builtin_tools

    catalog = ToolCatalog(builtin_tools(tmp_path))
    path = tmp_path / "toolsets.yaml"
    tool = "{a: {url: 'http://h.example/'}}"
    path.write_text(
        f"toolsets:\n  files: {{http: {{}}, tools: {tool}}}\n"
        f"  backups: {{http: {{}}, tools: {tool}}}\n"
    )
    toolsets = Toolsets(path, catalog, ConnectionLimits())
    assert await toolsets.reload()
    assert [p.field for p in toolsets.problems] == ["toolsets.files"]
    assert catalog.toolset("backups") == ("backups.a",)
    assert catalog.toolset("files") == ()


def test_what_may_be_a_secret_is_used_and_warned_of_without_quoting_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NOTES_TOKEN_X", "from-the-environment")
    text = (
        "toolsets:\n"
        "  t:\n"
        "    mcp:\n"
        "      command: x\n"
        "      env: {DB_PASS: s3cr3tpass, LOG_LEVEL: debug}\n"
        "      args: ['--auth', 'abc123def456', '--token', '${NOTES_TOKEN_X}',"
        " '--password-file', /run/secrets/db]\n"
        "  h:\n"
        "    http: {headers: {X-Auth: 'dXNlcjpwYXNzd29yZA==', X-Team: agentd}}\n"
        "    tools:\n"
        "      a: {url: 'https://hooks.example.com/services/T0A1B2/xYz0123456789AbCdEfGhIjK'}\n"
        "      b: {url: 'https://api.example.com/v2/customers/{id}'}\n"
    )
    found, problems, _ = parse_file(load_yaml(text), "f.yaml", RESERVED)
    assert set(found) == {"t", "h"}  # used all the same
    assert all(p.warning for p in problems)
    warned = {p.field: p.problem for p in problems}
    assert set(warned) == {
        "toolsets.t.mcp.env.DB_PASS",
        "toolsets.t.mcp.args[1]",
        "toolsets.t.mcp.args[3]",
        "toolsets.h.http.headers.X-Auth",
        "toolsets.h.tools.a.url",
    }
    assert "may hold a secret" in warned["toolsets.t.mcp.env.DB_PASS"]
    assert "/proc/<pid>/cmdline" in warned["toolsets.t.mcp.args[3]"]
    for value in ("s3cr3tpass", "abc123def456", "dXNlcjpwYXNzd29yZA", "xYz0123456789"):
        assert value not in repr(problems)


@pytest.mark.timeout(30)  # a bound: walking the aliases expanded would take for ever
async def test_a_file_its_aliases_blow_up_is_refused_and_read_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    lines = ["x-0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"x-{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 12)]
    lines.append("toolsets:\n  t: {http: {}, tools: {a: {url: 'http://h.example/', x: *a11}}}")
    path = tmp_path / "toolsets.yaml"
    path.write_text("\n".join(lines) + "\n")
    assert len(path.read_bytes()) < 1000
    threads: list[int] = []

    def parse(*args: Any) -> Any:
        threads.append(threading.get_ident())
        return parse_file(*args)

    monkeypatch.setattr("tools.toolsets.manager.parse_file", parse)
    toolsets = Toolsets(path, ToolCatalog(), ConnectionLimits())
    assert await toolsets.reload()
    [problem] = toolsets.problems
    assert (problem.field, problem.problem) == (
        "(file)",
        "cannot be used: its aliases make it more than 500,000 values",
    )
    path.write_text("x-a: &a [*a]\ntoolsets: {}\n")
    assert await toolsets.reload()
    assert "refers to a value that contains it" in toolsets.problems[0].problem

    path.write_text("toolsets:\n  t: {http: {}, tools: {a: {url: 'http://h.example/'}}}\n")
    assert await toolsets.reload()
    assert threads
    assert threading.get_ident() not in threads  # parsed in a worker thread


def test_a_problem_is_logged_once_while_it_lasts(tmp_path: Path) -> None:
    import structlog

    found, _ = _parse("toolsets:\n  n: {mcp: {command: x}}\n  m: {mcp: {command: x}}\n")
    toolsets = Toolsets(tmp_path / "f.yaml", ToolCatalog(), ConnectionLimits())
    schema = {"type": "object"}
    connections: dict[str, Any] = {}
    for name in ("n", "m"):
        connections[name] = type("C", (), {"toolset": found[name]})()
        toolsets._connections[name] = connections[name]
    twice = [types.Tool(name=n, input_schema=schema) for n in ("a", "a")]
    with structlog.testing.capture_logs() as logs:
        toolsets._publish(connections["n"], twice)
        toolsets._publish(connections["m"], twice)  # n's problem is still there
        toolsets._publish(connections["m"], [])  # m's is gone
        toolsets._publish(connections["m"], twice)  # and back
    refused = [e["field"] for e in logs if e["event"] == "toolsets file: refused"]
    assert refused == ["toolsets.n", "toolsets.m", "toolsets.m"]


async def test_an_event_stream_is_capped_per_event_in_agentds_own_words() -> None:
    import httpx2

    from tools.mcp.streamable_http import TOO_LARGE, CappedStream, EventTooLarge

    class Chunks(httpx2.AsyncByteStream):
        def __init__(self, *chunks: bytes) -> None:
            self._chunks = chunks

        async def __aiter__(self) -> Any:
            for chunk in self._chunks:
                yield chunk

    small = [b"data: " + b"x" * 60 + b"\n\n" for _ in range(50)]  # 3,400 bytes in all
    read = [c async for c in CappedStream(Chunks(*small), 100, events=True)]
    assert len(read) == 50  # many events, none over 100 bytes
    split = [b"data: " + b"x" * 50, b"\r\n", b"\r\ndata: " + b"y" * 50 + b"\n\n"]
    assert len([c async for c in CappedStream(Chunks(*split), 100, events=True)]) == 3
    with pytest.raises(EventTooLarge) as info:
        _ = [
            c async for c in CappedStream(Chunks(b"data: ", b"x" * 80, b"y" * 80), 100, events=True)
        ]
    assert TOO_LARGE in str(info.value)
    assert isinstance(info.value, httpx2.SSEError)  # the SDK fails only the call it answered


def test_a_settings_edit_before_the_server_listed_keeps_the_connection_quietly(
    tmp_path: Path,
) -> None:
    from tools.mcp.connection import McpConnection

    found, _ = _parse("toolsets:\n  n: {mcp: {command: x}, tools: {a: {level: read}}}\n")
    edited, _ = _parse("toolsets:\n  n: {mcp: {command: x}, level: write, tools: {a: {}}}\n")
    toolsets = Toolsets(tmp_path / "f.yaml", ToolCatalog(), ConnectionLimits())
    connection = McpConnection(found["n"], ConnectionLimits(), lambda listed: None)
    toolsets._configs["n"], toolsets._connections["n"] = found["n"], connection
    toolsets._reconfigure(edited["n"])
    assert connection.toolset == edited["n"]
    assert toolsets.connection("n") is connection
    assert toolsets.problems == []  # no "its server has no tool a" before it listed any


def test_a_declared_tool_returns_a_binary_answer_as_a_file() -> None:
    tool, _ = _declared("toolsets:\n  crm: {http: {}, tools: {c: {url: 'http://h.example/c'}}}\n")
    png = httpcore.Response(200, headers=[(b"Content-Type", b"image/png")])
    out = tool._output(png, b"\x89PNG\r\n")
    assert out.files == (ToolFile("crm.c", "image/png", b"\x89PNG\r\n"),)
    assert out.text == "(6 bytes of image/png: kept as a file)"
    plain = tool._output(httpcore.Response(200), b'{"name": "Ada"}')
    assert (plain.files, plain.data) == ((), {"name": "Ada"})
