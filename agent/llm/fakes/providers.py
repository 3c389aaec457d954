"""Several providers from one `agentd fake-llm`: `--provider NAME=SCRIPT[@PORT]`, repeated.

Each provider is a fake model server of its own (its own script, its own port; port 0 or
none: any free one) in the same process as the main one, so a test of agentd's named
providers, fallback chains and breakers (docs/models.md) points each provider of its
providers file at one of them. Each announces itself with a line of its own:
`provider backup: fake OpenAI-compatible server on http://127.0.0.1:8090/v1 playing ...`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.llm.fakes.script import Script


@dataclass(frozen=True, slots=True)
class FakeProvider:
    name: str
    script: Script
    source: str
    port: int = 0


def parse_provider(spec: str) -> FakeProvider:
    """`NAME=SCRIPT[@PORT]`; ValueError saying what is wrong (a script that cannot be read
    or played included)."""
    name, sep, rest = spec.partition("=")
    path, at, port_text = rest.rpartition("@") if "@" in rest else (rest, "", "")
    if not sep or not name or not path:
        raise ValueError(f"--provider {spec!r}: expected NAME=SCRIPT or NAME=SCRIPT@PORT")
    if at and not port_text.isdigit():
        raise ValueError(f"--provider {spec!r}: the port is a number")
    script = Script.load(Path(path))
    return FakeProvider(name, script, Path(path).name, int(port_text) if at else 0)
