//! The `tafl` command: serving (the default) and the tools around the engine.
//! One file per subcommand; each parses its own flags with clap and does the
//! printing and file handling the library leaves to its callers.

mod bench;
mod completions;
mod datagen;
mod fit_win_chance;
mod levels;
mod matchplay;
mod otep;
mod perft;
mod puzzles;
mod remote_player;
mod review;
mod serve;
mod train;
mod tune;

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use tafl::lab::{GameRecord, real_games};
use tafl::rules::{BoardSize, Rules, Variant};
use tafl::search::Limits;
use tafl::service::telemetry;

/// The rules arbiter and AI of an online tafl (Viking chess) site.
#[derive(Debug, Parser)]
#[command(name = "tafl", version, about, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// With no subcommand, `tafl` serves: these are `tafl serve`'s flags.
    #[command(flatten)]
    serve: serve::ServeArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve tafl.v1.TaflService, health and reflection over gRPC (the default).
    Serve(serve::ServeArgs),
    /// Count the move paths of a given length (the move generator's check);
    /// the last line printed is the count.
    Perft(perft::PerftArgs),
    /// Search a fixed set of positions to a fixed depth; prints total nodes (the search's fingerprint) and nodes/s.
    Bench(bench::BenchArgs),
    /// A match between two engine settings, or against another build's server, from varied or real
    /// openings; prints the score with a 95% confidence interval and the Elo difference.
    Match(matchplay::MatchArgs),
    /// Fit the evaluation's weights to real game records (Texel's method); prints the losses
    /// before and after and every weight.
    Tune(tune::TuneArgs),
    /// Play as OpenTafl's AI: the OpenTafl Engine Protocol on stdin and stdout (docs/otep.md).
    Otep(otep::OtepArgs),
    /// Self-play training data for the evaluation network, appended to a file (resumable).
    Datagen(datagen::DatagenArgs),
    /// Train an evaluation network on `tafl datagen` data; prints the losses of every epoch and
    /// writes the network file.
    Train(train::TrainArgs),
    /// Review a game ply by ply: each move scored and classed (best ... blunder, missed and found
    /// wins), each side's accuracy, the turning points; `--svg` draws the evaluation graph. Each
    /// position's search: 50,000 nodes by default, unless --depth, --time-ms or a --level below 10
    /// bounds it.
    Review(review::ReviewArgs),
    /// Mine puzzles from games: positions where one sequence wins by force, each proven unique,
    /// appended to a CSV file (resumable); `--svg` draws each puzzle's board. Each position's
    /// search: 5,000 nodes unless --nodes, --depth or --time-ms bounds it.
    Puzzles(puzzles::PuzzlesArgs),
    /// The levels' yardstick: review the real games or a player's games into rows of accuracy,
    /// summarise rows, or count where games of different seeds part.
    Levels(levels::LevelsArgs),
    /// Fit game review's win-chance model to real games; prints its calibration on the held-out
    /// half and the fitted constants.
    FitWinChance(fit_win_chance::FitWinChanceArgs),
    /// Print the completion script of a shell: e.g. `source <(tafl completions bash)` in
    /// .bashrc, `tafl completions zsh > _tafl` in a directory of $fpath, `tafl completions fish |
    /// source` in fish's config.
    Completions(completions::CompletionsArgs),
}

impl Cli {
    /// Runs the subcommand (serving when there is none).
    pub fn run(self) -> anyhow::Result<()> {
        let command = self.command.unwrap_or(Command::Serve(self.serve));
        if !matches!(command, Command::Serve(_)) {
            // `serve` sets up its own, exporting over OTLP when configured.
            telemetry::init(None)?;
        }
        match command {
            Command::Serve(args) => serve::run(args),
            Command::Perft(args) => perft::run(&args),
            Command::Bench(args) => bench::run(&args).context("tafl bench"),
            Command::Match(args) => matchplay::run(&args).map(drop).context("tafl match"),
            Command::Tune(args) => tune::run(&args).context("tafl tune"),
            Command::Otep(args) => otep::run(&args).context("tafl otep"),
            Command::Datagen(args) => datagen::run(&args).context("tafl datagen"),
            Command::Train(args) => train::run(&args).context("tafl train"),
            Command::Review(args) => review::run(&args).context("tafl review"),
            Command::Puzzles(args) => puzzles::run(&args).context("tafl puzzles"),
            Command::Levels(args) => levels::run(&args).context("tafl levels"),
            Command::FitWinChance(args) => {
                fit_win_chance::run(&args).context("tafl fit-win-chance")
            }
            Command::Completions(args) => completions::run(&args).context("tafl completions"),
        }
    }
}

/// `--rules` and `--size`: the variant a command plays.
#[derive(Clone, Debug, clap::Args)]
pub struct VariantArgs {
    /// copenhagen, fetlar or tablut.
    #[arg(long, default_value = "copenhagen")]
    pub rules: Rules,
    /// 9, 11 or 13; default: the rules' own board.
    #[arg(long, value_parser = board_size)]
    pub size: Option<BoardSize>,
}

impl VariantArgs {
    /// The rules on the size given, else on their own board.
    pub fn variant(&self) -> Variant {
        Variant::new(self.rules, self.size.unwrap_or(self.rules.default_size()))
    }
}

/// The bounds of each position's search, for the commands that search a game's positions one
/// by one (their default budget, when none is given, is in their help).
#[derive(clap::Args, Clone, Debug)]
pub struct PositionSearchArgs {
    /// Each position's search: at most this many nodes.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Each position's search: at most this many plies.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Each position's search: at most this long (the results are then no longer the same
    /// every time).
    #[arg(long)]
    pub time_ms: Option<u64>,
}

impl PositionSearchArgs {
    /// The bounds given, none of them a deadline.
    pub fn limits(&self) -> Limits {
        Limits {
            max_depth: self.depth,
            max_nodes: self.nodes,
            max_time: self.time_ms.map(Duration::from_millis),
            ..Limits::default()
        }
    }
}

/// A board size from the command line.
pub fn board_size(text: &str) -> Result<BoardSize, String> {
    text.parse()
        .ok()
        .and_then(BoardSize::new)
        .ok_or_else(|| format!("{text:?}: expected 9, 11 or 13"))
}

/// The game records of a file, one a line (`moves,_,_,result`); with none, the real games built
/// in, so that a command's default works wherever it runs.
pub fn game_records(path: Option<&Path>) -> anyhow::Result<Vec<GameRecord>> {
    let Some(path) = path else {
        return Ok(real_games());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the game records {}", path.display()))?;
    GameRecord::parse_all(&text).with_context(|| format!("game records {}", path.display()))
}
