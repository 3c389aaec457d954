"""The inbox on the wire (`server.convert.inbox`): a ListPendingActions request read into
kinds and a query (each malformed field named), and a wait shown as a PendingAction: an
approval's redacted arguments as a Struct (its JSON as text when it was cut), the rest
as text, its deadline and what happens then. A ListActionHistory request read into the
history's query (page sizes 1..500, 0 for 100; every malformed field named at once), and
each entry of the inbox's history shown as an ActionHistoryEntry."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from agentd.v1 import inbox_pb2
from core.errors import InvalidArgumentError
from records.inbox.history import entry_of
from records.inbox.steps import DEADLINE_ACTOR, ActionStep, ActionStepKind
from records.paging import TimeKeyCursor
from records.waits import PERSON_KINDS, Audience, Wait, WaitAction, WaitKind
from server.convert import inbox as convert
from server.convert import pages

NOW = datetime(2026, 12, 8, 9, 0, tzinfo=UTC)


def test_kinds_asked_for_and_every_kind_for_none() -> None:
    assert convert.kinds_from_proto([]) == PERSON_KINDS
    asked = [inbox_pb2.PENDING_ACTION_KIND_QUESTION, inbox_pb2.PENDING_ACTION_KIND_BUDGET]
    assert convert.kinds_from_proto(asked) == {WaitKind.QUESTION, WaitKind.BUDGET}
    with pytest.raises(InvalidArgumentError) as refused:
        convert.kinds_from_proto([inbox_pb2.PENDING_ACTION_KIND_APPROVAL, 0, 99])
    assert [v.field for v in refused.value.violations] == ["kinds[1]", "kinds[2]"]


def test_a_request_as_its_query() -> None:
    after = TimeKeyCursor(NOW, "task_1", "call_1")
    request = inbox_pb2.ListPendingActionsRequest(
        agent="helper@2", root_task_id="task_0", page_token=pages.token(after)
    )
    query = convert.pending_query(request, "acme", 20)
    assert (query.tenant, query.agent, query.agent_version) == ("acme", "helper", 2)
    assert (query.root_task_id, query.limit, query.after) == ("task_0", 20, after)
    assert query.audience == Audience()  # admits nothing: the inbox adds the caller's
    any_version = convert.pending_query(inbox_pb2.ListPendingActionsRequest(agent="helper"), "a", 1)
    assert (any_version.agent, any_version.agent_version, any_version.after) == (
        "helper",
        None,
        None,
    )


def test_malformed_fields_are_named() -> None:
    request = inbox_pb2.ListPendingActionsRequest(agent="Not An Agent", root_task_id="x" * 65)
    with pytest.raises(InvalidArgumentError) as refused:
        convert.pending_query(request, "acme", 10)
    assert [v.field for v in refused.value.violations] == ["agent", "root_task_id"]
    with pytest.raises(InvalidArgumentError) as token:
        convert.pending_query(inbox_pb2.ListPendingActionsRequest(page_token="nope"), "acme", 10)
    assert [v.field for v in token.value.violations] == ["page_token"]


def wait(kind: WaitKind, slot: str, detail: str, **more: object) -> Wait:
    return Wait(
        "acme",
        "task_2",
        slot,
        kind,
        NOW,
        detail=detail,
        **more,  # type: ignore[arg-type]
    )


def test_an_approval_shows_its_redacted_arguments() -> None:
    approval = wait(
        WaitKind.APPROVAL,
        "call_1",
        '{"path": "/srv", "token": "[redacted]", "n": 3}',
        root_task_id="task_1",
        agent="helper@2",
        owner="alice",
        roles=("finance", "ops"),
        tool_name="files.write",
        deadline_at=NOW + timedelta(minutes=10),
    )
    action = convert.pending_action_to_proto(approval)
    assert action.kind == inbox_pb2.PENDING_ACTION_KIND_APPROVAL
    assert (action.task_id, action.root_task_id, action.request_id) == (
        "task_2",
        "task_1",
        "call_1",
    )
    assert (action.tool_name, action.agent, action.asked_by) == ("files.write", "helper@2", "alice")
    assert list(action.roles) == ["finance", "ops"]
    assert dict(action.arguments) == {"path": "/srv", "token": "[redacted]", "n": 3}
    assert action.text == ""
    assert action.created_at.ToDatetime(UTC) == NOW
    assert action.deadline.ToDatetime(UTC) == NOW + timedelta(minutes=10)
    assert action.on_deadline == inbox_pb2.DEADLINE_ACTION_DENY


def test_arguments_cut_to_fit_are_shown_as_text_and_the_rest_as_text() -> None:
    cut = '{"text": "' + "a" * 1990
    action = convert.pending_action_to_proto(wait(WaitKind.APPROVAL, "call_1", cut))
    assert (action.HasField("arguments"), action.text) == (False, cut)
    question = wait(
        WaitKind.QUESTION, "question:call_3", '{"not": "arguments"}', on_deadline=WaitAction.FAIL
    )
    action = convert.pending_action_to_proto(question)
    assert action.kind == inbox_pb2.PENDING_ACTION_KIND_QUESTION
    assert (action.HasField("arguments"), action.text) == (False, '{"not": "arguments"}')
    assert action.root_task_id == "task_2"  # a top task is its own tree's root
    assert not action.HasField("deadline")
    assert action.on_deadline == inbox_pb2.DEADLINE_ACTION_FAIL
    resume = convert.pending_action_to_proto(
        wait(WaitKind.RESUME, "resume:0", "HTTP 503", on_deadline=WaitAction.CANCEL)
    )
    assert (resume.kind, resume.text) == (inbox_pb2.PENDING_ACTION_KIND_RESUME, "HTTP 503")
    assert resume.on_deadline == inbox_pb2.DEADLINE_ACTION_CANCEL
    budget = convert.pending_action_to_proto(wait(WaitKind.BUDGET, "budget:b1", "tenant tokens"))
    assert (budget.kind, budget.request_id) == (inbox_pb2.PENDING_ACTION_KIND_BUDGET, "budget:b1")


def test_a_history_request_as_its_query() -> None:
    after = TimeKeyCursor(NOW, "task_1", "0123abcd")
    request = inbox_pb2.ListActionHistoryRequest(
        task_id="task_1", root_task_id="task_0", page_size=500, page_token=pages.token(after)
    )
    query = convert.history_query(request, "acme")
    assert (query.tenant, query.task_id, query.root_task_id) == ("acme", "task_1", "task_0")
    assert (query.limit, query.after) == (500, after)
    plain = convert.history_query(inbox_pb2.ListActionHistoryRequest(), "acme")
    assert (plain.task_id, plain.root_task_id, plain.limit, plain.after) == ("", "", 100, None)


@pytest.mark.parametrize("size", [-1, 501, 2**31 - 1])
def test_every_malformed_history_field_is_named_at_once(size: int) -> None:
    request = inbox_pb2.ListActionHistoryRequest(
        task_id="t" * 65, root_task_id="a\nb", page_size=size, page_token="nope"
    )
    with pytest.raises(InvalidArgumentError) as refused:
        convert.history_query(request, "acme")
    fields = [v.field for v in refused.value.violations]
    assert fields == ["task_id", "root_task_id", "page_size", "page_token"]
    assert "between 1 and 500" in str(refused.value)


def test_a_history_entry_on_the_wire() -> None:
    asked = wait(WaitKind.BUDGET, "budget:b1", "soft limit 100", roles=("finance",))
    timed_out = ActionStep(
        ActionStepKind.TIMED_OUT,
        replace(asked, deadline_at=NOW + timedelta(minutes=5), agent="billing@2"),
        NOW + timedelta(minutes=5),
        DEADLINE_ACTOR,
        "denied",
    )
    shown = convert.history_entry_to_proto(entry_of(timed_out))
    assert shown.kind == inbox_pb2.ACTION_HISTORY_KIND_TIMED_OUT
    assert shown.action_kind == inbox_pb2.PENDING_ACTION_KIND_BUDGET
    assert (shown.task_id, shown.root_task_id, shown.request_id) == (
        "task_2",
        "task_2",
        "budget:b1",
    )
    assert (shown.agent, shown.actor, shown.outcome) == ("billing@2", "deadline", "denied")
    assert list(shown.roles) == ["finance"]
    assert shown.deadline.ToDatetime(UTC) == NOW + timedelta(minutes=5)
    assert shown.time.ToDatetime(UTC) == NOW + timedelta(minutes=5)
    assert shown.tool_name == ""
    opened = ActionStep(ActionStepKind.OPENED, replace(asked, root_task_id="t0"), NOW)
    shown = convert.history_entry_to_proto(entry_of(opened))
    assert shown.kind == inbox_pb2.ACTION_HISTORY_KIND_OPENED
    assert shown.root_task_id == "t0"
    assert not shown.HasField("deadline")  # none: unset, never the epoch
    for kind in ActionStepKind:  # every step has its kind on the wire
        step = convert.history_entry_to_proto(entry_of(replace(opened, kind=kind)))
        assert step.kind != inbox_pb2.ACTION_HISTORY_KIND_UNSPECIFIED
