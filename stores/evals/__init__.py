"""Datasets and evaluation runs (`stores.evals.base`): in memory, or SQL."""
