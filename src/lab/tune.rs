//! Fitting the evaluation's weights to real games (Texel's method; `tafl tune`).
//!
//! Every position of every decided game in a record file (the 1,752 real
//! Copenhagen games of `tests/data/copenhagen-games.csv`) is a sample,
//! labelled with the game's result for the attackers: 1 won, ½ drawn, 0 lost.
//! Positions where the side to move wins at once (the king's open corner
//! line, a capturable king) are left out: the search scores those, not the
//! evaluation. The evaluation predicts the result through a logistic curve,
//! `p = 1 / (1 + e^(-eval / scale))`, and gradient descent (Adam) fits the
//! weights and the scale to the log-loss. The attacker's weight stays 100 (the
//! unit everything else is measured in), and a gentle pull toward the built-in
//! weights keeps a term the games rarely show where it was. Every fifth game is
//! held out: the loss on those games, before and after, shows whether the fit
//! generalises. The evaluation is linear in its weights (it counts terms, see
//! `search/eval/classic/counting.rs`), so each position's counts are taken
//! once and the fit is quick.

use std::fmt;

use strum::{EnumCount, IntoEnumIterator};

use super::adam::Adam;
use crate::lab::{GameRecord, RecordError};
use crate::rules::{Game, Rules, Variant};
use crate::search::eval::classic::{Mailbox, TermCounts};
use crate::search::{Term, Weights};

/// Why tuning cannot run.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error("no decided games in the records")]
    NoGames,
}

/// One position of a real game, as the tuner sees it.
#[derive(Clone, Debug)]
pub struct Sample {
    counts: [f64; Term::COUNT],
    /// The game's result for the attackers: 1, ½ or 0.
    result: f64,
    held_out: bool,
}

/// Samples from game records: every position before a ply of every decided game, up to the first
/// ply the rules refuse or end the game on. Every fifth game is held out.
pub fn samples(records: &str) -> Result<Vec<Sample>, TuneError> {
    let mut samples = Vec::new();
    let mut decided = 0;
    for record in GameRecord::parse_all(records)? {
        let Some(result) = record.result.attackers_score() else {
            continue;
        };
        let held_out = decided % 5 == 4;
        decided += 1;
        let mut game = Game::new(Variant::standard(Rules::Copenhagen));
        for text in &record.moves {
            let board = Mailbox::new(game.position());
            if !board.side_to_move_wins_now() {
                let counts = TermCounts::of(&board);
                samples.push(Sample {
                    counts: counts.0.map(f64::from),
                    result,
                    held_out,
                });
            }
            let ended = game.play(text).map(|played| played.status.is_over());
            if ended != Ok(false) {
                break;
            }
        }
    }
    if samples.is_empty() {
        return Err(TuneError::NoGames);
    }
    Ok(samples)
}

/// A fit: weights and the scale of the logistic curve.
#[derive(Clone, Debug)]
pub(crate) struct Fit {
    weights: [f64; Term::COUNT],
    scale: f64,
}

impl Fit {
    fn from_weights(weights: &Weights, scale: f64) -> Fit {
        Fit {
            weights: Term::iter()
                .map(|term| f64::from(weights[term]))
                .collect::<Vec<_>>()
                .try_into()
                .expect("one weight per term"),
            scale,
        }
    }

    fn rounded(&self) -> Weights {
        let mut weights = Weights::default();
        for term in Term::iter() {
            weights[term] = self.weights[term as usize].round() as i32;
        }
        weights
    }

    fn eval(&self, sample: &Sample) -> f64 {
        sample
            .counts
            .iter()
            .zip(&self.weights)
            .map(|(count, weight)| count * weight)
            .sum()
    }

    /// The predicted result for the attackers.
    fn predict(&self, eval: f64) -> f64 {
        1.0 / (1.0 + (-eval / self.scale).exp())
    }

    /// Mean log-loss over the samples `take` picks.
    fn loss(&self, samples: &[Sample], take: impl Fn(&Sample) -> bool) -> f64 {
        let (mut total, mut count) = (0.0, 0.0f64);
        for sample in samples.iter().filter(|sample| take(sample)) {
            let p = self.predict(self.eval(sample)).clamp(1e-12, 1.0 - 1e-12);
            total -= sample.result * p.ln() + (1.0 - sample.result) * (1.0 - p).ln();
            count += 1.0;
        }
        total / count.max(1.0)
    }
}

/// Losses before and after, on the training games and the held-out ones.
#[derive(Clone, Debug)]
pub struct TuneReport {
    pub samples: usize,
    pub held_out: usize,
    pub train_before: f64,
    pub train_after: f64,
    pub held_out_before: f64,
    pub held_out_after: f64,
    /// The tuned weights' logistic scale: an evaluation of `scale` means a 73% chance for the
    /// attackers.
    pub scale: f64,
    pub before: Weights,
    pub after: Weights,
}

impl fmt::Display for TuneReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} positions ({} in held-out games); logistic scale {:.0}",
            self.samples, self.held_out, self.scale
        )?;
        writeln!(
            f,
            "log-loss: training {:.4} -> {:.4}, held out {:.4} -> {:.4}",
            self.train_before, self.train_after, self.held_out_before, self.held_out_after
        )?;
        for term in Term::iter() {
            writeln!(
                f,
                "{:<28} {:>6} -> {:>6}",
                <&str>::from(term),
                self.before[term],
                self.after[term]
            )?;
        }
        Ok(())
    }
}

/// The logistic scale that fits `weights` best to the training games (Texel's first step): a
/// ternary search, the loss being unimodal in the scale.
fn best_scale(samples: &[Sample], weights: &Weights) -> f64 {
    let loss =
        |scale: f64| Fit::from_weights(weights, scale).loss(samples, |sample| !sample.held_out);
    let (mut low, mut high) = (10.0f64.ln(), 100_000.0f64.ln());
    for _ in 0..60 {
        let third = (high - low) / 3.0;
        if loss((low + third).exp()) < loss((high - third).exp()) {
            high -= third;
        } else {
            low += third;
        }
    }
    ((low + high) / 2.0).exp()
}

/// Fits `start` to the samples: Adam on the log-loss plus the pull toward `start`.
pub(crate) fn fit(samples: &[Sample], start: &Weights, iterations: u32, prior: f64) -> Fit {
    const RATE: f64 = 2.0;
    let origin = Fit::from_weights(start, 400.0);
    let mut fit = Fit {
        scale: best_scale(samples, start),
        ..origin.clone()
    };
    // Parameters: the weights, then the scale.
    let mut adam = Adam::new(Term::COUNT + 1, 1e-12);
    let training: Vec<&Sample> = samples.iter().filter(|sample| !sample.held_out).collect();
    let n = training.len() as f64;
    for step in 1..=iterations {
        let mut gradient = [0.0; Term::COUNT + 1];
        for sample in &training {
            let eval = fit.eval(sample);
            let p = fit.predict(eval);
            let error = (p - sample.result) / fit.scale / n;
            for (slot, count) in gradient.iter_mut().zip(&sample.counts) {
                *slot += error * count;
            }
            gradient[Term::COUNT] -= error * eval / fit.scale;
        }
        for (index, slot) in gradient.iter_mut().enumerate().take(Term::COUNT) {
            *slot += 2.0 * prior * (fit.weights[index] - origin.weights[index]) / 1e4;
        }
        // The unit stays put.
        gradient[Term::Attacker as usize] = 0.0;
        let rate = RATE * (1.0 - f64::from(step - 1) / f64::from(iterations)).max(0.05);
        adam.begin_step();
        for (index, &slot) in gradient.iter().enumerate() {
            let change = adam.change(index, slot, rate);
            if index == Term::COUNT {
                fit.scale = (fit.scale - change).max(10.0);
            } else {
                fit.weights[index] -= change;
            }
        }
    }
    fit
}

/// Fits the built-in weights to game records (the text of a record file, see [`GameRecord`]) with `iterations` Adam steps and a pull of strength `prior` toward them.
///
/// # Errors
/// [`TuneError`] when a line is not a record or no game is decided.
pub fn tune(records: &str, iterations: u32, prior: f64) -> Result<TuneReport, TuneError> {
    let samples = samples(records)?;
    let before = Weights::default();
    let fitted = fit(&samples, &before, iterations, prior);
    let after = fitted.rounded();
    let start = Fit::from_weights(&before, best_scale(&samples, &before));
    let end = Fit::from_weights(&after, fitted.scale);
    Ok(TuneReport {
        samples: samples.len(),
        held_out: samples.iter().filter(|sample| sample.held_out).count(),
        train_before: start.loss(&samples, |sample| !sample.held_out),
        train_after: end.loss(&samples, |sample| !sample.held_out),
        held_out_before: start.loss(&samples, |sample| sample.held_out),
        held_out_after: end.loss(&samples, |sample| sample.held_out),
        scale: fitted.scale,
        before,
        after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first `count` lines of the real games.
    fn first_games(count: usize) -> String {
        crate::lab::real_games()
            .iter()
            .take(count)
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn samples_come_from_decided_games_with_every_fifth_held_out() {
        let samples = samples(&first_games(100)).expect("samples");
        let held_out = samples.iter().filter(|sample| sample.held_out).count();
        assert!(held_out > samples.len() / 10 && held_out < samples.len() * 3 / 10);
        assert!(
            samples
                .iter()
                .all(|sample| [0.0, 0.5, 1.0].contains(&sample.result))
        );
        assert!(matches!(
            super::samples("a,b\n"),
            Err(TuneError::Record(RecordError::Columns { line: 1 }))
        ));
        assert!(matches!(
            super::samples("d1-d3,,,Ongoing\n"),
            Err(TuneError::NoGames)
        ));
    }

    #[test]
    fn fitting_lowers_the_loss_and_keeps_the_unit() {
        let samples = samples(&first_games(300)).expect("samples");
        let start = Weights::default();
        let before = Fit::from_weights(&start, best_scale(&samples, &start));
        let after = fit(&samples, &start, 200, 0.0005);
        let training = |sample: &Sample| !sample.held_out;
        assert!(after.loss(&samples, training) < before.loss(&samples, training));
        assert_eq!(after.rounded()[Term::Attacker], 100);
    }
}
