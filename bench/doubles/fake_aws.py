"""`python -m bench.doubles.fake_aws --port N`: the local stack's moto server (engram_tools.local.moto_server)
alone, for the benchmarks' DynamoDB, SQS and S3.

It is moto with the local stack's fixes of costs that grow with the data and that AWS does not have
(a deep copy of every table a transaction names, Queries that sort the whole table, the module list
read from disk per request), so a benchmark's waits on "DynamoDB" do not grow with the collection
the way stock moto's do. Prints its endpoint once serving, and serves until SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType

from engram_tools.local.moto_server import MotoServer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = MotoServer(port=args.port)
    server.start()
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print(server.endpoint, flush=True)
    stop.wait()
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
