"""`make bench`: run every benchmark and print its figures."""

from __future__ import annotations

import asyncio

from bench import call_tool, engine


def main() -> None:
    asyncio.run(call_tool.main())
    print()
    asyncio.run(engine.main())


if __name__ == "__main__":
    main()
