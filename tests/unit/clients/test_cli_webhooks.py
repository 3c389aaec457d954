"""What `agentd webhooks` reads from its command line and asks the server: filters and
labels as given, an update that keeps what it is not given, the secret printed once."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from agentd.v1 import webhooks_pb2
from clients import cli
from clients.options import OptionError
from server.commands.cli import build_parser


class _Client:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, dict[str, Any]]] = []
        self.current = webhooks_pb2.Webhook(
            webhook_id="wh_1",
            url="http://127.0.0.1:9/in",
            event_types=["task.failed"],
            labels={"team": "a"},
            description="ops",
        )

    async def create_webhook(self, url: str, **fields: Any) -> webhooks_pb2.Webhook:
        self.calls.append(("create", url, fields))
        return webhooks_pb2.Webhook(webhook_id="wh_2", url=url, secret="whsec_c2VjcmV0")

    async def get_webhook(self, webhook_id: str) -> webhooks_pb2.Webhook:
        return self.current

    async def update_webhook(self, webhook_id: str, url: str, **fields: Any) -> Any:
        self.calls.append(("update", url, fields))
        return webhooks_pb2.Webhook(webhook_id=webhook_id, url=url)


def parsed(*argv: str) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    args.address, args.api_key = "127.0.0.1:1", ""
    return args


async def run(client: Any, *argv: str) -> int:
    args = parsed(*argv)
    return await cli._COMMANDS[args.command](client, args)


async def test_create_passes_filters_and_prints_the_secret_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = _Client()
    argv = ("webhooks", "create", "http://127.0.0.1:9/in", "--event", "task.failed")
    assert await run(client, *argv, "--label", "team=a", "--paused") == 0
    [(_, url, fields)] = client.calls
    assert url == "http://127.0.0.1:9/in"
    assert (fields["event_types"], fields["labels"], fields["paused"]) == (
        ["task.failed"],
        {"team": "a"},
        True,
    )
    assert "signing secret (shown only now): whsec_c2VjcmV0" in capsys.readouterr().out
    with pytest.raises(OptionError, match="KEY=VALUE"):
        await run(client, "webhooks", "create", "http://127.0.0.1:9/in", "--label", "oops")


async def test_update_keeps_what_it_is_not_given() -> None:
    client = _Client()
    assert await run(client, "webhooks", "update", "wh_1", "--paused") == 0
    [(_, url, fields)] = client.calls
    assert url == "http://127.0.0.1:9/in"
    assert fields == {
        "event_types": ["task.failed"],
        "agents": [],
        "labels": {"team": "a"},
        "description": "ops",
        "paused": True,
    }
