"""Evaluation runs: datasets of cases, graders, per-case results, the gate (`model`), their
validation (`validation`) and their JSON form as stored (`codec`)."""
