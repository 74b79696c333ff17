//! Analysis for an analysis board: iterative deepening over the best few
//! root moves (multi-PV), reporting every completed depth as it comes.
//!
//! Each depth searches the root once per line, leaving out the first moves
//! of the lines already found, so the lines start with distinct moves.

use std::time::Duration;

use super::engine::{Engine, SearchSetup};
use super::limits::{Control, Limits};
use super::params::{WIN, WIN_BOUND};
use super::score::Score;
use super::variation::Variation;
use crate::rules::{Game, Move};

/// The most lines one analysis reports.
pub const MAX_LINES: usize = 8;

/// One line: a first move, what follows, and its score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisLine {
    /// Side to move's view.
    pub score: Score,
    /// The line, its first move first.
    pub pv: Vec<Move>,
}

/// What a completed depth found.
#[derive(Clone, Debug)]
pub struct AnalysisUpdate {
    pub depth: u32,
    /// Best first, with distinct first moves.
    pub lines: Vec<AnalysisLine>,
    /// Positions visited so far.
    pub nodes: u64,
    /// Time spent so far.
    pub elapsed: Duration,
}

impl Engine {
    /// Analyses the game's position: up to `lines` (at most [`MAX_LINES`])
    /// lines, deepening until the limits or `stop`, calling `on_depth` after
    /// every completed depth. Returns the last completed depth, with the
    /// nodes and the time of the whole analysis (the unfinished depth's
    /// too); `None` when the game is over or the deadline came before depth
    /// 1 completed.
    pub fn analyse(
        &self,
        game: &Game,
        limits: &Limits,
        lines: usize,
        control: Control<'_>,
        mut on_depth: impl FnMut(&AnalysisUpdate),
    ) -> Option<AnalysisUpdate> {
        let root = game.position();
        let lines = lines.clamp(1, MAX_LINES).min(root.legal_moves().len());
        let setup = SearchSetup {
            limits,
            control,
            variation: Variation::NONE,
        };
        self.with_searcher(game, setup, |searcher| {
            let started = searcher.clock.started();
            let mut last: Option<AnalysisUpdate> = None;
            for depth in 1.. {
                searcher.excluded_root_moves.clear();
                let mut found = Vec::with_capacity(lines);
                for line in 0..lines {
                    let previous = last
                        .as_ref()
                        .and_then(|update| update.lines.get(line))
                        .map(|line| line.score.as_i32());
                    let Some((score, pv)) = searcher.search_root(root, depth, previous) else {
                        break;
                    };
                    let Some(&first) = pv.first() else { break };
                    searcher.excluded_root_moves.push(first);
                    found.push(AnalysisLine {
                        score: Score::new(score),
                        pv,
                    });
                }
                if found.len() < lines || (depth == 1 && searcher.clock.past_deadline()) {
                    break;
                }
                found.sort_by_key(|line| std::cmp::Reverse(line.score));
                let update = AnalysisUpdate {
                    depth: depth as u32,
                    lines: found,
                    nodes: searcher.nodes,
                    elapsed: started.elapsed(),
                };
                on_depth(&update);
                searcher.clock.may_stop_soft = true;
                // Every line a forced result within the horizon: deeper search cannot change them.
                let all_proven = update.lines.iter().all(|line| {
                    let score = line.score.as_i32().abs();
                    score >= WIN_BOUND && WIN - score <= depth
                });
                let nodes = searcher.nodes;
                let best = &update.lines[0];
                let (best_move, score) = (best.pv[0], best.score.as_i32());
                last = Some(update);
                if all_proven
                    || !searcher
                        .clock
                        .may_start_iteration(depth as u32, nodes, best_move, score)
                {
                    break;
                }
            }
            let nodes = searcher.nodes;
            last.map(|update| AnalysisUpdate {
                nodes,
                elapsed: started.elapsed(),
                ..update
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Rules, Variant};
    use std::sync::atomic::AtomicBool;

    #[test]
    fn lines_have_distinct_first_moves_best_first_and_depths_increase() {
        let engine = Engine::new(crate::search::EngineConfig {
            hash_mb: 1,
            ..Default::default()
        });
        let game = Game::new(Variant::standard(Rules::Copenhagen));
        let limits = Limits {
            max_depth: Some(3),
            ..Limits::default()
        };
        let mut depths = Vec::new();
        let last = engine
            .analyse(
                &game,
                &limits,
                4,
                Control::new(&AtomicBool::new(false)),
                |update| {
                    depths.push(update.depth);
                    let firsts: std::collections::HashSet<Move> =
                        update.lines.iter().map(|line| line.pv[0]).collect();
                    assert_eq!(firsts.len(), 4);
                    assert!(update.lines.windows(2).all(|w| w[0].score >= w[1].score));
                },
            )
            .expect("depth 1 completes");
        assert_eq!(depths, [1, 2, 3]);
        assert_eq!(last.depth, 3);
        assert!(last.nodes > 0);
        for line in &last.lines {
            let mut position = *game.position();
            for &mv in &line.pv {
                position.play(mv).expect("every pv move is legal");
            }
        }
    }

    #[test]
    fn the_last_update_counts_the_whole_analysis() {
        let engine = Engine::new(crate::search::EngineConfig {
            hash_mb: 1,
            ..Default::default()
        });
        let game = Game::new(Variant::standard(Rules::Copenhagen));
        let stop = AtomicBool::new(false);
        let mut completed: Option<AnalysisUpdate> = None;
        let last = std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(Duration::from_millis(100));
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            });
            engine.analyse(
                &game,
                &Limits::default(),
                1,
                Control::new(&stop),
                |update| {
                    completed = Some(update.clone());
                },
            )
        })
        .expect("depth 1 completes in 100 ms");
        let completed = completed.expect("an update per completed depth");
        assert_eq!(last.depth, completed.depth);
        // Stopped about 100 ms in, most likely inside a depth it did not complete: the last
        // update counts that depth's time and nodes too. (Not `>= 100 ms`: the clock starts
        // after the stopping thread does, so it may read a little less.)
        assert!(last.elapsed >= completed.elapsed, "{last:?}");
        assert!(last.nodes >= completed.nodes);
    }

    #[test]
    fn a_stopped_analysis_ends_at_once() {
        let engine = Engine::new(crate::search::EngineConfig {
            hash_mb: 1,
            ..Default::default()
        });
        let game = Game::new(Variant::standard(Rules::Copenhagen));
        let stop = AtomicBool::new(true);
        let mut reported = 0;
        let result = engine.analyse(&game, &Limits::default(), 2, Control::new(&stop), |_| {
            reported += 1
        });
        // With no other bound, only the flag ends it: seen at the clock's first look, or at the
        // latest once depth 1 completes, before that depth is reported.
        assert!(result.is_none(), "{result:?}");
        assert_eq!(reported, 0);
    }
}
