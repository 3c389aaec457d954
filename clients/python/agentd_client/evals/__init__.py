"""Evaluation runs from the client: EvalService's methods (`methods`) and dataset files,
YAML or JSONL, read into cases (`files`)."""
