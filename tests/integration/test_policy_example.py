"""The Go example policy service (clients/go/policyexample), built by clients/go/build.sh
as CI builds the gateway example, started on 127.0.0.1 and asked through agentd's own
policy client: it refuses one text, redacts another (spans in code points, as the
contract counts them), allows a third; once it is stopped, the check is unavailable."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from agent.guardrails.base import GuardrailUnavailable
from records.guardrails import Action, CheckSpec, Point, Span, Subject
from server.guardrails.policy import PolicyServiceCheck, PolicyServices
from tests.helpers import ROOT

pytestmark = pytest.mark.go
SUBJECT = Subject(Point.OUTPUT, "acme", agent="helper", task_id="t1")


@pytest.fixture(scope="module")
def binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("go-policy")
    built = subprocess.run(
        [str(ROOT / "clients" / "go" / "build.sh"), str(out), "policyexample"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    return out / "policyexample"


@pytest.fixture
def service(binary: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """The example on a free port of 127.0.0.1, and its address (its first line)."""
    with subprocess.Popen(
        [str(binary), "-listen", "127.0.0.1:0", "-block", "forbidden", "-redact", "1234"],
        stdout=subprocess.PIPE,
        text=True,
    ) as process:  # closes its pipe
        try:
            assert process.stdout is not None
            first = process.stdout.readline()
            assert first.startswith("listening="), f"the example did not start: {first!r}"
            yield process, first.strip().removeprefix("listening=")
        finally:
            process.terminate()
            process.wait(timeout=30)


@pytest.fixture
async def check(service: tuple[subprocess.Popen[str], str]) -> AsyncIterator[PolicyServiceCheck]:
    services = PolicyServices()
    spec = CheckSpec(
        "corp",
        "policy_service",
        frozenset(Point),
        Action.BLOCK,
        options={"address": service[1], "timeout_ms": 5000},
    )
    try:
        yield services.check(spec)
    finally:
        await services.close()


async def test_the_go_service_refuses_a_text_and_allows_another(
    check: PolicyServiceCheck,
) -> None:
    [refused] = await check.inspect("a forbidden plan", SUBJECT)
    assert refused.rule == "example:block-word"
    assert "forbidden" in refused.reason
    assert refused.spans == ()
    assert await check.inspect("a fine plan", SUBJECT) == []


async def test_the_go_service_redacts_in_code_points(check: PolicyServiceCheck) -> None:
    text = "héllo 🙂 card 1234, again 1234"
    [redacted] = await check.inspect(text, SUBJECT)
    first, second = text.index("1234"), text.rindex("1234")
    assert redacted.spans == (
        Span(first, first + 4, "redacted_word"),
        Span(second, second + 4, "redacted_word"),
    )


async def test_once_the_go_service_stops_the_check_is_unavailable(
    service: tuple[subprocess.Popen[str], str], check: PolicyServiceCheck
) -> None:
    assert await check.inspect("fine", SUBJECT) == []
    process, _ = service
    process.terminate()
    process.wait(timeout=30)
    with pytest.raises(GuardrailUnavailable):
        await check.inspect("fine again", SUBJECT)


async def test_the_go_service_refuses_a_task_through_agentd(
    service: tuple[subprocess.Popen[str], str], tmp_path: Path
) -> None:
    """The whole way: agentd's server, a policy_service check at the task's input, the
    Go example deciding; the refused task makes no model call."""
    import yaml

    from agentd.v1 import tasks_pb2
    from tests.integration.harness import harness, of_kind

    check = {"name": "corp", "kind": "policy_service", "address": service[1],
             "points": ["input"], "action": "block", "timeout_ms": 5000}  # fmt: skip
    path = tmp_path / "guardrails.yaml"
    path.write_text(yaml.safe_dump({"guardrails": [check]}), encoding="utf-8")
    fc = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
    async with harness(tmp_path, [{"text": "Fine."}], guardrails_file=path) as h:
        refused = [e async for e in h.client.execute("a forbidden plan", mode=fc)]
        task = await h.client.get_task(refused[0].task_id)
        assert task.stop_reason == tasks_pb2.STOP_REASON_GUARDRAIL
        [decided] = of_kind(refused, "guardrail_decided")
        assert (decided.check, decided.rule) == ("corp", "example:block-word")
        assert h.llm.requests == []
        allowed = [e async for e in h.client.execute("a fine plan", mode=fc)]
        assert (await h.client.get_task(allowed[0].task_id)).final_answer == "Fine."
