"""The moderation check against the fake model server's `/v1/moderations` (OpenAI's
shape): flagged, not flagged, categories and thresholds chosen by the declaration, and an
endpoint that is down or failing is unavailable (never a pass)."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from agent.guardrails.base import GuardrailUnavailable
from agent.guardrails.moderation import ModerationEndpoint, Moderations
from agent.llm.fakes import command
from agent.llm.fakes.moderation import parse_words
from agent.llm.fakes.server import FakeOpenAIServer
from records.guardrails import Action, CheckSpec, Finding, Point, Subject

SUBJECT = Subject(Point.OUTPUT, "acme")


@pytest.fixture
async def server() -> AsyncIterator[FakeOpenAIServer]:
    words = parse_words("UNSAFE,KILL=violence")
    async with FakeOpenAIServer(moderation_words=words) as served:
        yield served


@pytest.fixture
async def moderations(server: FakeOpenAIServer) -> AsyncIterator[Moderations]:
    made = Moderations(ModerationEndpoint(server.base_url, model="fake-moderation"))
    try:
        yield made
    finally:
        await made.close()


def spec(**options: Any) -> CheckSpec:
    return CheckSpec("mod", "moderation", frozenset(Point), Action.BLOCK, options=options)


async def test_a_flagged_text_is_a_finding_per_category(
    moderations: Moderations, server: FakeOpenAIServer
) -> None:
    found = await moderations.check(spec()).inspect("this is UNSAFE", SUBJECT)
    assert found == [Finding("mod", "moderation:harassment", found[0].reason)]
    assert "harassment" in found[0].reason
    assert server.moderation.requests == [{"model": "fake-moderation", "input": "this is UNSAFE"}]


async def test_a_clean_text_passes(moderations: Moderations) -> None:
    assert (
        await moderations.check(spec()).inspect("all is well, unsafe in lower case", SUBJECT) == []
    )


async def test_only_the_declared_categories_count(moderations: Moderations) -> None:
    check = moderations.check(spec(categories=["violence"], model="other-moderation"))
    assert await check.inspect("UNSAFE", SUBJECT) == []
    [finding] = await check.inspect("UNSAFE KILL", SUBJECT)
    assert finding.rule == "moderation:violence"


async def test_a_threshold_overrides_the_endpoints_flag(moderations: Moderations) -> None:
    above = moderations.check(spec(threshold=0.999))  # the fake scores a hit 0.99
    assert await above.inspect("UNSAFE", SUBJECT) == []
    low = moderations.check(spec(threshold={"hate": 0.0001}))  # every text scores 0.001
    assert [f.rule for f in await low.inspect("calm", SUBJECT)] == ["moderation:hate"]


async def test_a_failing_endpoint_is_unavailable(
    moderations: Moderations, server: FakeOpenAIServer
) -> None:
    server.moderation.fail_status = 503
    with pytest.raises(GuardrailUnavailable) as raised:
        await moderations.check(spec()).inspect("UNSAFE", SUBJECT)
    assert raised.value.check == "mod"


async def test_an_endpoint_that_is_down_is_unavailable() -> None:
    with socket.socket() as probe:  # a port nothing listens on once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    made = Moderations(ModerationEndpoint(f"http://127.0.0.1:{port}/v1"))
    try:
        with pytest.raises(GuardrailUnavailable, match="moderation endpoint"):
            await made.check(spec()).inspect("anything", SUBJECT)
    finally:
        await made.close()


@pytest.mark.parametrize(
    "body",
    [
        {"results": []},
        {"results": [{"categories": [], "category_scores": {}}]},
        {"results": [{"categories": {"hate": True}, "category_scores": {"hate": "high"}}]},
        {"nothing": 1},
        [1, 2],
    ],
)
async def test_an_answer_that_is_not_a_moderation_is_unavailable(body: Any) -> None:
    async def answer(request: web.Request) -> web.Response:
        return web.json_response(body)

    app = web.Application()
    app.router.add_post("/v1/moderations", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    made = Moderations(ModerationEndpoint(f"http://127.0.0.1:{port}/v1"))
    try:
        with pytest.raises(GuardrailUnavailable, match="unusable answer"):
            await made.check(spec()).inspect("anything", SUBJECT)
    finally:
        await made.close()
        await runner.cleanup()


@pytest.mark.parametrize(
    ("options", "wrong"),
    [
        ({"model": ""}, "model"),
        ({"categories": "hate"}, "categories"),
        ({"threshold": 2}, "threshold"),
        ({"threshold": {"hate": True}}, "threshold"),
    ],
)
def test_options_that_are_wrong_are_refused_by_name(options: dict[str, Any], wrong: str) -> None:
    with pytest.raises(ValueError, match=f"`{wrong}`"):
        Moderations(ModerationEndpoint("http://127.0.0.1:1/v1")).check(spec(**options))


def test_moderation_words_name_real_categories() -> None:
    assert parse_words("A, B=violence") == {"A": "harassment", "B": "violence"}
    with pytest.raises(ValueError, match="not a moderation category"):
        parse_words("A=rudeness")


def test_fake_llm_refuses_moderation_words_it_cannot_serve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "s.json"
    script.write_text("[]")
    assert command.run(script, 0, "127.0.0.1", None, moderation_words="A=rudeness") == 2
    assert "'rudeness' is not a moderation category" in capsys.readouterr().err
