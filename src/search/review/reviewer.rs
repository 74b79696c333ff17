//! The reviewer: what a review spends on each position, and the review
//! itself, one search a step, judging each ply once the position after it
//! has been searched.

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::classes::{ClassCounts, INACCURACY_FROM, MISTAKE_FROM, MoveClass, move_accuracy};
use super::win_chance::WinChanceModel;
use crate::rules::{BySide, Game, GameError, Move, PlayedMove, Side, Status};
use crate::search::alphabeta::{Outcome, Workspace};
use crate::search::engine::{Engine, SearchSetup};
use crate::search::levels::Level;
use crate::search::limits::{Control, Limits};
use crate::search::params::WIN_BOUND;
use crate::search::score::Score;
use crate::search::variation::Variation;

/// A position is critical when every move but the engine's choice loses at least this much.
const CRITICAL_LOSS: f64 = MISTAKE_FROM;

/// At most this many turning points are named, each a loss of at least [`INACCURACY_FROM`].
const MAX_TURNING_POINTS: usize = 3;

/// Positions searched for each position of a strongest-level review that names no bound
/// (node-bound, so the review is the same every time): a 100-ply game in about a quarter of a
/// minute on one core (docs/review.md, "Benchmark").
pub const DEFAULT_REVIEW_NODES: u64 = 50_000;

/// What a review spends on each position.
#[derive(Clone, Debug)]
pub struct ReviewBudget {
    /// Each position's search (the level's own bounds applied).
    limits: Limits,
    seed: u64,
    /// Whether positions are probed for criticality (a second, cheaper search each).
    critical: bool,
}

impl ReviewBudget {
    /// `requested` at `level`: the tightest of the two; at the strongest level with no bound,
    /// [`DEFAULT_REVIEW_NODES`]. The deadline, if any, bounds the whole review. The level's noise is
    /// not applied (a review judges; it does not play weaker), so `seed` only feeds the search
    /// as a suggestion's does.
    pub fn new(requested: &Limits, level: Level, seed: u64) -> ReviewBudget {
        let mut requested = requested.clone();
        if requested.is_unbounded() && level == Level::STRONGEST {
            requested.max_nodes = Some(DEFAULT_REVIEW_NODES);
        }
        ReviewBudget {
            limits: level.limits(&requested).limits().clone(),
            seed,
            critical: true,
        }
    }

    /// The same budget with at most `cap` nodes a search.
    #[must_use]
    pub fn at_most_nodes(mut self, cap: u64) -> ReviewBudget {
        self.limits.max_nodes = Some(self.limits.max_nodes.map_or(cap, |nodes| nodes.min(cap)));
        self
    }

    /// The same budget without the criticality probe (half the search, no `critical` marks).
    #[must_use]
    pub fn without_critical(mut self) -> ReviewBudget {
        self.critical = false;
        self
    }

    /// What each position's search is given.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Searches each position takes: the line, and the criticality probe if asked.
    pub fn searches_per_position(&self) -> u32 {
        1 + u32::from(self.critical)
    }

    /// How each search of the review is set up: within the budget, without noise or variety.
    fn setup<'a>(&'a self, control: Control<'a>) -> SearchSetup<'a> {
        SearchSetup {
            limits: &self.limits,
            control,
            variation: Variation {
                seed: self.seed,
                ..Variation::NONE
            },
        }
    }
}

/// One ply, judged.
#[derive(Clone, Debug)]
pub struct PlyReview {
    /// Index into the game's moves, from 0.
    pub ply: usize,
    /// Who played it.
    pub side: Side,
    pub played: PlayedMove,
    /// The engine's line in the position before, its choice first (empty only if its search
    /// found no move, which the rules never allow).
    pub best_line: Vec<PlayedMove>,
    /// Best play before the move, mover's view.
    pub score_before: Score,
    /// After the played move, mover's view.
    pub score_after: Score,
    pub win_chance_before: f64,
    pub win_chance_after: f64,
    /// The chance the move gave away: 0 for the engine's choice and a found win, else
    /// `win_chance_before - win_chance_after` (at least 0).
    pub loss: f64,
    pub class: MoveClass,
    /// Every move but the engine's choice loses at least 12 points of chance here (a mistake).
    pub critical: bool,
}

/// The whole review, or as much as was done.
#[derive(Clone, Debug)]
pub struct ReviewSummary {
    /// Each side's mean [`move_accuracy`] over its judged moves, 0 to 100 (0 without any).
    pub accuracy: BySide<f64>,
    /// How many of each side's moves fell in each class.
    pub classes: BySide<ClassCounts>,
    /// Plies (indices) with the largest losses, largest first.
    pub turning_points: Vec<usize>,
    /// The game's status after its last ply.
    pub status: Status,
    /// Not every ply was judged.
    pub partial: bool,
    pub plies_reviewed: usize,
}

/// The review stopped before judging its next ply: the stop flag, or the deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the review was stopped")]
pub struct ReviewStopped;

/// What the search of one position found.
#[derive(Clone, Debug)]
struct Searched {
    /// Side to move's view.
    score: Score,
    /// Played out with the game's history; empty for a finished position.
    line: Vec<PlayedMove>,
    critical: bool,
    nodes: u64,
}

/// A review in progress: the game, its plies, and the table its searches share. Each
/// [`Review::step`] is one search (a search slot's worth of work).
pub struct Review {
    /// At the next position to search.
    game: Game,
    /// Who plays the first ply.
    first_mover: Side,
    plies: Vec<PlayedMove>,
    budget: ReviewBudget,
    model: WinChanceModel,
    /// The table every search of this game uses (made again after [`Review::release_table`]).
    workspace: Option<Workspace>,
    /// Positions searched so far.
    searched: usize,
    /// The search of the position before the next ply to judge.
    before: Option<Searched>,
    judged: Vec<PlyReview>,
    nodes: u64,
}

impl std::fmt::Debug for Review {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Review")
            .field("plies", &self.plies.len())
            .field("searched", &self.searched)
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl Review {
    /// A review of `moves` played from `start` (a game at its start), with a table of the
    /// engine's size of its own.
    ///
    /// # Errors
    /// The first move the rules refuse.
    pub fn new(
        engine: &Engine,
        start: Game,
        moves: impl IntoIterator<Item = Move>,
        budget: ReviewBudget,
    ) -> Result<Review, GameError> {
        let mut replay = start.clone();
        let plies = moves
            .into_iter()
            .map(|mv| replay.play_move(mv))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Review {
            first_mover: start.position().side_to_move(),
            judged: Vec::with_capacity(plies.len()),
            game: start,
            plies,
            budget,
            model: WinChanceModel::FITTED,
            workspace: Some(Review::fresh_workspace(engine)),
            searched: 0,
            before: None,
            nodes: 0,
        })
    }

    /// Gives the review's table back to the allocator (a review that waits long, for a reader,
    /// holds no memory meanwhile); the next search starts a new one. The positions searched
    /// after it may then be judged otherwise than with the table kept.
    pub fn release_table(&mut self) {
        self.workspace = None;
    }

    /// Makes the review's table again after a release.
    fn workspace(&mut self, engine: &Engine) {
        self.workspace
            .get_or_insert_with(|| Review::fresh_workspace(engine));
    }

    /// A table for one game's searches.
    fn fresh_workspace(engine: &Engine) -> Workspace {
        let mut workspace = engine.new_workspace();
        workspace.table.new_search();
        workspace
    }

    /// The plies under review.
    pub fn plies(&self) -> &[PlayedMove] {
        &self.plies
    }

    /// The plies judged so far, in order.
    pub fn judged(&self) -> &[PlyReview] {
        &self.judged
    }

    /// Every ply is judged.
    pub fn is_finished(&self) -> bool {
        self.judged.len() == self.plies.len()
    }

    /// Positions visited by every search so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Searches the next position and judges the ply before it (none for the first position;
    /// none once finished). Stops with the flag or at the budget's deadline, judging nothing:
    /// a position searched only in part judges no ply.
    ///
    /// # Errors
    /// [`ReviewStopped`] when the flag was raised or the deadline came.
    pub fn step(
        &mut self,
        engine: &Engine,
        control: Control<'_>,
    ) -> Result<Option<PlyReview>, ReviewStopped> {
        if self.is_finished() {
            return Ok(None);
        }
        let searched = self.search_position(engine, control).ok_or(ReviewStopped)?;
        let stopped = control.stop.load(Ordering::Relaxed)
            || self
                .budget
                .limits
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline);
        if stopped {
            return Err(ReviewStopped);
        }
        self.nodes += searched.nodes;
        let index = self.searched;
        self.searched += 1;
        let judged = self
            .before
            .take()
            .map(|before| self.judge(index - 1, &before, &searched));
        self.before = Some(searched);
        if let Some(&next) = self.plies.get(index) {
            self.game
                .play_move(next.played)
                .expect("a ply the rules accepted when the review began is accepted again");
        }
        if let Some(ply) = &judged {
            self.judged.push(ply.clone());
        }
        Ok(judged)
    }

    /// The summary of the plies judged so far (partial unless every ply is).
    pub fn summary(&self) -> ReviewSummary {
        let mut accuracy = BySide::<(f64, u32)>::default();
        let mut classes = BySide::<ClassCounts>::default();
        for ply in &self.judged {
            accuracy[ply.side].0 += move_accuracy(ply.loss);
            accuracy[ply.side].1 += 1;
            classes[ply.side].add(ply.class);
        }
        let mut turning: Vec<&PlyReview> = self
            .judged
            .iter()
            .filter(|ply| ply.loss >= INACCURACY_FROM)
            .collect();
        // Largest first; of equal losses the earlier.
        turning.sort_by(|a, b| b.loss.total_cmp(&a.loss).then(a.ply.cmp(&b.ply)));
        ReviewSummary {
            accuracy: accuracy.map(|(sum, moves)| sum / f64::from(moves.max(1))),
            classes,
            turning_points: turning
                .iter()
                .take(MAX_TURNING_POINTS)
                .map(|ply| ply.ply)
                .collect(),
            status: self
                .plies
                .last()
                .map_or_else(|| self.game.status(), |last| last.status),
            partial: !self.is_finished(),
            plies_reviewed: self.judged.len(),
        }
    }

    /// The search of the game's current position (its result if the game is over there).
    fn search_position(&mut self, engine: &Engine, control: Control<'_>) -> Option<Searched> {
        let side = self.game.position().side_to_move();
        let status = self.game.status();
        if status.is_over() {
            let score = match status.winner() {
                Some(winner) if winner == side => Score::WON,
                Some(_) => Score::new(-Score::WON.as_i32()),
                None => Score::new(0),
            };
            return Some(Searched {
                score,
                line: Vec::new(),
                critical: false,
                nodes: 0,
            });
        }
        self.workspace(engine);
        let (game, setup) = (&self.game, self.budget.setup(control));
        let workspace = self.workspace.as_mut()?;
        let outcome = engine.search_in(workspace, game, setup, |searcher| {
            searcher.iterate(game.position())
        })?;
        let mut nodes = outcome.nodes;
        let critical = if self.budget.critical {
            let (critical, probed) = self.probe_critical(engine, control, &outcome)?;
            nodes += probed;
            critical
        } else {
            false
        };
        let mut line = Vec::with_capacity(outcome.pv.len());
        let mut ahead = self.game.look_ahead();
        for &mv in &outcome.pv {
            match ahead.play(mv) {
                Ok(played) => line.push(played),
                Err(_) => break,
            }
        }
        Some(Searched {
            score: Score::new(outcome.score),
            line,
            critical,
            nodes,
        })
    }

    /// Does every move but the engine's choice lose at least [`CRITICAL_LOSS`]? One null-window
    /// search of the other moves at the depth the line completed, with the same budget, against
    /// the score that loss leaves (a forced win: does another move win too). With one legal move
    /// or a forced loss there is nothing to keep: not critical; a probe cut short by its budget
    /// proves nothing: not critical. Also the nodes it took; `None` when stopped.
    fn probe_critical(
        &mut self,
        engine: &Engine,
        control: Control<'_>,
        outcome: &Outcome,
    ) -> Option<(bool, u64)> {
        let root = self.game.position();
        let score = Score::new(outcome.score);
        if root.legal_moves().len() < 2 || score.loss_in().is_some() {
            return Some((false, 0));
        }
        let threshold = if score.win_in().is_some() {
            WIN_BOUND
        } else {
            let keeps = self.model.chance(score, root.side_to_move()) - CRITICAL_LOSS;
            match self.model.score_at(keeps, root.side_to_move()) {
                Some(threshold) => threshold.min(outcome.score),
                None => return Some((false, 0)),
            }
        };
        let (game, setup) = (&self.game, self.budget.setup(control));
        let workspace = self.workspace.as_mut()?;
        engine.search_in(workspace, game, setup, |searcher| {
            searcher.clock.may_stop_soft = true;
            searcher.excluded_root_moves.push(outcome.best_move);
            let reached = searcher.root_reaches(root, outcome.depth as i32, threshold);
            if reached.is_none() && searcher.clock.past_deadline() {
                return None;
            }
            Some((reached == Some(false), searcher.nodes))
        })
    }

    /// Ply `ply` from the searches before and after it.
    fn judge(&self, ply: usize, before: &Searched, after: &Searched) -> PlyReview {
        let played = self.plies[ply];
        let side = if ply.is_multiple_of(2) {
            self.first_mover
        } else {
            self.first_mover.opponent()
        };
        let score_before = before.score;
        let score_after = Score::new(-after.score.as_i32());
        let engine_choice = before.line.first().map(|best| best.played) == Some(played.played);
        let (class, loss) = self
            .model
            .judge(side, score_before, score_after, engine_choice);
        PlyReview {
            ply,
            side,
            played,
            best_line: before.line.clone(),
            score_before,
            score_after,
            win_chance_before: self.model.chance(score_before, side),
            win_chance_after: self.model.chance(score_after, side),
            loss,
            class,
            critical: before.critical,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    use crate::rules::{Rules, Variant};
    use crate::search::EngineConfig;

    /// A real game's first plies (tests/data/copenhagen-games.csv), one capture among them.
    const OPENING: &str = "d1-d3 e5-e2 f2-i2 d6-d9 a5-c5 e7-b7 a8-b8xb7 f8-i8 d3-d7 g5-g2";

    fn engine() -> Engine {
        Engine::new(EngineConfig {
            hash_mb: 2,
            ..EngineConfig::default()
        })
    }

    fn review(engine: &Engine, budget: ReviewBudget) -> Review {
        let start = Game::new(Variant::standard(Rules::Copenhagen));
        let mut replay = start.clone();
        let moves: Vec<Move> = OPENING
            .split(' ')
            .map(|text| replay.play(text).expect("a legal opening").played)
            .collect();
        Review::new(engine, start, moves, budget).expect("legal plies")
    }

    fn finish(engine: &Engine, review: &mut Review) {
        while !review.is_finished() {
            review
                .step(engine, Control::new(&AtomicBool::new(false)))
                .expect("not stopped");
        }
    }

    fn nodes(limit: u64) -> ReviewBudget {
        let limits = Limits {
            max_nodes: Some(limit),
            ..Limits::default()
        };
        ReviewBudget::new(&limits, Level::STRONGEST, 3)
    }

    #[test]
    fn a_node_bound_review_is_the_same_every_time_and_judges_every_ply() {
        let engine = engine();
        let judged = |engine: &Engine| {
            let mut review = review(engine, nodes(3_000));
            finish(engine, &mut review);
            assert!(!review.summary().partial);
            review
                .judged()
                .iter()
                .map(|ply| {
                    (
                        ply.class,
                        ply.score_before,
                        ply.score_after,
                        ply.critical,
                        ply.best_line.clone(),
                    )
                })
                .collect::<Vec<_>>()
        };
        let first = judged(&engine);
        assert_eq!(first.len(), OPENING.split(' ').count());
        assert_eq!(first, judged(&engine));
    }

    #[test]
    fn the_searches_of_a_game_share_its_table() {
        let engine = engine();
        let depth = Limits {
            max_depth: Some(4),
            ..Limits::default()
        };
        let mut kept = review(
            &engine,
            ReviewBudget::new(&depth, Level::STRONGEST, 0).without_critical(),
        );
        finish(&engine, &mut kept);
        // The same positions, each searched to the same depth with a table of its own.
        let mut game = Game::new(Variant::standard(Rules::Copenhagen));
        let mut alone = 0;
        for text in OPENING.split(' ').chain([""]) {
            alone += engine
                .search(&game, &depth, Level::STRONGEST, 0)
                .expect("searched")
                .nodes;
            if !text.is_empty() {
                game.play(text).expect("legal");
            }
        }
        assert!(
            kept.nodes() < alone,
            "{} nodes with one table, {alone} with one each",
            kept.nodes()
        );
    }

    #[test]
    fn a_stopped_review_judges_nothing_more_and_says_it_is_partial() {
        let engine = engine();
        let mut review = review(&engine, nodes(2_000));
        review
            .step(&engine, Control::new(&AtomicBool::new(false)))
            .expect("the first position");
        review
            .step(&engine, Control::new(&AtomicBool::new(false)))
            .expect("the first ply");
        assert_eq!(
            review
                .step(&engine, Control::new(&AtomicBool::new(true)))
                .unwrap_err(),
            ReviewStopped
        );
        let summary = review.summary();
        assert!(summary.partial);
        assert_eq!(summary.plies_reviewed, 1);
        assert_eq!(summary.status, Status::Ongoing);
    }
}
