"""The nested sections of an agent file, to and from their messages: `memory`
(`AgentMemory`), `knowledge` (`AgentKnowledge`), `provider` and `fallback` (`Agent.providers`,
`ModelFallback`), `panels` (`AgentPanel`) and `remote_delegates` (`AgentRemoteDelegate`).

Each `*_KEYS` is the set of keys its section takes, the same as the server's agent files
(a test holds them equal). As in `agentd_client.agent_files`, only what a message needs is
checked here; the server checks the rest and names the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from google.protobuf import struct_pb2

from agentd.v1 import agents_pb2, conversations_pb2
from agentd_client.requests import to_struct

_MemoryField = Literal[
    "budget_tokens",
    "max_messages",
    "tool_result_tokens",
    "summary_tokens",
    "recall_top_k",
    "extract",
]
MEMORY_WHOLE: tuple[_MemoryField, ...] = (
    "budget_tokens",
    "max_messages",
    "tool_result_tokens",
    "summary_tokens",
    "recall_top_k",
)
MEMORY_FLAGS: tuple[_MemoryField, ...] = ("extract",)
TOOL_CALLS = {
    "keep": conversations_pb2.MEMORY_TOOL_CALLS_KEEP,
    "summarize": conversations_pb2.MEMORY_TOOL_CALLS_SUMMARIZE,
    "drop": conversations_pb2.MEMORY_TOOL_CALLS_DROP,
}
COMPACTION = {
    "summarize": conversations_pb2.MEMORY_COMPACTION_SUMMARIZE,
    "drop": conversations_pb2.MEMORY_COMPACTION_DROP,
}
MEMORY_KEYS = frozenset({*MEMORY_WHOLE, *MEMORY_FLAGS, "tool_calls", "compaction"})
KNOWLEDGE_KEYS = frozenset({"bases", "rerank"})
FALLBACK_KEYS = frozenset({"provider", "model"})
PANEL_KEYS = frozenset({"name", "agents", "threshold", "judge_model", "description"})
REMOTE_TEXTS = ("url", "card_url", "agent", "token_env", "token_file", "description")
REMOTE_KEYS = frozenset({"id", *REMOTE_TEXTS})


class AgentFileError(ValueError):
    """An agent file that cannot be sent; `field` names the key at fault."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


def whole(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**32:
        raise AgentFileError(key, "must be a whole number, 0 or more")
    return value


def flag(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise AgentFileError(key, "must be true or false")
    return value


def names(value: Any, key: str, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AgentFileError(key, f"must be a list of {what}")
    return value


def entries(value: Any, key: str, keys: frozenset[str], what: str) -> list[Mapping[str, Any]]:
    """A list of mappings of `keys`; AgentFileError naming an entry's unknown key."""
    if not isinstance(value, list) or not all(isinstance(e, Mapping) for e in value):
        raise AgentFileError(key, f"a list of {what}")
    for index, entry in enumerate(value):
        unknown = sorted(set(map(str, entry)) - keys)
        if unknown:
            raise AgentFileError(f"{key}[{index}].{unknown[0]}", "unknown key")
    return value


def _known(value: Any, key: str, keys: frozenset[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise AgentFileError(key, f"a mapping of {', '.join(sorted(keys))}")
    unknown = sorted(set(map(str, value)) - keys)
    if unknown:
        known = ", ".join(sorted(keys))
        raise AgentFileError(f"{key}.{unknown[0]}", f"unknown key; known: {known}")
    return value


# memory ------------------------------------------------------------------------------


def memory_message(value: Any) -> conversations_pb2.AgentMemory:
    memory = conversations_pb2.AgentMemory()
    for key, setting in _known(value, "memory", MEMORY_KEYS).items():
        if key in MEMORY_WHOLE:
            setattr(memory, key, whole(setting, f"memory.{key}"))
        elif key in MEMORY_FLAGS:
            setattr(memory, key, flag(setting, f"memory.{key}"))
        elif key == "tool_calls" and setting in TOOL_CALLS:
            memory.tool_call_policy = TOOL_CALLS[setting]
        elif key == "compaction" and setting in COMPACTION:
            memory.compaction_policy = COMPACTION[setting]
        else:
            choices = TOOL_CALLS if key == "tool_calls" else COMPACTION
            raise AgentFileError(f"memory.{key}", f"one of {', '.join(choices)}")
    return memory


def memory_mapping(memory: conversations_pb2.AgentMemory) -> dict[str, Any]:
    data: dict[str, Any] = {
        k: getattr(memory, k) for k in (*MEMORY_WHOLE, *MEMORY_FLAGS) if memory.HasField(k)
    }
    tool_calls = {number: name for name, number in TOOL_CALLS.items()}
    compaction = {number: name for name, number in COMPACTION.items()}
    if memory.tool_call_policy in tool_calls:
        data["tool_calls"] = tool_calls[memory.tool_call_policy]
    if memory.compaction_policy in compaction:
        data["compaction"] = compaction[memory.compaction_policy]
    return data


# knowledge ---------------------------------------------------------------------------


def knowledge_message(value: Any) -> agents_pb2.AgentKnowledge:
    known = _known(value, "knowledge", KNOWLEDGE_KEYS)
    knowledge = agents_pb2.AgentKnowledge()
    if known.get("bases") is not None:
        knowledge.bases.extend(names(known["bases"], "knowledge.bases", "knowledge base ids"))
    if known.get("rerank") is not None:
        knowledge.rerank = flag(known["rerank"], "knowledge.rerank")
    return knowledge


def knowledge_mapping(knowledge: agents_pb2.AgentKnowledge) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if knowledge.bases:
        data["bases"] = list(knowledge.bases)
    if knowledge.HasField("rerank"):
        data["rerank"] = knowledge.rerank
    return data


# provider and fallback ---------------------------------------------------------------


def providers(value: Any) -> dict[str, str]:
    """`provider: name` (every role) or `provider: {role: name}`."""
    if isinstance(value, str):
        return {"default": value}
    if isinstance(value, Mapping) and all(isinstance(v, str) for v in value.values()):
        return {str(role): name for role, name in value.items()}
    raise AgentFileError("provider", "a provider name, or a mapping of role to provider name")


def fallback_messages(value: Any) -> list[agents_pb2.ModelFallback]:
    chain = entries(value, "fallback", FALLBACK_KEYS, "{provider, model} entries")
    found: list[agents_pb2.ModelFallback] = []
    for index, entry in enumerate(chain):
        provider, model = entry.get("provider", ""), entry.get("model", "")
        if not isinstance(provider, str) or not isinstance(model, str):
            raise AgentFileError(f"fallback[{index}]", "a provider name and a model name")
        found.append(agents_pb2.ModelFallback(provider=provider, model=model))
    return found


def fallback_mapping(fallback: agents_pb2.ModelFallback) -> dict[str, str]:
    return {"provider": fallback.provider, **({"model": fallback.model} if fallback.model else {})}


# panels and remote delegates ---------------------------------------------------------


def panel_messages(value: Any) -> list[agents_pb2.AgentPanel]:
    found: list[agents_pb2.AgentPanel] = []
    listed = entries(value, "panels", PANEL_KEYS, "panels (name, agents, threshold)")
    for index, panel in enumerate(listed):
        members = names(panel.get("agents") or [], f"panels[{index}].agents", "agent ids")
        threshold = panel.get("threshold", 0.0)
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise AgentFileError(f"panels[{index}].threshold", "must be a number")
        found.append(
            agents_pb2.AgentPanel(
                name=str(panel.get("name", "")),
                agents=members,
                threshold=float(threshold),
                judge_model=str(panel.get("judge_model", "")),
                description=str(panel.get("description", "")),
            )
        )
    return found


def panel_mapping(panel: agents_pb2.AgentPanel) -> dict[str, Any]:
    data: dict[str, Any] = {"name": panel.name, "agents": list(panel.agents)}
    if panel.threshold:
        data["threshold"] = panel.threshold
    if panel.judge_model:
        data["judge_model"] = panel.judge_model
    if panel.description:
        data["description"] = panel.description
    return data


def remote_messages(value: Any) -> list[agents_pb2.AgentRemoteDelegate]:
    found: list[agents_pb2.AgentRemoteDelegate] = []
    listed = entries(value, "remote_delegates", REMOTE_KEYS, "remote agents (id, url, ...)")
    for index, remote in enumerate(listed):
        for key in ("id", *REMOTE_TEXTS):
            if not isinstance(remote.get(key, ""), str):
                raise AgentFileError(f"remote_delegates[{index}].{key}", "must be text")
        found.append(agents_pb2.AgentRemoteDelegate(**{k: remote.get(k, "") for k in REMOTE_KEYS}))
    return found


def remote_mapping(remote: agents_pb2.AgentRemoteDelegate) -> dict[str, str]:
    data = {"id": remote.id}
    data.update({k: getattr(remote, k) for k in REMOTE_TEXTS if getattr(remote, k)})
    return data


# guardrails --------------------------------------------------------------------------


def guardrail_messages(value: Any) -> list[struct_pb2.Struct]:
    """The `guardrails:` checks, each a mapping sent as it is (the server checks what each
    holds, naming `guardrails[2].points[0]` when it cannot use one)."""
    if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
        raise AgentFileError("guardrails", "must be a list of checks (mappings)")
    return [to_struct(item) for item in value]
