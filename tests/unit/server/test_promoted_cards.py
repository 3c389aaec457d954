"""The A2A card of an agent named by its bare id is of the version the id serves: the
latest with the promotion gate off, the promoted one (or the first) with it on."""

from __future__ import annotations

from agent.definitions.catalog import Agents
from core.identity import CallContext, Principal
from records.tools.model import PermissionLevel
from server.a2a.card import Addresses, CardMaker
from stores.agents.memory import InMemoryAgentStore
from stores.audit.memory import InMemoryAuditLog
from tools.permissions import GrantPolicy
from tools.registry import ToolRegistry

ADMIN = Principal("alice", "acme", ("admin",))


async def card_version(gate: bool, promote: int = 0) -> tuple[str, str]:
    """(the card's version, its description) of `support`, made in three versions."""
    store = InMemoryAgentStore()
    agents = Agents(store, promotion_gate=False)
    await agents.create(ADMIN, {"id": "support", "description": "v1"})
    for n in (2, 3):
        await agents.update(ADMIN, {"id": "support", "description": f"v{n}"})
    if promote:
        await agents.promote(ADMIN, "support", promote)  # the gate off: a pointer only
    served = Agents(store, promotion_gate=gate)  # the same agents, under `gate`
    registry = ToolRegistry(
        [], policy=GrantPolicy(default=PermissionLevel.WRITE), audit=InMemoryAuditLog()
    )
    maker = CardMaker(registry, served, Addresses("127.0.0.1:1"), auth=False, organization="t")
    card = await maker.card(CallContext(ADMIN), "support")
    return card.version, card.description


async def test_the_card_names_the_version_the_bare_id_serves() -> None:
    assert await card_version(gate=False) == ("3", "v3")
    assert await card_version(gate=True) == ("1", "v1")
    assert await card_version(gate=True, promote=2) == ("2", "v2")
    assert await card_version(gate=False, promote=2) == ("3", "v3")
