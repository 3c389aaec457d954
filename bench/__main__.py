"""`make bench`: run every benchmark and print its figures."""

from __future__ import annotations

import asyncio

from bench import (
    a2a,
    approvals,
    artifacts,
    call_tool,
    checkpoints,
    conversations,
    engine,
    memory,
    models,
    startup,
    stores,
    teams,
    toolsets,
    urls,
)


def main() -> None:
    asyncio.run(call_tool.main())
    print()
    asyncio.run(engine.main())
    print()
    asyncio.run(stores.main())
    print()
    asyncio.run(checkpoints.main())
    print()
    urls.main()
    print()
    asyncio.run(toolsets.main())
    print()
    asyncio.run(conversations.main())
    print()
    asyncio.run(artifacts.main())
    startup.main()
    asyncio.run(models.main())
    asyncio.run(memory.main())
    asyncio.run(teams.main())  # last: it quiets the engine's INFO logs
    asyncio.run(a2a.main())
    print()
    asyncio.run(approvals.main())


if __name__ == "__main__":
    main()
