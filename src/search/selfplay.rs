//! `tafl match`: self-play between two settings of the engine.
//!
//! Games come in pairs: each opening is played twice, each player taking
//! each side once. Opening 0 is the standard start; the others are the start
//! plus two to four random legal moves (seeded by the pair's number, so a
//! match is repeatable when the players are not time-bound). The score is
//! player A's points (win 1, draw ½) with a 95% confidence interval from the
//! games' spread, and the Elo difference those points mean.

use std::fmt;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use super::tt::splitmix;
use super::{Engine, EngineConfig, Level, Limits, Network, Weights, WeightsError};
use crate::rules::{BoardSize, Game, Rules, Side, Status, Variant};

/// `tafl match` arguments.
#[derive(clap::Args, Clone, Debug)]
pub struct MatchArgs {
    /// Player A: `level=N` plus optional `,depth=D`, `,nodes=N`, `,movetime=MS`, `,weights=FILE`
    /// (evaluation weights as `tafl tune` prints them), `,net=FILE` (an evaluation network, as
    /// `tafl train` writes it) or `,eval=classic` (the hand-set evaluation, whatever the default).
    #[arg(long, default_value = "level=10")]
    pub a: String,
    /// Player B, as A.
    #[arg(long, default_value = "level=7")]
    pub b: String,
    /// Games to play (rounded up to an even number: both colours per opening).
    #[arg(long, default_value_t = 40)]
    pub games: u32,
    /// Time per move, ms, for both players (0: the levels' own budgets).
    #[arg(long, default_value_t = 200)]
    pub movetime: u64,
    /// copenhagen, fetlar or tablut.
    #[arg(long, default_value = "copenhagen")]
    pub rules: String,
    /// 9, 11 or 13; default: the rules' own board.
    #[arg(long)]
    pub size: Option<u32>,
    /// A game still going after this many plies is a draw.
    #[arg(long, default_value_t = 300)]
    pub max_plies: usize,
    /// Transposition table size, MiB.
    #[arg(long, default_value_t = 16)]
    pub hash_mb: usize,
    /// Games played at once, each on its own thread.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Print only the final score, not every game's result as it ends.
    #[arg(long)]
    pub quiet: bool,
    /// Append every game to this file, one a line in the real games' format (`moves,,,result`
    /// with result Black, White, Draw or Ongoing), for `tafl tune --games`.
    #[arg(long)]
    pub record: Option<String>,
}

/// Why a match cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    #[error(
        "player {0:?}: expected level=N[,depth=D][,nodes=N][,movetime=MS][,weights=FILE][,net=FILE|,eval=classic]"
    )]
    BadPlayer(String),
    #[error("network file {path}: {reason}")]
    BadNetwork { path: String, reason: String },
    #[error("weights file {path}: {reason}")]
    BadWeights { path: String, reason: String },
    #[error("unknown rules {0:?}: expected copenhagen, fetlar or tablut")]
    BadRules(String),
    #[error("board size {0}: expected 9, 11 or 13")]
    BadSize(u32),
    #[error("cannot write the games to {path}: {reason}")]
    Record { path: String, reason: String },
}

/// How one side of the match plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    pub level: Level,
    pub max_depth: Option<u32>,
    pub max_nodes: Option<u64>,
    pub movetime: Option<Duration>,
    /// A file of evaluation weights; `None`: the built-in ones.
    pub weights: Option<String>,
    pub evaluation: Evaluation,
}

/// Which evaluation a player uses.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Evaluation {
    /// The engine's default.
    #[default]
    Default,
    /// The hand-set terms.
    Classic,
    /// A network file.
    Network(String),
}

impl std::str::FromStr for Player {
    type Err = MatchError;
    fn from_str(text: &str) -> Result<Player, MatchError> {
        let bad = || MatchError::BadPlayer(text.to_string());
        let mut player = Player {
            level: Level::STRONGEST,
            max_depth: None,
            max_nodes: None,
            movetime: None,
            weights: None,
            evaluation: Evaluation::Default,
        };
        for part in text
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
        {
            let (key, value) = part.split_once('=').ok_or_else(bad)?;
            match (key.trim(), value.trim()) {
                ("weights", path) => {
                    player.weights = Some(path.to_string());
                    continue;
                }
                ("net", path) => {
                    player.evaluation = Evaluation::Network(path.to_string());
                    continue;
                }
                ("eval", "classic") => {
                    player.evaluation = Evaluation::Classic;
                    continue;
                }
                _ => {}
            }
            let number: u64 = value.trim().parse().map_err(|_| bad())?;
            match key.trim() {
                "level" => player.level = Level::new(number as u32).ok_or_else(bad)?,
                "depth" => player.max_depth = Some(number as u32),
                "nodes" => player.max_nodes = Some(number),
                "movetime" => player.movetime = Some(Duration::from_millis(number)),
                _ => return Err(bad()),
            }
        }
        Ok(player)
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "level={}", self.level)?;
        if let Some(depth) = self.max_depth {
            write!(f, ",depth={depth}")?;
        }
        if let Some(nodes) = self.max_nodes {
            write!(f, ",nodes={nodes}")?;
        }
        if let Some(weights) = &self.weights {
            write!(f, ",weights={weights}")?;
        }
        match &self.evaluation {
            Evaluation::Default => {}
            Evaluation::Classic => write!(f, ",eval=classic")?,
            Evaluation::Network(path) => write!(f, ",net={path}")?,
        }
        Ok(())
    }
}

/// A match's result from player A's view.
#[derive(Clone, Debug, Default)]
pub struct MatchSummary {
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// A's wins as attackers and as defenders.
    pub wins_as_attackers: u32,
    pub wins_as_defenders: u32,
}

impl MatchSummary {
    /// A's share of the points.
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games.max(1) as f64
    }

    /// Half-width of the 95% confidence interval of [`MatchSummary::score`].
    pub fn margin(&self) -> f64 {
        let n = self.games as f64;
        if n < 2.0 {
            return 0.5;
        }
        let mean = self.score();
        let squares = self.wins as f64 * (1.0 - mean).powi(2)
            + self.draws as f64 * (0.5 - mean).powi(2)
            + self.losses as f64 * mean.powi(2);
        1.96 * (squares / (n - 1.0) / n).sqrt()
    }
}

/// The Elo difference a score share means (clamped to ±800 at 0 and 1).
pub fn elo(score: f64) -> f64 {
    let score = score.clamp(0.01, 0.99);
    (-400.0 * (1.0 / score - 1.0).log10()).clamp(-800.0, 800.0)
}

/// The standard start, or the start plus a few seeded random moves that do not end the game; and
/// those moves.
fn opening(variant: Variant, index: u32) -> (Game, Vec<String>) {
    let mut game = Game::new(variant);
    let mut moves = Vec::new();
    if index == 0 {
        return (game, moves);
    }
    let mut state = splitmix(u64::from(index) ^ 0x5eed);
    let plies = 2 + (state % 3) as usize;
    for _ in 0..plies {
        let mut choices = game.position().legal_moves();
        choices.sort();
        state = splitmix(state);
        let mv = choices[(state % choices.len() as u64) as usize];
        let mut trial = game.clone();
        if trial.play_move(mv).is_ok() && !trial.status().is_over() {
            game = trial;
            moves.push(mv.to_string());
        }
    }
    (game, moves)
}

/// Plays the match, printing each game and the score.
///
/// # Errors
/// [`MatchError`] when a player, the rules or the size cannot be read.
pub fn run(args: &MatchArgs) -> Result<MatchSummary, MatchError> {
    let mut player_a: Player = args.a.parse()?;
    let mut player_b: Player = args.b.parse()?;
    let rules: Rules = args
        .rules
        .parse()
        .map_err(|_| MatchError::BadRules(args.rules.clone()))?;
    let size = match args.size {
        Some(size) => BoardSize::new(size).ok_or(MatchError::BadSize(size))?,
        None => rules.default_size(),
    };
    let variant = Variant::new(rules, size);
    let movetime = (args.movetime > 0).then(|| Duration::from_millis(args.movetime));
    for player in [&mut player_a, &mut player_b] {
        player.movetime = player.movetime.or(movetime);
    }
    let engines = [
        engine_for(&player_a, args.hash_mb)?,
        engine_for(&player_b, args.hash_mb)?,
    ];
    let games = args.games.div_ceil(2) * 2;
    println!(
        "match {player_a} (A) vs {player_b} (B), {rules} {n}x{n}, {games} games",
        n = size.get()
    );
    let record = match &args.record {
        None => None,
        Some(path) => Some(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|error| MatchError::Record {
                    path: path.clone(),
                    reason: error.to_string(),
                })?,
        )),
    };
    let next_game = AtomicU32::new(0);
    let summary = Mutex::new(MatchSummary::default());
    std::thread::scope(|scope| {
        for _ in 0..args.threads.max(1) {
            scope.spawn(|| {
                loop {
                    let index = next_game.fetch_add(1, Ordering::Relaxed);
                    if index >= games {
                        break;
                    }
                    let players = [(&player_a, &engines[0]), (&player_b, &engines[1])];
                    let (game, start_ply, moves) =
                        play_game(variant, index, players, args.max_plies);
                    if let Some(file) = &record {
                        let line =
                            format!("{},,,{}\n", moves.join(" "), result_word(game.status()));
                        let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                        if let Err(error) = file.write_all(line.as_bytes()) {
                            eprintln!("cannot record game {}: {error}", index + 1);
                        }
                    }
                    let mut summary = summary
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                    let result = summary.record(index, game.status());
                    if !args.quiet {
                        println!(
                            "game {:>3}: A {} opening {} -> {result} {} after {} plies; A {:.1}/{}",
                            index + 1,
                            if a_attacks(index) {
                                "attacks "
                            } else {
                                "defends "
                            },
                            index / 2,
                            reason(game.status()),
                            game.ply() - start_ply,
                            summary.wins as f64 + 0.5 * summary.draws as f64,
                            summary.games
                        );
                        let _ = std::io::stdout().flush();
                    }
                }
            });
        }
    });
    let summary = summary
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    print_summary(&summary);
    Ok(summary)
}

/// An engine with the player's evaluation weights.
fn engine_for(player: &Player, hash_mb: usize) -> Result<Engine, MatchError> {
    let weights = match &player.weights {
        None => Weights::default(),
        Some(path) => {
            let bad = |reason: String| MatchError::BadWeights {
                path: path.clone(),
                reason,
            };
            let text = std::fs::read_to_string(path).map_err(|error| bad(error.to_string()))?;
            text.parse()
                .map_err(|error: WeightsError| bad(error.to_string()))?
        }
    };
    let network = match &player.evaluation {
        Evaluation::Default => EngineConfig::default().network,
        Evaluation::Classic => None,
        Evaluation::Network(path) => {
            let bad = |reason: String| MatchError::BadNetwork {
                path: path.clone(),
                reason,
            };
            let bytes = std::fs::read(path).map_err(|error| bad(error.to_string()))?;
            let network = Network::from_bytes(&bytes).map_err(|error| bad(error.to_string()))?;
            Some(std::sync::Arc::new(network))
        }
    };
    Ok(Engine::new(EngineConfig {
        hash_mb,
        weights,
        network,
    }))
}

/// Player A attacks in even games and defends in odd ones (each opening twice).
fn a_attacks(index: u32) -> bool {
    index.is_multiple_of(2)
}

/// The record's word for a result: Black (attackers) won, White (defenders) won, Draw, Ongoing.
fn result_word(status: Status) -> &'static str {
    match status {
        Status::Won {
            winner: Side::Attackers,
            ..
        } => "Black",
        Status::Won { .. } => "White",
        Status::Drawn { .. } => "Draw",
        Status::Ongoing => "Ongoing",
    }
}

/// Game `index` of the match, to its end or the move limit: the game, the ply it started from, and
/// every move from the standard start.
fn play_game(
    variant: Variant,
    index: u32,
    [a, b]: [(&Player, &Engine); 2],
    max_plies: usize,
) -> (Game, usize, Vec<String>) {
    let (mut game, mut moves) = opening(variant, index / 2);
    let start_ply = game.ply();
    while !game.status().is_over() && game.ply() < max_plies {
        let to_move = game.position().side_to_move();
        let (player, engine) = if (to_move == Side::Attackers) == a_attacks(index) {
            a
        } else {
            b
        };
        let limits = Limits {
            max_depth: player.max_depth,
            max_nodes: player.max_nodes,
            max_time: player.movetime,
            deadline: None,
        };
        let seed = splitmix(u64::from(index) << 32 | game.ply() as u64);
        let Some(report) = engine.search(&game, &limits, player.level, seed) else {
            break;
        };
        moves.push(report.best_move.to_string());
        if game.play_move(report.best_move).is_err() {
            eprintln!(
                "game {}: the engine chose an illegal move {}",
                index + 1,
                report.best_move
            );
            break;
        }
    }
    (game, start_ply, moves)
}

impl MatchSummary {
    /// Counts game `index`'s final status; what it means for A, in words.
    fn record(&mut self, index: u32, status: Status) -> &'static str {
        let a_side = if a_attacks(index) {
            Side::Attackers
        } else {
            Side::Defenders
        };
        self.games += 1;
        match status {
            Status::Won { winner, .. } if winner == a_side => {
                self.wins += 1;
                if a_attacks(index) {
                    self.wins_as_attackers += 1;
                } else {
                    self.wins_as_defenders += 1;
                }
                "A wins"
            }
            Status::Won { .. } => {
                self.losses += 1;
                "B wins"
            }
            Status::Drawn { .. } => {
                self.draws += 1;
                "draw"
            }
            Status::Ongoing => {
                self.draws += 1;
                "draw (move limit)"
            }
        }
    }
}

fn reason(status: Status) -> String {
    match status {
        Status::Won { reason, .. } | Status::Drawn { reason } => format!("({reason:?})"),
        Status::Ongoing => String::new(),
    }
}

fn print_summary(summary: &MatchSummary) {
    let score = summary.score();
    let margin = summary.margin();
    println!(
        "A: +{} ={} -{} (wins as attackers {}, as defenders {}): {:.1}/{} = {:.1}% ± {:.1}% (95%)",
        summary.wins,
        summary.draws,
        summary.losses,
        summary.wins_as_attackers,
        summary.wins_as_defenders,
        summary.wins as f64 + 0.5 * summary.draws as f64,
        summary.games,
        100.0 * score,
        100.0 * margin
    );
    println!(
        "Elo A - B: {:+.0} (95%: {:+.0} .. {:+.0})",
        elo(score),
        elo((score - margin).max(0.0)),
        elo((score + margin).min(1.0))
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn players_read_every_key_and_refuse_the_rest() {
        let player: Player = "level=7, depth=3,nodes=500,movetime=20,weights=w.txt,net=n.bin"
            .parse()
            .expect("a player");
        assert_eq!(player.evaluation, Evaluation::Network("n.bin".into()));
        let classic: Player = "level=3,eval=classic".parse().expect("a player");
        assert_eq!(classic.evaluation, Evaluation::Classic);
        assert_eq!(player.level, Level::new(7).expect("level"));
        assert_eq!(player.max_depth, Some(3));
        assert_eq!(player.max_nodes, Some(500));
        assert_eq!(player.movetime, Some(Duration::from_millis(20)));
        assert_eq!(player.weights.as_deref(), Some("w.txt"));
        for bad in ["level=11", "level", "speed=3", "depth=x", "eval=fancy"] {
            assert!(bad.parse::<Player>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_match_on_two_threads_plays_every_game() {
        let args = MatchArgs {
            a: "level=10,depth=1".into(),
            b: "level=10,depth=2".into(),
            games: 3,
            movetime: 0,
            rules: "tablut".into(),
            size: None,
            max_plies: 40,
            hash_mb: 1,
            threads: 2,
            quiet: true,
            record: None,
        };
        let summary = run(&args).expect("a match");
        assert_eq!(summary.games, 4);
        assert_eq!(summary.wins + summary.draws + summary.losses, 4);
    }

    #[test]
    fn an_unreadable_weights_file_is_named() {
        let args = MatchArgs {
            a: "level=10,weights=/nonexistent/weights.txt".into(),
            b: "level=1".into(),
            games: 2,
            movetime: 0,
            rules: "copenhagen".into(),
            size: None,
            max_plies: 10,
            hash_mb: 1,
            threads: 1,
            quiet: true,
            record: None,
        };
        let error = run(&args).expect_err("no such file");
        assert!(
            error.to_string().contains("/nonexistent/weights.txt"),
            "{error}"
        );
    }
}
