/**
 * A caller of the tafl service in TypeScript on Node (@grpc/grpc-js): plays
 * one game turn by turn against a running server, asking SuggestMove for each
 * side's move, judging it with ApplyMove and listing the next position's
 * moves with LegalMoves, then shows what a refused move looks like, decoded
 * from the status details.
 *
 *     cd examples/node
 *     npm ci             # @grpc/grpc-js, @grpc/proto-loader, TypeScript
 *     npm run build      # types generated from proto/, then tsc
 *     node dist/src/client.js --addr 127.0.0.1:50051 --plies 20
 *
 * The messages are loaded from proto/ at start (@grpc/proto-loader) and their
 * types generated from it at build time (proto-loader-gen-types), so both
 * match the proto of this checkout. The request carries the whole game every
 * time: the service keeps nothing between calls, so the caller holds the moves.
 */

import * as path from "node:path";
import { parseArgs } from "node:util";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import * as protobuf from "protobufjs";
import type { ProtoGrpcType } from "../generated/tafl";
import type { ApplyMoveResponse__Output } from "../generated/tafl/v1/ApplyMoveResponse";
import type { Game } from "../generated/tafl/v1/Game";
import type { LegalMovesResponse__Output } from "../generated/tafl/v1/LegalMovesResponse";
import type { Rules } from "../generated/tafl/v1/Rules";
import type { SuggestMoveResponse__Output } from "../generated/tafl/v1/SuggestMoveResponse";
import type { TaflServiceClient } from "../generated/tafl/v1/TaflService";

const PROTO_ROOT = path.resolve(__dirname, "../../../../proto");
// The same options as `npm run build` gives proto-loader-gen-types, so the types fit.
const LOADER_OPTIONS: protoLoader.Options = { longs: String, enums: String, defaults: true, oneofs: true };
const RULES: Record<string, Rules> = { copenhagen: "RULES_COPENHAGEN", fetlar: "RULES_FETLAR", tablut: "RULES_TABLUT" };

/** A call's options: its deadline, so that no call waits for ever. */
function within(seconds: number): grpc.CallOptions {
  return { deadline: Date.now() + seconds * 1000 };
}

/** A number right-aligned in a column, as the Rust and Python clients print it. */
function pad(value: number, width: number): string {
  return String(value).padStart(width);
}

/** One unary call of the generated client, as a promise. */
function unary<Response>(
  call: (callback: grpc.requestCallback<Response>) => grpc.ClientUnaryCall,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    call((error, response) => {
      if (error) reject(error);
      else if (response === undefined) reject(new Error("no response"));
      else resolve(response);
    });
  });
}

/** google.rpc.Status and the details the service sends, from googleapis' own protos (their field names). */
function loadErrorDetails(): protobuf.Root {
  const googleapis = path.dirname(require.resolve("google-proto-files/package.json"));
  const files = ["google/rpc/status.proto", "google/rpc/error_details.proto"];
  return new protobuf.Root().loadSync(files.map((file) => path.join(googleapis, file)), { keepCase: true });
}

/**
 * The status code, the sentence, and the details: ErrorInfo when the server
 * sends one (a stable reason to branch on), else the field-level BadRequest
 * or PreconditionFailure.
 */
function describeError(error: grpc.ServiceError, googleRpc: protobuf.Root): string[] {
  const lines = [`${grpc.status[error.code]}: ${error.details}`];
  const [encoded] = error.metadata.get("grpc-status-details-bin");
  if (!(encoded instanceof Buffer)) return lines;
  const status = googleRpc.lookupType("google.rpc.Status").decode(encoded) as unknown as {
    details: { type_url: string; value: Uint8Array }[];
  };
  const details = new Map<string, Record<string, any>>();
  for (const any of status.details) {
    const name = any.type_url.slice(any.type_url.lastIndexOf("/") + 1);
    // Details of other types (the server adds a google.protobuf.Struct copy of ErrorInfo for generic tools) are skipped.
    const type = googleRpc.lookup(name);
    if (type instanceof protobuf.Type) details.set(name, type.toObject(type.decode(any.value)));
  }
  const info = details.get("google.rpc.ErrorInfo");
  const badRequest = details.get("google.rpc.BadRequest");
  const precondition = details.get("google.rpc.PreconditionFailure");
  if (info) {
    const metadata = Object.fromEntries(Object.entries(info.metadata ?? {}).sort());
    lines.push(`  reason ${info.reason} (${info.domain}) ${JSON.stringify(metadata)}`);
  } else if (badRequest) {
    for (const violation of badRequest.field_violations ?? []) {
      lines.push(`  field ${violation.field}: ${violation.description}`);
    }
  } else if (precondition) {
    for (const violation of precondition.violations ?? []) {
      lines.push(`  ${violation.type} ${violation.subject}: ${violation.description}`);
    }
  }
  return lines;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      addr: { type: "string", default: "127.0.0.1:50051" }, // the server, host:port
      rules: { type: "string", default: "copenhagen" },
      level: { type: "string", default: "3" }, // 1..10; below 10 the game is the same every run
      plies: { type: "string", default: "40" }, // stop after this many plies
    },
  });
  const rules = RULES[values.rules];
  if (rules === undefined) throw new Error(`--rules ${values.rules}: use one of ${Object.keys(RULES).join(", ")}`);
  const level = Number(values.level);
  const plies = Number(values.plies);

  const definition = protoLoader.loadSync("tafl/v1/tafl.proto", { ...LOADER_OPTIONS, includeDirs: [PROTO_ROOT] });
  const tafl = (grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType).tafl.v1;
  const client: TaflServiceClient = new tafl.TaflService(values.addr, grpc.credentials.createInsecure());
  const game: Game & { moves: string[] } = { variant: { rules }, moves: [] };

  try {
    while (game.moves.length < plies) {
      const legal = await unary<LegalMovesResponse__Output>((done) => client.LegalMoves({ game }, within(10), done));
      if (legal.status?.result !== "GAME_RESULT_ONGOING") break;
      // A seed per ply: the same game every run, not the same noise every move.
      const suggested = await unary<SuggestMoveResponse__Output>((done) =>
        client.SuggestMove({ game, level, seed: game.moves.length }, within(30), done),
      );
      const applied = await unary<ApplyMoveResponse__Output>((done) =>
        client.ApplyMove({ game, nextMove: suggested.bestMove?.text }, within(10), done),
      );
      const position = applied.position!;
      const played = applied.played!;
      console.log(
        `ply ${pad(position.ply, 3)}  ${played.text.padEnd(10)} of ${pad(legal.moves.length, 3)} legal` +
          `  score ${pad(suggested.score, 6)}  ${position.text}`,
      );
      game.moves.push(played.text);
      if (applied.status?.result !== "GAME_RESULT_ONGOING") {
        console.log(`game over: ${applied.status?.result} (${applied.status?.reason})`);
        break;
      }
    }

    // A move the rules refuse: the status names the field and says why.
    try {
      await unary<ApplyMoveResponse__Output>((done) => client.ApplyMove({ game, nextMove: "a1-a2" }, within(10), done));
    } catch (error) {
      const refused = error as grpc.ServiceError;
      const [first, ...details] = describeError(refused, loadErrorDetails());
      console.log([`a1-a2 refused: ${first}`, ...details].join("\n"));
      if (refused.code !== grpc.status.INVALID_ARGUMENT && refused.code !== grpc.status.FAILED_PRECONDITION) {
        throw new Error(`unexpected status ${grpc.status[refused.code]}`);
      }
      return;
    }
    throw new Error("a1-a2 was accepted; a move from a corner never is");
  } catch (error) {
    // Most often no server is there: say so, as the Rust and Python clients do.
    const failed = error as grpc.ServiceError;
    if (failed.code === grpc.status.UNAVAILABLE) {
      throw new Error(
        `no tafl server answers at ${values.addr} (${failed.details}); ` +
          "start one with `cargo run --release`, or name another with --addr",
      );
    }
    throw error;
  } finally {
    client.close();
  }
}

main().catch((error: unknown) => {
  console.error(`client: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
