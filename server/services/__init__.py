"""The service objects both front doors call — AgentService's handlers (`server.rpcs`) and
A2A (`server.a2a`) — where they are the server's own rather than the engine's: the tasks
a caller reads (a page at a time, their events), long-term memory as the server has it,
A2A's push configs and their delivery, and the HTTP guard. Policy lives here once (paging,
ownership, limits); the front doors convert, and read no store themselves."""
