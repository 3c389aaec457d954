"""The architecture the README and docs/architecture.md draw is the tree's: every folder
and module they name exists, every package of the product code is named, and the order
of the layers and of the server's floors they state is the one `make lint` checks."""

from __future__ import annotations

import re
import tomllib

from tests.helpers import ROOT

LAYERS = ("server", "agent", "auth", "audit", "tools", "stores", "records", "core")
BLOCK = re.compile(r"```\n(.*?)```", re.S)
NAME = re.compile(r"(?<![\w./`-])([a-z_][a-z0-9_]*(?:/(?!\w)|\.py))")


def _blocks(page: str, heading: str) -> str:
    text = (ROOT / page).read_text()
    section = text[text.index(heading) :]
    return "\n".join(BLOCK.findall(section.split("\n## ", 1)[0]))


def _named(block: str) -> dict[str, set[str]]:
    """Names in each layer's lines of a tree block: `layer/  ...names...`."""
    named: dict[str, set[str]] = {}
    layer = ""
    for line in block.splitlines():
        head = line.split(maxsplit=1)[0] if line and not line[0].isspace() else ""
        if head.rstrip("/") in LAYERS:
            layer = head.rstrip("/")
        if layer:
            named.setdefault(layer, set()).update(NAME.findall(line[len(head) :]))
    return named


def _packages(layer: str) -> set[str]:
    return {
        f"{path.parent.name}/"
        for path in (ROOT / layer).glob("*/__init__.py")
        if path.parent.name != "__pycache__"
    }


def test_every_folder_and_module_the_architecture_page_names_exists() -> None:
    named = _named(_blocks("docs/architecture.md", "Inside them:"))
    assert set(named) >= {"server", "agent", "tools", "stores", "records"}
    missing = []
    for layer, names in named.items():
        for name in names:
            if not any((ROOT / layer).rglob(name.rstrip("/"))):
                missing.append(f"{layer}: {name}")
    assert missing == []


def test_every_subpackage_of_the_engine_server_and_tools_is_on_both_pages() -> None:
    pages = (("docs/architecture.md", "Inside them:"), ("README.md", "## Architecture"))
    for page, heading in pages:
        named = _named(_blocks(page, heading))
        for layer in ("server", "agent", "tools"):
            absent = _packages(layer) - named.get(layer, set()) - named.get("agent", set())
            assert absent == set(), f"{page} does not name {layer}'s {sorted(absent)}"


def _all_blocks(page: str, heading: str) -> list[str]:
    text = (ROOT / page).read_text()
    section = text[text.index(heading) :]
    return list(BLOCK.findall(section.split("\n## ", 1)[0]))


def test_the_readme_names_every_layer_in_the_order_make_lint_checks() -> None:
    block = _all_blocks("README.md", "## Architecture")[0]
    heads = [
        part.rstrip("/")
        for line in block.splitlines()
        if line and not line[0].isspace()
        for part in line.split("  ")[0].split(" · ")
    ]
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    order = [name.strip() for layer in contract["layers"] for name in layer.split("|")]
    assert heads == order


def _contract(container: str | None) -> list[list[str]]:
    """The layers of the `layers` contract over `container` (None: the house's), each a
    list of the names side by side on it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = next(
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["type"] == "layers" and c.get("containers", [None]) == [container]
    )
    return [[name.strip() for name in layer.split("|")] for layer in contract["layers"]]


def test_the_readme_draws_the_servers_floors_in_the_order_make_lint_checks() -> None:
    text = " ".join((ROOT / "README.md").read_text().split())
    drawn = text[text.index("Inside `server/`") :].split("top to bottom: ", 1)[1]
    drawn = drawn.split(". ", 1)[0]
    floors = [[name.strip() for name in floor.split("·")] for floor in drawn.split("→")]
    assert floors == _contract("server")


def test_the_readme_draws_the_engines_floors_in_the_order_make_lint_checks() -> None:
    """The second drawing of the README's architecture: each floor of `agent/` on a line
    of its own (names side by side joined by ` · `), a line that goes on indented."""
    block = _all_blocks("README.md", "## Architecture")[1]
    floors = [
        [name.strip() for name in line.split("  ")[0].split(" · ")]
        for line in block.splitlines()
        if line and not line[0].isspace()
    ]
    assert floors == _contract("agent")
