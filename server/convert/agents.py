"""Agents between protobuf and the engine's definitions."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Literal, get_args

from agentd.v1 import agents_pb2, conversations_pb2, tasks_pb2
from records.agents.definition import AgentVersion, RemoteDelegate
from server.convert.tasks import dict_to_struct, mode_from_proto, mode_to_proto, struct_to_dict


def agent_data(agent: agents_pb2.Agent) -> dict[str, Any]:
    """An agent from a request, in the shape agent files have (validated by the engine)."""
    data: dict[str, Any] = {"id": agent.id, "description": agent.description}
    data["instructions"] = agent.instructions
    if agent.models:
        data["model"] = dict(agent.models)
    if agent.HasField("temperature"):
        data["temperature"] = agent.temperature
    for name in ("max_tokens", "max_iterations", "token_budget"):
        if getattr(agent, name):
            data[name] = getattr(agent, name)
    if agent.tools:
        data["tools"] = list(agent.tools)
    if agent.mode != tasks_pb2.EXECUTION_MODE_UNSPECIFIED:
        data["mode"] = mode_from_proto(agent.mode).value
    if agent.HasField("step_timeout"):
        data["step_timeout_seconds"] = agent.step_timeout.ToTimedelta().total_seconds()
    if agent.HasField("task_timeout"):
        data["task_timeout_seconds"] = agent.task_timeout.ToTimedelta().total_seconds()
    if agent.critic_policy:
        data["critic_policy"] = agent.critic_policy
    if agent.metadata:
        data["metadata"] = dict(agent.metadata)
    if agent.ask_user:
        data["ask_user"] = True
    if agent.HasField("output_schema"):
        data["output_schema"] = struct_to_dict(agent.output_schema, "agent.output_schema")
    if agent.HasField("memory"):
        data["memory"] = _memory_data(agent.memory)
    if agent.HasField("knowledge"):
        data["knowledge"] = _knowledge_data(agent.knowledge)
    if agent.HasField("max_failed_tool_calls"):
        data["max_failed_tool_calls"] = agent.max_failed_tool_calls
    if agent.step_policy:
        data["step_policy"] = agent.step_policy
    if agent.providers:
        data["provider"] = dict(agent.providers)
    if agent.fallback:
        data["fallback"] = [
            {"provider": f.provider, **({"model": f.model} if f.model else {})}
            for f in agent.fallback
        ]
    if agent.delegates:
        data["delegates"] = list(agent.delegates)
    if agent.fresh_start:
        data["fresh_start"] = True
    if agent.panels:
        data["panels"] = [_panel_data(p) for p in agent.panels]
    if agent.remote_delegates:
        data["remote_delegates"] = [_remote_data(r) for r in agent.remote_delegates]
    if agent.guardrails:
        data["guardrails"] = [
            struct_to_dict(check, f"agent.guardrails[{index}]")
            for index, check in enumerate(agent.guardrails)
        ]
    return data


_REMOTE_TEXTS = ("url", "card_url", "agent", "token_env", "token_file", "description")


def _remote_data(remote: agents_pb2.AgentRemoteDelegate) -> dict[str, Any]:
    data: dict[str, Any] = {"id": remote.id}
    data.update({k: getattr(remote, k) for k in _REMOTE_TEXTS if getattr(remote, k)})
    return data


def _panel_data(panel: agents_pb2.AgentPanel) -> dict[str, Any]:
    data: dict[str, Any] = {"name": panel.name, "agents": list(panel.agents)}
    if panel.threshold:
        data["threshold"] = panel.threshold
    if panel.judge_model:
        data["judge_model"] = panel.judge_model
    if panel.description:
        data["description"] = panel.description
    return data


def _knowledge_data(knowledge: agents_pb2.AgentKnowledge) -> dict[str, Any]:
    """The settings an agent's knowledge sets (no bases, unset rerank: the server's)."""
    data: dict[str, Any] = {}
    if knowledge.bases:
        data["bases"] = list(knowledge.bases)
    if knowledge.HasField("rerank"):
        data["rerank"] = knowledge.rerank
    return data


def knowledge_to_proto(knowledge: dict[str, Any]) -> agents_pb2.AgentKnowledge:
    message = agents_pb2.AgentKnowledge(bases=list(knowledge.get("bases", ())))
    if isinstance(knowledge.get("rerank"), bool):
        message.rerank = knowledge["rerank"]
    return message


_MemoryField = Literal[
    "budget_tokens",
    "max_messages",
    "tool_result_tokens",
    "summary_tokens",
    "recall_top_k",
    "extract",
]
_MEMORY_SCALARS: tuple[_MemoryField, ...] = get_args(_MemoryField)
_TOOL_CALLS = {
    conversations_pb2.MEMORY_TOOL_CALLS_KEEP: "keep",
    conversations_pb2.MEMORY_TOOL_CALLS_SUMMARIZE: "summarize",
    conversations_pb2.MEMORY_TOOL_CALLS_DROP: "drop",
}
_COMPACTION = {
    conversations_pb2.MEMORY_COMPACTION_SUMMARIZE: "summarize",
    conversations_pb2.MEMORY_COMPACTION_DROP: "drop",
}


def _memory_data(memory: conversations_pb2.AgentMemory) -> dict[str, Any]:
    """The settings an agent's memory sets (unset fields are the server's; a set zero is
    the agent's). An enum value this server does not know is passed on as a number, for
    the engine to refuse with the field named."""
    data: dict[str, Any] = {k: getattr(memory, k) for k in _MEMORY_SCALARS if memory.HasField(k)}
    if memory.tool_call_policy:
        data["tool_calls"] = _TOOL_CALLS.get(memory.tool_call_policy, memory.tool_call_policy)
    if memory.compaction_policy:
        data["compaction"] = _COMPACTION.get(memory.compaction_policy, memory.compaction_policy)
    return data


def memory_to_proto(memory: dict[str, Any]) -> conversations_pb2.AgentMemory:
    message = conversations_pb2.AgentMemory(
        **{k: memory[k] for k in _MEMORY_SCALARS if k in memory}
    )
    if "tool_calls" in memory:
        message.tool_call_policy = {v: k for k, v in _TOOL_CALLS.items()}[memory["tool_calls"]]
    if "compaction" in memory:
        message.compaction_policy = {v: k for k, v in _COMPACTION.items()}[memory["compaction"]]
    return message


def agent_to_proto(stored: AgentVersion) -> agents_pb2.Agent:
    agent = stored.agent
    message = agents_pb2.Agent(
        id=agent.agent_id,
        version=agent.version,
        description=agent.description,
        instructions=agent.instructions,
        models=dict(agent.models),
        max_tokens=agent.max_tokens or 0,
        tools=list(agent.tools),
        max_iterations=agent.max_iterations,
        token_budget=agent.token_budget,
        critic_policy=agent.critic_policy or "",
        metadata=dict(agent.metadata),
        created_by=stored.created_by,
        source=stored.source,
        promoted_version=stored.promoted,
        ask_user=agent.ask_user,
        step_policy=agent.step_policy or "",
        delegates=list(agent.delegates),
        fresh_start=agent.fresh_start,
        panels=[
            agents_pb2.AgentPanel(
                name=p.name,
                agents=list(p.agents),
                threshold=p.threshold,
                judge_model=p.judge_model,
                description=p.description,
            )
            for p in agent.panels
        ],
    )
    if agent.max_failed_tool_calls is not None:
        message.max_failed_tool_calls = agent.max_failed_tool_calls
    if agent.temperature is not None:
        message.temperature = agent.temperature
    if agent.mode is not None:
        message.mode = mode_to_proto(agent.mode)
    if agent.step_timeout_seconds:
        message.step_timeout.FromTimedelta(timedelta(seconds=agent.step_timeout_seconds))
    if agent.task_timeout_seconds:
        message.task_timeout.FromTimedelta(timedelta(seconds=agent.task_timeout_seconds))
    if agent.output_schema is not None:
        message.output_schema.CopyFrom(dict_to_struct(dict(agent.output_schema)))
    if agent.memory:
        message.memory.CopyFrom(memory_to_proto(dict(agent.memory)))
    if agent.knowledge:
        message.knowledge.CopyFrom(knowledge_to_proto(dict(agent.knowledge)))
    message.providers.update(dict(agent.providers))
    for provider, model in agent.fallback:
        message.fallback.add(provider=provider, model=model)
    message.remote_delegates.extend(_remote_to_proto(r) for r in agent.remote_delegates)
    message.guardrails.extend(dict_to_struct(dict(check)) for check in agent.guardrails)
    message.created_at.FromDatetime(stored.created_at)
    return message


def _remote_to_proto(remote: RemoteDelegate) -> agents_pb2.AgentRemoteDelegate:
    return agents_pb2.AgentRemoteDelegate(
        id=remote.agent_id,
        url=remote.url,
        card_url=remote.card_url,
        agent=remote.agent,
        token_env=remote.token_env,
        token_file=remote.token_file,
        description=remote.description,
    )
