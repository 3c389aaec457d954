"""Child tasks run on remote A2A agents, called through the official SDK's gRPC client.

`agent.teams.remote` says what the engine needs; this is it. One call of a remote agent:
- the destination follows `http_request`'s rules (AGENTD_HTTP_ALLOWED_NETWORKS);
- the child's text is sent as one message whose `message_id` is the child task's id, so
  a retry (a takeover, a dropped connection before any answer) is the same remote task;
- the answer streams (`SendStreamingMessage`); a stream that drops is resubscribed
  (`SubscribeToTask`), a bounded number of times, with backoff;
- cancelling the child (its parent cancelled) cancels the remote task (`CancelTask`);
- the remote's end is read with `GetTask`: its answer artifact is the child's answer,
  the usage it reports in `metadata.agentd` (agentd servers do; others report none: zero)
  the child's usage.
The SDK is imported when a remote agent is first called, never at startup.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc
import structlog

from agent.failures import RemoteAgentError
from agent.inputs.fetching import fetch
from agent.running.answers import Outcome
from core.errors import AgentdError
from records import events as ev
from records.agents.remote_keys import RemoteDelegate
from records.tasks import StopReason, TokenUsage
from records.tools.outcomes import ToolFailed
from server.a2a import remote_waits
from server.a2a.pinned import PinnedChannels
from server.a2a.remote_waits import FOLLOW_SECONDS, WORKING
from server.services.destinations import resolved_destination
from tools.builtin.addresses import IPNetwork

if TYPE_CHECKING:
    from a2a.client import Client, ClientCallContext
    from a2a.types import a2a_pb2
    from a2a.types.a2a_pb2 import AgentCard

    from agent.running.run import TaskRun
    from records.tasks import Task
    from records.waits import Wait

log = structlog.get_logger(__name__)

ATTEMPTS = 5
"""Sends or resubscriptions in a row that may fail before the child fails."""
CALL_TIMEOUT_SECONDS = 30.0
MAX_CARD_BYTES = 1_000_000
ENDED = {
    f"TASK_STATE_{name}"
    for name in ("COMPLETED", "FAILED", "CANCELED", "REJECTED", "INPUT_REQUIRED", "AUTH_REQUIRED")
}
"""States a remote task's stream ends in: it ended, or it waits for a person (the child
asks, through agentd, and parks)."""


def token_of(remote: RemoteDelegate) -> str:
    """The bearer token the definition points at (its env variable or file); "" for none."""
    if remote.token_env:
        token = os.environ.get(remote.token_env, "")
        if not token:
            raise RemoteAgentError(remote.agent_id, f"${remote.token_env} is not set")
        return token.strip()
    if remote.token_file:
        try:
            return Path(remote.token_file).read_text().strip()
        except OSError as error:
            raise RemoteAgentError(
                remote.agent_id, f"cannot read its token file: {error.strerror}"
            ) from None
    return ""


class A2ARemoteAgents:
    """Calls remote A2A agents over gRPC (`agent.teams.remote.RemoteAgents`)."""

    def __init__(
        self,
        allowed: Sequence[IPNetwork],
        retry_seconds: float = 0.5,
        follow_seconds: float = FOLLOW_SECONDS,
    ) -> None:
        self._allowed = tuple(allowed)
        self._retry_seconds = retry_seconds
        self._follow_seconds = follow_seconds

    async def run(self, run: TaskRun, remote: RemoteDelegate) -> Outcome:
        client, context, unary = await self._client(remote)
        call = RemoteCall(client, context, unary, remote, run, self._retry_seconds)
        try:
            return await call.run(self._follow_seconds)
        finally:
            await asyncio.shield(client.close())

    async def check(self, task: Task, wait: Wait) -> bool:
        """Whether the remote task a parked child waits for left its working states."""
        from a2a.types import a2a_pb2

        remote = task.agent.remote if task.agent is not None else None
        if remote is None:
            return False
        client, _, unary = await self._client(remote)
        try:
            found = await client.get_task(
                a2a_pb2.GetTaskRequest(id=wait.detail, tenant=remote.agent), context=unary
            )
        finally:
            await asyncio.shield(client.close())
        return a2a_pb2.TaskState.Name(found.status.state) not in WORKING

    async def _client(
        self, remote: RemoteDelegate
    ) -> tuple[Client, ClientCallContext, ClientCallContext]:
        """A client of the remote agent, and the call contexts of its streams and calls."""
        from a2a.client import ClientCallContext, ClientConfig, ClientFactory

        token = token_of(remote)
        channels = PinnedChannels()
        card = await self._card(remote, channels)
        config = ClientConfig(
            streaming=True, supported_protocol_bindings=["GRPC"], grpc_channel_factory=channels
        )
        client = ClientFactory(config).create(card)
        headers = {"authorization": f"Bearer {token}"} if token else {}
        context = ClientCallContext(service_parameters=headers)
        unary = ClientCallContext(service_parameters=headers, timeout=CALL_TIMEOUT_SECONDS)
        return client, context, unary

    async def _checked(self, remote: RemoteDelegate, url: str) -> tuple[str, str]:
        """`url` if it is an allowed destination (`http_request`'s rules), with the
        checked address to connect to."""
        if "://" not in url:
            url = f"http://{url}/"
        try:
            return await resolved_destination(url, self._allowed)
        except AgentdError as refused:
            raise RemoteAgentError(remote.agent_id, refused.message) from None

    async def _card(self, remote: RemoteDelegate, channels: PinnedChannels) -> AgentCard:
        """The card to call: fetched from `card_url`, or made for `url`; each of its gRPC
        interfaces checked and pinned to its checked address in `channels`."""
        from a2a.client import minimal_agent_card

        if not remote.card_url:
            card = minimal_agent_card(remote.url, ["GRPC"])
            card.capabilities.streaming = True
            card.supported_interfaces[0].protocol_version = "1.0"
        else:
            card = await self._fetch(remote, (await self._checked(remote, remote.card_url))[0])
        offered = [i for i in card.supported_interfaces if i.protocol_binding == "GRPC"]
        if not offered:
            raise RemoteAgentError(remote.agent_id, "its card offers no GRPC interface")
        for interface in offered:
            channels.pin(interface.url, *await self._checked(remote, interface.url))
            interface.tenant = remote.agent or interface.tenant
        return card

    async def _fetch(self, remote: RemoteDelegate, url: str) -> AgentCard:
        import json

        from a2a.client.card_resolver import parse_agent_card

        try:
            got = await fetch(url, self._allowed, MAX_CARD_BYTES, CALL_TIMEOUT_SECONDS)
        except (AgentdError, ToolFailed) as error:
            detail = f"its card at {url}: {error}"[:2_000]
            raise RemoteAgentError(remote.agent_id, detail) from None
        status, body = got.status, got.body
        if status != 200 or len(body) > MAX_CARD_BYTES:
            size = f"over {MAX_CARD_BYTES:,}" if len(body) > MAX_CARD_BYTES else f"{len(body)}"
            raise RemoteAgentError(
                remote.agent_id, f"its card at {url}: HTTP {status}, {size} bytes"
            )
        try:
            return parse_agent_card(json.loads(body))
        except ValueError as error:
            detail = f"its card at {url}: {type(error).__name__}: {error}"[:2_000]
            raise RemoteAgentError(remote.agent_id, detail) from None


class RemoteCall:
    """One child's call of a remote agent."""

    def __init__(
        self,
        client: Client,
        streaming: ClientCallContext,
        unary: ClientCallContext,
        remote: RemoteDelegate,
        run: TaskRun,
        retry_seconds: float,
    ) -> None:
        self.client = client
        self.streaming = streaming
        self.unary = unary
        self.remote = remote
        self.run_ = run
        self.retry_seconds = retry_seconds
        self.remote_id = ""
        self._asked_before = False

    def fail(self, detail: str) -> RemoteAgentError:
        return RemoteAgentError(self.remote.agent_id, detail)

    async def run(self, follow_seconds: float = FOLLOW_SECONDS) -> Outcome:
        """The remote agent's answer (`server.a2a.remote_waits.follow`)."""
        return await remote_waits.follow(self, follow_seconds)

    async def get(self) -> a2a_pb2.Task:
        """The remote task as it is now."""
        from a2a.types import a2a_pb2

        request = a2a_pb2.GetTaskRequest(id=self.remote_id, tenant=self.remote.agent)
        return await self.client.get_task(request, context=self.unary)

    async def cancel(self) -> None:
        """Cancel the remote task (the child is cancelled): best effort."""
        if self.remote_id:
            await self._cancel()

    async def follow(self, answer: a2a_pb2.Message | None = None) -> None:
        """Stream the remote task to an end state (or one that waits for a person),
        resubscribing when the stream drops; `answer`, a person's answer to what it asked,
        is sent first (its stream followed)."""
        from a2a.client import A2AClientError
        from a2a.types import a2a_pb2

        run = self.run_
        message = answer or a2a_pb2.Message(
            message_id=run.task.task_id,  # a retry is the same remote task
            role=a2a_pb2.ROLE_USER,
            parts=[a2a_pb2.Part(text=run.task.goal)],
        )
        request = a2a_pb2.SendMessageRequest(message=message, tenant=self.remote.agent)
        failures = 0
        self._asked_before = answer is not None  # its old question is not a new one
        while True:
            try:
                if self.remote_id and answer is None:
                    subscribe = a2a_pb2.SubscribeToTaskRequest(
                        id=self.remote_id, tenant=self.remote.agent
                    )
                    stream = self.client.subscribe(subscribe, context=self.streaming)
                else:
                    stream = self.client.send_message(request, context=self.streaming)
                async for response in stream:
                    failures = 0
                    answer = None  # sent: a retry resubscribes
                    if self._ends(response):
                        return
                if self.remote_id and await self._ended():
                    return
                problem = "its stream ended before the task did"
            except A2AClientError as dropped:
                if not _transient(dropped):
                    raise self.fail(str(dropped)[:2_000]) from None
                problem = str(dropped)
            except Exception as error:  # noqa: BLE001 - the SDK's protocol errors: final
                name = type(error).__name__
                raise self.fail(f"{name}: {error}"[:2_000]) from None
            failures += 1
            if failures >= ATTEMPTS:
                raise self.fail(f"gave up after {ATTEMPTS} attempts: {problem}"[:2_000])
            log.info("remote agent stream dropped", remote=self.remote.agent_id, why=problem)
            await asyncio.sleep(self.retry_seconds * 2 ** (failures - 1))

    def _ends(self, response: a2a_pb2.StreamResponse) -> bool:
        from a2a.types import a2a_pb2

        kind = response.WhichOneof("payload")
        if kind == "task":
            self.remote_id = response.task.id
            state = response.task.status.state
        elif kind == "status_update":
            self.remote_id = self.remote_id or response.status_update.task_id
            state = response.status_update.status.state
        elif kind == "message":  # a direct reply: no task to follow
            raise self.fail("it answered with a message, not a task")
        else:
            return False
        name = a2a_pb2.TaskState.Name(state)
        if self._asked_before and name == "TASK_STATE_INPUT_REQUIRED":
            return False  # the question just answered, shown before the answer was taken
        self._asked_before = False
        return name in ENDED

    async def _ended(self) -> bool:
        from a2a.types import a2a_pb2

        task = await self.client.get_task(
            a2a_pb2.GetTaskRequest(id=self.remote_id, tenant=self.remote.agent),
            context=self.unary,
        )
        name = a2a_pb2.TaskState.Name(task.status.state)
        if self._asked_before and name == "TASK_STATE_INPUT_REQUIRED":
            return False  # the answer is not taken yet: followed again
        return name in ENDED

    async def _cancel(self) -> None:
        from a2a.types import a2a_pb2

        try:
            request = a2a_pb2.CancelTaskRequest(id=self.remote_id, tenant=self.remote.agent)
            await self.client.cancel_task(request, context=self.unary)
        except Exception as error:  # noqa: BLE001 - the child is cancelled either way
            log.warning("remote task not cancelled", remote=self.remote.agent_id, error=str(error))

    async def outcome(self, task: a2a_pb2.Task) -> Outcome:
        from a2a.types import a2a_pb2
        from google.protobuf import json_format

        state = a2a_pb2.TaskState.Name(task.status.state)
        metadata: dict[str, Any] = json_format.MessageToDict(task.metadata)
        await self._usage(metadata.get("agentd"))
        texts = [p.text for a in task.artifacts for p in a.parts if p.text]
        status = [p.text for p in task.status.message.parts if p.text]
        answer = "\n".join(texts)
        if state != "TASK_STATE_COMPLETED" or not answer:
            said = "; ".join(status)[:1_000]
            raise self.fail(
                f"its task {self.remote_id} ended {state}" + (f": {said}" if said else "")
            )
        return Outcome(answer, StopReason.FINAL_ANSWER)

    async def _usage(self, reported: Any) -> None:
        """The usage the remote reports (an agentd's `metadata.agentd`), as the child's."""
        if not isinstance(reported, dict):
            return
        prompt = _count(reported.get("prompt_tokens"))
        completion = _count(reported.get("completion_tokens"))
        if not prompt and not completion:
            completion = _count(reported.get("total_tokens"))
        if not prompt and not completion:
            return
        run = self.run_
        call = TokenUsage(prompt_tokens=prompt, completion_tokens=completion)
        run.task.usage = run.task.usage + call
        model = f"a2a:{self.remote.agent_id}"
        await run.transcript.emit(ev.UsageReported("remote", "remote", call, run.task.usage, model))


TRANSIENT = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.CANCELLED,
}
"""gRPC codes of a dropped or refused-for-now call: sent again (the same message id) or
resubscribed."""


def _transient(error: Exception) -> bool:
    cause = error.__cause__
    if isinstance(cause, grpc.aio.AioRpcError):
        return cause.code() in TRANSIENT
    return type(error).__name__ == "A2AClientTimeoutError"


def _count(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and 0 <= value < 2**53 else 0
