"""`agentd serve --demo` (and `make demo`): agentd with a scripted model, nothing else.

The fake OpenAI-compatible server (`agent.llm.fakes.server`) runs in the same process and
plays `DEMO_SCRIPT` for every task; state lives in a fresh temporary folder (an embedded
SQLite database and the file tools' workspace) removed on exit, so every start creates
and prints a new development API key. No network, no model, no Redis or PostgreSQL:
what a newcomer needs to see a streamed Execute in three commands.

Long-term memory and knowledge bases are on, their embeddings the fake server's (of the
size agentd expects). In a checkout, the model also plays the scripts of the docs'
walk-throughs (docs/examples/<name>/fake-llm.json: a team of agents delegating, an agent
searching a knowledge base), ahead of its own replies: each answers only the requests of
its walk-through's agents (`match` on their instructions), so the pages' commands run
against `make demo` as written.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from agent.llm.fakes.embeddings import DEFAULT_DIMENSIONS

DEMO_MODEL = "agentd-demo"
DEMO_WINDOW = f"{DEMO_MODEL}=32768:4096"
"""The scripted model's context window, declared as an operator declares a model the
catalog does not know (AGENTD_MODEL_WINDOWS): the demo warns of nothing it brought."""
DEMO_EMBEDDING_MODEL = "agentd-demo-embedding"
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
"""The docs' examples, in a checkout (an installed agentd has none: its demo plays only
DEMO_SCRIPT)."""
WALKTHROUGHS = ("teams", "knowledge")
"""The walk-throughs whose scripts the demo plays: docs/teams.md, docs/memory-and-knowledge.md."""
ANSWER = "6 times 7 is 42. (Every task gets this answer: it comes from agentd's demo script.)"
ACCEPT = {
    "accuracy": 0.9,
    "completeness": 0.9,
    "relevance": 0.9,
    "logic": 0.9,
    "decision": "accept",
    "step_id": "",
    "feedback": "",
}
PLAN_STEPS = [
    {
        "id": "s1",
        "description": "compute 6*7",
        "tool": "calculator",
        "arguments": {"expression": "6*7"},
    },
    {"id": "s2", "description": "say what the number is", "depends_on": ["s1"]},
]
DEMO_SCRIPT: dict[str, Any] = {
    "cycle": True,
    "roles": {
        "planner": [{"json": {"steps": PLAN_STEPS}}],
        "critic": [{"json": ACCEPT}],
        "synthesizer": [{"text": ANSWER, "chunks": 4}],
        "summarizer": [{"text": "The user asked a question; the demo answered 6*7 = 42."}],
    },
    "replies": [
        {"match": "Your step:", "text": "The number is 42.", "repeat": -1},  # a plan's step
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}]},
        {"text": ANSWER, "chunks": 4},
    ],
}
"""Every task: a call of the calculator (6*7), then a streamed answer; plans, critiques
and syntheses for plan-and-execute too. It cycles, so it never runs out."""


def demo_script(examples: Path = EXAMPLES) -> dict[str, Any]:
    """DEMO_SCRIPT, the replies of the walk-throughs' scripts found under `examples` ahead
    of its own (ValueError, naming the file, for one that is not a script of replies)."""
    replies: list[Any] = []
    for name in WALKTHROUGHS:
        path = examples / name / "fake-llm.json"
        if not path.is_file():
            continue
        script = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(script, dict) or not isinstance(script.get("replies"), list):
            raise ValueError(f"{path}: the demo plays a script's `replies` list")
        replies += script["replies"]
    return {**DEMO_SCRIPT, "replies": [*replies, *DEMO_SCRIPT["replies"]]}


def demo_overrides(folder: Path, base_url: str) -> dict[str, Any]:
    """Settings of the demo server: the scripted model, state in `folder`, auth on with a
    development key printed at start-up (whatever AGENTD_* says for these)."""
    return {
        "llm_base_url": base_url,
        "llm_model": DEMO_MODEL,
        "model_windows": [DEMO_WINDOW],
        "llm_api_key": None,
        "database_url": f"sqlite+aiosqlite:///{folder / 'agentd.db'}",
        "redis_url": None,
        "workspace_dir": folder / "workspace",
        "auth": "on",
        "development_key": True,
        "metrics_address": "",
        "embedding_model": DEMO_EMBEDDING_MODEL,
        "embedding_base_url": None,
        "embedding_api_key": None,
        "embedding_dimensions": DEFAULT_DIMENSIONS,
        "embedding_send_dimensions": False,
        # the fake embeddings score a question and its answer about 0.2-0.4 (a real
        # model's are what the default of 0.7 is for): here the ranking decides
        "knowledge_score_threshold": 0.0,
    }


def banner(folder: Path) -> str:
    return (
        "agentd demo: a scripted model answers every task (a calculator call, then a "
        f"streamed answer); no network. State in {folder}, removed on exit. In another "
        "terminal, export the key printed below, then run:\n"
        '  .venv/bin/agentd exec "what is 6*7?" --follow\n'
        "Walk-throughs against this server: agents working together (docs/teams.md), a "
        "knowledge base and cited answers (docs/memory-and-knowledge.md)."
    )


async def serve_demo(overrides: dict[str, Any]) -> None:
    """Run the demo until SIGTERM or SIGINT (see `server.app.serve`)."""
    from agent.llm.fakes.script import Script
    from agent.llm.fakes.server import FakeOpenAIServer
    from server.app import serve
    from server.settings import Settings

    folder = Path(tempfile.mkdtemp(prefix="agentd-demo-"))
    try:
        script = Script.parse(demo_script())
        async with FakeOpenAIServer(
            script, model=DEMO_MODEL, embedding_dimensions=DEFAULT_DIMENSIONS
        ) as model:
            settings = Settings(**{**overrides, **demo_overrides(folder, model.base_url)})
            print(banner(folder), flush=True)
            await serve(settings)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
