"""Run `agentd serve` in this interpreter, and at its first health SERVING write down what
the process has imported, then stop it (SIGTERM, as a pod's kubelet would).

    python tests/integration/startup_probe.py OUT.json [agentd serve options]

Settings come from the environment (AGENTD_*), as for `agentd serve`. `modules` is every
name in sys.modules at the moment the server sets its health to SERVING (the health
servicer's `set`, wrapped: nothing started after SERVING can race it). A thread asks the
health service `Check` every few milliseconds on AGENTD_ADDRESS; at the first SERVING
answer it writes {"seconds", "rss_mb", "modules"} to OUT.json (seconds since this script
began, RSS then) and sends this process SIGTERM. The thread and the wrapper only use grpc
and its health modules, which the server imports anyway, so they add nothing to what is
counted.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

BEGAN = time.perf_counter()


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


SERVING_MODULES: list[str] = []


def _record_serving() -> None:
    """Wrap the health servicer's `set`: note sys.modules when "" first becomes SERVING."""
    from grpc_health.v1 import health_pb2
    from grpc_health.v1._async import HealthServicer

    real = HealthServicer.set

    async def set_status(self: HealthServicer, service: str, status: int) -> None:
        serving = status == health_pb2.HealthCheckResponse.SERVING
        if service == "" and serving and not SERVING_MODULES:
            SERVING_MODULES.extend(sorted(sys.modules))
        await real(self, service, status)

    HealthServicer.set = set_status


def _watch(address: str, out: Path) -> None:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = BEGAN + 60
    while time.perf_counter() < deadline:
        with grpc.insecure_channel(address) as channel:
            try:
                answer = health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(), timeout=0.5
                )
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    break
            except grpc.RpcError:
                pass
        time.sleep(0.005)
    else:
        os.kill(os.getpid(), signal.SIGTERM)
        return
    seconds = time.perf_counter() - BEGAN
    snapshot = {"seconds": seconds, "rss_mb": _rss_mb(), "modules": SERVING_MODULES}
    out.write_text(json.dumps(snapshot))
    os.kill(os.getpid(), signal.SIGTERM)


def main() -> int:
    out = Path(sys.argv[1])
    address = os.environ.get("AGENTD_ADDRESS", "127.0.0.1:50051")
    _record_serving()
    threading.Thread(target=_watch, args=(address, out), daemon=True).start()
    from server.commands.cli import main as agentd

    return agentd(["serve", *sys.argv[2:]])


if __name__ == "__main__":
    sys.exit(main())
