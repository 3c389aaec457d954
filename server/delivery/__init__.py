"""Delivering to receivers outside agentd, at least once: claims held with a lease by one
replica at a time, retries with backoff, POSTs through the guarded, pinned connection
pool, and Standard Webhooks signatures. A2A push notifications
(`server.services.push`) and webhooks (`server.services.webhook_delivery`) both use it."""
