"""Conversion of audit queries and records (RPCs, tool calls, guardrail decisions) between
protobuf and their records."""

from __future__ import annotations

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import audit_pb2
from audit.service import AuditPage
from core.errors import FieldViolation, InvalidArgumentError
from records.audit import RpcRecord
from records.guardrails.events import GuardrailRecord
from records.tools.audit import ToolCallRecord
from server.convert import pages
from server.convert.tasks import dict_to_struct, timestamp_from_proto, to_duration, to_timestamp
from stores.audit.base import AuditKind, AuditQuery

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
MAX_FILTER_LENGTH = 256
_KINDS: dict[int, AuditKind] = {
    audit_pb2.AUDIT_KIND_RPC: "rpc",
    audit_pb2.AUDIT_KIND_TOOL_CALL: "tool_call",
    audit_pb2.AUDIT_KIND_GUARDRAIL: "guardrail",
}


def audit_query(request: pb.ListAuditRecordsRequest, tenant: str) -> AuditQuery:
    kind = _KINDS.get(request.kind)
    violations = []
    if kind is None:
        violations.append(
            FieldViolation(
                "kind", "must be AUDIT_KIND_RPC, AUDIT_KIND_TOOL_CALL or AUDIT_KIND_GUARDRAIL"
            )
        )
    for name in ("principal_id", "tool_name", "outcome", "task_id", "check"):
        if len(getattr(request, name)) > MAX_FILTER_LENGTH:
            violations.append(FieldViolation(name, f"is longer than {MAX_FILTER_LENGTH}"))
    if violations:
        raise InvalidArgumentError(violations)
    assert kind is not None
    return AuditQuery(
        tenant=tenant,
        kind=kind,
        principal_id=request.principal_id,
        tool_name=request.tool_name,
        outcome=request.outcome,
        task_id=request.task_id,
        check=request.check,
        since=timestamp_from_proto(request.since, "since") if request.HasField("since") else None,
        until=timestamp_from_proto(request.until, "until") if request.HasField("until") else None,
        limit=pages.page_size(request.page_size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE),
        after=pages.position_cursor(request.page_token),
    )


def rpc_record_to_proto(record: RpcRecord) -> audit_pb2.AuditRecord:
    return audit_pb2.AuditRecord(
        rpc=audit_pb2.RpcAuditRecord(
            time=to_timestamp(record.time),
            principal_id=record.principal_id,
            tenant=record.tenant,
            method=record.method,
            code=record.code,
            duration=to_duration(record.duration_seconds),
            trace_id=record.trace_id,
            request_digest=record.request_digest,
            task_id=record.task_id,
            via=record.via,
        )
    )


def tool_record_to_proto(record: ToolCallRecord) -> audit_pb2.AuditRecord:
    return audit_pb2.AuditRecord(
        tool_call=audit_pb2.ToolCallAuditRecord(
            call_id=record.call_id,
            time=to_timestamp(record.time),
            principal_id=record.principal_id,
            tenant=record.tenant,
            trace_id=record.trace_id,
            tool_name=record.tool_name,
            arguments=dict_to_struct(dict(record.arguments)),
            decision=record.decision,
            rule=record.rule,
            outcome=record.outcome,
            result_digest=record.result_digest,
            duration=to_duration(record.duration_seconds),
            task_id=record.task_id,
            approval=record.approval,
            approved_by=record.approved_by,
            approval_comment=record.approval_comment,
            attempt=record.attempt,
            cached=record.cached,
            parent_task_id=record.parent_task_id,
            root_task_id=record.root_task_id,
        )
    )


def guardrail_record_to_proto(record: GuardrailRecord) -> audit_pb2.AuditRecord:
    return audit_pb2.AuditRecord(
        guardrail=audit_pb2.GuardrailAuditRecord(
            time=to_timestamp(record.time),
            principal_id=record.principal_id,
            tenant=record.tenant,
            trace_id=record.trace_id,
            task_id=record.task_id,
            agent=record.agent,
            check=record.check,
            rule=record.rule,
            point=record.point,
            action=record.action,
            reason=record.reason,
            text_digest=record.text_digest,
            tool_name=record.tool_name,
            call_id=record.call_id,
        )
    )


def _record_to_proto(record: RpcRecord | ToolCallRecord | GuardrailRecord) -> audit_pb2.AuditRecord:
    if isinstance(record, RpcRecord):
        return rpc_record_to_proto(record)
    if isinstance(record, GuardrailRecord):
        return guardrail_record_to_proto(record)
    return tool_record_to_proto(record)


def audit_page(page: AuditPage) -> pb.ListAuditRecordsResponse:
    records = [_record_to_proto(r) for r in page.items]
    return pb.ListAuditRecordsResponse(records=records, next_page_token=pages.token(page.next))
