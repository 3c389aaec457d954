"""The role table (`core.roles`): built from the settings in one place, it maps every
guarded action; `require` raises the RoleRequiredError the hand-written checks raised;
and no other product module raises that error or compares role sets itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core.errors import RoleRequiredError
from core.roles import DEFAULT_ROLES, Action, RoleTable
from server.settings import Settings
from server.wiring.builders import engine_config
from server.wiring.role_table import role_table

ROOT = Path(__file__).resolve().parents[3]
PRODUCT = ("agent", "audit", "auth", "clients", "core", "server", "stores", "tools")
"""Product packages (generated code and the Python client lie outside them)."""
TABLE_MODULE = Path("core/roles.py")


def test_the_table_of_the_default_settings_maps_every_action() -> None:
    table = role_table(Settings())
    assert [action for action, _ in table.items()] == list(Action)
    assert all(roles for _, roles in table.items()), "an action no role may take"
    assert table == DEFAULT_ROLES
    assert table.roles(Action.APPROVE_TOOL_CALLS) == ("approver", "admin")
    assert table.roles(Action.READ_AUDIT_LOG) == ("auditor", "admin")
    assert table.roles(Action.ACT_FOR_END_USERS) == ("gateway",)
    assert table.roles(Action.READ_ACTION_HISTORY) == ("approver", "admin", "auditor")
    assert table.roles(Action.MANAGE_EVALS) == ("operator", "admin")
    assert table.roles(Action.READ_EVALS) == ("operator", "admin", "auditor")


def test_each_setting_gives_the_roles_of_its_actions() -> None:
    settings = Settings(
        approver_roles="boss",
        auditor_roles="clerk",
        grant_admin_roles="granter",
        agent_admin_roles="builder",
        knowledge_admin_roles="librarian",
        memory_shared_read_roles="reader",
        memory_shared_write_roles="writer",
        gateway_roles="front",
        budget_admin_roles="treasurer",
        webhook_admin_roles="hooker",
        eval_admin_roles="evaluator",
        trigger_admin_roles="dispatcher",
        schedule_admin_roles="timekeeper",
    )
    table = role_table(settings)
    expected = {
        Action.APPROVE_TOOL_CALLS: ("boss",),
        Action.ANSWER_ANOTHERS_TASK: ("boss",),
        Action.RESUME_ANOTHERS_TASK: ("boss",),
        Action.USE_ANOTHERS_CONVERSATION: ("boss",),
        Action.MANAGE_AGENTS: ("builder",),
        Action.MANAGE_GRANTS: ("granter",),
        Action.READ_AUDIT_LOG: ("clerk",),
        Action.MANAGE_KNOWLEDGE_BASES: ("librarian",),
        Action.ADD_KNOWLEDGE_DOCUMENTS: ("librarian",),
        Action.DELETE_KNOWLEDGE_DOCUMENTS: ("librarian",),
        Action.READ_INGESTION_JOBS: ("librarian",),
        Action.READ_SHARED_MEMORY: ("reader", "writer"),
        Action.WRITE_SHARED_MEMORY: ("writer",),
        Action.ACT_FOR_END_USERS: ("front",),
        Action.MANAGE_BUDGETS: ("treasurer",),
        Action.READ_USAGE: ("clerk",),
        Action.MANAGE_WEBHOOKS: ("hooker",),
        Action.READ_ACTION_HISTORY: ("boss", "clerk"),
        Action.MANAGE_EVALS: ("evaluator",),
        Action.READ_EVALS: ("evaluator", "clerk"),
        Action.MANAGE_TRIGGERS: ("dispatcher",),
        Action.MANAGE_SCHEDULES: ("timekeeper",),
    }
    assert dict(table.items()) == expected
    # the engine (ApproveToolCall, ProvideInput, ResumeTask) gets the same table
    assert engine_config(settings).roles == table


def test_require_raises_the_error_the_hand_written_check_raised() -> None:
    before = RoleRequiredError("managing grants", ("admin",))
    with pytest.raises(RoleRequiredError) as raised:
        DEFAULT_ROLES.require(("approver", "auditor"), Action.MANAGE_GRANTS)
    assert str(raised.value) == str(before) == "managing grants needs one of the roles: admin"
    assert raised.value.reason == before.reason == "PERMISSION_DENIED"
    assert raised.value.metadata == before.metadata == {"roles": "admin"}
    DEFAULT_ROLES.require(("admin",), Action.MANAGE_GRANTS)  # no error


def test_a_subject_follows_the_words_of_the_action() -> None:
    with pytest.raises(RoleRequiredError) as raised:
        DEFAULT_ROLES.require((), Action.READ_SHARED_MEMORY, "shared:faq")
    assert str(raised.value) == (
        "reading the shared memory namespace shared:faq needs one of the roles: admin"
    )  # the read roles and the write roles, each said once
    assert raised.value.metadata == {"roles": "admin"}


def test_allows_and_with_roles() -> None:
    table = DEFAULT_ROLES.with_roles({Action.READ_AUDIT_LOG: ["clerk"]})
    assert table.allows(["clerk"], Action.READ_AUDIT_LOG)
    assert not table.allows(["auditor", "admin"], Action.READ_AUDIT_LOG)
    assert table.allows(["admin"], Action.MANAGE_GRANTS)  # the others keep theirs
    assert not table.allows([], Action.MANAGE_GRANTS)
    assert DEFAULT_ROLES.allows(["auditor"], Action.READ_AUDIT_LOG)  # unchanged


def test_a_table_must_map_every_action() -> None:
    with pytest.raises(ValueError, match="does not map MANAGE_AGENTS"):
        RoleTable.of({a: ("admin",) for a in Action if a is not Action.MANAGE_AGENTS})


def _product_modules() -> list[Path]:
    found: list[Path] = []
    for package in PRODUCT:
        found += [p for p in (ROOT / package).rglob("*.py") if "python/agentd" not in str(p)]
    return sorted(found)


def _names_roles(node: ast.AST) -> bool:
    return any(
        "role" in (n.id if isinstance(n, ast.Name) else n.attr).lower()
        for n in ast.walk(node)
        if isinstance(n, ast.Name | ast.Attribute)
    )


def _makes_set(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("set", "frozenset")
    )


def _hand_written_checks(tree: ast.AST) -> list[int]:
    """Lines that raise RoleRequiredError or intersect a caller's roles with a power's
    (`set(a.roles) & set(b)`, `.isdisjoint`, `.intersection`, `.issubset` on roles)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            called = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = called.id if isinstance(called, ast.Name) else getattr(called, "attr", "")
            if name == "RoleRequiredError":
                lines.append(node.lineno)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
            if any(map(_makes_set, (node.left, node.right))) and _names_roles(node):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            sets = ("isdisjoint", "intersection", "issubset", "issuperset")
            if node.func.attr in sets and _names_roles(node):
                lines.append(node.lineno)
    return lines


def test_no_module_but_the_table_checks_roles_by_hand() -> None:
    modules = _product_modules()
    assert len(modules) > 100
    assert ROOT / TABLE_MODULE in modules
    found = {
        str(path.relative_to(ROOT)): lines
        for path in modules
        if path.relative_to(ROOT) != TABLE_MODULE
        and (lines := _hand_written_checks(ast.parse(path.read_text(), str(path))))
    }
    assert found == {}, "role checks belong in core/roles.py (RoleTable.require / allows)"


def test_the_check_finds_a_hand_written_check() -> None:
    source = """
def check(principal, roles):
    if not set(principal.roles) & set(roles):
        raise RoleRequiredError("managing grants", roles)
"""
    assert sorted(_hand_written_checks(ast.parse(source))) == [3, 4]


def test_docs_security_shows_the_table_of_the_default_settings() -> None:
    rows = {}
    for line in (ROOT / "docs/security.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| `") and cells[0].strip("`") in Action.__members__:
            rows[Action[cells[0].strip("`")]] = cells
    assert list(rows) == list(Action)
    for action, cells in rows.items():
        assert cells[1].removesuffix(" `<name>`") == action.words
        assert cells[3] == f"`{','.join(DEFAULT_ROLES.roles(action))}`"
