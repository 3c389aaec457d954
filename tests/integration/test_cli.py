"""The `agentd` CLI against a real server process."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import AGENTD_COMMAND, ROOT, ServerProcess, run_agentd, server_process


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with server_process(tmp_path_factory.mktemp("cli")) as process:
        yield process


def agentd(served: ServerProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*AGENTD_COMMAND, "--address", served.address, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )


def test_tools_human_and_json(served: ServerProcess) -> None:
    out = agentd(served, "tools")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].split()[:3] == ["calculator", "math", "none"]
    lines = agentd(served, "--json", "tools").stdout.splitlines()
    assert next(json.loads(line)["name"] for line in lines) == "calculator"


def test_call_tool(served: ServerProcess) -> None:
    out = agentd(served, "call-tool", "calculator", "--args", '{"expression": "1/4 + 1/4"}')
    assert (out.returncode, out.stdout.strip()) == (0, "0.5")
    out = agentd(served, "--json", "call-tool", "calculator", "--args", '{"expression": "2*3"}')
    assert json.loads(out.stdout)["result"]["value"] == 6


def test_call_tool_errors(served: ServerProcess) -> None:
    bad = agentd(served, "call-tool", "calculator", "--args", '{"nope": 1}')
    assert bad.returncode == 1
    assert "TOOL_ARGUMENTS_INVALID" in bad.stderr
    assert "arguments.expression: is required" in bad.stderr
    failed = agentd(served, "call-tool", "calculator", "--args", '{"expression": "1/0"}')
    assert failed.returncode == 1
    assert "division by zero" in failed.stderr
    garbage = agentd(served, "call-tool", "calculator", "--args", "{not json")
    assert garbage.returncode == 2
    assert "not valid JSON" in garbage.stderr


def test_task_and_exec(served: ServerProcess) -> None:
    out = agentd(served, "task", "task_missing")
    assert out.returncode == 1
    assert "NOT_FOUND TASK_NOT_FOUND" in out.stderr
    out = agentd(served, "exec", "what is 2+2", "--follow")
    assert out.returncode == 1
    assert "FAILED_PRECONDITION LLM_NOT_CONFIGURED" in out.stderr
    assert "AGENTD_LLM_MODEL" in out.stderr


def test_startup_says_which_settings_turn_the_engine_on(served: ServerProcess) -> None:
    log = served.log()
    assert "no language model configured" in log
    assert "AGENTD_LLM_MODEL" in log


def test_health(served: ServerProcess) -> None:
    out = agentd(served, "health")
    assert (out.returncode, out.stdout.strip()) == (0, "SERVING")


def test_unreachable_server_is_a_clear_error() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.commands.cli",
            "--address",
            "127.0.0.1:1",
            "--timeout",
            "2",
            "health",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=ROOT,
        check=False,
    )
    assert out.returncode == 1
    assert "UNAVAILABLE" in out.stderr


def test_keys_create_list_revoke_against_a_server_with_auth_on(tmp_path: Path) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'keys.db'}"

    def keys(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*AGENTD_COMMAND, "keys", "--database-url", database, *args],
            capture_output=True, text=True, timeout=60, cwd=ROOT, check=False,
        )  # fmt: skip

    created = keys("create", "--tenant", "acme", "--principal", "ci-bot", "--role", "operator")
    assert created.returncode == 0, created.stderr
    plaintext = created.stdout.strip().splitlines()[-1]
    assert plaintext.startswith("agd_")
    key_id = plaintext.split("_")[1]
    env = {"AGENTD_AUTH": "on", "AGENTD_DATABASE_URL": database}
    with server_process(tmp_path / "server", env) as server:

        def call(*extra: str) -> subprocess.CompletedProcess[str]:
            command = [
                sys.executable,
                "-m",
                "server.commands.cli",
                "--address",
                server.address,
                *extra,
            ]
            return subprocess.run(
                [*command, "call-tool", "calculator", "--args", '{"expression": "2*21"}'],
                capture_output=True, text=True, timeout=60, cwd=ROOT, check=False,
            )  # fmt: skip

        assert call("--api-key", plaintext).stdout.strip() == "42"
        refused = call()
        assert refused.returncode == 1
        assert "UNAUTHENTICATED" in refused.stderr
        as_json = subprocess.run(
            [*AGENTD_COMMAND, "--json", "keys", "--database-url", database,
             "list"],
            capture_output=True, text=True, timeout=60, cwd=ROOT, check=True,
        )  # fmt: skip
        listed = [json.loads(line) for line in as_json.stdout.splitlines()]
        assert [(k["key_id"], k["tenant"], k["principal"], k["roles"]) for k in listed] == [
            (key_id, "acme", "ci-bot", ["operator"])
        ]
        assert plaintext.split("_", 2)[2] not in keys("list").stdout  # never the secret
        assert keys("revoke", key_id).returncode == 0
        assert keys("revoke", key_id).returncode == 1  # already revoked
        time.sleep(5.5)  # the server trusts a looked-up key for AGENTD_AUTH_CACHE_SECONDS (5)
        assert "UNAUTHENTICATED" in call("--api-key", plaintext).stderr


def test_grants_and_audit_commands_against_a_server_with_default_deny(tmp_path: Path) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'grants.db'}"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*AGENTD_COMMAND, *args],
            capture_output=True, text=True, timeout=60, cwd=ROOT, check=False,
        )  # fmt: skip

    def admin(*args: str) -> subprocess.CompletedProcess[str]:
        """`agentd [--json] keys|grants --database-url URL ...`"""
        flags = [a for a in args[:1] if a == "--json"]
        command, *rest = args[len(flags) :]
        return run(*flags, command, "--database-url", database, *rest)

    def key(principal: str, *roles: str) -> str:
        role_args = [part for role in roles for part in ("--role", role)]
        made = admin("keys", "create", "--tenant", "acme", "--principal", principal,
                     *role_args)  # fmt: skip
        assert made.returncode == 0, made.stderr
        return made.stdout.strip().splitlines()[-1]

    alice, dana = key("alice"), key("dana", "auditor")
    granted = admin(
        "grants", "grant", "--tenant", "acme", "--principal", "alice", "--tool",
        "read_file", "--level", "read", "--allow", "path=reports/", "--for", "1h",
        "--window", "00:00-24:00",
    )  # fmt: skip
    assert granted.returncode == 0, granted.stderr
    grant_id = granted.stdout.split()[1].rstrip(":")
    bad = admin("grants", "grant", "--tenant", "acme", "--role", "x", "--tool", "../etc",
                "--level", "read")  # fmt: skip
    assert bad.returncode == 2
    assert "is not a tool name" in bad.stderr
    listed = admin("--json", "grants", "list", "--tenant", "acme")
    (shown,) = [json.loads(line) for line in listed.stdout.splitlines()]
    assert (shown["grant_id"], shown["subject"], shown["tool"], shown["level"]) == (
        grant_id, "principal:alice", "read_file", "read",
    )  # fmt: skip
    assert shown["arguments"] == {"path": ["reports/"]}
    assert shown["window"] == "00:00-24:00"
    assert shown["expires_at"] is not None

    env = {
        "AGENTD_AUTH": "on",
        "AGENTD_DATABASE_URL": database,
        "AGENTD_TOOL_PERMISSION": "deny",
        "AGENTD_GRANTS_REFRESH_SECONDS": "0.5",
    }
    with server_process(tmp_path / "server", env) as server:
        (tmp_path / "server" / "workspace" / "reports").mkdir(parents=True)
        (tmp_path / "server" / "workspace" / "reports" / "q3.txt").write_text("q3 figures")
        (tmp_path / "server" / "workspace" / "salaries.txt").write_text("secret")

        def read(path: str, api_key: str = alice) -> subprocess.CompletedProcess[str]:
            return run("--address", server.address, "--api-key", api_key, "call-tool",
                         "read_file", "--args", json.dumps({"path": path}))  # fmt: skip

        assert read("reports/q3.txt").stdout.strip() == "q3 figures"
        refused = read("salaries.txt")
        assert refused.returncode == 1
        assert "PERMISSION_DENIED" in refused.stderr
        assert "secret" not in refused.stdout + refused.stderr

        audit = run("--address", server.address, "--api-key", dana, "audit", "--jsonl",
                      "--tool", "read_file")  # fmt: skip
        assert audit.returncode == 0, audit.stderr
        records = [json.loads(line) for line in audit.stdout.splitlines()]
        assert [(r["outcome"], r["rule"]) for r in records] == [
            ("ok", f"grant:{grant_id}"), ("denied", f"grant:{grant_id}"),
        ]  # fmt: skip
        denied = run("--address", server.address, "--api-key", dana, "audit", "--kind", "rpc",
                       "--outcome", "PERMISSION_DENIED")  # fmt: skip
        assert len(denied.stdout.strip().splitlines()) == 1
        assert "CallTool" in denied.stdout
        not_auditor = run("--address", server.address, "--api-key", alice, "audit")
        assert not_auditor.returncode == 1
        assert "PERMISSION_DENIED" in not_auditor.stderr

        assert admin("grants", "revoke", grant_id).returncode == 0
        assert admin("grants", "revoke", grant_id).returncode == 1
        time.sleep(1.0)  # reloaded every AGENTD_GRANTS_REFRESH_SECONDS
        assert "PERMISSION_DENIED" in read("reports/q3.txt").stderr


def test_grants_grant_warns_of_a_shadowed_grant_and_of_one_without_effect(
    tmp_path: Path,
) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'grants.db'}"

    def admin(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*AGENTD_COMMAND, args[0], "--database-url", database, *args[1:]],
            capture_output=True, text=True, timeout=60, cwd=ROOT, check=False,
        )  # fmt: skip

    def grant(*args: str) -> tuple[str, str]:
        """(grant id, what it warned) of `agentd grants grant --tenant acme ARGS`."""
        made = admin("grants", "grant", "--tenant", "acme", *args)
        assert made.returncode == 0, made.stderr
        return made.stdout.split()[1].rstrip(":"), made.stderr

    assert admin("keys", "create", "--tenant", "acme", "--principal", "developer", "--role",
                 "admin").returncode == 0  # fmt: skip
    narrow, said = grant("--principal", "developer", "--tool", "write_file", "--level", "write",
                         "--allow", "path=reports/", "--requires-approval")  # fmt: skip
    assert said == ""
    broad, said = grant("--role", "admin", "--tool", "*", "--level", "admin")
    assert said == (
        f"warning: {broad} is shadowed where more specific grants apply (they decide those "
        "calls: its level, window and argument rules do not count there; it asks no "
        f"approval): {narrow} (principal:developer write_file WRITE; path under reports/; "
        "approval) for principal developer\n"
    )
    idle, said = grant("--principal", "developer", "--tool", "category:math", "--level", "read")
    assert said == (
        f"warning: {idle} has no effect: {broad} (role:admin * ADMIN) already allows every "
        "call it covers that no more specific grant decides (principal developer holds role "
        "admin on each of its API keys)\n"
    )
    listed = subprocess.run(
        [*AGENTD_COMMAND, "--json", "grants", "--database-url", database,
         "list", "--tenant", "acme"],
        capture_output=True, text=True, timeout=60, cwd=ROOT, check=True,
    )  # fmt: skip
    assert [json.loads(line)["grant_id"] for line in listed.stdout.splitlines()] == [
        narrow, broad, idle,
    ]  # fmt: skip


def test_conversations_commands(served: ServerProcess) -> None:
    created = agentd(served, "conversations", "create", "--title", "from the CLI")
    assert created.returncode == 0, created.stderr
    conversation_id = created.stdout.strip()
    assert conversation_id.startswith("conv_")
    listed = agentd(served, "conversations", "list")
    assert f"{conversation_id}  0 messages  from the CLI" in listed.stdout.splitlines()
    shown = agentd(served, "--json", "conversations", "show", conversation_id)
    assert json.loads(shown.stdout.splitlines()[0])["title"] == "from the CLI"
    assert agentd(served, "conversations", "delete", conversation_id).returncode == 0
    gone = agentd(served, "conversations", "show", conversation_id)
    assert gone.returncode == 1
    assert "NOT_FOUND CONVERSATION_NOT_FOUND" in gone.stderr
    bad = agentd(served, "exec", "hi", "--conversation", conversation_id, "--busy", "enqueue")
    assert bad.returncode == 1  # the flags reach the server (this one has no model)
    assert "LLM_NOT_CONFIGURED" in bad.stderr


TYPO_WARNING = (
    "agentd: warning: AGENTD_LLM_MODLE is ignored: agentd reads no such variable; "
    "did you mean AGENTD_LLM_MODEL?"
)


def test_a_misspelt_setting_is_named_and_the_no_model_message_asks_for_what_is_missing(
    tmp_path: Path,
) -> None:
    # The endpoint is set, the model's name misspelt: only AGENTD_LLM_MODEL is missing.
    env = {"AGENTD_LLM_BASE_URL": "http://127.0.0.1:1/v1", "AGENTD_LLM_MODLE": "fake"}
    with server_process(tmp_path, env) as served:
        out = run_agentd(tmp_path, "--address", served.address, "exec", "what is 2+2", env=env)
        served.terminate()
        served.wait(timeout=30)
        log = served.log().splitlines()
    assert [line for line in log if line.startswith("agentd: warning:")] == [TYPO_WARNING]
    said = [json.loads(line) for line in log if line.startswith("{")]
    no_model = next(line for line in said if line["event"].startswith("no language model"))
    assert no_model["settings"] == ["AGENTD_LLM_MODEL"]
    assert out.returncode == 1
    assert out.stderr.splitlines()[0] == TYPO_WARNING  # the client command says it too
    assert "FAILED_PRECONDITION LLM_NOT_CONFIGURED" in out.stderr
    assert "set AGENTD_LLM_MODEL, then restart agentd" in out.stderr
    assert "API_KEY" not in out.stderr
    assert "BASE_URL" not in out.stderr


def test_a_model_without_an_endpoint_leaves_the_engine_off_and_says_so(tmp_path: Path) -> None:
    with server_process(tmp_path, {"AGENTD_LLM_MODEL": "gpt-4o"}) as served:
        out = run_agentd(tmp_path, "--address", served.address, "exec", "what is 2+2")
    assert out.returncode == 1
    assert out.stderr.strip().endswith(
        "no language model is configured; set either AGENTD_LLM_BASE_URL (or OPENAI_BASE_URL)"
        " or AGENTD_LLM_API_KEY (or OPENAI_API_KEY), then restart agentd"
    )
    assert "warning" not in out.stderr


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*AGENTD_COMMAND, *args], capture_output=True, text=True,
        timeout=60, cwd=ROOT, env={"PATH": "/usr/bin:/bin", **env}, check=False,
    )  # fmt: skip


def test_global_options_also_after_the_command(served: ServerProcess, tmp_path: Path) -> None:
    after = _cli("tools", "--json", "--address", served.address, "--timeout", "10")
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout.splitlines()[0])["name"] == "calculator"
    nested = _cli("conversations", "list", "--address", served.address, "--json")
    assert nested.returncode == 0, nested.stderr
    from_env = _cli("health", AGENTD_ADDRESS=served.address)
    assert (from_env.returncode, from_env.stdout) == (0, "SERVING\n")
    database = f"sqlite+aiosqlite:///{tmp_path / 'admin.db'}"
    grant = ["grants", "--database-url", database, "grant", "--tenant", "acme", "--role", "r",
             "--tool", "calculator", "--level", "read"]  # fmt: skip
    assert _cli(*grant).returncode == 0
    listed = _cli("grants", "--database-url", database, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [json.loads(line)["tool"] for line in listed.stdout.splitlines()] == ["calculator"]
    keys = _cli("keys", "--database-url", database, "list", "--json")
    assert (keys.returncode, keys.stdout) == (0, "")


def test_version_from_the_package_metadata() -> None:
    from importlib.metadata import version

    out = _cli("--version")
    assert (out.returncode, out.stdout) == (0, f"agentd {version('agentd')}\n")


def test_an_unreachable_server_is_one_line_that_says_what_to_do() -> None:
    out = _cli("--address", "127.0.0.1:1", "--timeout", "2", "tools")
    assert out.returncode == 1
    assert len(out.stderr.splitlines()) == 1
    assert out.stderr.startswith("error: UNAVAILABLE: cannot reach agentd at 127.0.0.1:1 (")
    assert out.stderr.endswith("is it running? set AGENTD_ADDRESS or pass --address\n")


async def _calls(address: str, count: int) -> None:
    from agentd_client.client import AgentClient

    async with AgentClient(address) as client:
        for _ in range(count):
            await client.list_tools("time")


def test_a_closed_pipe_ends_the_command_quietly(served: ServerProcess) -> None:
    """`agentd audit --kind rpc | head -1`: the reader leaves after one line, with far more
    than a pipe holds still to come."""
    import asyncio

    asyncio.run(_calls(served.address, 1200))
    command = [*AGENTD_COMMAND, "--address", served.address, "audit",
               "--kind", "rpc", "--limit", "5000"]  # fmt: skip
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as process:  # fmt: skip
        assert process.stdout is not None
        assert process.stderr is not None
        assert "ListTools" in process.stdout.readline()
        process.stdout.close()  # as `head -1` does
        status = process.wait(timeout=60)
        said = process.stderr.read()
    assert said == ""
    assert status == 141  # 128 + SIGPIPE, as a shell reports such a command


def test_times_without_a_zone_are_utc(served: ServerProcess) -> None:
    """--since 2026-11-26T09:30 is 09:30 UTC, whatever the machine's zone."""
    import asyncio
    import time
    from datetime import UTC, datetime, timedelta

    def audit(since: str, until: str) -> list[str]:
        out = _cli("--address", served.address, "audit", "--kind", "rpc", "--since", since,
                   "--until", until, "--jsonl", TZ="America/New_York")  # fmt: skip
        assert out.returncode == 0, out.stderr
        return [json.loads(line)["time"] for line in out.stdout.splitlines()]

    asyncio.run(_calls(served.address, 3))
    time.sleep(1.5)  # the audit log is written a moment after each call
    now = datetime.now(UTC)
    since = (now - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M")
    until = now.strftime("%Y-%m-%dT%H:%M:%S.%f")
    recent = audit(since, until)
    assert len(recent) >= 3  # read as New York time (hours ahead of UTC) none would be
    assert audit(since + "Z", until + "+00:00") == recent
    tomorrow = (now + timedelta(days=1)).strftime("%Y-%m-%d")
    assert audit(tomorrow, "9999-12-31") == []
    bad = _cli("--address", served.address, "audit", "--since", "yesterday")
    assert bad.returncode == 2
    assert "--since 'yesterday' is not an ISO 8601 date or time" in bad.stderr
