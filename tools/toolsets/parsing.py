"""Reading the toolsets file: YAML in, `ToolsetConfig`s and problems out.

Each toolset is checked on its own: a problem refuses that toolset (reported with the
file's path and the field at fault) and never the others. A toolset named twice, or
named like a built-in tool, is refused; so is any toolset with a secret written out in
it (secrets come from the environment, `${VAR}`; see `environment`).
"""

from __future__ import annotations

import ipaddress
import math
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

import jmespath
import yaml

from core.watching import FileProblem
from tools.model import TOOLSET_NAME_PATTERN, PermissionLevel, RiskLevel
from tools.toolsets import environment, url_template
from tools.toolsets.config import (
    DEFAULT_MAX_CONCURRENT_CALLS,
    HttpServer,
    HttpToolConfig,
    IPNetwork,
    McpSettings,
    StdioServer,
    ToolsetConfig,
    ToolSettings,
)
from tools.validation import schema_problem

MAX_TOOLSETS = 100
MAX_HTTP_TOOLS = 200
SETTING_KEYS = ("category", "level", "risk", "timeout_seconds", "idempotent", "cache_seconds")
TOOLSET_KEYS = ("mcp", "http", "tools", *SETTING_KEYS)
HTTP_TOOL_KEYS = ("description", "method", "url", "parameters", "headers", "result", *SETTING_KEYS)
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


class InvalidFieldError(Exception):
    """One field of a toolset that cannot be used."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Written:
    """A key the YAML mapping holds more than once (its value is refused)."""

    times: int


class _Loader(yaml.SafeLoader):
    """safe_load, except that a key written twice in one mapping is kept as `Written`."""


def _mapping(loader: _Loader, node: yaml.MappingNode) -> dict[Any, Any]:
    """A mapping; a key the mapping itself writes more than once is kept as `Written`
    (keys merged in with `<<: *anchor` may be overridden, as YAML says)."""
    own: Counter[Any] = Counter()
    for key_node, _ in node.value:
        if key_node.tag != "tag:yaml.org,2002:merge":
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float | bool) and key is not None:
                raise yaml.constructor.ConstructorError(
                    None, None, "a mapping key is not a scalar", key_node.start_mark
                )
            own[key] += 1
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        out[loader.construct_object(key_node, deep=True)] = loader.construct_object(
            value_node, deep=True
        )
    out.update({key: Written(times) for key, times in own.items() if times > 1})
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)  # a SafeLoader


def parse_file(
    data: Any, path: str, reserved: Collection[str]
) -> tuple[dict[str, ToolsetConfig], list[FileProblem], set[str]]:
    """The usable toolsets of the file's data, every problem, and the names of the
    toolsets refused (which keep their last good definition, if they had one).
    `reserved`: names a toolset may not take (the built-in tools')."""
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
            found[name] = _toolset(name, value, reserved)
        except InvalidFieldError as invalid:
            problems.append(FileProblem(path, f"toolsets.{name}.{invalid.field}".rstrip("."),
                                    invalid.problem))  # fmt: skip
            refused.add(name)
    return found, problems, refused


def _toolset(name: str, raw: Any, reserved: Collection[str]) -> ToolsetConfig:
    if isinstance(raw, Written):
        raise InvalidFieldError("", f"the toolset is defined {raw.times} times")
    if not TOOLSET_NAME_PATTERN.fullmatch(name):
        raise InvalidFieldError("", "a toolset's name is 1-32 of [a-z0-9_], starting with a letter")
    if name in reserved:
        raise InvalidFieldError("", f"{name!r} is the name of a built-in tool")
    body = _map(raw, "")
    _known(body, TOOLSET_KEYS, "")
    _no_written_secrets(body, "")
    if ("mcp" in body) == ("http" in body):
        raise InvalidFieldError(
            "", "a toolset has either `mcp:` (an MCP server) or `http:` (HTTP tools)"
        )
    defaults = _settings(body, "")
    tools = _map(body.get("tools") or {}, "tools")
    if "mcp" in body:
        overrides = {str(k): _overrides(v, f"tools.{k}") for k, v in tools.items()}
        return ToolsetConfig(name, defaults, overrides, mcp=_mcp(body["mcp"]))
    http = _map(body["http"], "http")
    _known(http, ("headers", "allowed_networks"), "http")
    shared = _headers(http.get("headers"), "http.headers")
    networks = _networks(http.get("allowed_networks"), "http.allowed_networks")
    if not tools or len(tools) > MAX_HTTP_TOOLS:
        raise InvalidFieldError("tools", f"an HTTP toolset declares 1 to {MAX_HTTP_TOOLS} tools")
    declared = tuple(_http_tool(str(k), v, shared) for k, v in tools.items())
    return ToolsetConfig(name, defaults, http_tools=declared, allowed_networks=networks)


def _mcp(raw: Any) -> McpSettings:
    body = _map(raw, "mcp")
    keys = ("command", "args", "env", "cwd", "url", "headers", "protocol", "max_concurrent_calls")
    _known(body, keys, "mcp")
    server: StdioServer | HttpServer
    if ("command" in body) == ("url" in body):
        raise InvalidFieldError(
            "mcp", "give `command` (a server run over stdio) or `url` (over HTTP)"
        )
    if "command" in body:
        if "headers" in body:
            raise InvalidFieldError("mcp.headers", "headers are for a server reached by `url`")
        args = body.get("args") or []
        if not isinstance(args, list) or not all(isinstance(a, str | int | float) for a in args):
            raise InvalidFieldError("mcp.args", "must be a list of strings")
        server = StdioServer(
            command=_text(body["command"], "mcp.command", expand=True),
            args=tuple(_text(str(a), f"mcp.args[{i}]", expand=True) for i, a in enumerate(args)),
            env=_headers(body.get("env"), "mcp.env"),
            cwd=_text(body["cwd"], "mcp.cwd", expand=True) if "cwd" in body else None,
        )
    else:
        if "env" in body or "args" in body:
            raise InvalidFieldError("mcp", "`args` and `env` are for a server run by `command`")
        url = _text(body["url"], "mcp.url", expand=True)
        if not url.startswith(("http://", "https://")):
            raise InvalidFieldError("mcp.url", "must be an http:// or https:// URL")
        server = HttpServer(url=url, headers=_headers(body.get("headers"), "mcp.headers"))
    protocol = body.get("protocol", "auto")
    if protocol not in ("auto", "legacy"):
        raise InvalidFieldError("mcp.protocol", "is `auto` or `legacy`")
    slots = body.get("max_concurrent_calls", DEFAULT_MAX_CONCURRENT_CALLS)
    if isinstance(slots, bool) or not isinstance(slots, int) or not 1 <= slots <= 256:
        raise InvalidFieldError("mcp.max_concurrent_calls", "is a whole number from 1 to 256")
    return McpSettings(server, cast(Literal["auto", "legacy"], protocol), slots)


def _http_tool(name: str, raw: Any, shared: Mapping[str, str]) -> HttpToolConfig:
    where = f"tools.{name}"
    body = _map(raw, where)
    _known(body, HTTP_TOOL_KEYS, where)
    if not TOOLSET_NAME_PATTERN.fullmatch(name):
        raise InvalidFieldError(
            where, "a declared tool's name is 1-32 of [a-z0-9_], starting with a letter"
        )
    method = str(body.get("method", "GET")).upper()
    if method not in METHODS:
        raise InvalidFieldError(f"{where}.method", f"is one of {', '.join(METHODS)}")
    url = _text(body.get("url"), f"{where}.url")  # kept as written: `${VAR}` read per call
    unusable = url_template.problem(url)
    if unusable is not None:
        raise InvalidFieldError(f"{where}.url", unusable)
    parameters = _parameters(body.get("parameters"), url, f"{where}.parameters")
    result = body.get("result") or ""
    if result:
        try:
            jmespath.compile(_text(result, f"{where}.result"))
        except jmespath.exceptions.JMESPathError as error:
            raise InvalidFieldError(
                f"{where}.result", f"is not a JMESPath expression: {error}"
            ) from None
    headers = {**shared, **_headers(body.get("headers"), f"{where}.headers")}
    settings = _settings(body, where)
    if settings.idempotent is None:  # GET has no side effects; anything else may
        settings = ToolSettings(idempotent=method == "GET").over(settings)
    description = _text(body.get("description", ""), f"{where}.description")
    return HttpToolConfig(name, description, method, url, parameters, headers, result, settings)


def _overrides(raw: Any, where: str) -> ToolSettings:
    body = _map(raw, where)
    _known(body, SETTING_KEYS, where)
    return _settings(body, where)


def _settings(body: Mapping[str, Any], where: str) -> ToolSettings:
    prefix = f"{where}." if where else ""
    category = body.get("category")
    if category is not None and not (
        isinstance(category, str) and TOOLSET_NAME_PATTERN.fullmatch(category)
    ):
        raise InvalidFieldError(f"{prefix}category", "is 1-32 of [a-z0-9_], starting with a letter")
    return ToolSettings(
        category=category,
        level=_enum(body, "level", PermissionLevel, prefix),
        risk=_enum(body, "risk", RiskLevel, prefix),
        timeout_seconds=_seconds(body, "timeout_seconds", prefix, 3600.0),
        idempotent=_flag(body, "idempotent", prefix),
        cache_seconds=_seconds(body, "cache_seconds", prefix, 86400.0),
    )


def _enum(body: Mapping[str, Any], key: str, kind: Any, prefix: str) -> Any:
    value = body.get(key)
    if value is None:
        return None
    names = [member.name.lower() for member in kind]
    if not isinstance(value, str) or value.lower() not in names:
        raise InvalidFieldError(f"{prefix}{key}", f"is one of {', '.join(names)}")
    return kind[value.upper()]


def _seconds(body: Mapping[str, Any], key: str, prefix: str, most: float) -> float | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidFieldError(f"{prefix}{key}", "is a number of seconds")
    if not 0 <= value <= most or (key == "timeout_seconds" and value == 0):
        raise InvalidFieldError(f"{prefix}{key}", f"is between 0 and {most:g} seconds")
    return float(value)


def _flag(body: Mapping[str, Any], key: str, prefix: str) -> bool | None:
    value = body.get(key)
    if value is not None and not isinstance(value, bool):
        raise InvalidFieldError(f"{prefix}{key}", "is true or false")
    return value


def _schema(raw: Any, where: str) -> Mapping[str, object]:
    schema = _map(raw, where)
    if schema.get("type") != "object":
        raise InvalidFieldError(where, "must be a JSON Schema of an object (`type: object`)")
    problem = schema_problem(schema)
    if problem is not None:
        raise InvalidFieldError(where, problem)
    return schema


_OPENING = ("additionalProperties", "patternProperties", "unevaluatedProperties", "allOf",
            "anyOf", "oneOf", "if", "$ref", "$dynamicRef", "dependentSchemas")  # fmt: skip


def _parameters(raw: Any, url: str, where: str) -> Mapping[str, Any]:
    """A declared tool's schema; without one, each URL placeholder is a required text."""
    names = url_template.placeholders(url)
    if raw is None:
        text = {"type": ["string", "number", "integer", "boolean"]}
        raw = {"type": "object", "properties": dict.fromkeys(names, text), "required": names}
    schema = _closed(_schema(raw, where))
    properties = schema.get("properties") or {}
    missing = [name for name in names if name not in properties]
    if missing and schema.get("additionalProperties") is False:
        raise InvalidFieldError(where, f"does not declare {{{missing[0]}}} of the URL")
    return schema


def _closed(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """A declared tool's schema, taking no argument it does not name (`additionalProperties:
    false`) unless it says otherwise or composes schemas (where that would refuse the
    arguments its parts name)."""
    if any(key in schema for key in _OPENING):
        return schema
    return {**schema, "additionalProperties": False}


def _headers(raw: Any, where: str) -> dict[str, str]:
    """A mapping of names to text (HTTP headers, environment variables): secrets only by
    `${VAR}`, every reference expanded."""
    body = _map(raw or {}, where)
    out: dict[str, str] = {}
    for key, value in body.items():
        name = str(key)
        if isinstance(value, Written) or not isinstance(value, str | int | float):
            raise InvalidFieldError(f"{where}.{name}", "must be text (written once)")
        text = str(value)
        if environment.written_out(name, text):
            raise InvalidFieldError(f"{where}.{name}", _SECRET)
        out[name] = _expand(text, f"{where}.{name}")
    return out


_SECRET = (
    "holds a secret written out in the file; put it in an environment variable and write "
    "${VARIABLE} instead"
)


def _text(value: Any, where: str, *, expand: bool = False) -> str:
    if isinstance(value, Written) or not isinstance(value, str) or not value.strip():
        if isinstance(value, str) and where.endswith("description"):
            return value
        raise InvalidFieldError(where, "must be text (written once)")
    if environment.credential_shaped(value):
        raise InvalidFieldError(where, _SECRET)
    if len(value) > 10_000:
        raise InvalidFieldError(where, "is over 10,000 characters")
    return _expand(value, where) if expand else value


def _expand(value: str, where: str) -> str:
    try:
        return environment.expand(value)
    except environment.UnsetVariableError as unset:
        raise InvalidFieldError(where, str(unset)) from None


def _networks(raw: Any, where: str) -> tuple[IPNetwork, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InvalidFieldError(where, "must be a list of networks (CIDR)")
    try:
        return tuple(ipaddress.ip_network(str(net), strict=False) for net in raw)
    except ValueError as error:
        raise InvalidFieldError(where, str(error)) from None


def _no_written_secrets(value: Any, where: str) -> None:
    """InvalidFieldError naming the first text anywhere in `value` that holds something
    shaped like a credential (a `${VAR}` reference is not text of the file's)."""
    pending: list[tuple[str, Any]] = [(where, value)]
    while pending:
        field, item = pending.pop()
        if isinstance(item, str) and environment.credential_shaped(item):
            raise InvalidFieldError(field, _SECRET)
        if isinstance(item, Mapping):
            pending.extend((f"{field}.{key}".lstrip("."), v) for key, v in item.items())
        elif isinstance(item, list):
            pending.extend((f"{field}[{i}]", v) for i, v in enumerate(item))


def _map(raw: Any, where: str) -> Mapping[str, Any]:
    if isinstance(raw, Written):
        raise InvalidFieldError(where, f"is written {raw.times} times")
    if not isinstance(raw, Mapping):
        raise InvalidFieldError(where, "must be a mapping")
    for key, value in raw.items():
        if isinstance(value, Written):
            raise InvalidFieldError(f"{where}.{key}".lstrip("."), f"is written {value.times} times")
    return cast(Mapping[str, Any], raw)


def _known(body: Mapping[str, Any], keys: tuple[str, ...], where: str) -> None:
    for key in body:
        if key not in keys:
            field = f"{where}.{key}".lstrip(".")
            raise InvalidFieldError(field, f"is not a known key (known: {', '.join(keys)})")
