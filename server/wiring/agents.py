"""The agents tenants may use, wired from the settings: their own, in the agent store, and
those of AGENTD_AGENTS_DIR; and what start-up says of the grants their callers need."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import structlog

from agent import metrics
from agent.definitions.catalog import Agents
from agent.definitions.promotion import PassedEvalRuns
from records.agents.definition import AgentDefinition
from server.settings import Settings
from server.wiring.role_table import role_table
from stores.agents.base import AgentStore

log = structlog.get_logger(__name__)


def start_agents(
    settings: Settings,
    store: AgentStore,
    background: list[asyncio.Task[None]],
    passed_runs: PassedEvalRuns | None = None,
) -> Agents:
    """The agents tenants may use: their own in `store`, and those of AGENTD_AGENTS_DIR
    (read once now, and a background job that reads them again when they change); under
    AGENTD_PROMOTION_GATE a version is promoted once `passed_runs` says an evaluation run
    of it passed its gate (None: none ever did). The
    metrics' agent label names the agents of the files, and the first
    AGENTD_METRICS_AGENT_LABELS others (`agent.metrics.AGENT_LABELS`)."""
    files = None
    if settings.agents_dir is not None:
        from agent.definitions.files import AgentFiles  # PyYAML: only with AGENTD_AGENTS_DIR

        files = AgentFiles(settings.agents_dir, settings.agent_models)
        files.load()
        log.info(
            "agent files read",
            folder=str(settings.agents_dir),
            agents=len(files.all()),
            refused=len(files.problems),
        )
        background.append(asyncio.create_task(files.watch(), name="agentd-agent-files"))
        needing = grants_needed(settings.tool_permission, files.all())
        if needing:
            log.warning(needing)
    if files is None:
        metrics.AGENT_LABELS.configure(settings.metrics_agent_labels)
    else:
        metrics.AGENT_LABELS.configure(settings.metrics_agent_labels, files.defines)
    return Agents(
        store,
        files,
        role_table(settings),
        max_per_tenant=settings.max_agents_per_tenant,
        models=settings.agent_models,
        credentials=settings.api_agent_credentials,
        promotion_gate=settings.promotion_gate,
        passed_runs=passed_runs,
    )


def grants_needed(permission: str, agents: Sequence[AgentDefinition]) -> str:
    """Under AGENTD_TOOL_PERMISSION=deny, what the callers of agents that delegate or ask
    need: a delegation and a question are tool calls the grants decide (one with no grant
    is refused, and audited); "" when no agent needs one or a level covers them."""
    if permission != "deny":
        return ""
    team = [a.agent_id for a in agents if a.delegates or a.remote_delegates or a.panels]
    asking = [a.agent_id for a in agents if a.ask_user]
    if not team and not asking:
        return ""
    needs = []
    if team:
        needs.append(f"category:agents (or agent.<id>) to delegate, for {', '.join(team)}")
    if asking:
        needs.append(f"ask_user to ask the caller, for {', '.join(asking)}")
    return (
        "AGENTD_TOOL_PERMISSION=deny: callers need grants for the engine's own tools: "
        + "; ".join(needs)
        + " (a call with no grant is refused and audited; see docs/security.md)"
    )
