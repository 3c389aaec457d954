"""Who reads the inbox's history (`server.services.action_history`): a task's owner its own
task's and its own tree's; a holder of a role that reads it (the approvers and the
auditors of the role table) any task's and the whole tenant's; nobody another tenant's
(NOT_FOUND, as an unknown task). The caller's tenant is the query's, whatever it said."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.errors import RoleRequiredError, TaskNotFoundError
from core.identity import Principal
from core.roles import DEFAULT_ROLES, Action
from records.inbox.history import HistoryQuery, entry_of
from records.inbox.steps import ActionStep, ActionStepKind
from records.tasks import Task
from records.waits import Wait, WaitKind
from server.services.action_history import ActionHistory
from stores.action_history.memory import InMemoryActionHistory

NOW = datetime(2026, 12, 9, 9, 0, tzinfo=UTC)
TASKS = {  # task id: (tenant, owner, root)
    "lead": ("acme", "alice", "lead"),
    "child": ("acme", "alice", "lead"),
    "bobs": ("acme", "bob", "bobs"),
    "theirs": ("globex", "gina", "theirs"),
}
TABLE = DEFAULT_ROLES.with_roles({Action.READ_ACTION_HISTORY: ("finance", "clerk")})
ALICE = Principal("alice", "acme")
BOB = Principal("bob", "acme", ("approver",))  # an approver, but not in this table's row
FAY = Principal("fay", "acme", ("finance",))
CLERK = Principal("cleo", "acme", ("clerk",))
GINA = Principal("gina", "globex", ("clerk",))


async def find(tenant: str, task_id: str) -> Task:
    found = TASKS.get(task_id)
    if found is None or found[0] != tenant:
        raise TaskNotFoundError(task_id)
    return Task(task_id=task_id, tenant=tenant, owner=found[1], goal="g", root_task_id=found[2])


@pytest.fixture
async def history() -> ActionHistory:
    store = InMemoryActionHistory()
    for n, (task_id, (tenant, owner, root)) in enumerate(TASKS.items()):
        wait = Wait(tenant, task_id, f"c{n}", WaitKind.APPROVAL, NOW, root, owner=owner)
        at = NOW + timedelta(seconds=n)
        await store.record([entry_of(ActionStep(ActionStepKind.OPENED, wait, at))])
    return ActionHistory(store, find, TABLE)


async def tasks_of(
    history: ActionHistory, caller: Principal, task_id: str = "", root_task_id: str = ""
) -> list[str]:
    query = HistoryQuery(tenant="someone else's", task_id=task_id, root_task_id=root_task_id)
    page = await history.page(caller, query)
    return [e.task_id for e in page.items]


async def test_an_owner_reads_its_own_task_and_tree(history: ActionHistory) -> None:
    assert await tasks_of(history, ALICE, task_id="child") == ["child"]
    assert await tasks_of(history, ALICE, root_task_id="lead") == ["lead", "child"]
    assert await tasks_of(history, ALICE, task_id="child", root_task_id="lead") == ["child"]


async def test_an_owner_reads_no_other_principal_s_task_nor_every_task(
    history: ActionHistory,
) -> None:
    with pytest.raises(RoleRequiredError, match="of another principal's task") as refused:
        await tasks_of(history, ALICE, task_id="bobs")
    assert refused.value.metadata == {"roles": "finance,clerk"}
    with pytest.raises(RoleRequiredError, match="of another principal's task"):
        await tasks_of(history, ALICE, task_id="child", root_task_id="bobs")
    with pytest.raises(RoleRequiredError, match="reading the inbox's history of every task"):
        await tasks_of(history, ALICE)
    with pytest.raises(RoleRequiredError):  # a role the table does not give this power
        await tasks_of(history, BOB)
    assert await tasks_of(history, BOB, task_id="bobs") == ["bobs"]  # its own


@pytest.mark.parametrize("caller", [FAY, CLERK])
async def test_the_table_s_roles_read_any_task_and_the_tenant(
    history: ActionHistory, caller: Principal
) -> None:
    assert await tasks_of(history, caller) == ["lead", "child", "bobs"]  # acme's only
    assert await tasks_of(history, caller, task_id="bobs") == ["bobs"]
    assert await tasks_of(history, caller, root_task_id="lead") == ["lead", "child"]


async def test_another_tenant_s_task_is_not_found_for_anyone(history: ActionHistory) -> None:
    for caller in (ALICE, FAY, CLERK):
        with pytest.raises(TaskNotFoundError):
            await tasks_of(history, caller, task_id="theirs")
        with pytest.raises(TaskNotFoundError):
            await tasks_of(history, caller, root_task_id="theirs")
    with pytest.raises(TaskNotFoundError):
        await tasks_of(history, GINA, task_id="lead")
    assert await tasks_of(history, GINA) == ["theirs"]
