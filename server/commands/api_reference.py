"""docs/api.md, written from the protos (`make docs`): every RPC of every service with
what its comment in protos/agentd/v1 says, so the list cannot drift from the contract
(a test compares the two). The protos stay the reference for messages and fields. A
service agentd calls rather than serves (an operator's policy service) has a section of
its own that says so."""

from __future__ import annotations

import re
import sys
from pathlib import Path

PROTOS = Path("protos") / "agentd" / "v1"
PAGE = Path("docs") / "api.md"
SERVICE = re.compile(r"^service (\w+) \{")
RPC = re.compile(r"^\s*rpc (\w+)\((stream )?([\w.]+)\) returns \((stream )?([\w.]+)\)")
CALLED = frozenset({"PolicyService"})
"""Services of the contract that agentd calls as a client and does not serve."""
CALLED_NOTE = (
    "**agentd does not serve this service: it calls it.** An operator implements it "
    "([policy-service.md](policy-service.md)); reflection on agentd does not list it.\n\n"
)
TABLE = "| RPC | request → response | what it does |\n|---|---|---|\n"
HEADER = """# Every RPC

<!-- Written by `make docs` from protos/agentd/v1 (the comments of each rpc): do not edit. -->

The contract is [protos/agentd/v1](../protos/agentd/v1); reflection describes it to any
client (`grpcurl -plaintext 127.0.0.1:50051 describe agentd.v1.AgentService`). Errors and
their reasons: [gateways.md](gateways.md#errors). `stream` marks a server stream.
"""


def _rpcs(text: str) -> list[tuple[str, str, list[tuple[str, str, str, str]]]]:
    """(file's service, its comment, [(rpc, request, response, comment)]) per service."""
    services: list[tuple[str, str, list[tuple[str, str, str, str]]]] = []
    comment: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        service = SERVICE.match(line)
        rpc = RPC.match(line)
        if stripped.startswith("//"):
            comment.append(stripped.removeprefix("//").strip())
            continue
        if service:
            services.append((service.group(1), " ".join(comment), []))
        elif rpc and services:
            request = ("stream " if rpc.group(2) else "") + rpc.group(3)
            response = ("stream " if rpc.group(4) else "") + rpc.group(5)
            services[-1][2].append((rpc.group(1), request, response, " ".join(comment)))
        comment = []
    return services


def render(protos: Path = PROTOS) -> str:
    parts = [HEADER]
    for path in sorted(protos.glob("*.proto")):
        for service, about, rpcs in _rpcs(path.read_text()):
            called = service in CALLED
            parts.append(f"\n## {service}{' (agentd calls it)' if called else ''}\n\n")
            if called:
                parts.append(CALLED_NOTE)
            if about:
                parts.append(f"{about}\n\n")
            parts.append(f"Defined in `{(PROTOS / path.name).as_posix()}`.\n\n{TABLE}")
            for name, request, response, text in rpcs:
                cell = text.replace("|", "\\|")
                parts.append(f"| `{name}` | `{request}` → `{response}` | {cell} |\n")
    return "".join(parts)


def main() -> int:
    PAGE.write_text(render())
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
