//! `tafl otep`: the engine as OpenTafl's AI, over the OpenTafl Engine
//! Protocol (OTEP) on stdin and stdout (docs/otep.md).
//!
//! OpenTafl is the arbiter: it sends the rules, the opponent's moves with the
//! board after them, and asks for a move with `play`. The engine keeps its
//! own game to search from, and checks it against every board OpenTafl
//! sends: if the two ever disagree, the rules differ somewhere, and the
//! engine says so with a critical error instead of playing on a board that
//! is not the real one. Where the record OpenTafl sent ends a game
//! otherwise than tafl's ruleset (its repetition rule, its encirclement),
//! the engine judges the game, and chooses its moves, as OpenTafl does.
//!
//! The rooms: `session.rs` the conversation (what each command does),
//! `lines.rs` reading OpenTafl's lines, `clock.rs` its clock, read as the
//! engine's game clock, `hosted_game.rs` the game as OpenTafl's rules judge it, and
//! `otn.rs` OpenTafl's notation.

mod clock;
mod hosted_game;
mod lines;
mod otn;
mod session;

use std::io::{self, Write};
use std::time::Duration;

use tafl::rules::Position;
use tafl::search::{DEFAULT_MOVE_OVERHEAD, Engine, EngineConfig, Level};

use session::Session;

/// `tafl otep`'s flags.
#[derive(Clone, Debug, clap::Args)]
pub struct OtepArgs {
    /// Strength, 1 (beginner) to 10 (strongest).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10))]
    pub level: u32,
    /// Thinking time per move when the game has no clock (milliseconds).
    #[arg(long, default_value_t = 2000)]
    pub movetime_ms: u64,
    /// The time a move takes to reach OpenTafl's clock (the pipe, the host), taken off every
    /// time the clock gives a move (milliseconds).
    #[arg(long, default_value_t = DEFAULT_MOVE_OVERHEAD.as_millis() as u64)]
    pub move_overhead_ms: u64,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 64)]
    pub hash_mb: usize,
    /// Seed of the levels' randomness; at level 10, 0 plays the best move and any other seed
    /// varies among moves within a twentieth of an attacker of it.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print the OTN rules record of every ruleset and board tafl plays (to
    /// add them to OpenTafl) and exit.
    #[arg(long)]
    pub print_rules: bool,
}

/// Speaks OTEP on stdin and stdout until OpenTafl says goodbye.
///
/// # Errors
/// Only when stdout cannot be written.
pub fn run(args: &OtepArgs) -> io::Result<()> {
    if args.print_rules {
        let mut stdout = io::stdout();
        for variant in otn::variants() {
            let record = otn::rules_record(variant, &Position::start(variant));
            writeln!(stdout, "{record}")?;
        }
        return Ok(());
    }
    let engine = Engine::new(EngineConfig {
        hash_mb: args.hash_mb,
        ..EngineConfig::default()
    });
    let level = Level::new(args.level).unwrap_or(Level::STRONGEST);
    let movetime = Duration::from_millis(args.movetime_ms);
    let move_overhead = Duration::from_millis(args.move_overhead_ms);
    Session::new(engine, level, movetime, move_overhead, args.seed)
        .serve(io::BufReader::new(io::stdin()), io::stdout())
}
