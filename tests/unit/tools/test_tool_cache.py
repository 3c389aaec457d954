"""The registry's cache of tool results: hits skip the tool, per tenant, only successes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.errors import PermissionDeniedError
from core.identity import CallContext, Principal
from core.metrics import REGISTRY
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from records.tools.outcomes import ToolFailed
from server.settings import Settings, parse_cache_seconds
from server.wiring.builders import build_registry, with_cache_times
from stores.audit.memory import InMemoryAuditLog
from stores.tool_cache.memory import InMemoryToolCache
from tools.builtin.artifacts import WriteArtifact
from tools.permissions import LevelPolicy
from tools.registry import ToolRegistry

SPEC = ToolSpec(
    name="lookup",
    description="counts its runs",
    parameters={"type": "object", "properties": {"q": {"type": "string"}}},
    category="test",
    permission=PermissionLevel.READ,
    risk=RiskLevel.LOW,
    idempotent=True,
    timeout_seconds=5.0,
    cache_seconds=60.0,
)
ACME = CallContext(principal=Principal("alice", "acme"))
GLOBEX = CallContext(principal=Principal("bob", "globex"))


class Counting(Tool):
    """Answers with its run count; fails its first `failures` runs."""

    def __init__(self, failures: int = 0, **changes: object) -> None:
        self.spec = replace(SPEC, **changes)  # type: ignore[arg-type]
        self.failures = failures
        self.runs = 0

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        self.runs += 1
        if self.runs <= self.failures:
            raise ToolFailed("not now", transient=False)
        return ToolOutput(data={"run": self.runs, "q": arguments.get("q")}, text=f"run {self.runs}")


def _registry(tool: Tool, audit: InMemoryAuditLog, level: PermissionLevel) -> ToolRegistry:
    return ToolRegistry([tool], policy=LevelPolicy(level), audit=audit, cache=InMemoryToolCache())


def _count(tool: str, result: str) -> float:
    labels = {"tool": tool, "result": result}
    return REGISTRY.get_sample_value("agentd_tool_cache_total", labels) or 0.0


async def test_a_second_call_is_a_hit_the_tool_does_not_run(audit: InMemoryAuditLog) -> None:
    tool = Counting(name="hits")
    reg = _registry(tool, audit, PermissionLevel.READ)
    first = await reg.call("hits", {"q": "x"}, ACME)
    second = await reg.call("hits", {"q": "x"}, ACME)
    assert tool.runs == 1
    assert (first.cached, second.cached) == (False, True)
    assert second.data == first.data == {"run": 1, "q": "x"}
    assert second.text == "run 1"
    assert second.call_id != first.call_id
    assert (_count("hits", "miss"), _count("hits", "hit")) == (1, 1)
    records = audit.records
    assert [(r.outcome, r.cached) for r in records] == [("ok", False), ("ok", True)]
    assert records[0].result_digest == records[1].result_digest
    other = await reg.call("hits", {"q": "y"}, ACME)  # other arguments: a miss
    assert (other.cached, tool.runs) == (False, 2)
    assert (_count("hits", "miss"), _count("hits", "hit")) == (2, 1)


async def test_tenants_never_share_results(audit: InMemoryAuditLog) -> None:
    tool = Counting(name="tenants")
    reg = _registry(tool, audit, PermissionLevel.READ)
    await reg.call("tenants", {"q": "x"}, ACME)
    theirs = await reg.call("tenants", {"q": "x"}, GLOBEX)
    assert (theirs.cached, theirs.data["run"], tool.runs) == (False, 2, 2)
    assert (await reg.call("tenants", {"q": "x"}, GLOBEX)).data["run"] == 2
    assert (await reg.call("tenants", {"q": "x"}, ACME)).data["run"] == 1
    assert tool.runs == 2


async def test_bypass_runs_the_tool_and_refreshes_the_entry(audit: InMemoryAuditLog) -> None:
    tool = Counting(name="bypass")
    reg = _registry(tool, audit, PermissionLevel.READ)
    await reg.call("bypass", {"q": "x"}, ACME)
    fresh = await reg.call("bypass", {"q": "x"}, ACME, bypass_cache=True)
    assert (fresh.cached, fresh.data["run"], tool.runs) == (False, 2, 2)
    again = await reg.call("bypass", {"q": "x"}, ACME)
    assert (again.cached, again.data["run"], tool.runs) == (True, 2, 2)
    assert _count("bypass", "hit") == 1  # a bypass is neither a hit nor a miss


async def test_errors_are_never_cached(audit: InMemoryAuditLog) -> None:
    tool = Counting(failures=1, name="errors")
    reg = _registry(tool, audit, PermissionLevel.READ)
    failed = await reg.call("errors", {"q": "x"}, ACME)
    assert not failed.ok
    worked = await reg.call("errors", {"q": "x"}, ACME)
    assert (worked.ok, worked.cached, tool.runs) == (True, False, 2)
    assert (await reg.call("errors", {"q": "x"}, ACME)).cached
    assert tool.runs == 2


async def test_a_tool_without_a_cache_time_is_never_cached(audit: InMemoryAuditLog) -> None:
    tool = Counting(name="uncached", cache_seconds=0.0)
    reg = _registry(tool, audit, PermissionLevel.READ)
    for _ in range(3):
        assert not (await reg.call("uncached", {"q": "x"}, ACME)).cached
    assert tool.runs == 3
    assert _count("uncached", "miss") == _count("uncached", "hit") == 0


async def test_a_hit_still_needs_the_permission(audit: InMemoryAuditLog) -> None:
    tool = Counting(name="guarded")
    cache = InMemoryToolCache()
    allowed = ToolRegistry([tool], policy=LevelPolicy(PermissionLevel.READ), audit=audit)
    allowed.use_tool_cache(cache)
    await allowed.call("guarded", {"q": "x"}, ACME)
    refused = ToolRegistry([tool], policy=LevelPolicy(PermissionLevel.NONE), audit=audit)
    refused.use_tool_cache(cache)
    with pytest.raises(PermissionDeniedError):
        await refused.call("guarded", {"q": "x"}, ACME)
    assert _count("guarded", "hit") == 0


def test_only_read_only_idempotent_tools_may_have_a_cache_time() -> None:
    with pytest.raises(ValueError, match="cannot be cached"):
        replace(SPEC, permission=PermissionLevel.WRITE)
    with pytest.raises(ValueError, match="cannot be cached"):
        replace(SPEC, idempotent=False)
    with pytest.raises(ValueError, match="negative"):
        replace(SPEC, cache_seconds=-1.0)
    assert replace(SPEC, permission=PermissionLevel.NONE).cacheable


def test_the_setting_is_parsed() -> None:
    assert parse_cache_seconds(" json_query=60, read_file=0.5 ,") == {
        "json_query": 60.0,
        "read_file": 0.5,
    }
    assert parse_cache_seconds("") == {}
    for bad in ("json_query", "json_query=", "json_query=0", "json_query=-1", "x=inf", "X=1"):
        with pytest.raises(ValueError, match="not tool=seconds"):
            parse_cache_seconds(bad)
    with pytest.raises(ValueError, match="not tool=seconds"):
        parse_cache_seconds("a=1,a=2")


def test_the_setting_applies_to_built_in_tools(settings: Settings, audit: InMemoryAuditLog) -> None:
    configured = settings.model_copy(update={"tool_cache_seconds": "json_query=60,read_file=5"})
    registry = build_registry(configured, audit)
    assert registry.spec("json_query").cache_seconds == 60
    assert registry.spec("read_file").cache_seconds == 5
    assert registry.spec("calculator").cache_seconds == 0
    assert build_registry(settings, audit).spec("json_query").cache_seconds == 0
    tools = build_registry(settings, audit).catalog.ordered()
    with pytest.raises(ValueError, match=r"AGENTD_TOOL_CACHE_SECONDS: 'nope'.*no such tool"):
        with_cache_times(tools, {"nope": 1.0})
    with pytest.raises(ValueError, match=r"'write_file' cannot be cached: it is not read-only"):
        with_cache_times(tools, {"write_file": 1.0})
    # Idempotent and read-only, but its results are the calling task's tree's artifacts.
    with pytest.raises(ValueError, match=r"'read_artifact' cannot be cached: its results depend"):
        with_cache_times(tools, {"read_artifact": 1.0})


def test_the_artifact_cap_is_the_setting_whatever_one_message_holds(
    settings: Settings, audit: InMemoryAuditLog
) -> None:
    def cap(registry: ToolRegistry) -> int:
        write = registry.catalog.get("write_artifact")
        assert isinstance(write, WriteArtifact)
        return write.limits.max_bytes

    assert cap(build_registry(settings, audit)) == settings.artifact_max_bytes
    # ReadArtifact streams any version in chunks; GetArtifact refuses one too large for it.
    small = settings.model_copy(update={"max_message_bytes": 64 * 1024})
    assert cap(build_registry(small, audit)) == settings.artifact_max_bytes
