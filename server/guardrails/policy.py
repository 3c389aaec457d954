"""The `policy_service` guardrail kind: agentd asks an operator's own policy service
(`agentd.v1.PolicyService`, protos/agentd/v1/guardrails.proto) whether a text may pass.

The wiring builds one `PolicyServices` and registers its `check` as the factory of the
kind (`agent.guardrails.base.register_kind("policy_service", services.check)`); it closes
it when the server stops. Checks naming the same address share one channel. A check's
options:

    address        host:port of the service (required)
    timeout_ms     the call's deadline (default 500)
    fail           "closed" (default: the Guard blocks) or "open" (it lets the text
                   through) when the service cannot answer; the event names which
    cache_seconds  keep decisions this long (default 0: ask every time), by a SHA-256
                   digest of the check, point, text, tenant, agent, user and tool

The service decides: allow, redact spans, or block (`decisions.decided_action`: a check
declared `record` is a dry run). A service that is down, slow past the deadline, answers
an error status or an answer agentd cannot use makes the check raise
GuardrailUnavailable: the fail mode decides, never a silent pass."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import json_format, struct_pb2

from agent.guardrails.base import GuardrailUnavailable
from agentd.v1 import guardrails_pb2 as pb
from agentd.v1 import guardrails_pb2_grpc as pb_grpc
from records.guardrails import Action, CheckSpec, Finding, Point, Subject
from server.convert.values import dict_to_struct
from server.guardrails.decisions import DecisionCache, decided_action, digest, findings

KIND = "policy_service"
DEFAULT_TIMEOUT_MS = 500
MAX_TIMEOUT_MS = 60_000
POINTS = {
    Point.INPUT: pb.GUARDRAIL_POINT_INPUT,
    Point.OUTPUT: pb.GUARDRAIL_POINT_OUTPUT,
    Point.TOOL_ARGUMENTS: pb.GUARDRAIL_POINT_TOOL_ARGUMENTS,
    Point.TOOL_RESULT: pb.GUARDRAIL_POINT_TOOL_RESULT,
}


@dataclass(frozen=True, slots=True)
class PolicyOptions:
    """A `policy_service` check's options, checked."""

    address: str
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    fail_closed: bool = True
    cache_seconds: float = 0.0

    @classmethod
    def parse(cls, check: str, options: Mapping[str, Any]) -> PolicyOptions:
        """The options of check `check`; ValueError naming the one that is wrong."""
        address = options.get("address")
        host, _, port = str(address or "").rpartition(":")
        if not isinstance(address, str) or not host or not port.isdigit():
            raise ValueError(f"guardrail {check!r}: `address` must be host:port")
        timeout = options.get("timeout_ms", DEFAULT_TIMEOUT_MS)
        if isinstance(timeout, bool) or not isinstance(timeout, int):
            raise ValueError(f"guardrail {check!r}: `timeout_ms` must be a whole number")
        if not 1 <= timeout <= MAX_TIMEOUT_MS:
            raise ValueError(f"guardrail {check!r}: `timeout_ms` must be 1 to {MAX_TIMEOUT_MS}")
        fail = options.get("fail", "closed")
        if fail not in ("open", "closed"):
            raise ValueError(f"guardrail {check!r}: `fail` must be open or closed")
        cache = options.get("cache_seconds", 0)
        if isinstance(cache, bool) or not isinstance(cache, int | float) or not cache >= 0:
            raise ValueError(f"guardrail {check!r}: `cache_seconds` must be 0 or more")
        return cls(address, timeout, fail == "closed", float(cache))


class PolicyServices:
    """The factory of `policy_service` checks and the channels they share, one per
    address (opened at a check's first call, closed by `close`)."""

    def __init__(self) -> None:
        self._channels: dict[str, grpc.aio.Channel] = {}

    def check(self, spec: CheckSpec) -> PolicyServiceCheck:
        """A check of `spec` (ValueError for options that are wrong)."""
        return PolicyServiceCheck(spec, PolicyOptions.parse(spec.name, spec.options), self)

    def channel(self, address: str) -> grpc.aio.Channel:
        channel = self._channels.get(address)
        if channel is None:
            channel = self._channels[address] = grpc.aio.insecure_channel(address)
        return channel

    async def close(self) -> None:
        channels, self._channels = list(self._channels.values()), {}
        for channel in channels:
            await channel.close(None)


class PolicyServiceCheck:
    """One declared check asking one policy service."""

    needs_model = True
    """It costs a round trip, as a model check does: the Guard runs it as one."""

    def __init__(self, spec: CheckSpec, options: PolicyOptions, services: PolicyServices):
        self.spec = spec
        self.options = options
        self.fail_closed = options.fail_closed
        """What the Guard does when the service cannot answer: block (True) or let the
        text through (False); the `fail` option, read by the Guard from the spec too."""
        self._services = services
        self._cache = DecisionCache(options.cache_seconds)

    def action_of(self, finding: Finding) -> Action:
        """What the guard does with a finding of this check: the service decides
        (`decisions.decided_action`)."""
        return decided_action(self.spec.action, finding)

    async def inspect(self, text: str, subject: Subject) -> list[Finding]:
        key = digest(
            self.spec.name,
            subject.point.value,
            text,
            subject.tenant,
            subject.agent,
            subject.user,
            subject.tool,
        )
        kept = self._cache.get(key)
        if kept is not None:
            return kept
        answer = await self._ask(_request(self.spec.name, text, subject))
        try:
            found = findings(self.spec.name, answer, text)
        except ValueError as bad:
            raise GuardrailUnavailable(self.spec.name, f"unusable answer: {bad}") from None
        self._cache.put(key, found)
        return found

    async def _ask(self, request: pb.PolicyCheckRequest) -> pb.PolicyCheckResponse:
        stub = pb_grpc.PolicyServiceStub(self._services.channel(self.options.address))
        try:
            return await stub.Check(request, timeout=self.options.timeout_ms / 1000)
        except grpc.aio.AioRpcError as error:
            detail = f"{self.options.address} answered {error.code().name}"
            if error.details():
                detail = f"{detail}: {error.details()}"
            raise GuardrailUnavailable(self.spec.name, detail) from None


def _request(check: str, text: str, subject: Subject) -> pb.PolicyCheckRequest:
    request = pb.PolicyCheckRequest(
        point=POINTS[subject.point],
        text=text,
        tenant=subject.tenant,
        agent=subject.agent,
        user=subject.user,
        task_id=subject.task_id,
        tool=subject.tool,
        check=check,
    )
    if subject.point is Point.TOOL_ARGUMENTS:
        arguments = _arguments(text)
        if arguments is not None:
            request.arguments.CopyFrom(arguments)
    return request


def _arguments(text: str) -> struct_pb2.Struct | None:
    """A tool call's arguments as a Struct, when its text is a JSON object."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    try:
        return dict_to_struct(data)
    except (ValueError, TypeError, RecursionError, json_format.Error):
        return None
