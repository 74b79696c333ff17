//! Self-play between two settings of the engine, one game at a time (`tafl
//! match` runs many on threads and prints them).
//!
//! Games come in pairs: each opening is played twice, each player taking
//! each side once. Opening 0 is the standard start; the others are the start
//! plus two to four random legal moves (seeded by the pair's number, so a
//! match is repeatable when the players are not time-bound). The score is
//! player A's points (win 1, draw ½) with a 95% confidence interval from the
//! games' spread, and the Elo difference those points mean.

use std::time::Duration;

use super::tt::splitmix;
use super::{Engine, Level, Limits};
use crate::rules::{Game, Side, Status, Variant};

/// How one side of a match searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    pub level: Level,
    pub max_depth: Option<u32>,
    pub max_nodes: Option<u64>,
    pub movetime: Option<Duration>,
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

/// Player A attacks in even games and defends in odd ones (each opening twice).
pub fn a_attacks(index: u32) -> bool {
    index.is_multiple_of(2)
}

/// Game `index` of the match, to its end or the move limit: the game, the ply it started from, and
/// every move from the standard start.
///
/// # Panics
/// If the search chose an illegal move (a bug: it chooses among the legal ones).
pub fn play_game(
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
        game.play_move(report.best_move)
            .expect("the search chooses among the legal moves");
    }
    (game, start_ply, moves)
}

impl MatchSummary {
    /// Counts game `index`'s final status; what it means for A, in words.
    pub fn record(&mut self, index: u32, status: Status) -> &'static str {
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

/// How a finished game ended, in words: `(KingEscaped)`; empty while it goes on.
pub fn reason(status: Status) -> String {
    match status {
        Status::Won { reason, .. } | Status::Drawn { reason } => format!("({reason:?})"),
        Status::Ongoing => String::new(),
    }
}
