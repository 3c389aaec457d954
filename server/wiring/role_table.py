"""The one place the settings become the role table (`core.roles`): which setting gives
the roles of each guarded action."""

from __future__ import annotations

from core.roles import Action, RoleTable
from server.settings import Settings


def role_table(settings: Settings) -> RoleTable:
    """Action -> roles, from the AGENTD_*_ROLES settings (docs/security.md has the table)."""
    approvers = settings.approver_roles
    knowledge_admins = settings.knowledge_admin_roles
    return RoleTable.of(
        {
            Action.APPROVE_TOOL_CALLS: approvers,
            Action.ANSWER_ANOTHERS_TASK: approvers,
            Action.RESUME_ANOTHERS_TASK: approvers,
            Action.USE_ANOTHERS_CONVERSATION: approvers,
            Action.MANAGE_AGENTS: settings.agent_admin_roles,
            Action.MANAGE_GRANTS: settings.grant_admin_roles,
            Action.READ_AUDIT_LOG: settings.auditor_roles,
            Action.MANAGE_KNOWLEDGE_BASES: knowledge_admins,
            Action.ADD_KNOWLEDGE_DOCUMENTS: knowledge_admins,
            Action.DELETE_KNOWLEDGE_DOCUMENTS: knowledge_admins,
            Action.READ_INGESTION_JOBS: knowledge_admins,
            # whoever may write a shared namespace may read it too
            Action.READ_SHARED_MEMORY: tuple(  # a writer may read; each role said once
                dict.fromkeys(
                    (*settings.memory_shared_read_roles, *settings.memory_shared_write_roles)
                )
            ),
            Action.WRITE_SHARED_MEMORY: settings.memory_shared_write_roles,
            Action.ACT_FOR_END_USERS: settings.gateway_roles,
            Action.MANAGE_BUDGETS: settings.budget_admin_roles,
            Action.READ_USAGE: settings.auditor_roles,
            Action.MANAGE_WEBHOOKS: settings.webhook_admin_roles,
            # whoever decides on waits may read what became of them, and so may auditors
            Action.READ_ACTION_HISTORY: tuple(dict.fromkeys((*approvers, *settings.auditor_roles))),
            Action.MANAGE_EVALS: settings.eval_admin_roles,
            Action.MANAGE_SCHEDULES: settings.schedule_admin_roles,
            # whoever runs evaluations may read them, and so may auditors
            Action.READ_EVALS: tuple(
                dict.fromkeys((*settings.eval_admin_roles, *settings.auditor_roles))
            ),
            Action.MANAGE_TRIGGERS: settings.trigger_admin_roles,
        }
    )
