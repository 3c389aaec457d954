"""Conversations and the memory a task in one sees: its earlier turns, fitted to a budget.

`model` holds the plain types (a conversation, its messages, a turn), `policy` the
memory settings an agent chooses, `history` the pure assembly of what a task is
sent, `compaction` the running summary, `turns` what a finished task leaves in its
conversation, `busy` one running task per conversation, `service` the façade the
conversation RPCs use, and `engine_hooks` what the engine does for a task of a
conversation (admit it, send it its history, add its turn when it ends).
"""
