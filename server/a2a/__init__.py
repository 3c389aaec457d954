"""A2A (lf.a2a.v1), the second front door, over agentd's own task machinery with the
official SDK's types: the request handler (`handler`), its gRPC and JSON-RPC bindings
(`service`, `http`), the agents' cards (`card`), push-config operations (`push_rpcs`),
and the client side that calls remote A2A agents (`remote`, `remote_waits`, `pinned`).

It reads no store: tasks, push configs and the HTTP guard are service objects of
`server.services`; `server.wiring.fronts.a2a` adds it to a server when A2A is on
(AGENTD_A2A=true), and only then is the SDK imported. docs/a2a.md says what maps to what.
"""
