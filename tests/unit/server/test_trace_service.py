"""GetTaskTrace's service and conversion: who reads which trace (the task's owner its
own, auditors and admins any of the tenant's, nobody another tenant's: NOT_FOUND as for
none kept), pages and their tokens, the children, and every kind of entry in protobuf."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agentd.v1 import traces_pb2
from core.errors import InvalidArgumentError, RoleRequiredError, TraceNotFoundError
from core.identity import Principal
from records.tasks import TokenUsage
from records.traces.model import (
    CriticTrace,
    DecisionTrace,
    ModelCallTrace,
    ToolCallTrace,
    ToolSource,
    TraceDetail,
    TracedMessage,
    TracedToolRequest,
    TraceEntry,
    TraceOwner,
    entry_id,
)
from server.convert.recorded import traces as convert
from server.services.recorded.traces import TraceService
from stores.traces.memory import InMemoryTraceStore

T0 = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)
ANN = Principal("ann", "acme")
BOB = Principal("bob", "acme")
AUDITOR = Principal("eve", "acme", ("auditor",))
OTHER_TENANT_AUDITOR = Principal("ann", "other", ("auditor", "admin"))


def owner(task_id: str, parent: str = "") -> TraceOwner:
    return TraceOwner(task_id, "acme", "ann", "root", parent, "support@2", "find it", T0)


def entries(task_id: str) -> list[TraceEntry]:
    model = ModelCallTrace(
        role="executor",
        provider="openai",
        model="gpt-x",
        message_ids=("m1", "m2"),
        tools=("lookup",),
        parameters={"temperature": 0.5},
        reply_text="let me look",
        reply_tool_calls=(TracedToolRequest("c1", "lookup", '{"n":1}'),),
        usage=TokenUsage(120, 30),
        latency_seconds=0.4,
    )
    tool = ToolCallTrace(
        "c1", "lookup", {"n": 1}, "k" * 64, "found 1", {"n": 1}, source=ToolSource.NOT_RUN
    )
    details: list[TraceDetail] = [
        model,
        tool,
        CriticTrace("answer", True, "fine"),
        DecisionTrace("approval", "c1", "lookup", "approve", "bob", "ok"),
    ]
    return [
        TraceEntry(task_id, entry_id(n, n), "iteration-1", T0, d, cut=n == 1)
        for n, d in enumerate(details)
    ]


async def service_with_trace() -> TraceService:
    store = InMemoryTraceStore()
    messages = [TracedMessage("m1", "system", "be brief"), TracedMessage("m2", "user", "find it")]
    await store.write(owner("root"), entries("root"), messages)
    await store.write(owner("child", parent="root"), [], [])
    return TraceService(store)


async def test_the_owner_reads_its_own_trace_with_its_children() -> None:
    service = await service_with_trace()

    view = await service.read(ANN, "root", "", 100)

    assert [e.kind.value for e in view.page.entries] == [
        "model_call",
        "tool_call",
        "critic",
        "decision",
    ]
    assert [m.message_id for m in view.page.messages] == ["m1", "m2"]
    assert view.children == ("child",)
    assert view.head.owner.agent == "support@2"


async def test_another_principal_needs_a_role_that_reads_the_audit_log() -> None:
    service = await service_with_trace()

    with pytest.raises(RoleRequiredError):
        await service.read(BOB, "root", "", 100)
    view = await service.read(AUDITOR, "root", "", 100)

    assert len(view.page.entries) == 4


async def test_another_tenants_trace_is_not_found_as_one_never_kept() -> None:
    service = await service_with_trace()

    with pytest.raises(TraceNotFoundError):
        await service.read(OTHER_TENANT_AUDITOR, "root", "", 100)
    with pytest.raises(TraceNotFoundError):
        await service.read(ANN, "never", "", 100)
    with pytest.raises(TraceNotFoundError):
        await TraceService(None).read(ANN, "root", "", 100)


async def test_forget_user_deletes_the_callers_traces_only_in_its_tenant() -> None:
    service = await service_with_trace()

    assert await service.forget_user(OTHER_TENANT_AUDITOR) == 0
    assert await service.forget_user(ANN) == 2
    with pytest.raises(TraceNotFoundError):
        await service.read(ANN, "root", "", 100)


async def test_a_page_converts_whole_and_its_token_reads_on() -> None:
    service = await service_with_trace()
    view = await service.read(ANN, "root", "", 2)

    made = convert.trace_to_proto("root", view.head, view.page, view.children)

    assert made.task == "find it"
    assert made.agent == "support@2"
    assert list(made.child_task_ids) == ["child"]
    assert [e.kind for e in made.entries] == [
        traces_pb2.TRACE_KIND_MODEL_CALL,
        traces_pb2.TRACE_KIND_TOOL_CALL,
    ]
    call = made.entries[0].model_call
    assert call.usage.prompt_tokens == 120
    assert list(call.message_ids) == ["m1", "m2"]
    assert call.parameters["temperature"] == 0.5
    assert not made.entries[0].cut
    assert made.entries[1].cut
    tool = made.entries[1].tool_call
    assert tool.source == traces_pb2.TRACE_TOOL_SOURCE_NOT_RUN
    assert tool.result.struct_value["n"] == 1
    assert [m.role for m in made.messages] == ["system", "user"]
    after = convert.after(made.next_page_token)
    rest = await service.read(ANN, "root", after, 2)
    last = convert.trace_to_proto("root", rest.head, rest.page, rest.children)
    assert [e.WhichOneof("detail") for e in last.entries] == ["critic", "decision"]
    assert last.entries[1].decision.decided_by == "bob"
    assert last.next_page_token == ""


def test_a_token_the_server_did_not_issue_is_refused() -> None:
    with pytest.raises(InvalidArgumentError):
        convert.after("not a token")
    assert convert.after("") == ""
