"""Agents in the form of agent files (AGENTD_AGENTS_DIR), to and from `agents_pb2.Agent`.

An agent file is a mapping (YAML, or JSON) of the keys in `KEYS`, the keys the server
reads in its own agent files (a test holds the two sets equal, and checks that every
agent file the README and docs/ show is sent as the server reads it): `id`,
`description`, `instructions`, `model` (a name, or a mapping of role to name),
`temperature`, `max_tokens`, `tools`, `mode`, `max_iterations`, `token_budget`,
`step_timeout_seconds`, `task_timeout_seconds`, `critic_policy`, `step_policy`,
`max_failed_tool_calls`, `metadata`, `ask_user`, `output_schema`, `memory`, `knowledge`,
`provider`, `fallback`, `delegates` (agent ids), `fresh_start`, `panels`,
`remote_delegates` (the nested ones: `agentd_client.agent_file_sections`), and `version`,
which the server sets for agents it keeps (it is left out of what is sent).
`agent_message` checks only what a message needs; the server checks the rest, naming the
field.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from google.protobuf import json_format

from agentd.v1 import agents_pb2, tasks_pb2
from agentd_client import agent_file_sections as sections
from agentd_client.agent_file_sections import AgentFileError as AgentFileError
from agentd_client.requests import to_python

KEYS = frozenset(
    {
        "id",
        "version",
        "description",
        "instructions",
        "model",
        "temperature",
        "max_tokens",
        "tools",
        "mode",
        "max_iterations",
        "token_budget",
        "step_timeout_seconds",
        "task_timeout_seconds",
        "critic_policy",
        "metadata",
        "ask_user",
        "output_schema",
        "memory",
        "max_failed_tool_calls",
        "step_policy",
        "knowledge",
        "provider",
        "fallback",
        "delegates",
        "fresh_start",
        "panels",
        "remote_delegates",
        "guardrails",
    }
)
MODES = {
    "auto": tasks_pb2.EXECUTION_MODE_AUTO,
    "function_calling": tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING,
    "text_react": tasks_pb2.EXECUTION_MODE_TEXT_REACT,
    "plan_and_execute": tasks_pb2.EXECUTION_MODE_PLAN_AND_EXECUTE,
}
_WHOLE = ("max_tokens", "max_iterations", "token_budget")
_TEXTS = ("description", "instructions", "critic_policy", "step_policy")


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise AgentFileError(key, "must be text")
    return value


def _seconds(value: Any, key: str) -> timedelta:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise AgentFileError(key, "must be a number of seconds")
    return timedelta(seconds=value)


def _models(value: Any) -> dict[str, str]:
    if isinstance(value, str):
        return {"default": value}
    if isinstance(value, Mapping) and all(isinstance(v, str) for v in value.values()):
        return {str(role): name for role, name in value.items()}
    raise AgentFileError("model", "a model name, or a mapping of role to model name")


def agent_message(data: Any) -> agents_pb2.Agent:
    """The Agent an agent file's mapping describes; AgentFileError naming the key when it
    cannot be one."""
    if not isinstance(data, Mapping):
        raise AgentFileError("(file)", "must be a mapping of keys to values")
    unknown = sorted(set(map(str, data)) - KEYS)
    if unknown:
        raise AgentFileError(unknown[0], f"unknown key; known: {', '.join(sorted(KEYS))}")
    agent = agents_pb2.Agent(id=_text(data, "id"))
    for key in _TEXTS:
        setattr(agent, key, _text(data, key))
    if data.get("model") is not None:
        agent.models.update(_models(data["model"]))
    if data.get("temperature") is not None:
        temperature = data["temperature"]
        if isinstance(temperature, bool) or not isinstance(temperature, int | float):
            raise AgentFileError("temperature", "must be a number")
        agent.temperature = float(temperature)
    for key in _WHOLE:
        if data.get(key) is not None:
            setattr(agent, key, sections.whole(data[key], key))
    if data.get("max_failed_tool_calls") is not None:
        failures = sections.whole(data["max_failed_tool_calls"], "max_failed_tool_calls")
        agent.max_failed_tool_calls = failures
    _run(data, agent)
    _answers(data, agent)
    _team(data, agent)
    return agent


def _run(data: Mapping[str, Any], agent: agents_pb2.Agent) -> None:
    """How its tasks run: tools, mode, time limits, providers."""
    tools = data.get("tools") or []
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise AgentFileError("tools", "must be a list of tool names or category:<name>")
    agent.tools.extend(tools)
    if data.get("mode") is not None:
        if str(data["mode"]).lower() not in MODES:
            raise AgentFileError("mode", f"one of {', '.join(MODES)}")
        agent.mode = MODES[str(data["mode"]).lower()]
    for key, duration in (
        ("step_timeout_seconds", agent.step_timeout),
        ("task_timeout_seconds", agent.task_timeout),
    ):
        if data.get(key) is not None:
            duration.FromTimedelta(_seconds(data[key], key))
    if data.get("provider") is not None:
        agent.providers.update(sections.providers(data["provider"]))
    if data.get("fallback") is not None:
        agent.fallback.extend(sections.fallback_messages(data["fallback"]))


def _answers(data: Mapping[str, Any], agent: agents_pb2.Agent) -> None:
    """What its tasks remember, search and answer with."""
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise AgentFileError("metadata", "a mapping of keys to values")
    agent.metadata.update({str(k): str(v) for k, v in metadata.items()})
    agent.ask_user = sections.flag(data.get("ask_user", False), "ask_user")
    if data.get("output_schema") is not None:
        if not isinstance(data["output_schema"], Mapping):
            raise AgentFileError("output_schema", "a JSON Schema object")
        json_format.ParseDict(dict(data["output_schema"]), agent.output_schema)
    if data.get("memory") is not None:
        agent.memory.CopyFrom(sections.memory_message(data["memory"]))
    if data.get("knowledge") is not None:
        agent.knowledge.CopyFrom(sections.knowledge_message(data["knowledge"]))


def _team(data: Mapping[str, Any], agent: agents_pb2.Agent) -> None:
    """Who it may hand work to."""
    agent.delegates.extend(sections.names(data.get("delegates") or [], "delegates", "agent ids"))
    agent.fresh_start = sections.flag(data.get("fresh_start", False), "fresh_start")
    if data.get("panels") is not None:
        agent.panels.extend(sections.panel_messages(data["panels"]))
    if data.get("remote_delegates") is not None:
        agent.remote_delegates.extend(sections.remote_messages(data["remote_delegates"]))
    if data.get("guardrails") is not None:
        agent.guardrails.extend(sections.guardrail_messages(data["guardrails"]))


def agent_mapping(agent: agents_pb2.Agent) -> dict[str, Any]:
    """An Agent in the form of an agent file (what it leaves unset left out), e.g. to edit
    and send back with `update_agent`."""
    data: dict[str, Any] = {"id": agent.id, "version": agent.version}
    for key in ("description", "instructions"):
        if getattr(agent, key):
            data[key] = getattr(agent, key)
    models = dict(agent.models)
    if models:
        data["model"] = models["default"] if list(models) == ["default"] else models
    if agent.HasField("temperature"):
        data["temperature"] = agent.temperature
    data.update({key: getattr(agent, key) for key in _WHOLE if getattr(agent, key)})
    if agent.tools:
        data["tools"] = list(agent.tools)
    modes = {number: name for name, number in MODES.items()}
    if agent.mode in modes:
        data["mode"] = modes[agent.mode]
    if agent.HasField("step_timeout"):
        data["step_timeout_seconds"] = agent.step_timeout.ToTimedelta().total_seconds()
    if agent.HasField("task_timeout"):
        data["task_timeout_seconds"] = agent.task_timeout.ToTimedelta().total_seconds()
    for key in ("critic_policy", "step_policy"):
        if getattr(agent, key):
            data[key] = getattr(agent, key)
    if agent.HasField("max_failed_tool_calls"):
        data["max_failed_tool_calls"] = agent.max_failed_tool_calls
    providers = dict(agent.providers)
    if providers:
        data["provider"] = providers["default"] if list(providers) == ["default"] else providers
    if agent.fallback:
        data["fallback"] = [sections.fallback_mapping(f) for f in agent.fallback]
    data.update(_answers_mapping(agent))
    if agent.delegates:
        data["delegates"] = list(agent.delegates)
    if agent.fresh_start:
        data["fresh_start"] = True
    if agent.panels:
        data["panels"] = [sections.panel_mapping(p) for p in agent.panels]
    if agent.remote_delegates:
        data["remote_delegates"] = [sections.remote_mapping(r) for r in agent.remote_delegates]
    if agent.guardrails:
        data["guardrails"] = [to_python(check) for check in agent.guardrails]
    return data


def _answers_mapping(agent: agents_pb2.Agent) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if agent.metadata:
        data["metadata"] = dict(agent.metadata)
    if agent.ask_user:
        data["ask_user"] = True
    if agent.HasField("output_schema"):
        data["output_schema"] = to_python(agent.output_schema)
    if agent.HasField("memory"):
        data["memory"] = sections.memory_mapping(agent.memory)
    if agent.HasField("knowledge"):
        data["knowledge"] = sections.knowledge_mapping(agent.knowledge)
    return data
