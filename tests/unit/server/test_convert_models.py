"""The model-related wire forms: an agent's providers and fallback, and the new events."""

from __future__ import annotations

from datetime import UTC, datetime

from agentd.v1 import agents_pb2
from records import events as ev
from records.agents.definition import AgentVersion, parse_agent
from server.convert.agents import agent_data, agent_to_proto
from server.convert.events import event_to_proto


def test_an_agents_providers_and_fallback_round_trip() -> None:
    sent = agents_pb2.Agent(id="support", providers={"default": "main", "critic": "cheap"})
    sent.fallback.add(provider="backup", model="spare")
    sent.fallback.add(provider="other")
    agent = parse_agent(agent_data(sent), "agent")
    assert agent.providers == {"default": "main", "critic": "cheap"}
    assert agent.fallback == (("backup", "spare"), ("other", ""))
    back = agent_to_proto(AgentVersion(agent, "t", datetime.now(UTC), "me"))
    assert dict(back.providers) == dict(sent.providers)
    assert [(f.provider, f.model) for f in back.fallback] == [("backup", "spare"), ("other", "")]


def test_the_model_events_reach_the_wire() -> None:
    def wire(payload: ev.EventPayload) -> object:
        event = ev.TaskEvent("t", 1, datetime.now(UTC), "0" * 32, payload)
        message = event_to_proto(event)
        return getattr(message, str(message.WhichOneof("payload")))

    fitted = wire(ev.ContextFitted("s", "executor", "m", 8192, 6000, 1024, 40000, 9, 2, True))
    assert (fitted.saved_tokens, fitted.retry, fitted.dropped_messages) == (40000, True, 2)  # type: ignore[attr-defined]
    images = wire(ev.ContextFitted("s", "executor", "m", 8192, 6000, 1024, 900, 0, 0, False, 3))
    assert images.dropped_images == 3  # type: ignore[attr-defined]
    discarded = wire(ev.StreamDiscarded("s", "alpha", "m", "timed out"))
    assert discarded.provider == "alpha"  # type: ignore[attr-defined]
    route = wire(ev.RouteChosen("delegate", "function_calling", "billing", "asked", False, 0.25))
    assert (route.delegate, route.handled) == ("billing", False)  # type: ignore[attr-defined]
    assert route.duration.ToTimedelta().total_seconds() == 0.25  # type: ignore[attr-defined]
