"""Pages written from the code match it, and every link of every page leads somewhere."""

from __future__ import annotations

import os
import re
from pathlib import Path

from server.commands import api_reference
from server.commands.settings_reference import PAGE, render
from server.settings import Settings
from server.settings.environment import setting_variables
from tests.docs import examples
from tests.helpers import ROOT

LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_settings_page_is_what_make_docs_writes() -> None:
    assert (ROOT / PAGE).read_text() == render(), "docs/settings.md drifted: run `make docs`"


def test_the_rpc_page_is_what_make_docs_writes() -> None:
    page = (ROOT / api_reference.PAGE).read_text()
    assert page == api_reference.render(ROOT / api_reference.PROTOS), "run `make docs`"


def test_the_rpc_page_names_every_rpc_of_the_service() -> None:
    from agentd.v1 import agent_service_pb2

    page = (ROOT / api_reference.PAGE).read_text()
    service = agent_service_pb2.DESCRIPTOR.services_by_name["AgentService"]
    assert [m.name for m in service.methods if f"| `{m.name}` |" not in page] == []


def test_the_settings_page_names_every_variable() -> None:
    text = (ROOT / PAGE).read_text()
    assert [v for v in sorted(setting_variables(Settings)) if f"`{v}`" not in text] == []


def slug(heading: str) -> str:
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def headings(path: Path) -> set[str]:
    found: set[str] = set()
    fenced = False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            found.add(slug(line.lstrip("#")))
    return found


def test_every_link_of_every_page_leads_somewhere() -> None:
    broken: list[str] = []
    for page in examples.pages():
        for target in LINK.findall(page.read_text()):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = target.partition("#")
            destination = (page.parent / path) if path else page
            where = f"{os.path.relpath(page, ROOT)}: {target}"
            if not destination.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and destination.suffix == ".md" and anchor not in headings(destination):
                broken.append(f"{where} (no such heading)")
    assert broken == []
