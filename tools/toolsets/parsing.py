"""Reading the toolsets file: YAML in, `ToolsetConfig`s and problems out.

Each toolset is checked on its own: a problem refuses that toolset (reported with the
file's path and the field at fault) and never the others. A toolset named twice, or
named like a built-in tool, is refused; so is any toolset with a secret written out in
it (secrets come from the environment, `${VAR}`; see `environment`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Literal, cast

import jmespath

from core.watching import FileProblem
from records.tools.model import TOOLSET_NAME_PATTERN, PermissionLevel, RiskLevel
from tools.toolsets import environment, fields, url_template
from tools.toolsets.config import (
    BUILTIN_CATEGORIES,
    DEFAULT_MAX_CONCURRENT_CALLS,
    HttpServer,
    HttpToolConfig,
    McpSettings,
    StdioServer,
    ToolsetConfig,
    ToolSettings,
)
from tools.toolsets.yaml_file import Written

MAX_TOOLSETS = 100
MAX_HTTP_TOOLS = 200
SETTING_KEYS = (
    "category",
    "level",
    "risk",
    "timeout_seconds",
    "idempotent",
    "cache_seconds",
    "progress_keeps_alive",
    "resumable_errors",
)
TOOLSET_KEYS = ("mcp", "http", "tools", *SETTING_KEYS)
HTTP_TOOL_KEYS = ("description", "method", "url", "parameters", "headers", "result", *SETTING_KEYS)
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def parse_file(
    data: Any,
    path: str,
    reserved: Collection[str],
    categories: Collection[str] = BUILTIN_CATEGORIES,
) -> tuple[dict[str, ToolsetConfig], list[FileProblem], set[str]]:
    """The usable toolsets of the file's data, every problem, and the names of the
    toolsets refused (which keep their last good definition, if they had one).
    `reserved`: names a toolset may not take (the built-in tools'); `categories`: the
    built-in tools' categories, which neither a toolset's name nor a `category:` may take
    (a grant for `category:files` must not cover a toolset's tools)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("toolsets", {}), Mapping):
        not_toolsets = FileProblem(path, "toolsets", "the file must be a mapping with `toolsets:`")
        return {}, [not_toolsets], set()
    unknown = [str(k) for k in data if k != "toolsets" and not str(k).startswith("x-")]
    problems = [
        FileProblem(path, k, "is not a known key (`toolsets`, or x-… for anchors)") for k in unknown
    ]
    raw: Mapping[Any, Any] = data.get("toolsets") or {}
    if len(raw) > MAX_TOOLSETS:
        problems.append(FileProblem(path, "toolsets", f"at most {MAX_TOOLSETS} toolsets"))
        return {}, problems, set()
    found: dict[str, ToolsetConfig] = {}
    refused: set[str] = set()
    for key, value in raw.items():
        name = str(key)
        try:
            config, notes = _toolset(name, value, reserved)
            _no_builtin_category(config, categories)
            found[name] = config
        except fields.InvalidFieldError as invalid:
            problems.append(
                FileProblem(path, f"toolsets.{name}.{invalid.field}".rstrip("."), invalid.problem)
            )
            refused.add(name)
            continue
        problems.extend(
            FileProblem(path, f"toolsets.{name}.{field}", why, warning=True) for field, why in notes
        )
    return found, problems, refused


def _no_builtin_category(config: ToolsetConfig, categories: Collection[str]) -> None:
    """InvalidFieldError when the toolset's tools would be in a built-in category: by its
    name (the default category) or by a `category:` of its own or one of its tools'."""
    chosen = [
        ("category", config.defaults.category or config.name),
        *((f"tools.{k}.category", v.category) for k, v in config.overrides.items()),
        *((f"tools.{t.name}.category", t.settings.category) for t in config.http_tools),
    ]
    for field, category in chosen:
        if category in categories:
            where = "" if category == config.name and not config.defaults.category else field
            raise fields.InvalidFieldError(
                where,
                f"{category!r} is the category of built-in tools: a grant for "
                f"category:{category} would cover this toolset's tools; choose another",
            )


def _toolset(
    name: str, raw: Any, reserved: Collection[str]
) -> tuple[ToolsetConfig, list[tuple[str, str]]]:
    """The toolset, and what in it may be a secret (warnings: field, why)."""
    if isinstance(raw, Written):
        raise fields.InvalidFieldError("", f"the toolset is defined {raw.times} times")
    if not TOOLSET_NAME_PATTERN.fullmatch(name):
        raise fields.InvalidFieldError(
            "", "a toolset's name is 1-32 of [a-z0-9_], starting with a letter"
        )
    if name in reserved:
        raise fields.InvalidFieldError("", f"{name!r} is the name of a built-in tool")
    body = fields.map_of(raw, "")
    fields.known(body, TOOLSET_KEYS, "")
    fields.no_written_secrets(body, "")
    if ("mcp" in body) == ("http" in body):
        raise fields.InvalidFieldError(
            "", "a toolset has either `mcp:` (an MCP server) or `http:` (HTTP tools)"
        )
    defaults = _settings(body, "")
    tools = fields.map_of(body.get("tools") or {}, "tools")
    notes = environment.warnings(body)
    if "mcp" in body:
        overrides = {str(k): _overrides(v, f"tools.{k}") for k, v in tools.items()}
        return ToolsetConfig(name, defaults, overrides, mcp=_mcp(body["mcp"])), notes
    http = fields.map_of(body["http"], "http")
    fields.known(http, ("headers", "allowed_networks"), "http")
    shared = fields.text_map(http.get("headers"), "http.headers")
    networks = fields.networks_of(http.get("allowed_networks"), "http.allowed_networks")
    if not tools or len(tools) > MAX_HTTP_TOOLS:
        raise fields.InvalidFieldError(
            "tools", f"an HTTP toolset declares 1 to {MAX_HTTP_TOOLS} tools"
        )
    declared = tuple(_http_tool(str(k), v, shared) for k, v in tools.items())
    return ToolsetConfig(name, defaults, http_tools=declared, allowed_networks=networks), notes


def _mcp(raw: Any) -> McpSettings:
    body = fields.map_of(raw, "mcp")
    keys = ("command", "args", "env", "cwd", "url", "headers", "protocol", "max_concurrent_calls")
    fields.known(body, keys, "mcp")
    server: StdioServer | HttpServer
    if ("command" in body) == ("url" in body):
        raise fields.InvalidFieldError(
            "mcp", "give `command` (a server run over stdio) or `url` (over HTTP)"
        )
    if "command" in body:
        if "headers" in body:
            raise fields.InvalidFieldError(
                "mcp.headers", "headers are for a server reached by `url`"
            )
        args = body.get("args") or []
        if not isinstance(args, list) or not all(isinstance(a, str | int | float) for a in args):
            raise fields.InvalidFieldError("mcp.args", "must be a list of strings")
        for i, secrecy in environment.secret_args([str(a) for a in args]):
            if secrecy == "strong":  # `--api-key VALUE`
                raise fields.InvalidFieldError(f"mcp.args[{i}]", fields.SECRET)
        server = StdioServer(
            command=fields.text_of(body["command"], "mcp.command", expand=True),
            args=tuple(
                fields.text_of(str(a), f"mcp.args[{i}]", expand=True) for i, a in enumerate(args)
            ),
            env=fields.text_map(body.get("env"), "mcp.env"),
            cwd=fields.text_of(body["cwd"], "mcp.cwd", expand=True) if "cwd" in body else None,
        )
    else:
        if "env" in body or "args" in body:
            raise fields.InvalidFieldError(
                "mcp", "`args` and `env` are for a server run by `command`"
            )
        url = fields.text_of(body["url"], "mcp.url", expand=True)
        if not url.startswith(("http://", "https://")):
            raise fields.InvalidFieldError("mcp.url", "must be an http:// or https:// URL")
        server = HttpServer(url=url, headers=fields.text_map(body.get("headers"), "mcp.headers"))
    protocol = body.get("protocol", "auto")
    if protocol not in ("auto", "legacy"):
        raise fields.InvalidFieldError("mcp.protocol", "is `auto` or `legacy`")
    slots = body.get("max_concurrent_calls", DEFAULT_MAX_CONCURRENT_CALLS)
    if isinstance(slots, bool) or not isinstance(slots, int) or not 1 <= slots <= 256:
        raise fields.InvalidFieldError(
            "mcp.max_concurrent_calls", "is a whole number from 1 to 256"
        )
    return McpSettings(server, cast(Literal["auto", "legacy"], protocol), slots)


def _http_tool(name: str, raw: Any, shared: Mapping[str, str]) -> HttpToolConfig:
    where = f"tools.{name}"
    body = fields.map_of(raw, where)
    fields.known(body, HTTP_TOOL_KEYS, where)
    if not TOOLSET_NAME_PATTERN.fullmatch(name):
        raise fields.InvalidFieldError(
            where, "a declared tool's name is 1-32 of [a-z0-9_], starting with a letter"
        )
    method = str(body.get("method", "GET")).upper()
    if method not in METHODS:
        raise fields.InvalidFieldError(f"{where}.method", f"is one of {', '.join(METHODS)}")
    url = fields.text_of(body.get("url"), f"{where}.url")  # kept as written: `${VAR}` read per call
    unusable = url_template.problem(url)
    if unusable is not None:
        raise fields.InvalidFieldError(f"{where}.url", unusable)
    parameters = fields.parameters_of(body.get("parameters"), url, f"{where}.parameters")
    result = body.get("result") or ""
    if result:
        try:
            jmespath.compile(fields.text_of(result, f"{where}.result"))
        except jmespath.exceptions.JMESPathError as error:
            raise fields.InvalidFieldError(
                f"{where}.result", f"is not a JMESPath expression: {error}"
            ) from None
    headers = {**shared, **fields.text_map(body.get("headers"), f"{where}.headers")}
    settings = _settings(body, where)
    if settings.idempotent is None:  # GET has no side effects; anything else may
        settings = ToolSettings(idempotent=method == "GET").over(settings)
    description = fields.text_of(body.get("description", ""), f"{where}.description")
    return HttpToolConfig(name, description, method, url, parameters, headers, result, settings)


def _overrides(raw: Any, where: str) -> ToolSettings:
    body = fields.map_of(raw, where)
    fields.known(body, SETTING_KEYS, where)
    return _settings(body, where)


def _settings(body: Mapping[str, Any], where: str) -> ToolSettings:
    prefix = f"{where}." if where else ""
    category = body.get("category")
    if category is not None and not (
        isinstance(category, str) and TOOLSET_NAME_PATTERN.fullmatch(category)
    ):
        raise fields.InvalidFieldError(
            f"{prefix}category", "is 1-32 of [a-z0-9_], starting with a letter"
        )
    return ToolSettings(
        category=category,
        level=fields.enum_of(body, "level", PermissionLevel, prefix),
        risk=fields.enum_of(body, "risk", RiskLevel, prefix),
        timeout_seconds=fields.seconds_of(body, "timeout_seconds", prefix, 3600.0),
        idempotent=fields.flag_of(body, "idempotent", prefix),
        cache_seconds=fields.seconds_of(body, "cache_seconds", prefix, 86400.0),
        progress_keeps_alive=fields.flag_of(body, "progress_keeps_alive", prefix),
        resumable_errors=_codes(body, "resumable_errors", prefix),
    )


def _codes(body: Mapping[str, Any], key: str, prefix: str) -> tuple[int, ...] | None:
    """A list of whole numbers (error codes, HTTP statuses), or None when not set."""
    value = body.get(key)
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) > 32
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise fields.InvalidFieldError(f"{prefix}{key}", "is a list of at most 32 whole numbers")
    return tuple(value)
