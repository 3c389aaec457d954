"""`AgentClient` for code that is not async: scripts, notebooks, threads.

    from agentd_client.sync import AgentClient

    with AgentClient() as client:  # AGENTD_ADDRESS, AGENTD_API_KEY
        print(client.call_tool("calculator", {"expression": "2 + 2"}).text)
        for event in client.execute("What is 19*3?"):
            print(event.sequence, event.WhichOneof("payload"))

It has the async client's methods, with the same arguments and results; streams
(`execute`, `stream_task_events`) are iterators, and leaving one early cancels the call.

It runs on grpc's own synchronous channel, not on an event loop of its own in a helper
thread: that needs no loop, so it works where one already runs (a notebook, a sync
callback inside an async framework) as well as in a plain script; the channel is safe to
share between threads; and every call and every streamed event stays on the caller's
thread, where a loop in another thread would hand each across and tie the channel's
life to that thread's.
"""

from agentd_client.sync.client import AgentClient

__all__ = ["AgentClient"]
