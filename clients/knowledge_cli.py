"""`agentd kb create|list|delete|add|docs|rm-doc|search|job|jobs` (a tenant's knowledge
bases and their ingestion jobs) and
`agentd memory list|search|forget` (the caller's long-term memories), over MemoryService.

`agentd memory reindex|status` are the server's (on the database: server/commands/reindex.py).
"""

from __future__ import annotations

import argparse
import asyncio
import mimetypes
import sys
from pathlib import Path
from typing import Any

from agentd.v1 import memory_pb2 as mpb
from agentd_client.client import AgentClient
from clients.options import OptionError
from clients.output import as_json, nothing

MEDIA_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
}
MAX_PAGES = 10_000
MEMORY_VERBS = ("list", "search", "forget")


def add_parsers(sub: Any) -> None:
    kb = sub.add_parser("kb", help="your tenant's knowledge bases")
    verbs = kb.add_subparsers(dest="verb", required=True)
    create = verbs.add_parser("create", help="create a knowledge base (admin)")
    create.add_argument("knowledge_base_id")
    create.add_argument("--name", default="", help="its display name")
    verbs.add_parser("list", help="the knowledge bases, by id")
    delete = verbs.add_parser("delete", help="delete a knowledge base and its documents (admin)")
    delete.add_argument("knowledge_base_id")
    add = verbs.add_parser("add", help="add a document from a file; prints its id (admin)")
    add.add_argument("knowledge_base_id")
    add.add_argument("file", type=Path)
    add.add_argument("--media-type", default="", help="default: from the file's extension")
    add.add_argument(
        "--background",
        action="store_true",
        help="return at once with the ingestion job's id (follow it with `agentd kb job`)",
    )
    add.add_argument("--external-id", default="", help="replace the document of this id")
    job = verbs.add_parser("job", help="an ingestion job's state and progress (admin)")
    job.add_argument("job_id")
    jobs = verbs.add_parser("jobs", help="the ingestion jobs of a knowledge base (admin)")
    jobs.add_argument("knowledge_base_id")
    docs = verbs.add_parser("docs", help="the documents of a knowledge base")
    docs.add_argument("knowledge_base_id")
    rm = verbs.add_parser("rm-doc", help="delete a document (admin)")
    rm.add_argument("document_id")
    search = verbs.add_parser("search", help="the passages a search would retrieve")
    search.add_argument("knowledge_base_id")
    search.add_argument("query")
    search.add_argument("--top-k", type=int, default=0)
    search.add_argument("--threshold", type=float, default=None)
    search.add_argument(
        "--rerank",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="rerank with the server's reranking model, or not (default: the server's choice)",
    )


def add_memory_verbs(memory_sub: Any) -> None:
    """`list`, `search` and `forget` under the server's `agentd memory`."""
    listed = memory_sub.add_parser("list", help="your memories, oldest first (by RPC)")
    listed.add_argument("--namespace", default="")
    search = memory_sub.add_parser("search", help="your memories nearest a query (by RPC)")
    search.add_argument("query")
    search.add_argument("--namespace", default="")
    search.add_argument("--top-k", type=int, default=0)
    forget = memory_sub.add_parser(
        "forget", help="delete every memory of yours (by RPC); asks first unless --yes"
    )
    forget.add_argument(
        "--yes", "-y", action="store_true", help="do not ask (needed without a terminal)"
    )


def _document_line(d: mpb.KnowledgeDocument) -> str:
    state = mpb.DocumentState.Name(d.state).removeprefix("DOCUMENT_STATE_")
    line = f"{d.document_id}  {state}  {d.chunk_count} chunks  {d.size_bytes} bytes  "
    line += f"{d.media_type}  {d.name}"
    if d.external_id:
        line += f"  external id {d.external_id}"
    if d.state == mpb.DocumentState.DOCUMENT_STATE_INGESTING:
        line += f"  (job {d.ingestion_job_id})"
    return line.rstrip()


def _job_line(j: mpb.IngestionJob) -> str:
    state = mpb.IngestionJobState.Name(j.state).removeprefix("INGESTION_JOB_STATE_")
    line = f"{j.job_id}  {state}  {j.chunks_done}/{j.chunks_total} chunks  {j.document_id}"
    if j.name:
        line += f"  {j.name}"
    if j.error:
        line += f"  {j.error_reason}: {j.error}"
    return line


async def run_kb(client: AgentClient, args: argparse.Namespace) -> int:
    if args.verb == "create":
        made = await client.create_knowledge_base(args.knowledge_base_id, args.name)
        print(as_json(made) if args.json else made.knowledge_base_id)
    elif args.verb == "list":
        token, shown = "", 0
        for _ in range(MAX_PAGES):
            page = await client.list_knowledge_bases(page_token=token)
            for base in page.knowledge_bases:
                print(
                    as_json(base)
                    if args.json
                    else f"{base.knowledge_base_id}  {base.display_name}".rstrip()
                )
            shown += len(page.knowledge_bases)
            token = page.next_page_token
            if not token:
                break
        _none(args, shown, "knowledge bases", "make one: agentd kb create ID")
    elif args.verb == "delete":
        gone = await client.delete_knowledge_base(args.knowledge_base_id)
        print(f"deleted {args.knowledge_base_id} ({gone} chunks)")
    elif args.verb == "add":
        return await _add(client, args)
    elif args.verb == "docs":
        token, shown = "", 0
        for _ in range(MAX_PAGES):
            docs = await client.list_documents(args.knowledge_base_id, page_token=token)
            for d in docs.documents:
                print(as_json(d) if args.json else _document_line(d))
            shown += len(docs.documents)
            token = docs.next_page_token
            if not token:
                break
        _none(args, shown, f"documents in {args.knowledge_base_id}")
    elif args.verb in ("job", "jobs"):
        return await _jobs(client, args)
    elif args.verb == "rm-doc":
        gone = await client.delete_document(args.document_id)
        print(f"deleted {args.document_id} ({gone} chunks)")
    else:
        hits = await client.search_knowledge(
            args.knowledge_base_id,
            args.query,
            top_k=args.top_k,
            score_threshold=args.threshold,
            rerank=args.rerank,
        )
        for hit in hits:
            c = hit.citation
            reranked = f"  rerank {hit.rerank_score:.4f}" if hit.HasField("rerank_score") else ""
            line = f"{c.score:.4f}{reranked}  {c.document_id}#{c.chunk_index}  {c.snippet}"
            print(as_json(hit) if args.json else line)
        if not hits and not args.json:
            print("nothing above the threshold")
    return 0


async def _jobs(client: AgentClient, args: argparse.Namespace) -> int:
    """`kb job ID` (exit 1 when it FAILED) and `kb jobs BASE`."""
    if args.verb == "job":
        found = await client.get_ingestion_job(args.job_id)
        print(as_json(found) if args.json else _job_line(found))
        return 1 if found.state == mpb.IngestionJobState.INGESTION_JOB_STATE_FAILED else 0
    token, shown = "", 0
    for _ in range(MAX_PAGES):
        listed = await client.list_ingestion_jobs(args.knowledge_base_id, page_token=token)
        for j in listed.jobs:
            print(as_json(j) if args.json else _job_line(j))
        shown += len(listed.jobs)
        token = listed.next_page_token
        if not token:
            break
    _none(args, shown, f"ingestion jobs of {args.knowledge_base_id}")
    return 0


def _none(args: argparse.Namespace, shown: int, what: str, hint: str = "") -> None:
    """For people, a listing that found nothing says so (JSON lines print nothing)."""
    if not shown and not args.json:
        print(nothing(what, hint))


async def _add(client: AgentClient, args: argparse.Namespace) -> int:
    path: Path = args.file
    media_type = (
        args.media_type
        or MEDIA_TYPES.get(path.suffix.lower())
        or (mimetypes.guess_type(path.name)[0] or "")
    )
    if not media_type:
        raise OptionError(f"say the media type of {path.name} with --media-type")
    try:
        content = await asyncio.to_thread(path.read_bytes)
    except OSError as error:
        raise OptionError(f"cannot read {path}: {error.strerror}") from None
    added = await client.add_document(
        args.knowledge_base_id,
        content,
        media_type,
        name=path.name,
        external_id=args.external_id,
        background=args.background,
    )
    print(as_json(added) if args.json else _document_line(added))
    return 0


async def run_memory(client: AgentClient, args: argparse.Namespace) -> int:
    where = f" in namespace {args.namespace!r}" if getattr(args, "namespace", "") else ""
    if args.memory_command == "list":
        token, shown = "", 0
        for _ in range(MAX_PAGES):
            page = await client.list_memories(namespace=args.namespace, page_token=token)
            for m in page.memories:
                print(as_json(m) if args.json else f"{m.memory_id}  {m.namespace}  {m.text}")
            shown += len(page.memories)
            token = page.next_page_token
            if not token:
                break
        _none(args, shown, f"memories of yours{where}")
    elif args.memory_command == "search":
        hits = await client.search_memories(args.query, namespace=args.namespace, top_k=args.top_k)
        for hit in hits:
            m = hit.memory
            print(as_json(hit) if args.json else f"{hit.score:.4f}  {m.memory_id}  {m.text}")
        _none(args, len(hits), f"memories of yours{where} near that query")
    else:
        if not args.yes and not await confirmed(FORGET_QUESTION, "agentd memory forget --yes"):
            print("kept your memories", file=sys.stderr)
            return 1
        gone = await client.forget_user()
        print(f"forgot {gone} memories")
    return 0


FORGET_QUESTION = "Delete every long-term memory of yours (all namespaces)? It cannot be undone."


async def confirmed(question: str, unasked: str) -> bool:
    """Whether the person at the terminal answers yes to `question`; OptionError without
    a terminal to ask on, saying the command that does not ask (`unasked`)."""
    if not sys.stdin.isatty():
        raise OptionError(f"no terminal to ask on whether to go ahead; to do it unasked: {unasked}")
    try:
        answer = await asyncio.to_thread(input, f"{question} [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")
