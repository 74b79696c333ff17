"""A caller of the tafl service in Python: plays one game turn by turn
against a running server, asking SuggestMove for each side's move, judging it
with ApplyMove and listing the next position's moves with LegalMoves, then
shows what a refused move looks like, decoded from the status details.

    python3 -m venv .venv && .venv/bin/pip install -r examples/python/requirements.txt
    .venv/bin/python examples/python/client.py --addr 127.0.0.1:50051 --plies 20

(The packages go into a virtual environment: Debian's Python refuses a
global pip install.) The stubs are generated from proto/ at start
(grpcio-tools), so they always match the proto of this checkout. The request
carries the whole game every time: the service keeps nothing between calls,
so the caller holds the moves.
"""

import argparse
import importlib
import pathlib
import sys
import tempfile

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from grpc_tools import protoc

PROTO_ROOT = pathlib.Path(__file__).resolve().parents[2] / "proto"


def generate_stubs():
    """Compiles proto/tafl/v1/tafl.proto into a temporary directory and
    imports the messages and the client stub from there."""
    out = tempfile.mkdtemp(prefix="tafl-stubs-")
    well_known = pathlib.Path(protoc.__file__).parent / "_proto"
    code = protoc.main(
        [
            "grpc_tools.protoc",
            f"-I{PROTO_ROOT}",
            f"-I{well_known}",
            f"--python_out={out}",
            f"--grpc_python_out={out}",
            str(PROTO_ROOT / "tafl" / "v1" / "tafl.proto"),
        ]
    )
    if code != 0:
        sys.exit(f"protoc failed on {PROTO_ROOT}: exit {code}")
    sys.path.insert(0, out)
    return (
        importlib.import_module("tafl.v1.tafl_pb2"),
        importlib.import_module("tafl.v1.tafl_pb2_grpc"),
    )


def describe_error(error):
    """The status code, the sentence, and the details: ErrorInfo when the
    server sends one (a stable reason to branch on), else the field-level
    BadRequest or PreconditionFailure."""
    lines = [f"{error.code().name}: {error.details()}"]
    status = rpc_status.from_call(error)
    if status is None:
        return lines
    details = {}
    for any_detail in status.details:
        for kind in (
            error_details_pb2.ErrorInfo,
            error_details_pb2.BadRequest,
            error_details_pb2.PreconditionFailure,
        ):
            if any_detail.Is(kind.DESCRIPTOR):
                detail = kind()
                any_detail.Unpack(detail)
                details[kind] = detail
    if error_details_pb2.ErrorInfo in details:
        info = details[error_details_pb2.ErrorInfo]
        lines.append(f"  reason {info.reason} ({info.domain}) {dict(sorted(info.metadata.items()))}")
    elif error_details_pb2.BadRequest in details:
        for violation in details[error_details_pb2.BadRequest].field_violations:
            lines.append(f"  field {violation.field}: {violation.description}")
    elif error_details_pb2.PreconditionFailure in details:
        for violation in details[error_details_pb2.PreconditionFailure].violations:
            lines.append(f"  {violation.type} {violation.subject}: {violation.description}")
    return lines


def play(args, pb, pb_grpc):
    """The game, then the refused move; a call that fails raises grpc.RpcError."""
    ongoing = pb.GAME_RESULT_ONGOING
    with grpc.insecure_channel(args.addr) as channel:
        client = pb_grpc.TaflServiceStub(channel)
        game = pb.Game(variant=pb.Variant(rules=pb.Rules.Value("RULES_" + args.rules.upper())))

        while len(game.moves) < args.plies:
            legal = client.LegalMoves(pb.LegalMovesRequest(game=game), timeout=10)
            if legal.status.result != ongoing:
                break
            # A seed per ply: the same game every run, not the same noise every move.
            suggested = client.SuggestMove(
                pb.SuggestMoveRequest(game=game, level=args.level, seed=len(game.moves)),
                timeout=30,
            )
            applied = client.ApplyMove(
                pb.ApplyMoveRequest(game=game, next_move=suggested.best_move.text), timeout=10
            )
            print(
                f"ply {applied.position.ply:>3}  {applied.played.text:<10} of {len(legal.moves):>3} legal"
                f"  score {suggested.score:>6}  {applied.position.text}"
            )
            game.moves.append(applied.played.text)
            if applied.status.result != ongoing:
                print(
                    "game over:",
                    pb.GameResult.Name(applied.status.result),
                    f"({pb.EndReason.Name(applied.status.reason)})",
                )
                break

        # A move the rules refuse: the status names the field and says why.
        try:
            client.ApplyMove(pb.ApplyMoveRequest(game=game, next_move="a1-a2"), timeout=10)
        except grpc.RpcError as error:
            first, *details = describe_error(error)
            print(f"a1-a2 refused: {first}", *details, sep="\n")
            if error.code() not in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION):
                sys.exit(f"unexpected status {error.code()}")
        else:
            sys.exit("a1-a2 was accepted; a move from a corner never is")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addr", default="127.0.0.1:50051", help="the server, host:port")
    parser.add_argument("--rules", default="copenhagen", choices=["copenhagen", "fetlar", "tablut"])
    parser.add_argument("--level", type=int, default=3, help="1..10; below 10 the game is the same every run")
    parser.add_argument("--plies", type=int, default=40, help="stop after this many plies")
    args = parser.parse_args()

    pb, pb_grpc = generate_stubs()
    try:
        play(args, pb, pb_grpc)
    except grpc.RpcError as error:
        # A sentence, not grpc's traceback: most often no server is there.
        if error.code() == grpc.StatusCode.UNAVAILABLE:
            sys.exit(
                f"client: no tafl server answers at {args.addr} ({error.details()}); "
                "start one with `cargo run --release`, or name another with --addr"
            )
        sys.exit(f"client: {error.code().name}: {error.details()}")


if __name__ == "__main__":
    main()
