"""What metering model calls costs: the reservation on the budgets (Redis, in-process), the
usage ledger's write (PostgreSQL, through the group commit), and the engine's overhead per
step with metering on against off."""
