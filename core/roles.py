"""Who may do what: one table from each guarded action to the roles that may take it.

Every role check of the service goes through a `RoleTable`: `require` raises
RoleRequiredError (PERMISSION_DENIED, with the roles in its metadata) when the caller
holds none of the action's roles, `allows` only says whether it does. The server builds
its table once from the settings (`server.wiring.role_table`); `DEFAULT_ROLES` is the same
table for the default settings (what services built without settings, as in tests, use).
No other module compares a caller's roles with the roles of a power by hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType

from core.errors import RoleRequiredError


class Action(Enum):
    """An action only some roles may take; its value is the words its error begins with."""

    APPROVE_TOOL_CALLS = "approving tool calls"
    ANSWER_ANOTHERS_TASK = "answering another principal's task"
    RESUME_ANOTHERS_TASK = "resuming another principal's task"
    USE_ANOTHERS_CONVERSATION = "using another principal's conversation"
    MANAGE_AGENTS = "managing agents"
    MANAGE_GRANTS = "managing grants"
    READ_AUDIT_LOG = "reading the audit log"
    MANAGE_KNOWLEDGE_BASES = "managing knowledge bases"
    ADD_KNOWLEDGE_DOCUMENTS = "adding documents to knowledge bases"
    DELETE_KNOWLEDGE_DOCUMENTS = "deleting documents from knowledge bases"
    READ_INGESTION_JOBS = "reading ingestion jobs"
    READ_SHARED_MEMORY = "reading the shared memory namespace"
    WRITE_SHARED_MEMORY = "writing the shared memory namespace"
    ACT_FOR_END_USERS = "calling on behalf of someone (agentd-on-behalf-of)"
    MANAGE_BUDGETS = "managing budgets"
    READ_USAGE = "reading usage and statistics"
    MANAGE_WEBHOOKS = "managing webhooks"
    READ_ACTION_HISTORY = "reading the inbox's history"
    MANAGE_EVALS = "managing datasets and running evaluations"
    READ_EVALS = "reading datasets and evaluation runs"
    MANAGE_TRIGGERS = "managing inbound triggers"
    MANAGE_SCHEDULES = "managing schedules"

    @property
    def words(self) -> str:
        """What the caller was doing, as its RoleRequiredError says."""
        return self.value


@dataclass(frozen=True, slots=True, eq=False)
class RoleTable:
    """Action -> the roles that may take it (any one of them suffices); every action of
    `Action` is mapped. Build one with `RoleTable.of` or `DEFAULT_ROLES.with_roles`."""

    _roles: Mapping[Action, tuple[str, ...]]

    @classmethod
    def of(cls, roles: Mapping[Action, Sequence[str]]) -> RoleTable:
        """A table mapping exactly the actions of `roles` (ValueError if one is missing)."""
        missing = [action.name for action in Action if action not in roles]
        if missing:
            raise ValueError(f"the role table does not map {', '.join(missing)}")
        frozen = {action: tuple(roles[action]) for action in Action}
        return cls(MappingProxyType(frozen))

    def with_roles(self, roles: Mapping[Action, Sequence[str]]) -> RoleTable:
        """This table with the actions of `roles` given those roles instead."""
        return RoleTable.of({**self._roles, **roles})

    def roles(self, action: Action) -> tuple[str, ...]:
        """The roles that may take `action`, in their configured order."""
        return self._roles[action]

    def allows(self, held: Iterable[str], action: Action) -> bool:
        """Whether a caller holding the roles `held` may take `action`."""
        return not set(held).isdisjoint(self._roles[action])

    def require(self, held: Iterable[str], action: Action, subject: str = "") -> None:
        """RoleRequiredError ("<action's words>[ <subject>] needs one of the roles: …")
        unless `held` includes a role that may take `action`."""
        if not self.allows(held, action):
            words = f"{action.words} {subject}" if subject else action.words
            raise RoleRequiredError(words, self._roles[action])

    def items(self) -> tuple[tuple[Action, tuple[str, ...]], ...]:
        """Every action and its roles, in the order of `Action`."""
        return tuple((action, self._roles[action]) for action in Action)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RoleTable) and self.items() == other.items()

    def __hash__(self) -> int:
        return hash(self.items())


def require_one_of(held: Iterable[str], roles: Sequence[str], words: str) -> None:
    """RoleRequiredError ("<words> needs one of the roles: …") unless `held` includes one of
    `roles`: roles a record names rather than the table (an approval rule's)."""
    if set(held).isdisjoint(roles):
        raise RoleRequiredError(words, tuple(roles))


_APPROVERS = ("approver", "admin")
_ADMINS = ("admin",)

DEFAULT_ROLES = RoleTable.of(
    {
        Action.APPROVE_TOOL_CALLS: _APPROVERS,
        Action.ANSWER_ANOTHERS_TASK: _APPROVERS,
        Action.RESUME_ANOTHERS_TASK: _APPROVERS,
        Action.USE_ANOTHERS_CONVERSATION: _APPROVERS,
        Action.MANAGE_AGENTS: _ADMINS,
        Action.MANAGE_GRANTS: _ADMINS,
        Action.READ_AUDIT_LOG: ("auditor", "admin"),
        Action.MANAGE_KNOWLEDGE_BASES: _ADMINS,
        Action.ADD_KNOWLEDGE_DOCUMENTS: _ADMINS,
        Action.DELETE_KNOWLEDGE_DOCUMENTS: _ADMINS,
        Action.READ_INGESTION_JOBS: _ADMINS,
        # the write roles may read too: the read roles, then the write roles
        Action.READ_SHARED_MEMORY: _ADMINS,
        Action.WRITE_SHARED_MEMORY: _ADMINS,
        Action.ACT_FOR_END_USERS: ("gateway",),
        Action.MANAGE_BUDGETS: _ADMINS,
        Action.READ_USAGE: ("auditor", "admin"),
        Action.MANAGE_WEBHOOKS: _ADMINS,
        # the approvers, then the auditors (each role once)
        Action.READ_ACTION_HISTORY: ("approver", "admin", "auditor"),
        Action.MANAGE_EVALS: ("operator", "admin"),
        # the eval admins, then the auditors (each role once)
        Action.READ_EVALS: ("operator", "admin", "auditor"),
        Action.MANAGE_TRIGGERS: ("operator", "admin"),
        Action.MANAGE_SCHEDULES: ("operator", "admin"),
    }
)
"""The table the default settings give (`server.wiring.role_table.role_table`)."""
