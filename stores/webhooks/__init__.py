"""Webhooks of tenants (`records.webhooks`): their endpoints, the outbox of their events,
the streams it is delivered in and the dead letters."""
