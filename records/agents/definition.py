"""Agents as configuration: who the engine is for a task — instructions, models, tools, limits.

An agent definition names the instructions the model gets (a template whose
`{{variables}}` come from the request's context and a few built-ins), the model
for each role and its sampling, the tools it may use (names and `category:`
entries; it can only narrow what the caller may use), its default mode and its
limits. A request selects one by id (`support`) or id and version
(`support@2`); without one the task runs as the default agent always has.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from records.agents.checks import AgentInvalidError as AgentInvalidError
from records.agents.checks import flag_key, number_key, text_key, whole_key
from records.agents.knowledge_keys import knowledge_key
from records.agents.provider_keys import PROVIDER_NAME as PROVIDER_NAME
from records.agents.provider_keys import ROLES as ROLES
from records.agents.provider_keys import fallback_key, providers_key
from records.agents.remote_keys import RemoteDelegate as RemoteDelegate
from records.agents.remote_keys import remote_delegates_key
from records.agents.team_keys import AGENT_ID as AGENT_ID
from records.agents.team_keys import DEFAULT_PANEL_THRESHOLD as DEFAULT_PANEL_THRESHOLD
from records.agents.team_keys import Panel as Panel
from records.agents.team_keys import delegates_key, panels_key
from records.conversations.policy import MemoryInvalidError, memory_settings
from records.execution import ExecutionMode, StepPolicy
from records.tools.grants import covers

MAX_INSTRUCTIONS_CHARS = 20_000
VARIABLE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.-]{0,63})\s*\}\}")
CriticPolicy = Literal["every_step", "every_n", "end", "off"]
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
"""The keys of an agent file (and of an agent by RPC, in this shape: `server.convert.agents`).
The Python client keeps the same set (`agentd_client.agent_files.KEYS`); a test holds
them equal."""
STEP_POLICIES = ("replan", "skip", "terminate")


@dataclass(frozen=True, slots=True)
class AgentDefinition:
    agent_id: str
    version: int = 1
    description: str = ""
    instructions: str = ""
    """A template: `{{name}}` is replaced by the context's value of `name` or a built-in."""
    models: Mapping[str, str] = field(default_factory=dict)
    """Model name per role (executor, planner, critic, synthesizer, router); "default" for
    the rest. A `router` model makes auto mode ask it how to work (`agent.modes.llm_router`)."""
    temperature: float | None = None
    max_tokens: int | None = None
    tools: tuple[str, ...] = ()
    """Tool names, `<toolset>.*` and `category:<name>` entries; empty: every tool the caller
    may use."""
    mode: ExecutionMode | None = None
    max_iterations: int = 0
    token_budget: int = 0
    step_timeout_seconds: float = 0.0
    task_timeout_seconds: float = 0.0
    critic_policy: CriticPolicy | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)
    ask_user: bool = False
    """Whether the model may ask the caller a question (the `ask_user` tool)."""
    output_schema: Mapping[str, Any] | None = None
    """A JSON Schema the final answer must be JSON of (`agent.running.answers`)."""
    memory: Mapping[str, Any] = field(default_factory=dict)
    """Its `memory:` settings (`records.conversations.policy`); the server's defaults fill
    the rest."""
    knowledge: Mapping[str, Any] = field(default_factory=dict)
    """Its `knowledge:` settings (`records.agents.knowledge_keys`): `bases` (the only
    knowledge bases its `search_knowledge` calls may search), `rerank`."""
    max_failed_tool_calls: int | None = None
    """Tool calls failing in a row that stop a run (0: never); None: the server's."""
    step_policy: StepPolicy | None = None
    """What a failed plan step leads to (`replan`, `skip`, `terminate`); None: the server's."""
    providers: Mapping[str, str] = field(default_factory=dict)
    """The operator's provider per role ("default" for the rest); empty: the server's own
    endpoint (`agent.llm.providers`)."""
    fallback: tuple[tuple[str, str], ...] = ()
    """(provider, model) tried in order when the agent's own provider fails (timeouts,
    5xx, rate limits); an empty model: the same model as the role's."""
    delegates: tuple[str, ...] = ()
    """Agent ids it may hand work to, each offered as a tool `agent.<id>` (`agent.teams`)."""
    fresh_start: bool = False
    """Every delegation to it starts afresh; by default a second delegation under the same
    parent continues its earlier message history."""
    panels: tuple[Panel, ...] = ()
    """Voting panels it may ask, each offered as a tool `panel.<name>`."""
    remote_delegates: tuple[RemoteDelegate, ...] = ()
    """Agents served elsewhere over A2A it may hand work to, offered as `agent.<id>`."""
    guardrails: tuple[Mapping[str, Any], ...] = ()
    """Its checks on what goes into its tasks and comes out (`agent.guardrails`), as
    declared: the engine reads them (`agent.guardrails.declarations`) and checks them when
    the agent is made; the server's own come first."""
    remote: RemoteDelegate | None = None
    """Set on the agent of a child task that runs on a remote A2A agent (`agent.teams.remote`):
    its run calls that agent instead of a model."""

    @property
    def team(self) -> tuple[str, ...]:
        """Every agent it may start a child task of: its delegates and its panels' members."""
        return tuple(dict.fromkeys((*self.delegates, *(a for p in self.panels for a in p.agents))))

    @property
    def reference(self) -> str:
        return f"{self.agent_id}@{self.version}"

    def allows(self, name: str, category: str) -> bool:
        """Whether a tool of this name and category is among the agent's tools (named,
        by its category, or by its toolset: `notes.*`)."""
        # A grant's `*` is every tool; an agent's tools name no such thing.
        return not self.tools or any(covers(p, name, category) for p in self.tools if p != "*")


@dataclass(frozen=True, slots=True)
class AgentVersion:
    """One version of an agent as kept: its definition, and who made it when."""

    agent: AgentDefinition
    tenant: str
    """"" for a file agent, which serves every tenant."""
    created_at: datetime
    created_by: str
    source: Literal["file", "api"] = "api"
    promoted: int = 0
    """The agent's promoted version (PromoteAgentVersion), whichever version this is; 0
    while none is (and for a deleted agent and a file agent)."""


def split_reference(reference: str) -> tuple[str, int | None]:
    """`id` or `id@version` -> (id, version or None); ValueError when malformed."""
    agent_id, at, version = reference.partition("@")
    if not AGENT_ID.fullmatch(agent_id):
        raise ValueError("an agent id is 1 to 64 of [a-z0-9-], starting and ending alphanumeric")
    if not at:
        return agent_id, None
    if not version.isdigit() or not 0 < int(version) < 2**31:
        raise ValueError("a version is a positive whole number")
    return agent_id, int(version)


def render(template: str, context: Mapping[str, Any], now: datetime | None = None) -> str:
    """The instructions for one task: each `{{name}}` replaced, in one pass, by the
    context's value (as text, never evaluated) or a built-in (`date`, `time`); a name
    with no value stays as written. A value that itself holds `{{...}}` stays literal."""
    moment = now or datetime.now(UTC)
    builtins = {"date": moment.date().isoformat(), "time": moment.strftime("%H:%M UTC")}

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in context:
            found = context[name]
            return found if isinstance(found, str) else str(found)
        return builtins.get(name, match.group(0))

    return VARIABLE.sub(value, template)


def parse_agent(data: Any, source: str, models: Collection[str] = ()) -> AgentDefinition:
    """An agent from its YAML/JSON form; AgentInvalidError names the field at fault. With
    `models` (AGENTD_AGENT_MODELS), only those may be named."""
    if not isinstance(data, Mapping):
        raise AgentInvalidError(source, "(file)", "must be a mapping of keys to values")
    unknown = sorted(set(map(str, data)) - KEYS)
    if unknown:
        raise AgentInvalidError(
            source, unknown[0], f"unknown key; known: {', '.join(sorted(KEYS))}"
        )
    agent_id = data.get("id")
    if not isinstance(agent_id, str) or not AGENT_ID.fullmatch(agent_id):
        raise AgentInvalidError(source, "id", "1 to 64 of [a-z0-9-], alphanumeric at both ends")
    return AgentDefinition(
        agent_id=agent_id,
        version=whole_key(data, "version", source, 1, 1),
        description=text_key(data, "description", source, 2_000),
        instructions=text_key(data, "instructions", source, MAX_INSTRUCTIONS_CHARS),
        models=_models(data.get("model"), source, models),
        temperature=number_key(data, "temperature", source, 0.0, 2.0),
        max_tokens=whole_key(data, "max_tokens", source, None, 1),
        tools=_tools(data.get("tools"), source),
        mode=_mode(data.get("mode"), source),
        max_iterations=whole_key(data, "max_iterations", source, 0, 1, 50),
        token_budget=whole_key(data, "token_budget", source, 0, 1),
        step_timeout_seconds=number_key(data, "step_timeout_seconds", source, 0.001) or 0.0,
        task_timeout_seconds=number_key(data, "task_timeout_seconds", source, 0.001) or 0.0,
        critic_policy=_critic(data.get("critic_policy"), source),
        metadata=_metadata(data.get("metadata"), source),
        ask_user=flag_key(data, "ask_user", source),
        output_schema=_schema(data.get("output_schema"), source),
        memory=_memory(data.get("memory"), source),
        knowledge=knowledge_key(data.get("knowledge"), source),
        max_failed_tool_calls=whole_key(data, "max_failed_tool_calls", source, None, 0, 100),
        step_policy=_step_policy(data.get("step_policy"), source),
        providers=providers_key(data.get("provider"), source),
        fallback=fallback_key(data.get("fallback"), source),
        delegates=delegates_key(data.get("delegates"), source, agent_id),
        fresh_start=flag_key(data, "fresh_start", source),
        panels=panels_key(data.get("panels"), source),
        remote_delegates=remote_delegates_key(
            data.get("remote_delegates"),
            source,
            agent_id,
            delegates_key(data.get("delegates"), source, agent_id),
        ),
        guardrails=_guardrails(data.get("guardrails"), source),
    )


MAX_GUARDRAILS = 64


def _guardrails(value: Any, source: str) -> tuple[Mapping[str, Any], ...]:
    """The declared checks, each a mapping (what each holds is the engine's to check)."""
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_GUARDRAILS:
        raise AgentInvalidError(
            source, "guardrails", f"must be a list of at most {MAX_GUARDRAILS} checks"
        )
    for index, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise AgentInvalidError(source, f"guardrails[{index}]", "must be a mapping")
    return tuple(dict(item) for item in value)


def _step_policy(value: Any, source: str) -> StepPolicy | None:
    if value is None:
        return None
    if value not in STEP_POLICIES:
        raise AgentInvalidError(source, "step_policy", "one of " + ", ".join(STEP_POLICIES))
    policy: StepPolicy = value
    return policy


def _memory(value: Any, source: str) -> dict[str, Any]:
    try:
        return memory_settings(value)
    except MemoryInvalidError as bad:
        field = "memory" if bad.key.startswith("(") else f"memory.{bad.key}"
        raise AgentInvalidError(source, field, bad.problem) from None


def _schema(value: Any, source: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or len(json.dumps(value, default=str)) > 20_000:
        raise AgentInvalidError(source, "output_schema", "a JSON Schema object of at most 20 KB")
    refused = _unsupported(value)
    if refused:
        problem = f"{refused!r} is not supported in output schemas (patterns run on the "
        raise AgentInvalidError(source, "output_schema", problem + "server; no references)")
    try:
        Draft202012Validator.check_schema(value)
    except SchemaError as bad:
        problem = f"not a valid JSON Schema: {bad.message}"
        raise AgentInvalidError(source, "output_schema", problem) from None
    return dict(value)


def _models(value: Any, source: str, allowed: Collection[str]) -> dict[str, str]:
    models = _model_names(value, source)
    if allowed:
        for role, name in models.items():
            if name not in allowed:
                field = "model" if role == "default" and len(models) == 1 else f"model.{role}"
                names = ", ".join(sorted(allowed))
                raise AgentInvalidError(
                    source, field, f"{name!r} is not a model agents may name here ({names})"
                )
    return models


def _model_names(value: Any, source: str) -> dict[str, str]:
    if value is None:
        return {}
    if isinstance(value, str) and value.strip():
        return {"default": value.strip()}
    if isinstance(value, Mapping) and value:
        models: dict[str, str] = {}
        for role, name in value.items():
            if role not in (*ROLES, "default"):
                raise AgentInvalidError(source, f"model.{role}", f"roles are {', '.join(ROLES)}")
            if not isinstance(name, str) or not name.strip() or len(name) > 200:
                raise AgentInvalidError(source, f"model.{role}", "must be a model name")
            models[str(role)] = name.strip()
        return models
    raise AgentInvalidError(source, "model", "a model name, or a mapping of role to model name")


def _tools(value: Any, source: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(t, str) and t for t in value):
        raise AgentInvalidError(source, "tools", "must be a list of tool names or category:<name>")
    if len(value) > 256:
        raise AgentInvalidError(source, "tools", "at most 256 entries")
    return tuple(dict.fromkeys(value))


def _mode(value: Any, source: str) -> ExecutionMode | None:
    if value is None:
        return None
    try:
        return ExecutionMode(str(value).lower())
    except ValueError:
        names = ", ".join(m.value for m in ExecutionMode if m is not ExecutionMode.AUTO)
        raise AgentInvalidError(source, "mode", f"one of {names}, or auto") from None


def _critic(value: Any, source: str) -> CriticPolicy | None:
    if value is None:
        return None
    if value not in ("every_step", "every_n", "end", "off"):
        raise AgentInvalidError(source, "critic_policy", "one of every_step, every_n, end, off")
    policy: CriticPolicy = value
    return policy


def _metadata(value: Any, source: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or len(value) > 32:
        raise AgentInvalidError(source, "metadata", "a mapping of at most 32 keys")
    return {str(k)[:64]: str(v)[:256] for k, v in value.items()}


_UNSUPPORTED = {"pattern", "patternProperties", "$ref", "$dynamicRef", "$anchor", "$id"}
_NAMED = {"properties", "$defs", "definitions", "dependentSchemas"}


def _unsupported(schema: Any, names: bool = False) -> str | None:
    """The first keyword of `schema` that output schemas do not support, if any (`names`:
    the keys of `schema` are property names, not keywords)."""
    if isinstance(schema, Mapping):
        for key, value in schema.items():
            if not names and key in _UNSUPPORTED:
                return str(key)
            found = _unsupported(value, not names and key in _NAMED)
            if found:
                return found
    elif isinstance(schema, list):
        for item in schema:
            found = _unsupported(item)
            if found:
                return found
    return None
