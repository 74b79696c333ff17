//! The contract's second part, measured: ValidateGame of a 100-ply and a
//! 4,096-ply game over real HTTP/2 (the in-process server on port 0), beside
//! the same replay done in-process with `tafl::rules::Game`; and what the
//! richer LegalMoves answer (each move previewed: captures and status after)
//! costs against the bare list, as a ratio measured in the same run; and
//! Threats at each position of the 100-ply game, in-process.
//!
//! `cargo bench --bench turns` (`TURNS_BENCH_SECONDS` sets each
//! measurement's length, 2 by default).

use std::hint::black_box;
use std::time::{Duration, Instant};

use tafl::rules::{Game, Move, MoveText, Rules, Variant};
use tafl::service::pb::tafl_service_client::TaflServiceClient;
use tafl::service::pb::{self, ValidateGameRequest};
use tafl::service::{CapsConfig, Config, Server, TransportConfig};
use tonic::transport::Channel;

/// A 4,096-ply Tablut game: two pieces shuffling (Tablut has no repetition rule).
fn long_tablut_game() -> Vec<String> {
    let cycle = ["a4-b4", "e3-d3", "b4-a4", "d3-e3"];
    let moves: Vec<String> = cycle
        .iter()
        .cycle()
        .take(4096)
        .map(|m| (*m).to_owned())
        .collect();
    let mut game = Game::new(Variant::standard(Rules::Tablut));
    for text in &moves {
        let played = game.play(text).expect("a shuffling move");
        assert!(!played.status.is_over() && played.captures.is_empty());
    }
    moves
}

/// Median time of `work` over repeated runs for about `duration`.
fn median(duration: Duration, mut work: impl FnMut()) -> Duration {
    for _ in 0..3 {
        work();
    }
    let mut times = Vec::new();
    let started = Instant::now();
    while started.elapsed() < duration || times.len() < 5 {
        let run = Instant::now();
        work();
        times.push(run.elapsed());
    }
    times.sort_unstable();
    times[times.len() / 2]
}

/// The replay ValidateGame does, in-process.
fn replay(variant: Variant, moves: &[String]) {
    let mut game = Game::new(variant);
    for text in moves {
        black_box(game.play(text).expect("a legal move"));
    }
}

/// LegalMoves' list without previews: generated, sorted, as text.
fn bare_list(game: &Game) -> Vec<String> {
    let mut moves: Vec<Move> = game.position().legal_moves().to_vec();
    moves.sort_unstable();
    moves.iter().map(|mv| mv.to_string()).collect()
}

/// LegalMoves' list as sent now: each move previewed, text with captures.
fn previewed_list(game: &Game) -> Vec<(String, bool)> {
    let mut moves: Vec<Move> = game.position().legal_moves().to_vec();
    moves.sort_unstable();
    moves
        .iter()
        .map(|&mv| {
            let played = game.preview(mv).expect("a legal move");
            let text = MoveText {
                from: mv.from,
                to: mv.to,
                captures: Some(played.captures),
            };
            (text.to_string(), played.status.is_over())
        })
        .collect()
}

fn main() {
    let seconds: f64 = std::env::var("TURNS_BENCH_SECONDS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(2.0);
    let duration = Duration::from_secs_f64(seconds);
    let short = common::real_game::real_game_moves(100)[..100].to_vec();
    let long = long_tablut_game();
    let games = [
        (
            "100-ply Copenhagen",
            Variant::standard(Rules::Copenhagen),
            pb::Rules::Copenhagen,
            &short,
        ),
        (
            "4,096-ply Tablut",
            Variant::standard(Rules::Tablut),
            pb::Rules::Tablut,
            &long,
        ),
    ];

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let server = runtime
        .block_on(Server::start(Config {
            transport: TransportConfig {
                listen: "127.0.0.1:0".parse().expect("address"),
                ..TransportConfig::default()
            },
            caps: CapsConfig {
                max_game_plies: 5000,
                ..CapsConfig::default()
            },
            ..Config::default()
        }))
        .expect("server starts");
    let client = runtime.block_on(async {
        let channel = Channel::from_shared(format!("http://{}", server.local_addr()))
            .expect("uri")
            .connect()
            .await
            .expect("connects");
        TaflServiceClient::new(channel).max_decoding_message_size(64 << 20)
    });

    println!("ValidateGame, one call at a time (median):");
    for (name, variant, rules, moves) in games {
        let request = ValidateGameRequest {
            game: Some(pb::Game {
                variant: Some(pb::Variant {
                    rules: rules.into(),
                    board_size: 0,
                }),
                start: String::new(),
                moves: moves.to_vec(),
            }),
        };
        let rpc = median(duration, || {
            let mut client = client.clone();
            let reply = runtime
                .block_on(client.validate_game(request.clone()))
                .expect("ValidateGame");
            assert!(reply.get_ref().first_error.is_none());
            black_box(reply);
        });
        let in_process = median(duration, || replay(variant, moves));
        println!(
            "  {name:<20} RPC {:>9.1} µs   in-process replay {:>8.1} µs   ({:.2} µs a ply over gRPC)",
            rpc.as_secs_f64() * 1e6,
            in_process.as_secs_f64() * 1e6,
            rpc.as_secs_f64() * 1e6 / moves.len() as f64,
        );
    }

    // Every position of the 100-ply game: the list bare, then previewed.
    let mut positions = Vec::new();
    let mut game = Game::new(Variant::standard(Rules::Copenhagen));
    for text in &short {
        positions.push(game.clone());
        game.play(text).expect("a recorded move");
    }
    let bare = median(duration, || {
        for game in &positions {
            black_box(bare_list(game));
        }
    });
    let previewed = median(duration, || {
        for game in &positions {
            black_box(previewed_list(game));
        }
    });
    let per_position = |time: Duration| time.as_secs_f64() * 1e6 / positions.len() as f64;
    println!("LegalMoves' list at each of the 100 positions (median per position):");
    println!(
        "  bare {:.1} µs, previewed (captures, status after) {:.1} µs: ratio {:.2}",
        per_position(bare),
        per_position(previewed),
        previewed.as_secs_f64() / bare.as_secs_f64()
    );
    let threats = median(duration, || {
        for game in &positions {
            black_box(tafl::search::threats(game));
        }
    });
    println!(
        "Threats (wins, threats to parry, double threats proven by search, captures): {:.1} µs a position",
        per_position(threats)
    );
    runtime.block_on(server.shutdown()).expect("shutdown");
}
