"""What model calls cost and who may spend it: prices (`prices`), budgets held across
replicas (`budgets`), and each model call of a run reserved, settled and kept in the usage
ledger (`calls`)."""
