//! Fitting game review's win-chance model to real games (`tafl fit-win-chance`).
//!
//! Every decided game of a record file (the 1,752 real Copenhagen games of
//! `tests/data/copenhagen-games.csv`) is reviewed at a fixed node budget, on
//! one thread, with the review's own table for each game and no criticality
//! probe; every position whose score is not a forced result is a sample: the
//! side to move, its score, and the game's result for that side (1 won, ½
//! drawn, 0 lost). The seed splits the games in two halves: the model (one
//! logistic curve per side to move, fitted by Newton's method on the
//! log-loss) learns from one and is judged on the other, by its log-loss
//! against a constant baseline (the training games' share of attacker wins,
//! whatever the score) and by a calibration table in ten buckets of predicted
//! chance. Forced results are certain to the model; how often the real game
//! agreed with them is counted apart (players resign, and lose on time).

use std::fmt;

use strum::{EnumCount, IntoEnumIterator};

use crate::lab::GameRecord;
use crate::rules::{BySide, Game, Move, Rules, Side, Variant, splitmix};
use crate::search::{
    Control, Engine, EngineConfig, Level, Limits, Logistic, MoveClass, Review, ReviewBudget, Score,
    WinChanceModel,
};

/// How to fit.
#[derive(Clone, Debug)]
pub struct FitConfig {
    /// Each position's search budget.
    pub nodes: u64,
    /// Splits the games in halves.
    pub seed: u64,
    /// Each game's table, MiB.
    pub hash_mb: usize,
    /// Review at most this many decided games (all: `None`).
    pub max_games: Option<usize>,
}

/// Why fitting cannot run.
#[derive(Debug, thiserror::Error)]
pub enum FitError {
    #[error("no decided games in the records")]
    NoGames,
    #[error("too few positions in one half to fit and judge a curve for each side to move")]
    TooFewPositions,
}

/// One ply of a reviewed game, as the fit keeps it.
#[derive(Clone, Copy, Debug)]
struct Ply {
    mover: Side,
    before: Score,
    after: Score,
    engine_choice: bool,
    /// The game's result for the mover: 1, ½ or 0.
    result: f64,
    held_out: bool,
}

/// What the reviews of the games gave.
#[derive(Clone, Debug, Default)]
pub struct Reviewed {
    plies: Vec<Ply>,
    games: usize,
    held_out_games: usize,
    /// The training games' share of attacker wins (draws count half).
    attackers_share: f64,
}

/// Reviews the decided records' games (see the module's docs), calling `progress` with the
/// games done and the games to do after each.
///
/// # Errors
/// [`FitError::NoGames`] when no record is decided.
pub fn review_games(
    records: &[GameRecord],
    config: &FitConfig,
    mut progress: impl FnMut(usize, usize),
) -> Result<Reviewed, FitError> {
    let decided: Vec<(&GameRecord, f64)> = records
        .iter()
        .filter_map(|record| Some((record, record.result.attackers_score()?)))
        .take(config.max_games.unwrap_or(usize::MAX))
        .collect();
    if decided.is_empty() {
        return Err(FitError::NoGames);
    }
    let held_out = held_out_half(decided.len(), config.seed);
    let engine = Engine::new(EngineConfig {
        hash_mb: config.hash_mb,
        ..EngineConfig::default()
    });
    let limits = Limits {
        max_nodes: Some(config.nodes),
        ..Limits::default()
    };
    let budget = ReviewBudget::new(&limits, Level::STRONGEST, 0).without_critical();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut reviewed = Reviewed {
        games: decided.len(),
        held_out_games: held_out.iter().filter(|&&held| held).count(),
        ..Reviewed::default()
    };
    let (mut attackers_won, mut training_games) = (0.0, 0.0);
    for (index, (record, attackers_score)) in decided.iter().enumerate() {
        let start = Game::new(Variant::standard(Rules::Copenhagen));
        let mut review = Review::new(
            &engine,
            start.clone(),
            legal_prefix(&start, record),
            budget.clone(),
        )
        .expect("a legal prefix replays");
        while !review.is_finished() {
            review
                .step(&engine, Control::new(&stop))
                .expect("nothing stops the fit");
        }
        let held_out = held_out[index];
        if !held_out {
            attackers_won += attackers_score;
            training_games += 1.0;
        }
        reviewed.plies.extend(review.judged().iter().map(|ply| Ply {
            mover: ply.side,
            before: ply.score_before,
            after: ply.score_after,
            engine_choice: ply.best_line.first().map(|best| best.played) == Some(ply.played.played),
            result: match ply.side {
                Side::Attackers => *attackers_score,
                Side::Defenders => 1.0 - attackers_score,
            },
            held_out,
        }));
        progress(index + 1, decided.len());
    }
    reviewed.attackers_share = attackers_won / f64::max(training_games, 1.0);
    Ok(reviewed)
}

/// The record's moves up to the first the rules refuse, or the one that ends the game.
pub(crate) fn legal_prefix(start: &Game, record: &GameRecord) -> Vec<Move> {
    let mut game = start.clone();
    let mut moves = Vec::with_capacity(record.moves.len());
    for text in &record.moves {
        let Ok(played) = game.play(text) else { break };
        moves.push(played.played);
        if played.status.is_over() {
            break;
        }
    }
    moves
}

/// Which of `games` games are held out: half of them, picked by the seed.
fn held_out_half(games: usize, seed: u64) -> Vec<bool> {
    let mut order: Vec<usize> = (0..games).collect();
    order.sort_by_key(|&game| splitmix(seed ^ splitmix(game as u64)));
    let mut held_out = vec![false; games];
    for &game in &order[games / 2..] {
        held_out[game] = true;
    }
    held_out
}

/// A sample of the fit: a position's score in attackers and the mover's result.
fn samples(reviewed: &Reviewed, side: Side, held_out: bool) -> Vec<(f64, f64)> {
    reviewed
        .plies
        .iter()
        .filter(|ply| ply.mover == side && ply.held_out == held_out && !is_forced(ply.before))
        .map(|ply| (pawns(ply.before), ply.result))
        .collect()
}

fn is_forced(score: Score) -> bool {
    score.win_in().is_some() || score.loss_in().is_some()
}

fn pawns(score: Score) -> f64 {
    f64::from(score.as_i32()) / 100.0
}

/// The logistic curve that fits `samples` best (least log-loss): Newton's method, from the flat
/// curve.
fn fit_curve(samples: &[(f64, f64)]) -> Logistic {
    let mut curve = Logistic {
        slope: 0.0,
        intercept: 0.0,
    };
    for _ in 0..50 {
        // Gradient and Hessian of the log-likelihood in (slope, intercept).
        let (mut gs, mut gi, mut hss, mut hsi, mut hii) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for &(x, y) in samples {
            let p = curve.chance(x);
            let w = p * (1.0 - p);
            gs += (y - p) * x;
            gi += y - p;
            hss += w * x * x;
            hsi += w * x;
            hii += w;
        }
        // A touch of ridge keeps the step finite on degenerate data.
        let (hss, hii) = (hss + 1e-9, hii + 1e-9);
        let determinant = hss * hii - hsi * hsi;
        let step_slope = (hii * gs - hsi * gi) / determinant;
        let step_intercept = (hss * gi - hsi * gs) / determinant;
        curve.slope += step_slope;
        curve.intercept += step_intercept;
        if step_slope.abs() < 1e-12 && step_intercept.abs() < 1e-12 {
            break;
        }
    }
    curve
}

fn log_loss(predicted: f64, result: f64) -> f64 {
    let p = predicted.clamp(1e-9, 1.0 - 1e-9);
    -(result * p.ln() + (1.0 - result) * (1.0 - p).ln())
}

/// One tenth of the predicted range, on the held-out positions.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bucket {
    pub positions: usize,
    pub mean_predicted: f64,
    /// The mean result for the mover: how often the side to move went on to win.
    pub observed: f64,
}

/// The fitted model and how well it does on the held-out games.
#[derive(Clone, Debug)]
pub struct FitReport {
    pub model: WinChanceModel,
    pub nodes: u64,
    pub seed: u64,
    pub games: usize,
    pub held_out_games: usize,
    pub training_positions: usize,
    pub held_out_positions: usize,
    pub attackers_share: f64,
    /// Mean log-loss on the held-out positions: the model's, and the constant baseline's.
    pub log_loss: f64,
    pub baseline_log_loss: f64,
    /// Predicted chances 0-10%, 10-20%, ... 90-100%.
    pub calibration: [Bucket; 10],
    /// Positions the search scored as a forced result, and those whose game ended that way.
    pub forced: usize,
    pub forced_agreed: usize,
    /// The held-out games' moves by class, as the fitted model classes them.
    pub held_out_classes: [usize; MoveClass::COUNT],
    /// Percentiles ([`PERCENTILES`]) of the held-out moves' drop in the mover's chance, for the
    /// moves the engine would not have played and for those it would have (the search's own
    /// noise from one position to the next).
    pub other_drops: Vec<f64>,
    pub engine_choice_drops: Vec<f64>,
}

/// The percentiles of the drops reported.
pub const PERCENTILES: [f64; 7] = [0.25, 0.5, 0.75, 0.9, 0.95, 0.98, 0.99];

/// The `PERCENTILES` of `values` (sorted here).
fn percentiles(mut values: Vec<f64>) -> Vec<f64> {
    values.sort_by(f64::total_cmp);
    PERCENTILES
        .iter()
        .map(|share| {
            let index = (share * values.len() as f64) as usize;
            values
                .get(index.min(values.len().saturating_sub(1)))
                .copied()
                .unwrap_or(0.0)
        })
        .collect()
}

/// Fits the model to the reviewed games and judges it on the held-out half.
///
/// # Errors
/// [`FitError::TooFewPositions`] when a half lacks positions of either side to move.
pub fn fit(reviewed: &Reviewed, config: &FitConfig) -> Result<FitReport, FitError> {
    let mut curves = BySide::from_fn(|_| Logistic {
        slope: 0.0,
        intercept: 0.0,
    });
    let mut training_positions = 0;
    for side in [Side::Attackers, Side::Defenders] {
        let training = samples(reviewed, side, false);
        if training.len() < 2 || samples(reviewed, side, true).len() < 2 {
            return Err(FitError::TooFewPositions);
        }
        training_positions += training.len();
        curves[side] = fit_curve(&training);
    }
    let model = WinChanceModel { curves };
    let baseline = |side: Side| match side {
        Side::Attackers => reviewed.attackers_share,
        Side::Defenders => 1.0 - reviewed.attackers_share,
    };
    let mut calibration = [Bucket::default(); 10];
    let (mut loss, mut baseline_loss, mut held_out_positions) = (0.0, 0.0, 0);
    let (mut forced, mut forced_agreed) = (0, 0);
    let mut held_out_classes = [0; MoveClass::COUNT];
    let (mut other_drops, mut engine_choice_drops) = (Vec::new(), Vec::new());
    for ply in reviewed.plies.iter().filter(|ply| ply.held_out) {
        let (class, _) = model.judge(ply.mover, ply.before, ply.after, ply.engine_choice);
        held_out_classes[class as usize] += 1;
        let predicted = model.chance(ply.before, ply.mover);
        let drop = predicted - model.chance(ply.after, ply.mover);
        if ply.engine_choice {
            engine_choice_drops.push(drop);
        } else {
            other_drops.push(drop);
        }
        if is_forced(ply.before) {
            forced += 1;
            forced_agreed += usize::from((predicted - ply.result).abs() < 0.5);
            continue;
        }
        held_out_positions += 1;
        loss += log_loss(predicted, ply.result);
        baseline_loss += log_loss(baseline(ply.mover), ply.result);
        let bucket = &mut calibration[((predicted * 10.0) as usize).min(9)];
        bucket.positions += 1;
        bucket.mean_predicted += predicted;
        bucket.observed += ply.result;
    }
    for bucket in &mut calibration {
        let positions = bucket.positions.max(1) as f64;
        bucket.mean_predicted /= positions;
        bucket.observed /= positions;
    }
    let positions = held_out_positions.max(1) as f64;
    Ok(FitReport {
        model,
        nodes: config.nodes,
        seed: config.seed,
        games: reviewed.games,
        held_out_games: reviewed.held_out_games,
        training_positions,
        held_out_positions,
        attackers_share: reviewed.attackers_share,
        log_loss: loss / positions,
        baseline_log_loss: baseline_loss / positions,
        calibration,
        forced,
        forced_agreed,
        held_out_classes,
        other_drops: percentiles(other_drops),
        engine_choice_drops: percentiles(engine_choice_drops),
    })
}

impl fmt::Display for FitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} decided games, {} of them held out (seed {}); positions scored at {} nodes",
            self.games, self.held_out_games, self.seed, self.nodes
        )?;
        writeln!(
            f,
            "fitted on {} training positions; judged on {} held-out positions",
            self.training_positions, self.held_out_positions
        )?;
        writeln!(
            f,
            "held-out log-loss: model {:.4}, constant baseline {:.4} (attackers win {:.1}% of the training games)",
            self.log_loss,
            self.baseline_log_loss,
            100.0 * self.attackers_share
        )?;
        writeln!(f, "calibration on the held-out positions:")?;
        writeln!(f, "| predicted | positions | mean predicted | observed |")?;
        writeln!(f, "|---|---:|---:|---:|")?;
        for (index, bucket) in self.calibration.iter().enumerate() {
            writeln!(
                f,
                "| {}-{}% | {} | {:.1}% | {:.1}% |",
                10 * index,
                10 * index + 10,
                bucket.positions,
                100.0 * bucket.mean_predicted,
                100.0 * bucket.observed
            )?;
        }
        writeln!(
            f,
            "forced results in the held-out games: {} positions, the game ended that way in {}",
            self.forced, self.forced_agreed
        )?;
        let moves: usize = self.held_out_classes.iter().sum();
        write!(f, "held-out moves by class:")?;
        for class in MoveClass::iter() {
            let count = self.held_out_classes[class as usize];
            write!(
                f,
                " {} {:.1}%",
                class.name(),
                100.0 * count as f64 / moves.max(1) as f64
            )?;
        }
        writeln!(f)?;
        for (moves, drops) in [
            ("moves the engine would not have played", &self.other_drops),
            ("the engine's own choices", &self.engine_choice_drops),
        ] {
            write!(f, "drop in the mover's chance, {moves}, by percentile:")?;
            for (share, drop) in PERCENTILES.iter().zip(drops) {
                write!(f, " {:.0}%: {:.1}", 100.0 * share, 100.0 * drop)?;
            }
            writeln!(f)?;
        }
        writeln!(
            f,
            "for src/search/review/win_chance.rs (WinChanceModel::FITTED):"
        )?;
        for (side, curve) in [
            ("attackers", self.model.curves.attackers),
            ("defenders", self.model.curves.defenders),
        ] {
            writeln!(
                f,
                "    {side}: Logistic {{ slope: {:.4}, intercept: {:.4} }},",
                curve.slope, curve.intercept
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newton_finds_the_curve_the_samples_were_drawn_from() {
        let truth = Logistic {
            slope: 0.7,
            intercept: -0.3,
        };
        // Every score in a fine grid, with results in proportion to the curve's chance.
        let mut samples = Vec::new();
        for step in -400..=400 {
            let x = f64::from(step) / 40.0;
            // 100 results at each score, the wins in proportion to the truth's chance.
            let wins = (truth.chance(x) * 100.0).round() as usize;
            samples.extend(std::iter::repeat_n((x, 1.0), wins));
            samples.extend(std::iter::repeat_n((x, 0.0), 100 - wins));
        }
        let fitted = fit_curve(&samples);
        assert!((fitted.slope - 0.7).abs() < 0.05, "{fitted:?}");
        assert!((fitted.intercept + 0.3).abs() < 0.05, "{fitted:?}");
    }

    #[test]
    fn the_halves_are_half_and_the_seed_picks_them() {
        let one = held_out_half(101, 1);
        assert_eq!(one.iter().filter(|&&held| held).count(), 51);
        assert_eq!(one, held_out_half(101, 1));
        assert_ne!(one, held_out_half(101, 2));
    }
}
