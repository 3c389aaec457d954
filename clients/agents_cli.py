"""`agentd agents list|show|create|update|delete|promote`: your tenant's agents.

`create` and `update` read an agent file, the YAML the server loads from
AGENTD_AGENTS_DIR (`-` reads it from stdin); `show` prints an agent as such a file, so
`agentd agents show support > support.yaml`, an edit, and `agentd agents update
support.yaml` make its next version. `promote support@2 [--eval-run RUN]` makes version
2 the one the bare id serves (with the server's promotion gate on, once an evaluation
run of it passed its gate). Changes need an admin role.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import yaml

from agentd.v1 import agents_pb2
from agentd_client.agent_files import AgentFileError, agent_mapping, agent_message
from agentd_client.client import AgentClient
from clients.options import OptionError
from clients.output import as_json, nothing

MAX_FILE_BYTES = 256 * 1024
"""The largest agent file read (the server's limit for its agent files)."""


def add_parsers(sub: Any) -> None:
    agents = sub.add_parser("agents", help="your tenant's agents (admin role to change them)")
    verbs = agents.add_subparsers(dest="verb", required=True)
    verbs.add_parser("list", help="the agents you may use: your tenant's, then the files'")
    show = verbs.add_parser("show", help="an agent, as an agent file (YAML)")
    show.add_argument("agent", help="id (its latest version) or id@version")
    for verb, what in (("create", "version 1 of a new agent"), ("update", "its next version")):
        change = verbs.add_parser(verb, help=f"{what}, from an agent file")
        change.add_argument("file", help="an agent file (YAML, as in AGENTD_AGENTS_DIR); - stdin")
    delete = verbs.add_parser("delete", help="delete an agent (its versions stay readable)")
    delete.add_argument("agent_id")
    promote = verbs.add_parser("promote", help="make a version the one the bare id serves")
    promote.add_argument("agent", help="id@version")
    promote.add_argument(
        "--eval-run",
        default="",
        metavar="RUN_ID",
        help="the evaluation run of that version that passed its gate (default: the latest)",
    )


def read_agent_file(name: str) -> agents_pb2.Agent:
    """The agent an agent file (or stdin, for `-`) defines; OptionError saying what is
    wrong and where."""
    try:
        if name == "-":
            text = sys.stdin.read(MAX_FILE_BYTES + 1)
        else:
            path = Path(name)
            if path.stat().st_size > MAX_FILE_BYTES:
                raise OptionError(f"{name}: over {MAX_FILE_BYTES} bytes")
            text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise OptionError(f"cannot read {name}: {error}") from None
    if len(text) > MAX_FILE_BYTES:
        raise OptionError(f"{name}: over {MAX_FILE_BYTES} bytes")
    try:
        return agent_message(yaml.safe_load(text))
    except yaml.YAMLError as error:
        raise OptionError(f"{name} is not YAML: {' '.join(str(error).split())}") from None
    except AgentFileError as error:
        raise OptionError(f"{name}: {error}") from None


class _Dumper(yaml.SafeDumper):
    """YAML with multi-line text as literal blocks, as people write agent files."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def agent_yaml(agent: agents_pb2.Agent) -> str:
    made = f" by {agent.created_by}" if agent.created_by else ""
    when = agent.created_at.ToJsonString() if agent.HasField("created_at") else "?"
    head = f"# {agent.id} version {agent.version} ({agent.source or 'api'}), {when}{made}\n"
    body = yaml.dump(agent_mapping(agent), Dumper=_Dumper, sort_keys=False, allow_unicode=True)
    return head + body


def _line(agent: agents_pb2.Agent) -> str:
    summary = " ".join(agent.description.split())[:80]
    return f"{agent.id:<24} v{agent.version:<4} {agent.source or 'api':<5} {summary}".rstrip()


def _versioned(reference: str) -> tuple[str, int]:
    """`id@version` -> (id, version); OptionError for anything else."""
    agent_id, _, version = reference.partition("@")
    if not agent_id or not version.isdigit() or not 0 < int(version) < 2**31:
        raise OptionError(f"{reference!r}: name the version to promote, as id@version")
    return agent_id, int(version)


async def run_agents(client: AgentClient, args: argparse.Namespace) -> int:
    if args.verb == "list":
        agents = await client.list_agents()
        for agent in agents:
            print(as_json(agent) if args.json else _line(agent))
        if not agents and not args.json:
            print(nothing("agents", "make one: agentd agents create FILE"))
    elif args.verb == "show":
        agent = await client.get_agent(args.agent)
        print(as_json(agent) if args.json else agent_yaml(agent), end="\n" if args.json else "")
    elif args.verb in ("create", "update"):
        definition = read_agent_file(args.file)
        change = client.create_agent if args.verb == "create" else client.update_agent
        agent = await change(definition)
        print(as_json(agent) if args.json else f"{args.verb}d {agent.id} version {agent.version}")
    elif args.verb == "promote":
        agent_id, version = _versioned(args.agent)
        agent = await client.promote_agent_version(agent_id, version, eval_run_id=args.eval_run)
        print(as_json(agent) if args.json else f"promoted {agent.id} version {agent.version}")
    else:
        await client.delete_agent(args.agent_id)
        if not args.json:
            print(f"deleted {args.agent_id}")
    return 0
