"""A declared HTTP tool: one request to an internal API, made from the call's arguments.

The URL template's `{name}` placeholders take the arguments of those names (each
percent-encoded as one piece; `.` and `..` are refused; see `url_template`). The other
arguments the tool's schema declares become the query string of a GET or DELETE, and the
JSON body of a POST, PUT or PATCH; arguments it does not declare are never sent. Headers
(their secrets from the environment) come from the file. The destination rules
are those of `http_request`: the host is resolved, every address checked (public, or
in the toolset's `allowed_networks`), and the connection goes to the checked address.
Redirects are not followed. A 5xx answer, a timeout or a connection failure is a
transient failure (retried when the tool is idempotent); a 4xx is not, and a status the
file lists in `resumable_errors` is resumable. A JSON answer may be narrowed by the
tool's JMESPath expression before the model sees it. An answer in JSON lines may report
progress before it (`http_progress`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

import httpcore
import jmespath

from core.files import bare_type
from core.identity import CallContext
from records.tools.model import JSONValue, Tool, ToolFile, ToolOutput, ToolSpec
from records.tools.outcomes import ToolFailed
from tools.builtin.addresses import IPNetwork
from tools.builtin.bodies import is_binary
from tools.builtin.http import check_url, default_headers, guarded_pool, read_capped, timeouts
from tools.toolsets import http_progress, url_template
from tools.toolsets.config import HttpToolConfig, ToolsetConfig, tool_spec

USER_AGENT = "agentd/0.1 (+declared http tool)"
BODY_METHODS = ("POST", "PUT", "PATCH")
OVERSIZE = "AGENTD_TOOLSETS_MAX_RESULT_BYTES"


def spec_of(toolset: ToolsetConfig, tool: HttpToolConfig) -> ToolSpec:
    """The spec of a declared tool (the file's settings for it, then its toolset's);
    ValueError when its settings cannot go together."""
    return tool_spec(
        toolset.name,
        tool.settings.over(toolset.defaults),
        name=f"{toolset.name}.{tool.name}",
        description=tool.description or f"{tool.method} {tool.url}",
        parameters=tool.parameters,
        source="http",
    )


class HttpTool(Tool):
    """Makes the request a declared tool stands for."""

    def __init__(
        self,
        spec: ToolSpec,
        config: HttpToolConfig,
        allowed: tuple[IPNetwork, ...],
        max_response_bytes: int,
    ) -> None:
        self.spec = spec
        self._config = config
        self._allowed = allowed
        self._max_bytes = max_response_bytes
        self._result = jmespath.compile(config.result) if config.result else None

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        url, content = self._request(arguments)
        headers = {**default_headers(USER_AGENT), "accept": "application/json"}
        headers.update({k.lower(): v for k, v in self._config.headers.items()})
        if content is not None:
            headers["content-type"] = "application/json"
        timeout = timeouts(self.spec.timeout_seconds)
        async with (
            guarded_pool(self._allowed, 2) as pool,
            pool.stream(
                self._config.method,
                url,
                headers=list(headers.items()),
                content=content,
                extensions={"timeout": timeout},
            ) as response,
        ):
            if http_progress.streamed(response):  # progress lines, then the answer
                body = await http_progress.read_lines(response, self._max_bytes, OVERSIZE)
            else:
                body, _ = await read_capped(response, self._max_bytes, oversize=OVERSIZE)
            return self._output(response, body)

    def _request(self, arguments: dict[str, JSONValue]) -> tuple[str, bytes | None]:
        """The URL (template filled, query added) and the body, from the arguments; only
        arguments the tool's schema declares are sent."""
        url = url_template.fill(self._config.url, arguments)
        used = set(url_template.placeholders(self._config.url))
        rest = {k: v for k, v in arguments.items() if k not in used and self._declared(k)}
        content = None
        if self._config.method in BODY_METHODS:
            content = json.dumps(rest).encode()
        elif rest:
            pairs = [(k, url_template.scalar(v)) for k, v in rest.items() if v is not None]
            url += ("&" if "?" in url else "?") + urlencode(pairs)
        return check_url(url, "url"), content

    def _declared(self, name: str) -> bool:
        """Whether the tool's schema speaks for an argument of this name: it names it, or
        says that other arguments are welcome (`additionalProperties` other than false)."""
        schema = self._config.parameters
        properties = schema.get("properties")
        if isinstance(properties, Mapping) and name in properties:
            return True
        return schema.get("additionalProperties", False) is not False

    def _output(self, response: httpcore.Response, body: bytes) -> ToolOutput:
        status = response.status
        text = body.decode("utf-8", errors="replace")
        if 300 <= status < 400:
            raise ToolFailed(f"HTTP {status}: declared HTTP tools do not follow redirects")
        if status >= 400:
            raise ToolFailed(
                f"HTTP {status}: {text[:500]}",
                transient=status >= 500,
                resumable=status in self.spec.resumable_errors,
                code=status,
            )
        content_type = next(
            (v.decode("latin-1") for k, v in response.headers if k.lower() == b"content-type"), ""
        )
        if self._result is None and is_binary(content_type, body):  # a file, kept by the door
            media_type = bare_type(content_type) or "application/octet-stream"
            file = ToolFile(self.spec.name, media_type, body)
            note = f"({len(body)} bytes of {file.media_type}: kept as a file)"
            return ToolOutput(data={"status": status, "body": note}, text=note, files=(file,))
        try:
            parsed: Any = json.loads(text) if text.strip() else None
        except (json.JSONDecodeError, RecursionError):
            if self._result is not None:
                raise ToolFailed(f"HTTP {status}: the answer is not JSON") from None
            return ToolOutput(data={"status": status, "body": text}, text=text)
        if self._result is not None:
            try:
                parsed = self._result.search(parsed)
            except jmespath.exceptions.JMESPathError as error:
                raise ToolFailed(
                    f"HTTP {status}: the answer does not fit the tool's result expression: {error}"
                ) from None
        shown = parsed if isinstance(parsed, str) else json.dumps(parsed, ensure_ascii=False)
        return ToolOutput(data=parsed, text=shown)
