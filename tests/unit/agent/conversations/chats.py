"""An engine with conversations, all in memory, for the unit tests of agent.conversations: a
function model that answers the task's calls and the summariser's apart."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent import prompts
from agent.conversations.busy import BusyGate
from agent.conversations.engine_hooks import TaskMemory
from agent.conversations.service import Conversations
from agent.engine import Engine
from agent.limits import EngineConfig
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text
from agent.parts import EngineParts
from core.identity import CallContext
from records.conversations.model import BusyPolicy, ConversationMessage, Turn
from records.conversations.policy import MemoryPolicy
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.requests import TaskRequest
from records.tasks import Task
from stores.conversation_slots.memory import InMemoryConversationSlots
from stores.conversations.base import ConversationStore
from stores.conversations.memory import InMemoryConversationStore
from tests.unit.agent.runs import PRINCIPAL, Env, make_env

Answer = Callable[[Sequence[Message]], ModelResponse | Exception]


def is_summary_call(messages: Sequence[Message]) -> bool:
    return messages[0].content == prompts.SUMMARIZER_SYSTEM


@dataclass
class Chat:
    """One conversation of PRINCIPAL on an engine of its own."""

    env: Env
    engine: Engine
    store: ConversationStore
    memory: TaskMemory
    conversation_id: str
    calls: list[list[Message]] = field(default_factory=list)
    """Every model call's messages, in order."""

    async def start(
        self, question: str, policy: BusyPolicy = BusyPolicy.REJECT, budget: int = 0
    ) -> Task:
        request = TaskRequest(
            question,
            tools=("calculator",),
            mode=ExecutionMode.FUNCTION_CALLING,
            conversation_id=self.conversation_id,
            busy_policy=policy,
            token_budget=budget,
        )
        return await self.engine.start(request, CallContext(PRINCIPAL))

    async def ended(self, task_id: str, seconds: float = 10.0) -> Task:
        """The task once it has ended and let go of its conversation."""
        async with asyncio.timeout(seconds):
            while True:
                task = await self.env.store.get(PRINCIPAL.tenant, task_id)
                running = await self.memory.conversations.gate.running(
                    PRINCIPAL.tenant, self.conversation_id
                )
                if task.status.terminal and running != task_id:
                    return task
                await asyncio.sleep(0.01)

    async def ask(self, question: str, budget: int = 0) -> Task:
        return await self.ended((await self.start(question, budget=budget)).task_id)

    async def add_turn(self, task_id: str, question: str, answer: str) -> None:
        """An earlier turn, as a task that ended long ago left it."""
        turn = Turn(
            task_id,
            (
                ConversationMessage("user", question, task_id, tokens=4 + len(question) // 4),
                ConversationMessage("assistant", answer, task_id, tokens=4 + len(answer) // 4),
            ),
        )
        await self.store.append_turn(PRINCIPAL.tenant, self.conversation_id, turn)

    async def messages(self) -> list[ConversationMessage]:
        return await self.store.messages(PRINCIPAL.tenant, self.conversation_id, 0, 10_000)


async def chat(
    tmp_path: Path,
    answer: Answer,
    policy: MemoryPolicy | None = None,
    config: EngineConfig | None = None,
    *,
    stale_seconds: float = 60.0,
    clock: Callable[[], float] = time.monotonic,
    memory_clock: Callable[[], float] = time.monotonic,
    store: ConversationStore | None = None,
) -> Chat:
    env = make_env(tmp_path, config, durable=False)
    calls: list[list[Message]] = []

    def reply(
        messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse | Exception:
        calls.append(list(messages))
        return answer(messages)

    store = store or InMemoryConversationStore()
    gate = BusyGate(
        InMemoryConversationSlots(), env.store, stale_seconds=stale_seconds, clock=clock
    )
    conversations = Conversations(store, gate)
    memory = TaskMemory(
        conversations, env.store, defaults=policy or MemoryPolicy(), clock=memory_clock
    )
    engine = Engine(
        ModelRoles(default=FunctionModel(reply)),
        env.registry,
        EngineParts(env.store, memory=memory),
        env.config,
    )
    conversation = await conversations.create(PRINCIPAL, "test")
    return Chat(env, engine, store, memory, conversation.conversation_id, calls)


def plain(answer: str) -> Answer:
    """Answers every call of a task with `answer`, every summary call with a summary."""
    return lambda messages: text("SUMMARY" if is_summary_call(messages) else answer)
