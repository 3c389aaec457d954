"""Rate limits per principal and per tenant, through the real server."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentd_client import errors as client_errors
from tests.integration.trust import trusted


async def test_principal_and_tenant_buckets_answer_resource_exhausted_with_retry_info(
    tmp_path: Path,
) -> None:
    async with trusted(
        tmp_path, rate_limits="CallTool=2/m,*=1000/m", tenant_rate_limits="CallTool=3/m"
    ) as t:
        alice = await t.client("acme", "alice")
        bob = await t.client("acme", "bob")
        carol = await t.client("globex", "carol")
        for tenant, who in (("acme", "alice"), ("acme", "bob"), ("globex", "carol")):
            await t.grant(tenant, f"principal:{who}", "calculator", "read")
        for _ in range(2):
            await alice.call_tool("calculator", {"expression": "1+1"})
        with pytest.raises(client_errors.RateLimitedError, match="principal") as limited:
            await alice.call_tool("calculator", {"expression": "1+1"})
        assert 0 < (limited.value.retry_after_seconds or 0) <= 30
        assert await alice.list_tools()  # other methods have their own bucket
        await bob.call_tool("calculator", {"expression": "1+1"})  # acme's third call
        with pytest.raises(client_errors.RateLimitedError, match="tenant"):
            await bob.call_tool("calculator", {"expression": "1+1"})
        await carol.call_tool("calculator", {"expression": "1+1"})  # another tenant
        codes = [r.code for r in await t.rpc_records() if r.method.endswith("/CallTool")]
        assert codes.count("RESOURCE_EXHAUSTED") == 2
        # A refused call never reached the tool: three acme calls ran, not five.
        assert len([r for r in await t.tool_records("acme") if r.outcome == "ok"]) == 3
