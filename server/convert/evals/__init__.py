"""Evaluation protos <-> records: cases, graders and datasets (`cases`); runs, their
results and RunEval's request (`runs`)."""
