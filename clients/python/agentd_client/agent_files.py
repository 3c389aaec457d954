"""Agents in the form of agent files (AGENTD_AGENTS_DIR), to and from `agents_pb2.Agent`.

An agent file is a mapping (YAML, or JSON) of `id`, `description`, `instructions`, `model`
(a name, or a mapping of role to name), `temperature`, `max_tokens`, `tools`, `mode`,
`max_iterations`, `token_budget`, `step_timeout_seconds`, `task_timeout_seconds`,
`critic_policy`, `metadata`, `ask_user`, `output_schema`, `memory`, `delegates` (agent
ids), `fresh_start`, `panels` (each `name`, `agents`, `threshold`, `judge_model`,
`description`), and `version`, which
the server sets for agents it keeps (it is left out of what is sent). `agent_message`
checks only what a message needs; the server checks the rest, naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Literal

from google.protobuf import json_format

from agentd.v1 import agents_pb2, conversations_pb2, tasks_pb2
from agentd_client.requests import to_python

KEYS = (
    "id", "version", "description", "instructions", "model", "temperature", "max_tokens",
    "tools", "mode", "max_iterations", "token_budget", "step_timeout_seconds",
    "task_timeout_seconds", "critic_policy", "metadata", "ask_user", "output_schema", "memory",
    "delegates", "fresh_start", "panels",
)  # fmt: skip
MODES = {
    "auto": tasks_pb2.EXECUTION_MODE_AUTO,
    "function_calling": tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING,
    "text_react": tasks_pb2.EXECUTION_MODE_TEXT_REACT,
    "plan_and_execute": tasks_pb2.EXECUTION_MODE_PLAN_AND_EXECUTE,
}
_WHOLE = ("max_tokens", "max_iterations", "token_budget")
_MemoryNumber = Literal["budget_tokens", "max_messages", "tool_result_tokens", "summary_tokens"]
_MEMORY_WHOLE: tuple[_MemoryNumber, ...] = (
    "budget_tokens",
    "max_messages",
    "tool_result_tokens",
    "summary_tokens",
)
_TOOL_CALLS = {
    "keep": conversations_pb2.MEMORY_TOOL_CALLS_KEEP,
    "summarize": conversations_pb2.MEMORY_TOOL_CALLS_SUMMARIZE,
    "drop": conversations_pb2.MEMORY_TOOL_CALLS_DROP,
}
_COMPACTION = {
    "summarize": conversations_pb2.MEMORY_COMPACTION_SUMMARIZE,
    "drop": conversations_pb2.MEMORY_COMPACTION_DROP,
}


class AgentFileError(ValueError):
    """An agent file that cannot be sent; `field` names the key at fault."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise AgentFileError(key, "must be text")
    return value


def _whole(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**32:
        raise AgentFileError(key, "must be a whole number, 0 or more")
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
    unknown = sorted(set(map(str, data)) - set(KEYS))
    if unknown:
        raise AgentFileError(unknown[0], f"unknown key; known: {', '.join(sorted(KEYS))}")
    agent = agents_pb2.Agent(
        id=_text(data, "id"),
        description=_text(data, "description"),
        instructions=_text(data, "instructions"),
        critic_policy=_text(data, "critic_policy"),
    )
    if data.get("model") is not None:
        agent.models.update(_models(data["model"]))
    if data.get("temperature") is not None:
        temperature = data["temperature"]
        if isinstance(temperature, bool) or not isinstance(temperature, int | float):
            raise AgentFileError("temperature", "must be a number")
        agent.temperature = float(temperature)
    for key in _WHOLE:
        if data.get(key) is not None:
            setattr(agent, key, _whole(data[key], key))
    _rest(data, agent)
    return agent


def _rest(data: Mapping[str, Any], agent: agents_pb2.Agent) -> None:
    tools = data.get("tools") or []
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        raise AgentFileError("tools", "must be a list of tool names or category:<name>")
    agent.tools.extend(tools)
    if data.get("mode") is not None:
        if str(data["mode"]).lower() not in MODES:
            raise AgentFileError("mode", f"one of {', '.join(MODES)}")
        agent.mode = MODES[str(data["mode"]).lower()]
    for key, duration in (("step_timeout_seconds", agent.step_timeout),
                          ("task_timeout_seconds", agent.task_timeout)):  # fmt: skip
        if data.get(key) is not None:
            duration.FromTimedelta(_seconds(data[key], key))
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise AgentFileError("metadata", "a mapping of keys to values")
    agent.metadata.update({str(k): str(v) for k, v in metadata.items()})
    ask_user = data.get("ask_user", False)
    if not isinstance(ask_user, bool):
        raise AgentFileError("ask_user", "must be true or false")
    agent.ask_user = ask_user
    if data.get("output_schema") is not None:
        if not isinstance(data["output_schema"], Mapping):
            raise AgentFileError("output_schema", "a JSON Schema object")
        json_format.ParseDict(dict(data["output_schema"]), agent.output_schema)
    if data.get("memory") is not None:
        agent.memory.CopyFrom(_memory(data["memory"]))
    _team(data, agent)


def _team(data: Mapping[str, Any], agent: agents_pb2.Agent) -> None:
    delegates = data.get("delegates") or []
    if not isinstance(delegates, list) or not all(isinstance(d, str) for d in delegates):
        raise AgentFileError("delegates", "must be a list of agent ids")
    agent.delegates.extend(delegates)
    fresh = data.get("fresh_start", False)
    if not isinstance(fresh, bool):
        raise AgentFileError("fresh_start", "must be true or false")
    agent.fresh_start = fresh
    panels = data.get("panels") or []
    if not isinstance(panels, list) or not all(isinstance(p, Mapping) for p in panels):
        raise AgentFileError("panels", "a list of panels (name, agents, threshold)")
    for index, panel in enumerate(panels):
        members = panel.get("agents") or []
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
            raise AgentFileError(f"panels[{index}].agents", "must be a list of agent ids")
        threshold = panel.get("threshold", 0.0)
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise AgentFileError(f"panels[{index}].threshold", "must be a number")
        agent.panels.append(
            agents_pb2.AgentPanel(
                name=str(panel.get("name", "")),
                agents=members,
                threshold=float(threshold),
                judge_model=str(panel.get("judge_model", "")),
                description=str(panel.get("description", "")),
            )
        )


def _memory(value: Any) -> conversations_pb2.AgentMemory:
    if not isinstance(value, Mapping):
        raise AgentFileError("memory", "a mapping of settings")
    memory = conversations_pb2.AgentMemory()
    for key, setting in value.items():
        if key in _MEMORY_WHOLE:
            setattr(memory, key, _whole(setting, f"memory.{key}"))
        elif key == "tool_calls" and setting in _TOOL_CALLS:
            memory.tool_call_policy = _TOOL_CALLS[setting]
        elif key == "compaction" and setting in _COMPACTION:
            memory.compaction_policy = _COMPACTION[setting]
        elif key in ("tool_calls", "compaction"):
            choices = _TOOL_CALLS if key == "tool_calls" else _COMPACTION
            raise AgentFileError(f"memory.{key}", f"one of {', '.join(choices)}")
        else:
            raise AgentFileError(f"memory.{key}", "unknown key")
    return memory


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
    if agent.critic_policy:
        data["critic_policy"] = agent.critic_policy
    if agent.metadata:
        data["metadata"] = dict(agent.metadata)
    if agent.ask_user:
        data["ask_user"] = True
    if agent.HasField("output_schema"):
        data["output_schema"] = to_python(agent.output_schema)
    if agent.HasField("memory"):
        data["memory"] = _memory_mapping(agent.memory)
    if agent.delegates:
        data["delegates"] = list(agent.delegates)
    if agent.fresh_start:
        data["fresh_start"] = True
    if agent.panels:
        data["panels"] = [_panel_mapping(p) for p in agent.panels]
    return data


def _panel_mapping(panel: agents_pb2.AgentPanel) -> dict[str, Any]:
    data: dict[str, Any] = {"name": panel.name, "agents": list(panel.agents)}
    if panel.threshold:
        data["threshold"] = panel.threshold
    if panel.judge_model:
        data["judge_model"] = panel.judge_model
    if panel.description:
        data["description"] = panel.description
    return data


def _memory_mapping(memory: conversations_pb2.AgentMemory) -> dict[str, Any]:
    data: dict[str, Any] = {k: getattr(memory, k) for k in _MEMORY_WHOLE if memory.HasField(k)}
    tool_calls = {number: name for name, number in _TOOL_CALLS.items()}
    compaction = {number: name for name, number in _COMPACTION.items()}
    if memory.tool_call_policy in tool_calls:
        data["tool_calls"] = tool_calls[memory.tool_call_policy]
    if memory.compaction_policy in compaction:
        data["compaction"] = compaction[memory.compaction_policy]
    return data
