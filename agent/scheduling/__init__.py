"""Which tasks a process takes on and runs: a request checked and made a task (`requests`,
`intake`), admission's slots and queue (`admission`), running accepted tasks
(`execution`), leases and orphaned tasks across replicas (`takeover`), and the listing of
a caller's tasks (`listing`)."""
