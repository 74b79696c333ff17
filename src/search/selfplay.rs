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
use std::time::Duration;

use super::tt::splitmix;
use super::{Engine, EngineConfig, Level, Limits};
use crate::rules::{BoardSize, Game, Rules, Side, Status, Variant};

/// `tafl match` arguments.
#[derive(clap::Args, Clone, Debug)]
pub struct MatchArgs {
    /// Player A: `level=N` plus optional `,depth=D`, `,nodes=N`, `,movetime=MS`.
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
    /// Print every game's result as it ends.
    #[arg(long, default_value_t = true)]
    pub verbose: bool,
}

/// Why a match cannot start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    #[error("player {0:?}: expected level=N[,depth=D][,nodes=N][,movetime=MS]")]
    BadPlayer(String),
    #[error("unknown rules {0:?}: expected copenhagen, fetlar or tablut")]
    BadRules(String),
    #[error("board size {0}: expected 9, 11 or 13")]
    BadSize(u32),
}

/// How one side of the match plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    pub level: Level,
    pub max_depth: Option<u32>,
    pub max_nodes: Option<u64>,
    pub movetime: Option<Duration>,
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
        };
        for part in text
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
        {
            let (key, value) = part.split_once('=').ok_or_else(bad)?;
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

/// The standard start, or the start plus a few seeded random moves that do not end the game.
fn opening(variant: Variant, index: u32) -> Game {
    let mut game = Game::new(variant);
    if index == 0 {
        return game;
    }
    let mut state = splitmix(u64::from(index) ^ 0x5eed);
    let plies = 2 + (state % 3) as usize;
    for _ in 0..plies {
        let mut moves = game.position().legal_moves();
        moves.sort();
        state = splitmix(state);
        let mv = moves[(state % moves.len() as u64) as usize];
        let mut trial = game.clone();
        if trial.play_move(mv).is_ok() && !trial.status().is_over() {
            game = trial;
        }
    }
    game
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
    let engine = Engine::new(EngineConfig {
        hash_mb: args.hash_mb,
    });
    let games = args.games.div_ceil(2) * 2;
    println!(
        "match {player_a} (A) vs {player_b} (B), {rules} {n}x{n}, {games} games",
        n = size.get()
    );
    let mut summary = MatchSummary::default();
    for index in 0..games {
        let a_attacks = index % 2 == 0;
        let mut game = opening(variant, index / 2);
        let start_ply = game.ply();
        while !game.status().is_over() && game.ply() < args.max_plies {
            let to_move = game.position().side_to_move();
            let player = if (to_move == Side::Attackers) == a_attacks {
                &player_a
            } else {
                &player_b
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
            if game.play_move(report.best_move).is_err() {
                eprintln!(
                    "game {}: the engine chose an illegal move {}",
                    index + 1,
                    report.best_move
                );
                break;
            }
        }
        let a_side = if a_attacks {
            Side::Attackers
        } else {
            Side::Defenders
        };
        let result = match game.status() {
            Status::Won { winner, .. } if winner == a_side => {
                summary.wins += 1;
                if a_attacks {
                    summary.wins_as_attackers += 1;
                } else {
                    summary.wins_as_defenders += 1;
                }
                "A wins"
            }
            Status::Won { .. } => {
                summary.losses += 1;
                "B wins"
            }
            Status::Drawn { .. } => {
                summary.draws += 1;
                "draw"
            }
            Status::Ongoing => {
                summary.draws += 1;
                "draw (move limit)"
            }
        };
        summary.games += 1;
        if args.verbose {
            println!(
                "game {:>3}: A {} opening {} -> {} {} after {} plies; A {:.1}/{}",
                index + 1,
                if a_attacks { "attacks " } else { "defends " },
                index / 2,
                result,
                reason(game.status()),
                game.ply() - start_ply,
                summary.wins as f64 + 0.5 * summary.draws as f64,
                summary.games
            );
            let _ = std::io::stdout().flush();
        }
    }
    print_summary(&summary);
    Ok(summary)
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
