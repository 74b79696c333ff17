//! A match's score: A's points with a 95% confidence interval from the
//! games' spread, and the Elo difference those points mean.

use super::{Ending, a_attacks};
use crate::rules::{Side, Status};

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
    /// Games lost by answering no move or an illegal one (counted in `games`).
    pub forfeits_by_a: u32,
    pub forfeits_by_b: u32,
    /// Games lost on time (counted in `games`).
    pub time_losses_by_a: u32,
    pub time_losses_by_b: u32,
    /// Games a player gave no answer in: not scored, not in `games`.
    pub abandoned: u32,
}

impl MatchSummary {
    /// A's points: 1 a win, ½ a draw.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// A's share of the points.
    pub fn score(&self) -> f64 {
        self.points() / self.games.max(1) as f64
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

impl MatchSummary {
    /// Counts how game `index` ended; what it means for A, in words.
    pub fn record(&mut self, index: u32, ending: &Ending) -> &'static str {
        let a_side = if a_attacks(index) {
            Side::Attackers
        } else {
            Side::Defenders
        };
        let winner = match ending {
            Ending::Abandoned { .. } => {
                self.abandoned += 1;
                return "abandoned";
            }
            Ending::Board(Status::Drawn { .. } | Status::Ongoing) => None,
            Ending::Board(Status::Won { winner, .. }) => Some(*winner),
            Ending::Forfeit { loser, .. } | Ending::OutOfTime { loser, .. } => {
                let on_time = matches!(ending, Ending::OutOfTime { .. });
                let count = match (on_time, *loser == a_side) {
                    (false, true) => &mut self.forfeits_by_a,
                    (false, false) => &mut self.forfeits_by_b,
                    (true, true) => &mut self.time_losses_by_a,
                    (true, false) => &mut self.time_losses_by_b,
                };
                *count += 1;
                Some(loser.opponent())
            }
        };
        self.games += 1;
        match winner {
            Some(winner) if winner == a_side => {
                self.wins += 1;
                if a_attacks(index) {
                    self.wins_as_attackers += 1;
                } else {
                    self.wins_as_defenders += 1;
                }
                "A wins"
            }
            Some(_) => {
                self.losses += 1;
                "B wins"
            }
            None => {
                self.draws += 1;
                if *ending == Ending::Board(Status::Ongoing) {
                    "draw (move limit)"
                } else {
                    "draw"
                }
            }
        }
    }
}
