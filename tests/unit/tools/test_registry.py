from __future__ import annotations

import asyncio
import hashlib
from dataclasses import replace

import pytest

from core.errors import (
    PathOutsideWorkspaceError,
    PermissionDeniedError,
    RequestTooLargeError,
    ToolArgumentsInvalidError,
    ToolNotFoundError,
)
from core.identity import CallContext
from core.secrets import REDACTED
from records.tools.audit import digest
from records.tools.model import (
    JSONValue,
    PermissionLevel,
    RiskLevel,
    Tool,
    ToolFile,
    ToolOutput,
    ToolSpec,
)
from records.tools.outcomes import ToolErrorKind, ToolFailed
from stores.audit.memory import InMemoryAuditLog
from tools.builtin.calculator import Calculator
from tools.permissions import LevelPolicy
from tools.registry import ToolRegistry


def _spec(name: str, **changes: object) -> ToolSpec:
    base = ToolSpec(
        name=name,
        description="test tool",
        parameters={
            "type": "object",
            "properties": {
                "n": {"type": "integer", "minimum": 0, "maximum": 10},
                "items": {"type": "array", "items": {"type": "string"}},
                "token": {"type": "string"},
            },
            "required": ["n"],
            "additionalProperties": False,
        },
        category="test",
        permission=PermissionLevel.READ,
        risk=RiskLevel.LOW,
        idempotent=True,
        timeout_seconds=0.2,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


class Scripted(Tool):
    """Does what its name says, to exercise every outcome."""

    def __init__(self, name: str, behaviour: str, **changes: object) -> None:
        self.spec = _spec(name, **changes)
        self.behaviour = behaviour
        self.calls = 0

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        self.calls += 1
        if self.behaviour == "sleep":
            await asyncio.sleep(5)
        if self.behaviour == "fail":
            raise ToolFailed("the thing was not there")
        if self.behaviour == "crash":
            raise RuntimeError("secret internal detail")
        if self.behaviour == "refuse":
            raise PathOutsideWorkspaceError("arguments.path", "../x", "'..' is not allowed")
        return ToolOutput(data={"doubled": int(arguments["n"]) * 2}, text="ok")


@pytest.fixture
def tools() -> dict[str, Scripted]:
    return {name: Scripted(name, name) for name in ("ok", "sleep", "fail", "crash", "refuse")} | {
        "admin": Scripted("admin", "ok", permission=PermissionLevel.ADMIN)
    }


@pytest.fixture
def reg(tools: dict[str, Scripted], audit: InMemoryAuditLog) -> ToolRegistry:
    return ToolRegistry(
        tools.values(),
        policy=LevelPolicy(PermissionLevel.WRITE),
        audit=audit,
        max_argument_bytes=200,
    )


async def test_success_result_and_audit(
    reg: ToolRegistry, audit: InMemoryAuditLog, ctx: CallContext
) -> None:
    result = await reg.call("ok", {"n": 4, "token": "hunter2"}, ctx)
    assert result.ok
    assert result.data == {"doubled": 8}
    assert result.call_id.startswith("call_")
    [record] = audit.records
    assert record.call_id == result.call_id
    assert record.outcome == "ok"
    assert record.decision == "allowed"
    assert record.rule == "level:write"
    assert record.arguments == {"n": 4, "token": REDACTED}
    assert record.result_digest == digest({"doubled": 8})
    assert record.trace_id == ctx.trace_id


async def test_every_schema_problem_is_one_violation(
    reg: ToolRegistry, tools: dict[str, Scripted], ctx: CallContext
) -> None:
    with pytest.raises(ToolArgumentsInvalidError) as info:
        await reg.call("ok", {"items": ["a", 3], "extra": 1, "n": 11}, ctx)
    fields = sorted(v.field for v in info.value.field_violations)
    assert fields == ["arguments.extra", "arguments.items[1]", "arguments.n"]
    with pytest.raises(ToolArgumentsInvalidError) as info:
        await reg.call("ok", {}, ctx)
    assert [(v.field, v.description) for v in info.value.field_violations] == [
        ("arguments.n", "is required")
    ]
    assert tools["ok"].calls == 0


async def test_unknown_tool(reg: ToolRegistry, audit: InMemoryAuditLog, ctx: CallContext) -> None:
    with pytest.raises(ToolNotFoundError):
        await reg.call("nope", {}, ctx)
    assert audit.records[-1].outcome == "not_found"


async def test_permission_denied_before_validation(
    reg: ToolRegistry, tools: dict[str, Scripted], audit: InMemoryAuditLog, ctx: CallContext
) -> None:
    with pytest.raises(PermissionDeniedError) as info:
        await reg.call("admin", {"bad": True}, ctx)
    assert info.value.required == "ADMIN"
    assert tools["admin"].calls == 0
    assert audit.records[-1].outcome == "denied"
    assert audit.records[-1].decision == "denied"
    assert "admin" not in [s.name for s in reg.visible_to(ctx)]


async def test_oversize_arguments_refused(reg: ToolRegistry, ctx: CallContext) -> None:
    with pytest.raises(RequestTooLargeError):
        await reg.call("ok", {"n": 1, "token": "x" * 500}, ctx)


async def test_timeout_is_an_error_result(
    reg: ToolRegistry, audit: InMemoryAuditLog, ctx: CallContext
) -> None:
    started = asyncio.get_running_loop().time()
    result = await reg.call("sleep", {"n": 1}, ctx)
    assert asyncio.get_running_loop().time() - started < 2
    assert result.error is not None
    assert result.error.kind is ToolErrorKind.TIMEOUT
    assert "0.2 s" in result.error.message
    assert audit.records[-1].outcome == "timeout"


async def test_callers_deadline_shortens_the_timeout(reg: ToolRegistry) -> None:
    result = await reg.call("sleep", {"n": 1}, CallContext(deadline_seconds=0.05))
    assert result.error is not None
    assert result.error.kind is ToolErrorKind.TIMEOUT
    assert result.duration_seconds < 0.2


async def test_failure_and_crash_are_error_results(
    reg: ToolRegistry, audit: InMemoryAuditLog, ctx: CallContext
) -> None:
    failed = await reg.call("fail", {"n": 1}, ctx)
    assert failed.error is not None
    assert failed.error.kind is ToolErrorKind.FAILED
    assert failed.text == "the thing was not there"
    crashed = await reg.call("crash", {"n": 1}, ctx)
    assert crashed.error is not None
    assert crashed.error.kind is ToolErrorKind.CRASHED
    assert "secret internal detail" not in crashed.error.message
    assert ctx.trace_id in crashed.error.message
    assert [r.outcome for r in audit.records] == ["failed", "crashed"]


async def test_tool_refusal_propagates_and_is_audited(
    reg: ToolRegistry, audit: InMemoryAuditLog, ctx: CallContext
) -> None:
    with pytest.raises(PathOutsideWorkspaceError):
        await reg.call("refuse", {"n": 1}, ctx)
    assert audit.records[-1].outcome == "refused"


async def test_listing_is_sorted_and_filtered(reg: ToolRegistry, ctx: CallContext) -> None:
    names = [s.name for s in reg.visible_to(ctx)]
    assert names == sorted(names)
    assert reg.visible_to(ctx, "nothing") == []


def test_duplicate_and_invalid_specs_rejected(audit: InMemoryAuditLog) -> None:
    with pytest.raises(ValueError, match="already registered"):
        ToolRegistry(
            [Calculator(), Calculator()], policy=LevelPolicy(PermissionLevel.ADMIN), audit=audit
        )
    with pytest.raises(ValueError, match="invalid tool name"):
        _spec("Bad-Name")
    with pytest.raises(ValueError, match="JSON Schema object"):
        _spec("x", parameters={"type": "string"})


@pytest.mark.parametrize(
    ("granted", "visible"),
    [
        (PermissionLevel.NONE, {"calculator"}),
        (PermissionLevel.ADMIN, {"calculator"}),
    ],
)
def test_level_policy_levels(
    granted: PermissionLevel, visible: set[str], audit: InMemoryAuditLog
) -> None:
    reg = ToolRegistry([Calculator()], policy=LevelPolicy(granted), audit=audit)
    assert {s.name for s in reg.visible_to(CallContext())} == visible


def test_level_order() -> None:
    assert (
        PermissionLevel.NONE
        < PermissionLevel.READ
        < PermissionLevel.WRITE
        < PermissionLevel.EXECUTE
        < PermissionLevel.ADMIN
    )
    policy = LevelPolicy(PermissionLevel.READ)
    from core.identity import ANONYMOUS

    for level in PermissionLevel:
        decision = policy.decide(ANONYMOUS, _spec("t", permission=level))
        assert decision.allowed is (level <= PermissionLevel.READ)


class _Down(Scripted):
    def unavailable(self) -> str:
        return "its server is down"


def test_a_listing_says_which_tools_cannot_be_called_now(audit: InMemoryAuditLog) -> None:
    reg = ToolRegistry(
        [Scripted("up", "ok"), _Down("down", "ok")],
        policy=LevelPolicy(PermissionLevel.WRITE),
        audit=audit,
    )
    listed = reg.listing(CallContext())
    assert [(t.spec.name, t.unavailable) for t in listed] == [
        ("down", "its server is down"),
        ("up", ""),
    ]
    assert reg.visible_to(CallContext()) == [t.spec for t in listed]


class Filing(Tool):
    """Returns one file."""

    spec = _spec("filing")

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        return ToolOutput({"n": 1}, "here", files=(ToolFile("a.bin", "application/zip", b"PK"),))


async def test_outside_a_task_files_are_not_kept_and_the_text_says_so(
    audit: InMemoryAuditLog, ctx: CallContext
) -> None:
    reg = ToolRegistry([Filing()], policy=LevelPolicy(PermissionLevel.WRITE), audit=audit)
    result = await reg.call("filing", {"n": 1}, ctx)
    assert result.files == ()
    assert result.text == "here\n1 file(s) not kept: files are kept as artifacts inside a task"
    [record] = audit.records
    facts = {"name": "a.bin", "media_type": "application/zip", "size": 2}
    sha = hashlib.sha256(b"PK").hexdigest()
    assert record.result_digest == digest({"result": {"n": 1}, "files": [{**facts, "sha256": sha}]})
