"""Conversations and the memory a task in one sees: its earlier turns, fitted to a budget.

`model` holds the plain types (a conversation, its messages, a turn), `policy` the
memory settings an agent chooses, `history` the pure assembly of what a task is
sent, `compaction` the running summary, `turns` what a finished task leaves in its
conversation, `busy` one running task per conversation, and `service` the façade the
engine and the conversation RPCs use.
"""
