"""Which tasks a process takes on and runs: a request made a task (`intake`, with the
checks of `agent.requests`), admission's slots and queue (`admission`), the run made for
its agent (`factory`), running accepted tasks (`execution`), parking a task that waits
and waking it (`parking`, `waking`), leases and orphaned tasks across replicas
(`takeover`), and the listing of a caller's tasks (`listing`)."""
