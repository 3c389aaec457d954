"""The `agentd` command line: the server's own commands, and the client's.

    agentd serve [--listen host:port]        run the server (settings: AGENTD_*)
    agentd serve --demo                      the same with a scripted model, nothing to set
    agentd migrate                           bring the database schema up to date
    agentd keys create|list|revoke ...       API keys, on the database
    agentd keys new|reencrypt                the server's own keys (AGENTD_KEYS, docs/keys.md)
    agentd grants grant|list|revoke ...      tool grants, on the database
    agentd fake-llm --script FILE            an OpenAI-compatible endpoint playing a script

Every other command (tools, call-tool, exec, events, tasks, plan, agents, input,
audit, approve, health, ...) talks to a server through its API: `clients/cli.py`.
Output to a pipe that closes early (`agentd audit | head -1`) ends the command quietly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from core.errors import StoreUnreachableError
from server.commands.grants import add_grants_parser, run_grants
from server.commands.reindex import add_memory_parser, run_memory

if TYPE_CHECKING:
    from server.settings import Settings

CLIENT_VARIABLES = ("AGENTD_ADDRESS", "AGENTD_TARGET", "AGENTD_API_KEY")
"""What the client commands read (clients.cli.ENVIRONMENT; a test keeps them equal): named
here so that `agentd serve` checks the environment without importing the client."""


def _settings(**overrides: Any) -> Settings | None:
    """The settings; None (each invalid one said on stderr) when some are invalid."""
    from pydantic import ValidationError

    from server.settings import Settings

    try:
        return Settings(**overrides)
    except ValidationError as error:
        for problem in error.errors():
            name = "AGENTD_" + "_".join(str(p) for p in problem["loc"]).upper()
            print(f"agentd: invalid setting {name}: {problem['msg']}", file=sys.stderr)
        return None


def _database_url(args: argparse.Namespace) -> str | None:
    """--database-url, else AGENTD_DATABASE_URL; None when the settings are invalid."""
    if args.database_url:
        return str(args.database_url)
    settings = _settings()
    return settings.database_url if settings is not None else None


def _serve(args: argparse.Namespace) -> int:
    from server.commands import migrate_apart

    overrides: dict[str, Any] = {}
    if args.listen:
        overrides["address"] = args.listen
    settings = _settings(**overrides)
    if settings is None:
        return 2
    migrating = None if args.demo else migrate_apart.start(settings.database_url)

    from server.app import serve  # imported while the child migrates
    from server.listening import StartupError

    if migrating is not None and not migrate_apart.finish(migrating):
        return 0  # stopped before it served
    try:
        if args.demo:
            from server.commands.demo import serve_demo

            asyncio.run(serve_demo(overrides))
        else:
            asyncio.run(serve(settings))
    except StartupError as error:
        print(f"agentd: {error}", file=sys.stderr)
        return 2
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from stores.sql.engine import migrate_sync, shown

    url = _database_url(args)
    if url is None:
        return 2
    migrate_sync(url)
    print(f"database is up to date: {shown(url)}")
    return 0


def _keys(args: argparse.Namespace) -> int:
    from auth import admin
    from server.commands import keyring

    if args.keys_command == "new":
        return keyring.print_new_key()
    if args.keys_command == "reencrypt":
        settings = _settings(**({"database_url": args.database_url} if args.database_url else {}))
        return keyring.reencrypt(settings) if settings is not None else 2
    url = _database_url(args)
    if url is None:
        return 2
    if args.keys_command == "create":
        roles = tuple(args.role or ())
        plaintext = asyncio.run(admin.create_key(url, args.tenant, args.principal, roles))
        print(
            f"created a key for {args.principal} in tenant {args.tenant}"
            f" (roles: {', '.join(roles) or 'none'}); it is shown only now:"
        )
        print(plaintext)
        return 0
    if args.keys_command == "list":
        for key in asyncio.run(admin.list_keys(url)):
            if args.json:
                print(
                    json.dumps(
                        {
                            "key_id": key.key_id,
                            "tenant": key.tenant,
                            "principal": key.principal,
                            "roles": list(key.roles),
                            "created_at": key.created_at.isoformat(),
                            "revoked_at": key.revoked_at.isoformat() if key.revoked_at else None,
                        }
                    )
                )
            else:
                state = f"revoked {key.revoked_at:%Y-%m-%d %H:%M}" if key.revoked_at else "active"
                print(
                    f"{key.key_id}  {key.tenant:<12} {key.principal:<16} "
                    f"{','.join(key.roles) or '-':<12} {state}"
                )
        return 0
    if asyncio.run(admin.revoke_key(url, args.key_id)):
        print(f"revoked {args.key_id}")
        return 0
    print(f"error: no active key {args.key_id!r}", file=sys.stderr)
    return 1


def _fake_llm(args: argparse.Namespace) -> int:
    from pathlib import Path

    from agent.llm.fakes import command

    return command.run(
        Path(args.script),
        args.port,
        args.host,
        args.log,
        args.context_window,
        args.provider,
        args.moderation_words or "",
    )


def _add_keys_parser(sub: Any) -> None:
    """`agentd keys`: API keys (create, list, revoke, on the database) and the server's own
    keys (new, reencrypt: AGENTD_KEYS, `server.commands.keyring`)."""
    keys = sub.add_parser(
        "keys",
        help="create, list and revoke API keys (on the database); the server's own keys "
        "(AGENTD_KEYS): new, reencrypt",
    )
    keys.add_argument("--database-url", help="SQLAlchemy URL (default: AGENTD_DATABASE_URL)")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    create = keys_sub.add_parser("create", help="create a key; prints it alone on the last line")
    create.add_argument("--tenant", required=True)
    create.add_argument("--principal", required=True)
    create.add_argument("--role", action="append", help="a role (repeatable)")
    keys_sub.add_parser("list", help="every key (never the secret)")
    revoke = keys_sub.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id")
    keys_sub.add_parser("new", help="print a fresh key for AGENTD_KEYS (not an API key)")
    keys_sub.add_parser(
        "reencrypt",
        help="move every secret sealed at rest to the current key of AGENTD_KEYS (after a "
        "rotation, once every replica holds it); prints how many moved",
    )


def _add_server_commands(sub: Any, *, client: bool = True) -> None:
    serve = sub.add_parser("serve", help="run the server (settings from AGENTD_* variables)")
    serve.add_argument("--listen", help="host:port to listen on (overrides AGENTD_ADDRESS)")
    serve.add_argument(
        "--demo",
        action="store_true",
        help="serve with a scripted model in this process and state in a temporary folder "
        "(no model, no network); prints a fresh API key",
    )
    migrate = sub.add_parser("migrate", help="bring the database schema up to date")
    migrate.add_argument("--database-url", help="SQLAlchemy URL (default: AGENTD_DATABASE_URL)")
    _add_keys_parser(sub)
    add_grants_parser(sub)
    add_memory_parser(sub, client_verbs=client)
    fake = sub.add_parser(
        "fake-llm", help="serve an OpenAI-compatible endpoint that plays a script of replies"
    )
    fake.add_argument(
        "--script", required=True, help="JSON file: a list of replies, or replies by role"
    )
    fake.add_argument("--port", type=int, default=8089)
    fake.add_argument("--host", default="127.0.0.1")
    fake.add_argument("--log", help="a JSON line per request to this file ('-': stderr)")
    fake.add_argument(
        "--context-window",
        type=int,
        help="answer 400 context_length_exceeded to requests past this many tokens "
        "(counted by the fake server itself), as an endpoint serving such a model does",
    )
    fake.add_argument(
        "--provider",
        action="append",
        default=[],
        metavar="NAME=SCRIPT[@PORT]",
        help="also serve SCRIPT as provider NAME on PORT (any free port if none); repeatable",
    )
    fake.add_argument(
        "--moderation-words",
        metavar="WORD[=CATEGORY],...",
        help="/v1/moderations flags a text holding one of these words (case-sensitive), "
        "under its category (default harassment); default: UNSAFE",
    )


def build_parser() -> argparse.ArgumentParser:
    from clients import cli as client_cli

    parser, sub = client_cli.build_parser()
    _add_server_commands(sub)
    return client_cli.finish_parser(parser)


def _server_parser() -> argparse.ArgumentParser:
    """The server's commands alone: `agentd serve` parses with it, so that starting never
    imports the client (the client's global options mean nothing to `serve`)."""
    parser = argparse.ArgumentParser(prog="agentd")
    _add_server_commands(parser.add_subparsers(dest="command", required=True), client=False)
    return parser


SIGPIPE_STATUS = 141
"""What a shell reports for a command a closed pipe stopped (128 + SIGPIPE)."""


def _warn_of_unknown_variables() -> None:
    """One line on stderr for each AGENTD_* variable that agentd does not read."""
    client = set(CLIENT_VARIABLES)
    if all(not n.upper().startswith("AGENTD_") or n.upper() in client for n in os.environ):
        return  # nothing to check: the settings need not be imported (client commands)
    from server.settings import Settings
    from server.settings.environment import OTHER_VARIABLES, setting_variables, unknown_variables

    known = {*setting_variables(Settings), *CLIENT_VARIABLES, *OTHER_VARIABLES}
    for line in unknown_variables(os.environ, known):
        print(f"agentd: warning: {line}", file=sys.stderr)


def _unreachable(error: StoreUnreachableError, args: argparse.Namespace) -> str:
    """The one line saying which store could not be opened, and where its URL came from."""
    source = "AGENTD_REDIS_URL" if error.store == "Redis" else "AGENTD_DATABASE_URL"
    if getattr(args, "database_url", None) and source == "AGENTD_DATABASE_URL":
        source = "--database-url"
    return f"agentd: cannot open {error.store} at {error.where} ({source}): {error.detail}"


def main(argv: Sequence[str] | None = None) -> int:
    try:
        status = _main(argv)
        sys.stdout.flush()  # here, not at exit, where a closed pipe could not be caught
    except BrokenPipeError:
        # The reader went away (`| head`): say nothing, and keep the interpreter from
        # complaining as it flushes stdout on the way out.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return SIGPIPE_STATUS
    return status


def _main(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    serving = bool(argv) and argv[0] == "serve"
    args = (_server_parser() if serving else build_parser()).parse_args(argv)
    _warn_of_unknown_variables()
    try:
        return _run(args)
    except StoreUnreachableError as error:
        print(_unreachable(error, args), file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    if args.command == "serve":
        return _serve(args)
    if args.command == "fake-llm":
        return _fake_llm(args)
    if args.command == "migrate":
        return _migrate(args)
    if args.command == "keys":
        return _keys(args)
    if args.command == "grants":
        url = _database_url(args)
        return run_grants(args, url) if url is not None else 2
    if args.command == "memory" and args.memory_command in ("reindex", "status"):
        url = _database_url(args)
        return run_memory(args, url) if url is not None else 2
    from clients import cli as client_cli

    return client_cli.run(args)


if __name__ == "__main__":
    sys.exit(main())
