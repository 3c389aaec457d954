"""The one error hierarchy of agentd, in modules by concern (`base`, `tools`, `tasks`,
`agents`, `conversations`, `artifacts`, `usage`); import every class from `core.errors`.

Every failure reported to a caller is an `AgentdError`. Each class carries a
`reason` (an `agentd.v1.ErrorReason` name without its prefix) and typed
attributes; its message is built from them. The transport maps classes to
gRPC status codes in one table (`server/status.py`), looked up along the MRO,
so a subclass never falls through to UNKNOWN.

Control-flow signals of tools (a tool reporting "failed, tell the model") are
not errors of this tree; see `records.tools.outcomes`.
"""

from core.errors.agents import (
    AgentExistsError,
    AgentLimitError,
    AgentNotFoundError,
)
from core.errors.artifacts import (
    ArtifactNotFoundError,
    ArtifactTooLargeError,
    InputPartUnavailableError,
)
from core.errors.base import (
    MAX_VIOLATIONS,
    AgentdError,
    DeadlineExceededError,
    FieldViolation,
    IdempotencyConflictError,
    InternalError,
    InvalidArgumentError,
    RateLimitedError,
    RequestTooLargeError,
    ResourceExhaustedError,
    RoleRequiredError,
    ShuttingDownError,
    StoreUnavailableError,
    StoreUnreachableError,
    UnauthenticatedError,
    UnimplementedError,
)
from core.errors.conversations import (
    ConversationBusyError,
    ConversationLineFullError,
    ConversationNotFoundError,
    FollowUpQueuedError,
)
from core.errors.evals import (
    DatasetNotFoundError,
    EvalRunNotFoundError,
    PromotionRefusedError,
    TraceNotFoundError,
)
from core.errors.knowledge import (
    DocumentGoneError,
    EmbeddingModelChangedError,
    EmbeddingsUnavailableError,
    KnowledgeBaseExistsError,
    MemoryNotFoundError,
    MemoryUnavailableError,
)
from core.errors.schedules import (
    BodyNotTextError,
    EtagMismatchError,
    PrincipalStandingError,
    ScheduleNotActiveError,
    ScheduleNotFoundError,
    TriggerNotFoundError,
    TriggerSignatureError,
)
from core.errors.secrets import KeyRequiredError, SecretUnreadableError, WebhookNotFoundError
from core.errors.tasks import (
    ContextTooLongError,
    EventsExpiredError,
    LLMNotConfiguredError,
    LLMUnavailableError,
    PlanInvalidError,
    TaskAlreadyTerminalError,
    TaskNotFoundError,
    TaskNotResumableError,
)
from core.errors.tools import (
    ApprovalNotPendingError,
    DestinationNotAllowedError,
    GrantAboveLimitError,
    GrantNotFoundError,
    GuardrailBlockedError,
    PathOutsideWorkspaceError,
    PermissionDeniedError,
    ToolArgumentsInvalidError,
    ToolNotFoundError,
    ToolUnavailableError,
)
from core.errors.usage import BudgetExhaustedError, BudgetExistsError, BudgetNotFoundError

__all__ = [
    "MAX_VIOLATIONS",
    "AgentExistsError",
    "AgentLimitError",
    "AgentNotFoundError",
    "AgentdError",
    "ApprovalNotPendingError",
    "ArtifactNotFoundError",
    "ArtifactTooLargeError",
    "BodyNotTextError",
    "BudgetExhaustedError",
    "BudgetExistsError",
    "BudgetNotFoundError",
    "ContextTooLongError",
    "ConversationBusyError",
    "ConversationLineFullError",
    "ConversationNotFoundError",
    "DatasetNotFoundError",
    "DeadlineExceededError",
    "DestinationNotAllowedError",
    "DocumentGoneError",
    "EmbeddingModelChangedError",
    "EmbeddingsUnavailableError",
    "EtagMismatchError",
    "EvalRunNotFoundError",
    "EventsExpiredError",
    "FieldViolation",
    "FollowUpQueuedError",
    "GrantAboveLimitError",
    "GrantNotFoundError",
    "GuardrailBlockedError",
    "IdempotencyConflictError",
    "InputPartUnavailableError",
    "InternalError",
    "InvalidArgumentError",
    "KeyRequiredError",
    "KnowledgeBaseExistsError",
    "LLMNotConfiguredError",
    "LLMUnavailableError",
    "MemoryNotFoundError",
    "MemoryUnavailableError",
    "PathOutsideWorkspaceError",
    "PermissionDeniedError",
    "PlanInvalidError",
    "PrincipalStandingError",
    "PromotionRefusedError",
    "RateLimitedError",
    "RequestTooLargeError",
    "ResourceExhaustedError",
    "RoleRequiredError",
    "ScheduleNotActiveError",
    "ScheduleNotFoundError",
    "SecretUnreadableError",
    "ShuttingDownError",
    "StoreUnavailableError",
    "StoreUnreachableError",
    "TaskAlreadyTerminalError",
    "TaskNotFoundError",
    "TaskNotResumableError",
    "ToolArgumentsInvalidError",
    "ToolNotFoundError",
    "ToolUnavailableError",
    "TraceNotFoundError",
    "TriggerNotFoundError",
    "TriggerSignatureError",
    "UnauthenticatedError",
    "UnimplementedError",
    "WebhookNotFoundError",
]
