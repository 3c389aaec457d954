"""`agentd artifact get|list`: the artifacts of a task's tree.

    agentd artifact list TASK_ID                  name, latest version, media type, size
    agentd artifact get TASK_ID NAME [--version N] [--output FILE [--resume]]

`get` prints the content as it was written (text or bytes) to stdout, or downloads it to
`--output` (in chunks, ReadArtifact: any size; `--resume` continues a file cut short,
the digest checked); with `--json` it prints the whole ArtifactContent message (content
base64; GetArtifact, for versions that fit one message).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from agentd_client.client import AgentClient
from clients.output import as_json, describe_summary, nothing


def add_parsers(sub: Any) -> None:
    artifact = sub.add_parser("artifact", help="the artifacts of a task's tree")
    verbs = artifact.add_subparsers(dest="verb", required=True)
    listing = verbs.add_parser("list", help="each artifact at its latest version")
    listing.add_argument("task_id")
    get = verbs.add_parser("get", help="print one artifact's content")
    get.add_argument("task_id")
    get.add_argument("name")
    get.add_argument("--version", type=int, default=None, help="a version (default: latest)")
    get.add_argument("--output", default="", help="write the content to this file instead")
    get.add_argument(
        "--resume",
        action="store_true",
        help="continue an --output file cut short (else replace it)",
    )


async def run_artifact(client: AgentClient, args: argparse.Namespace) -> int:
    if args.verb == "list":
        task = await client.get_task(args.task_id)
        for summary in task.artifacts:
            print(as_json(summary) if args.json else describe_summary(summary))
        if not task.artifacts and not args.json:
            print(nothing("artifacts", f"task {task.task_id} and its tree wrote none"))
        return 0
    if args.output:
        target = Path(args.output)
        if not args.resume:
            await asyncio.to_thread(target.unlink, missing_ok=True)
        size = await client.download_artifact(args.task_id, args.name, target, args.version)
        print(f"wrote {args.name} ({size} bytes) to {args.output}")
    elif args.json:
        print(as_json(await client.get_artifact(args.task_id, args.name, args.version)))
    else:
        sys.stdout.flush()
        async for chunk in client.read_artifact(args.task_id, args.name, args.version):
            sys.stdout.buffer.write(chunk.data)
        sys.stdout.buffer.flush()
    return 0
