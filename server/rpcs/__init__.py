"""The AgentService's RPCs, one module per resource: tasks, the inbox, tools, agents,
conversations, grants, audit and usage. Each handler serves its resource's RPCs over one
service object (the engine, the inbox, the tool registry, the agent catalog, ...),
converting requests and answers with `server.convert`; none reads a store itself.
`server.servicer.AgentServicer` puts them together as the one servicer gRPC registers.

Where to add an RPC: declare it in `protos/agentd/v1/agent_service.proto`, run `make
proto`, add its method (decorated `@unary` or `@stream`, `server.calls`) to the handler
of its resource here and its name to that handler's `RPCS`; a test checks that every
method of the service is served by exactly one handler.
"""
