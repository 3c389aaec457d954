"""End users behind a gateway: a trusted gateway says whom it calls for.

A gateway serving many users holds one credential. When its principal holds a
gateway role (`AGENTD_GATEWAY_ROLES`, default `gateway`), it may name the end
user in the `agentd-on-behalf-of` header; the call is then that user's, in the
gateway's tenant, with the gateway's roles but the gateway role itself: rate
limits count per user, tasks and `ListTasks` are the user's, audit records name
the user and, in `via`, the gateway. A caller without a gateway role that sends
the header is refused (PERMISSION_DENIED): an identity is never taken on trust
from one who may not assert it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from core.errors import FieldViolation, InvalidArgumentError
from core.identity import Principal
from core.names import identity_problem
from core.roles import DEFAULT_ROLES, Action

ON_BEHALF_OF = "agentd-on-behalf-of"


def acting_for(
    principal: Principal,
    metadata: Iterable[tuple[str, str | bytes]] | None,
    gateway_roles: Sequence[str],
) -> Principal:
    """The principal a call is made for: `principal` itself, or the end user its
    gateway names."""
    named = [value for key, value in metadata or () if key == ON_BEHALF_OF]
    if not named:
        return principal
    act_for = Action.ACT_FOR_END_USERS
    DEFAULT_ROLES.with_roles({act_for: gateway_roles}).require(principal.roles, act_for)
    user = named[0]
    problem = "is given more than once" if len(named) > 1 else identity_problem(user)
    if problem is not None:
        raise InvalidArgumentError([FieldViolation(f"header {ON_BEHALF_OF}", problem)])
    assert isinstance(user, str)
    roles = tuple(role for role in principal.roles if role not in gateway_roles)
    return Principal(user, principal.tenant, roles, via=principal.id)
