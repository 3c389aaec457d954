"""The policy service client against a PolicyService written here (grpc.aio on
127.0.0.1): allow, redact spans, block; a slow, a down and a misbehaving service are
unavailable (the fail mode decides, never a silent pass); decisions are cached."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from agent.guardrails.base import GuardrailUnavailable
from agentd.v1 import guardrails_pb2 as pb
from agentd.v1 import guardrails_pb2_grpc as pb_grpc
from records.guardrails import Action, CheckSpec, Finding, Point, Span, Subject
from server.guardrails.decisions import DecisionCache, decided_action
from server.guardrails.policy import PolicyServiceCheck, PolicyServices

Answer = Callable[[pb.PolicyCheckRequest], pb.PolicyCheckResponse]


@dataclass
class Policy(pb_grpc.PolicyServiceServicer):
    """Answers with `answer`; `hang` never answers (the caller's deadline ends the call)."""

    answer: Answer
    hang: bool = False
    requests: list[pb.PolicyCheckRequest] = field(default_factory=list)

    async def Check(
        self, request: pb.PolicyCheckRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.PolicyCheckResponse:
        self.requests.append(request)
        if self.hang:
            await asyncio.Event().wait()
        return self.answer(request)


def blocking_secrets(request: pb.PolicyCheckRequest) -> pb.PolicyCheckResponse:
    """Blocks a text holding "secret", redacts "1234" wherever it is, allows the rest."""
    if "secret" in request.text:
        return pb.PolicyCheckResponse(
            decision=pb.POLICY_DECISION_BLOCK, reason="no secrets", rule="corp:secrets"
        )
    at = request.text.find("1234")
    if at >= 0:
        span = pb.PolicySpan(start=at, end=at + 4, label="account")
        return pb.PolicyCheckResponse(decision=pb.POLICY_DECISION_REDACT, spans=[span])
    return pb.PolicyCheckResponse(decision=pb.POLICY_DECISION_ALLOW)


@dataclass
class Served:
    policy: Policy
    address: str
    services: PolicyServices

    def check(self, **options: Any) -> PolicyServiceCheck:
        spec = CheckSpec(
            "corp",
            "policy_service",
            frozenset(Point),
            Action.BLOCK,
            options={"address": self.address, **options},
        )
        return self.services.check(spec)


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    policy = Policy(blocking_secrets)
    server = grpc.aio.server()
    pb_grpc.add_PolicyServiceServicer_to_server(policy, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    services = PolicyServices()
    try:
        yield Served(policy, f"127.0.0.1:{port}", services)
    finally:
        await services.close()
        await server.stop(None)


SUBJECT = Subject(Point.OUTPUT, "acme", agent="helper", user="u1", task_id="t1")


async def test_an_allowed_text_has_no_findings_and_the_request_says_whose_it_is(
    served: Served,
) -> None:
    assert await served.check().inspect("all fine", SUBJECT) == []
    [request] = served.policy.requests
    assert request.point == pb.GUARDRAIL_POINT_OUTPUT
    assert (request.text, request.tenant, request.agent, request.user) == (
        "all fine",
        "acme",
        "helper",
        "u1",
    )
    assert (request.task_id, request.check) == ("t1", "corp")
    assert not request.HasField("arguments")


async def test_a_redaction_gives_its_spans_in_code_points(served: Served) -> None:
    text = "héllo 🙂 account 1234 ok"  # code points before the digits, not UTF-8 bytes
    [finding] = await served.check().inspect(text, SUBJECT)
    start = text.index("1234")
    assert finding.spans == (Span(start, start + 4, "account"),)
    assert finding.rule == "policy"
    assert decided_action(Action.BLOCK, finding) is Action.REDACT


async def test_a_block_gives_the_services_rule_and_reason(served: Served) -> None:
    [finding] = await served.check().inspect("the secret plan", SUBJECT)
    assert finding == Finding("corp", "corp:secrets", "no secrets")
    assert decided_action(Action.REDACT, finding) is Action.BLOCK  # the service escalates
    assert decided_action(Action.RECORD, finding) is Action.RECORD  # a dry run


async def test_tool_arguments_go_as_an_object_too(served: Served) -> None:
    subject = Subject(Point.TOOL_ARGUMENTS, "acme", tool="send_mail")
    await served.check().inspect('{"to": "bob", "n": 2}', subject)
    [request] = served.policy.requests
    assert request.point == pb.GUARDRAIL_POINT_TOOL_ARGUMENTS
    assert request.tool == "send_mail"
    assert dict(request.arguments.fields.items()).keys() == {"to", "n"}
    assert request.arguments.fields["to"].string_value == "bob"


async def test_a_service_past_its_deadline_is_unavailable(served: Served) -> None:
    served.policy.hang = True
    with pytest.raises(GuardrailUnavailable, match="DEADLINE_EXCEEDED"):
        await served.check(timeout_ms=50).inspect("anything", SUBJECT)


async def test_a_service_that_is_down_is_unavailable() -> None:
    with socket.socket() as probe:  # a port nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    services = PolicyServices()
    spec = CheckSpec(
        "corp",
        "policy_service",
        frozenset(Point),
        Action.BLOCK,
        options={"address": f"127.0.0.1:{port}", "fail": "open"},
    )
    check = services.check(spec)
    try:
        with pytest.raises(GuardrailUnavailable, match="UNAVAILABLE") as raised:
            await check.inspect("anything", SUBJECT)
        assert raised.value.check == "corp"
        assert check.fail_closed is False
    finally:
        await services.close()


@pytest.mark.parametrize(
    "answer",
    [
        pb.PolicyCheckResponse(),  # no decision
        pb.PolicyCheckResponse(decision=pb.POLICY_DECISION_REDACT),  # nothing to redact
        pb.PolicyCheckResponse(
            decision=pb.POLICY_DECISION_REDACT, spans=[pb.PolicySpan(start=2, end=99)]
        ),
        pb.PolicyCheckResponse(
            decision=pb.POLICY_DECISION_REDACT, spans=[pb.PolicySpan(start=3, end=3)]
        ),
        pb.PolicyCheckResponse(
            decision=pb.POLICY_DECISION_REDACT, spans=[pb.PolicySpan(start=-1, end=2)]
        ),
        pb.PolicyCheckResponse(decision=7),  # type: ignore[arg-type]  # a future decision
    ],
)
async def test_an_answer_agentd_cannot_use_is_unavailable_never_a_pass(
    served: Served, answer: pb.PolicyCheckResponse
) -> None:
    served.policy.answer = lambda request: answer
    with pytest.raises(GuardrailUnavailable, match="unusable answer"):
        await served.check().inspect("short text", SUBJECT)


async def test_an_error_status_is_unavailable(served: Served) -> None:
    def failing(request: pb.PolicyCheckRequest) -> pb.PolicyCheckResponse:
        raise RuntimeError("the policy engine crashed")

    served.policy.answer = failing
    with pytest.raises(GuardrailUnavailable, match="UNKNOWN"):
        await served.check().inspect("anything", SUBJECT)


async def test_a_cached_decision_is_not_asked_again(served: Served) -> None:
    check = served.check(cache_seconds=60)
    first = await check.inspect("the secret plan", SUBJECT)
    assert await check.inspect("the secret plan", SUBJECT) == first
    assert len(served.policy.requests) == 1
    other_user = Subject(Point.OUTPUT, "acme", agent="helper", user="u2")
    await check.inspect("the secret plan", other_user)
    assert len(served.policy.requests) == 2


async def test_without_cache_seconds_every_call_asks(served: Served) -> None:
    check = served.check()
    await check.inspect("all fine", SUBJECT)
    await check.inspect("all fine", SUBJECT)
    assert len(served.policy.requests) == 2


def test_the_cache_expires_and_keeps_only_the_most_recently_used() -> None:
    now = [0.0]
    cache = DecisionCache(10, size=2, clock=lambda: now[0])
    found = [Finding("c", "policy", "no")]
    cache.put("a", found)
    cache.put("b", [])
    assert cache.get("a") == found  # a is now the most recently used
    cache.put("c", [])
    assert cache.get("b") is None
    assert len(cache) == 2
    now[0] = 10.0
    assert cache.get("a") is None


@pytest.mark.parametrize(
    ("options", "wrong"),
    [
        ({}, "address"),
        ({"address": "nohost"}, "address"),
        ({"address": "127.0.0.1:1", "timeout_ms": 0}, "timeout_ms"),
        ({"address": "127.0.0.1:1", "timeout_ms": "5"}, "timeout_ms"),
        ({"address": "127.0.0.1:1", "fail": "maybe"}, "fail"),
        ({"address": "127.0.0.1:1", "cache_seconds": -1}, "cache_seconds"),
    ],
)
def test_options_that_are_wrong_are_refused_by_name(options: dict[str, Any], wrong: str) -> None:
    spec = CheckSpec("corp", "policy_service", frozenset(Point), Action.BLOCK, options=options)
    with pytest.raises(ValueError, match=f"`{wrong}`"):
        PolicyServices().check(spec)
