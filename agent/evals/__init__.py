"""Grading a case's answer: the graders that read the answer, its tool calls and its
spending (`graders`), and the judge model's verdict (`judge`)."""
