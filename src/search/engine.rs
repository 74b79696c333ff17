//! The engine a caller holds: its configuration (the table size, the
//! classic weights, the networks), the pool of tables its searches take, the
//! one static evaluation and the one place a search is set up. Analysis
//! (`analysis.rs`) and review (`review/`) set up their searches through the
//! same place.

use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::alphabeta::{Searcher, Workspace};
use super::eval::Evaluator;
use super::eval::classic::Weights;
use super::eval::nnue::Networks;
use super::levels::{Level, LevelLimits};
use super::limits::{Control, Limits, Stopwatch};
use super::score::Score;
use super::tt::{Sharing, Table, TableView};
use super::variation::Variation;
use crate::rules::{Game, Move, Position, Status, Variant, splitmix};

/// What a search found: the last completed iteration.
#[derive(Clone, Debug)]
pub struct SearchReport {
    pub best_move: Move,
    /// Side to move's view.
    pub score: Score,
    /// `pv[0] == best_move`.
    pub pv: Vec<Move>,
    /// The last completed iteration.
    pub depth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
}

/// What a search is set up with besides its game: its bounds; its stop flag, which stops it as
/// a deadline does once raised (from any thread); and what its seed varies.
#[derive(Clone, Copy)]
pub(crate) struct SearchSetup<'a> {
    pub limits: &'a Limits,
    pub control: Control<'a>,
    pub variation: Variation,
}

/// Engine configuration.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Size of the transposition table of each search that depth or nodes end (so that it is
    /// repeatable), in MiB: such a table serves one search at a time, so their memory is this
    /// times the most of them running at once.
    pub hash_mb: usize,
    /// Size of the one table that every search the clock ends shares, in MiB.
    pub shared_hash_mb: usize,
    /// The classic evaluation's weights (default: the built-in ones).
    pub weights: Weights,
    /// The evaluation networks, each used for games of its variant (the others get the classic
    /// evaluation). Default: the built-in ones ([`Networks::built_in`]); none: the classic
    /// evaluation everywhere.
    pub networks: Networks,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig {
            hash_mb: 64,
            shared_hash_mb: 64,
            weights: Weights::default(),
            networks: Networks::built_in(),
        }
    }
}

/// The AI. `Send + Sync`: one engine serves many threads at once, each search with its own table
/// taken from a pool or the shared one (`Engine::with_searcher` says which).
pub struct Engine {
    config: EngineConfig,
    idle: Mutex<Vec<Workspace>>,
    shared: Table,
}

impl Engine {
    pub fn new(config: EngineConfig) -> Engine {
        Engine {
            shared: Table::new(config.shared_hash_mb, Sharing::Shared),
            config,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Searches the game's current position (the game's history is there for repetition) at
    /// `level`, within `limits` and the level's own.
    ///
    /// `None` only when the deadline came before depth 1 completed, or the game is over (the caller
    /// must not ask then). Never panics.
    pub fn search(
        &self,
        game: &Game,
        limits: &Limits,
        level: Level,
        seed: u64,
    ) -> Option<SearchReport> {
        let stop = AtomicBool::new(false);
        self.search_with(game, &level.limits(limits), seed, Control::new(&stop))
    }

    /// [`Engine::search`] within limits the level's own are already applied to (a caller that
    /// needs them before the search, as a server's admission does, works them out once), that
    /// also stops, as at a deadline, once `stop` is set (from any thread).
    pub fn search_with(
        &self,
        game: &Game,
        limits: &LevelLimits,
        seed: u64,
        control: Control<'_>,
    ) -> Option<SearchReport> {
        let variation = limits.level().variation(seed);
        let setup = SearchSetup {
            limits: limits.limits(),
            control,
            variation,
        };
        let (outcome, started) = self.with_searcher(game, setup, |searcher| {
            Some((searcher.iterate(game.position())?, searcher.clock.started()))
        })?;
        let mut report = SearchReport {
            best_move: outcome.best_move,
            score: Score::new(outcome.score),
            pv: outcome.pv,
            depth: outcome.depth,
            nodes: outcome.nodes,
            elapsed: started.elapsed(),
        };
        if variation.noise > 0 {
            guard_against_blunder(self, game.position(), &mut report);
        }
        Some(report)
    }

    /// Runs `search` with a searcher set up for the game's position: the table and scratch memory
    /// taken from the pool (and given back), the clock started, the evaluation for its variant.
    /// `None` without a search when the game is over.
    ///
    /// A search that ends by depth or nodes has a table of its own, empty when it starts, so that
    /// the same search finds the same move whatever ran before or beside it; one that the clock
    /// ends (whose move depends on the machine anyway) shares the engine's table with every other
    /// such search, so memory does not grow with their number and each sees what the others found.
    pub(crate) fn with_searcher<T>(
        &self,
        game: &Game,
        setup: SearchSetup<'_>,
        search: impl FnOnce(&mut Searcher<'_>) -> Option<T>,
    ) -> Option<T> {
        let mut workspace = self.take_workspace();
        let shared = setup.limits.ends_by_time().then(|| {
            self.shared.new_shared_search();
            TableView::shared(&self.shared, table_salt(game.position().variant()))
        });
        if shared.is_none() {
            // A search from the pool sees nothing of the searches the table served before.
            workspace.table.new_search();
        }
        let found = self.search_on(&mut workspace, shared, game, setup, search);
        self.give_back_workspace(workspace);
        found
    }

    /// [`Engine::with_searcher`] on a workspace the caller keeps, whose table still holds what
    /// its earlier searches found (a review keeps one for a whole game).
    pub(crate) fn search_in<T>(
        &self,
        workspace: &mut Workspace,
        game: &Game,
        setup: SearchSetup<'_>,
        search: impl FnOnce(&mut Searcher<'_>) -> Option<T>,
    ) -> Option<T> {
        self.search_on(workspace, None, game, setup, search)
    }

    /// A searcher on the workspace, with its own table or `shared`.
    fn search_on<'a, T>(
        &'a self,
        workspace: &'a mut Workspace,
        shared: Option<TableView<'a>>,
        game: &Game,
        setup: SearchSetup<'a>,
        search: impl FnOnce(&mut Searcher<'_>) -> Option<T>,
    ) -> Option<T> {
        let root = game.position();
        if root.status().is_over() || game.status().is_over() {
            return None;
        }
        let mut stopwatch = Stopwatch::new(setup.limits, setup.control);
        // On a clock, a forced move is played at once.
        if setup.limits.soft_time.is_some() && root.legal_moves().len() == 1 {
            stopwatch.forced_move();
        }
        search(&mut Searcher::new(
            workspace,
            shared,
            stopwatch,
            game,
            self.evaluator(root.variant()),
            setup.variation,
        ))
    }

    /// The static evaluation of `position`, side to move's view: the engine's network for its
    /// variant where it has one (built in or configured), else the classic weights. It is what
    /// every search of the engine scores a quiet leaf with (before a level's noise); a finished
    /// game's position is scored as any other, the result left to the caller.
    pub fn static_eval(&self, position: &Position) -> Score {
        Score::new(self.evaluator(position.variant()).evaluate(position))
    }

    /// How positions of `variant` are scored: its network, if the engine has one; else the
    /// classic evaluation. Every search and [`Engine::static_eval`] take their evaluator here.
    fn evaluator(&self, variant: Variant) -> Evaluator<'_> {
        match self.config.networks.get(variant) {
            Some(network) => Evaluator::Network(network),
            None => Evaluator::Classic(&self.config.weights),
        }
    }

    /// A table and scratch memory of the engine's size, for a caller that keeps its own across
    /// searches ([`Engine::search_in`]).
    pub(crate) fn new_workspace(&self) -> Workspace {
        Workspace::new(self.config.hash_mb)
    }

    fn take_workspace(&self) -> Workspace {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .pop();
        idle.unwrap_or_else(|| self.new_workspace())
    }

    fn give_back_workspace(&self, workspace: Workspace) {
        self.idle
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(workspace);
    }
}

/// What a game's variant salts its hashes with in the shared table.
fn table_salt(variant: Variant) -> u64 {
    splitmix(((variant.rules as u64) << 8) | u64::from(variant.size.get()))
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new(EngineConfig::default())
    }
}

/// Does playing `mv` let the opponent win with his very next move?
fn allows_win_in_one(position: &Position, mv: Move) -> bool {
    let mut child = *position;
    child.play_unchecked(mv);
    if child.status().is_over() {
        return false;
    }
    let opponent = child.side_to_move();
    child.legal_moves().iter().any(|&reply| {
        let mut grandchild = child;
        grandchild.play_unchecked(reply);
        matches!(grandchild.status(), Status::Won { winner, .. } if winner == opponent)
    })
}

/// Weak levels: never hand the opponent a win in one when another move avoids it (the noise may
/// lead a shallow search astray; this keeps it from the absurd).
fn guard_against_blunder(engine: &Engine, root: &Position, report: &mut SearchReport) {
    if report.score.win_in().is_some() || !allows_win_in_one(root, report.best_move) {
        return;
    }
    let mut moves = root.legal_moves();
    moves.sort();
    // The safe move the evaluation likes best one ply on (ties: the first in square order).
    let after = |mv: Move| {
        let mut child = *root;
        child.play_unchecked(mv);
        -engine.static_eval(&child).as_i32()
    };
    let safe = moves
        .iter()
        .filter(|&&mv| !allows_win_in_one(root, mv))
        .map(|&mv| (after(mv), mv))
        .fold(None, |best: Option<(i32, Move)>, (score, mv)| match best {
            Some((best_score, _)) if best_score >= score => best,
            _ => Some((score, mv)),
        });
    if let Some((_, safe)) = safe {
        report.best_move = safe;
        report.pv = vec![safe];
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::rules::{BoardSize, Rules};
    use crate::search::eval::classic::{Mailbox, evaluate};
    use crate::search::eval::nnue::{Accumulator, FeatureSet, Network, Provenance};

    /// On every variant, along a few plies from the start: a configured network scores its
    /// variant (Copenhagen 9×9, which has none built in), the built-in ones theirs, and the
    /// classic weights every other; where a network scores, it is not the classic score.
    #[test]
    fn the_static_evaluation_is_the_network_where_the_engine_has_one() {
        let small = Variant::new(Rules::Copenhagen, BoardSize::Nine);
        let configured = Network::seeded(
            small,
            FeatureSet::PiecesAndTerms,
            3,
            Provenance {
                generation: 0,
                validation_loss: 0.0,
                text: String::new(),
            },
        );
        let mut networks = Networks::built_in();
        assert!(networks.insert(Arc::new(configured)).is_none());
        let engine = Engine::new(EngineConfig {
            hash_mb: 1,
            networks: networks.clone(),
            ..EngineConfig::default()
        });
        let mut networked = 0;
        for rules in Rules::ALL {
            for size in BoardSize::ALL {
                let variant = Variant::new(rules, size);
                let network = networks.get(variant);
                let mut position = Position::start(variant);
                let mut unlike_classic = false;
                for ply in 0..6 {
                    let expected = match network {
                        Some(network) => Accumulator::new(network, &position)
                            .evaluate(network, &Mailbox::new(&position)),
                        None => evaluate(&position),
                    };
                    let score = engine.static_eval(&position).as_i32();
                    assert_eq!(score, expected, "{variant} after {ply} plies: {position}");
                    unlike_classic |= score != evaluate(&position);
                    let mut moves = position.legal_moves();
                    moves.sort();
                    position.play_unchecked(moves[ply * 7 % moves.len()]);
                }
                assert_eq!(unlike_classic, network.is_some(), "{variant}");
                networked += usize::from(network.is_some());
            }
        }
        assert_eq!(networked, 5);
    }
}
