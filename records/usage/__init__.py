"""What model calls cost and spent: prices, the usage ledger's rows and reports, budgets."""
