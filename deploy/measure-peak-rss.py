#!/usr/bin/env python3
"""Peak memory of one tafl replica under the heaviest load its Deployment admits.

Starts the release binary with deploy/k8s/deployment.yaml's settings, then at
once: as many SuggestMove calls as the replica runs and queues (running
searches each hold a transposition table of their own, bound by depth so
that they do not share the clock's table; queued ones hold their game),
each with the longest game the server accepts, a crowd of cheap calls each
of the largest message the server decodes, and as many ReviewGame calls as
the server runs (each review keeps a table of its own between its
searches), on the longest real games. Prints the process's idle RSS and its
peak (VmHWM in /proc/PID/status), which deployment.yaml's memory limit is
sized from. Re-run it after changing TAFL_SEARCH_THREADS, TAFL_HASH_MB,
TAFL_MAX_QUEUED_SEARCHES or TAFL_MAX_MESSAGE_BYTES:

    cargo build --release
    pip install grpcio==1.85.1 grpcio-tools==1.85.1
    python3 deploy/measure-peak-rss.py target/release/tafl

Linux only (it reads /proc). Every call goes to 127.0.0.1.
"""

import argparse
import concurrent.futures
import os
import socket
import subprocess
import sys
import tempfile
import time

import grpc
from grpc_tools import protoc

# deploy/k8s/deployment.yaml's env (and the server's defaults it relies on:
# four running searches and two reviews per search thread).
SEARCH_THREADS = 2
RUNNING_SEARCHES = 4 * SEARCH_THREADS
RUNNING_REVIEWS = 2 * SEARCH_THREADS
QUEUED_SEARCHES = 16
HASH_MB = 64
MAX_MESSAGE_BYTES = 4 << 20
MAX_GAME_PLIES = 4096


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stubs(proto_root, out):
    if protoc.main(["protoc", f"-I{proto_root}", f"--python_out={out}",
                    f"--grpc_python_out={out}", "tafl/v1/tafl.proto"]) != 0:
        sys.exit("protoc failed")
    sys.path.insert(0, out)
    from tafl.v1 import tafl_pb2, tafl_pb2_grpc  # noqa: E402
    return tafl_pb2, tafl_pb2_grpc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", help="the release binary, target/release/tafl")
    parser.add_argument("--big-calls", type=int, default=32,
                        help="max-size calls in flight at once (default 32)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--search-ms", type=int, default=3000,
                        help="each search's time (default 3000)")
    parser.add_argument("--reviews", type=int, default=RUNNING_REVIEWS,
                        help="ReviewGame calls beside the rounds (default: as many as "
                             "the server runs)")
    parser.add_argument("--review-nodes", type=int, default=400_000,
                        help="each reviewed position's search (default 400000)")
    args = parser.parse_args()

    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as out:
        pb, rpc = stubs(os.path.join(here, "..", "proto"), out)
        port = free_port()
        env = dict(os.environ,
                   TAFL_LISTEN=f"127.0.0.1:{port}",
                   TAFL_SEARCH_THREADS=str(SEARCH_THREADS),
                   TAFL_HASH_MB=str(HASH_MB),
                   TAFL_MAX_QUEUED_SEARCHES=str(QUEUED_SEARCHES),
                   RUST_LOG="warn")
        for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "TAFL_OTLP_ENDPOINT"):
            env.pop(name, None)
        server = subprocess.Popen([args.binary, "serve"], env=env)
        try:
            options = [("grpc.max_send_message_length", 2 * MAX_MESSAGE_BYTES)]
            target = f"127.0.0.1:{port}"
            grpc.channel_ready_future(grpc.insecure_channel(target)).result(timeout=30)
            time.sleep(0.5)
            idle = status_kib(server.pid, "VmRSS")

            # Tablut has no repetition rule: a shuttle is a legal game of any length.
            shuttle = ["d1-d2", "c5-c4", "d2-d1", "c4-c5"]
            longest = pb.Game(variant=pb.Variant(rules=pb.RULES_TABLUT),
                              moves=shuttle * (MAX_GAME_PLIES // len(shuttle)))
            # Bound by depth too (a depth it does not reach in its time): a search of its own
            # table, not of the table the searches the clock ends share.
            search = pb.SuggestMoveRequest(
                game=longest, limits=pb.SearchLimits(max_depth=12, max_time_ms=args.search_ms))
            # The largest message decoded: a start text just under the cap.
            padding = MAX_MESSAGE_BYTES - 64
            big = pb.LegalMovesRequest(game=pb.Game(start="x" * padding))
            assert big.ByteSize() <= MAX_MESSAGE_BYTES

            games = os.path.join(here, "..", "tests", "data", "copenhagen-games.csv")
            with open(games) as records:
                real = sorted((line.split(",")[0].split() for line in records if line.strip()),
                              key=len, reverse=True)
            reviews = [pb.ReviewGameRequest(
                game=pb.Game(variant=pb.Variant(rules=pb.RULES_COPENHAGEN), moves=moves),
                limits=pb.SearchLimits(max_nodes=args.review_nodes))
                for moves in real[:args.reviews]]

            def call(kind):
                channel = grpc.insecure_channel(target, options=options)
                stub = rpc.TaflServiceStub(channel)
                try:
                    if kind == "search":
                        stub.SuggestMove(search, timeout=60)
                    elif isinstance(kind, int):
                        for _ in stub.ReviewGame(reviews[kind], timeout=1800):
                            pass
                    else:
                        stub.LegalMoves(big, timeout=60)
                    return "OK"
                except grpc.RpcError as error:
                    return error.code().name
                finally:
                    channel.close()

            searches = RUNNING_SEARCHES + QUEUED_SEARCHES
            kinds = ["search"] * searches + ["big"] * args.big_calls
            codes = {}
            with concurrent.futures.ThreadPoolExecutor(len(kinds) + len(reviews)) as pool:
                reviewing = [pool.submit(call, index) for index in range(len(reviews))]
                for _ in range(args.rounds):
                    for code in pool.map(call, kinds):
                        codes[code] = codes.get(code, 0) + 1
                for review in reviewing:
                    code = "review " + review.result()
                    codes[code] = codes.get(code, 0) + 1
            peak = status_kib(server.pid, "VmHWM")
        finally:
            server.terminate()
            server.wait(timeout=60)

    print(f"settings: {SEARCH_THREADS} search threads, {QUEUED_SEARCHES} queued, "
          f"{HASH_MB} MiB hash, {MAX_MESSAGE_BYTES >> 20} MiB messages")
    print(f"load: {args.rounds} rounds of {searches} SuggestMove ({MAX_GAME_PLIES} plies, "
          f"{args.search_ms} ms) + {args.big_calls} LegalMoves of "
          f"{MAX_MESSAGE_BYTES >> 20} MiB at once, beside {len(reviews)} ReviewGame "
          f"({', '.join(str(len(review.game.moves)) for review in reviews)} plies, "
          f"{args.review_nodes} nodes a search)")
    print(f"answers: {codes}")
    print(f"idle RSS: {idle / 1024:.1f} MiB")
    print(f"peak RSS (VmHWM): {peak / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
