//! What the server allows one call, whatever it asks: the game's length, and
//! a search's depth, time and nodes. A search's [`SearchBudget`] is what the
//! caller asked within those caps and the level's own (and a game clock's
//! time, where one is sent), worked out once for both the pool (the work it
//! asks for: how long it may hold a slot, and how that is estimated) and the
//! engine (its limits, as they are).

use std::time::{Duration, Instant};

use crate::search::{
    Clock, Level, LevelLimits, Limits, PuzzleBudget, ReviewBudget, TimeAllocation,
};

use crate::service::config::CapsConfig;
use crate::service::error::{Reason, ServiceError, quote};
use crate::service::exec::{Cost, CostClass, Work, WorkKind};
use crate::service::pb;

/// The most a search may spend, whatever a caller asks.
#[derive(Clone, Copy, Debug)]
pub struct SearchCaps {
    /// Deepest search, in plies.
    pub depth: u32,
    /// Longest thinking time.
    pub time: Duration,
    /// Most positions visited.
    pub nodes: u64,
}

impl SearchCaps {
    /// The caps a configuration sets.
    pub fn from_config(caps: &CapsConfig) -> SearchCaps {
        SearchCaps {
            depth: caps.max_search_depth.max(1),
            time: caps.max_search_time,
            nodes: caps.max_search_nodes.max(1),
        }
    }
}

/// The one check of the game-length cap: a game of `moves` moves, and
/// `next_move` if one is to be played after them, must hold at most
/// `max_plies` moves.
///
/// # Errors
/// GAME_TOO_LONG blaming `game.moves` when the game as sent is over the cap;
/// else blaming `next_move`, at its ply, when that move would take it over.
pub fn check_game_length(
    moves: usize,
    next_move: Option<&str>,
    max_plies: usize,
) -> Result<(), ServiceError> {
    let cap = || format!("this server takes games of at most {max_plies} moves");
    if moves > max_plies {
        return Err(ServiceError::invalid(
            "game.moves",
            Reason::GameTooLong,
            format!("the game holds {moves} moves; {}", cap()),
        ));
    }
    match next_move {
        Some(text) if moves >= max_plies => Err(ServiceError::invalid(
            "next_move",
            Reason::GameTooLong,
            format!("{} would be move {}; {}", quote(text), moves + 1, cap()),
        )
        .at_ply(moves)),
        _ => Ok(()),
    }
}

/// Whether the caller set any bound at all (Evaluate searches only then).
pub fn any_limit(limits: Option<&pb::SearchLimits>) -> bool {
    limits.is_some_and(|l| l.max_depth != 0 || l.max_time_ms != 0 || l.max_nodes != 0)
}

/// A search's bounds, worked out once from what the caller asked.
#[derive(Clone, Debug)]
pub struct SearchBudget {
    /// What the engine searches within: the caller's bounds capped, with the level's own applied.
    pub limits: LevelLimits,
    /// What the pool is asked for: how long the search may hold its slot, and how long it is expected to.
    pub work: Work,
}

impl SearchBudget {
    /// A search at `level`. No bound given: none is set, so the level's own
    /// budget applies (levels 1-9 cap depth and nodes, level 10 thinks one
    /// second). Any bound given: each is capped by the server and a missing
    /// one is the cap, so no search outlives the caps. The call's deadline
    /// always applies.
    pub fn at_level(
        given: Option<&pb::SearchLimits>,
        level: Level,
        caps: SearchCaps,
        deadline: Option<Instant>,
    ) -> SearchBudget {
        let limits = level.limits(&capped_limits(given, caps, deadline));
        SearchBudget {
            work: search_work(WorkKind::Search, limits.limits(), caps, 1),
            limits,
        }
    }

    /// A SuggestMove on a clock, which gives the move `allocation` (capped by the server's
    /// longest search). `level` `None` (level 0 asked): full strength spends the time the clock
    /// gives; a level keeps within its own budget, which the clock only shortens. The caller's
    /// bounds, capped, and the call's deadline bound it as for any search; the work the pool is
    /// asked for is bound by the clock's hard time.
    pub fn on_clock(
        given: Option<&pb::SearchLimits>,
        level: Option<Level>,
        allocation: TimeAllocation,
        caps: SearchCaps,
        deadline: Option<Instant>,
    ) -> SearchBudget {
        let requested = capped_limits(given, caps, deadline);
        let allocation = allocation.at_most(caps.time);
        let limits = match level {
            None => Level::STRONGEST.limits(&requested.tightest(&Limits::on_clock(allocation))),
            Some(level) => level.limits(&requested).within(allocation),
        };
        SearchBudget {
            work: search_work(WorkKind::Search, limits.limits(), caps, 1),
            limits,
        }
    }
}

/// A SuggestMove's clock, read: times in milliseconds, whatever their size (the allocation
/// reads any above a week as a week, and the server's longest search caps what it gives).
///
/// # Errors
/// BAD_LIMITS blaming `clock.overtime_ms` for overtime periods left of no length.
impl TryFrom<&pb::Clock> for Clock {
    type Error = ServiceError;

    fn try_from(clock: &pb::Clock) -> Result<Clock, ServiceError> {
        if clock.overtime_ms == 0 && clock.overtime_periods > 0 {
            return Err(ServiceError::invalid(
                "clock.overtime_ms",
                Reason::BadLimits,
                format!(
                    "0 ms, but {} overtime periods are left: give the period's length, or 0 periods",
                    clock.overtime_periods
                ),
            ));
        }
        Ok(Clock {
            remaining: Duration::from_millis(clock.remaining_ms),
            opponent_remaining: Duration::from_millis(clock.opponent_remaining_ms),
            increment: Duration::from_millis(clock.increment_ms),
            overtime: Duration::from_millis(clock.overtime_ms),
            overtime_periods: clock.overtime_periods,
            moves_to_go: clock.moves_to_go,
        })
    }
}

/// An analysis's bounds and its work for admission: the caller's bounds
/// capped as for a search; none given, the server's caps (an analysis runs
/// until the cancel otherwise).
pub fn analysis_budget(
    given: Option<&pb::SearchLimits>,
    caps: SearchCaps,
    deadline: Option<Instant>,
) -> (Limits, Work) {
    let limits = if any_limit(given) {
        capped_limits(given, caps, deadline)
    } else {
        Limits {
            max_depth: Some(caps.depth),
            max_nodes: Some(caps.nodes),
            max_time: Some(caps.time),
            deadline,
            ..Limits::default()
        }
    };
    let work = search_work(WorkKind::Analysis, &limits, caps, 1);
    (limits, work)
}

/// What a Threats call is expected to take before any has finished on a
/// board like its own: what 300 random positions averaged (docs/operations.md).
pub const THREATS_PRIOR: Duration = Duration::from_millis(50);

/// The work of a Threats call on a board of `board_size` with `pieces` on
/// it: at most the server's search time, and as long as those before it on
/// such boards took.
pub fn threats_work(board_size: u8, pieces: usize, caps: SearchCaps) -> Work {
    Work {
        kind: WorkKind::Search,
        bound: caps.time,
        cost: Cost::Learned {
            class: CostClass::threats(board_size, pieces),
            prior: THREATS_PRIOR,
        },
    }
}

/// A game review's search of each position: the caller's bounds capped as for
/// a search, at `level` (at the strongest level with no bound, the review's
/// own default, within the node cap); and each position's work for admission:
/// all its searches, expected to take what reviewed positions with such
/// searches took before.
pub fn review_budget(
    given: Option<&pb::SearchLimits>,
    level: Level,
    seed: u64,
    caps: SearchCaps,
    deadline: Option<Instant>,
) -> (ReviewBudget, Work) {
    let budget = ReviewBudget::new(&capped_limits(given, caps, deadline), level, seed)
        .at_most_nodes(caps.nodes);
    let work = search_work(
        WorkKind::Search,
        budget.limits(),
        caps,
        budget.searches_per_position(),
    );
    (budget, work)
}

/// Mining a game of `positions` positions for puzzles: each position's search
/// capped as for a search (none given: the puzzles' own default, within the
/// node cap); and the work for admission: the whole game at once, a search a
/// position, expected to take what games mined with such searches took before.
pub fn puzzle_budget(
    given: Option<&pb::SearchLimits>,
    solver_moves: u32,
    positions: usize,
    caps: SearchCaps,
    deadline: Option<Instant>,
) -> (PuzzleBudget, Work) {
    let budget = PuzzleBudget::new(&capped_limits(given, caps, deadline), solver_moves)
        .at_most_nodes(caps.nodes);
    let searches = u32::try_from(positions.max(1)).unwrap_or(u32::MAX);
    let work = search_work(WorkKind::Search, budget.limits(), caps, searches);
    (budget, work)
}

/// The strength asked for: 0 is the strongest, 1..=10 as given.
///
/// # Errors
/// BAD_LIMITS for a level above 10.
pub fn level_from_proto(level: u32) -> Result<Level, ServiceError> {
    if level == 0 {
        return Ok(Level::STRONGEST);
    }
    Level::new(level).ok_or_else(|| {
        ServiceError::invalid(
            "level",
            Reason::BadLimits,
            format!(
                "{level} is not a level: use 1 (beginner) to 10 (strongest), or 0 for the strongest"
            ),
        )
    })
}

/// The caller's bounds capped by the server (see [`SearchBudget::at_level`]).
fn capped_limits(
    given: Option<&pb::SearchLimits>,
    caps: SearchCaps,
    deadline: Option<Instant>,
) -> Limits {
    if !any_limit(given) {
        return Limits {
            deadline,
            ..Limits::default()
        };
    }
    let given = given.cloned().unwrap_or_default();
    let capped = |value: u64, cap: u64| if value == 0 { cap } else { value.min(cap) };
    let time_cap = u64::try_from(caps.time.as_millis()).unwrap_or(u64::MAX);
    Limits {
        max_depth: Some(capped(u64::from(given.max_depth), u64::from(caps.depth)) as u32),
        max_nodes: Some(capped(given.max_nodes, caps.nodes)),
        max_time: Some(Duration::from_millis(capped(
            u64::from(given.max_time_ms),
            time_cap,
        ))),
        deadline,
        ..Limits::default()
    }
}

/// The search speed admission assumes to turn a node cap into time: a
/// quarter of what one idle core does (`tafl bench`: about 1 M nodes/s), so
/// that a busy machine does not make the estimate short.
pub const ADMISSION_NODES_PER_SECOND: u64 = 250_000;

/// The work of `searches` searches with these limits (the level's own
/// applied), one after another: they may hold the slot for their time
/// bounds. A search with none is at full strength (every other level has a
/// time cap), bound by depth or nodes alone, and is given the time full
/// strength takes when a request names no bound. When a depth cap (below the server's), or a node cap shorter at
/// [`ADMISSION_NODES_PER_SECOND`], may end them first, the clock does not
/// hold them and they are expected to take what such searches took before
/// (until one has finished, the node cap's time or the bound, whichever is
/// shorter): a level-5 search bound by 150 ms often ends its depth in 5 ms.
/// The deadline, if shorter, is applied by admission.
fn search_work(kind: WorkKind, limits: &Limits, caps: SearchCaps, searches: u32) -> Work {
    let time = limits
        .max_time
        .unwrap_or(Level::STRONGEST_DEFAULT_TIME)
        .min(caps.time);
    let nodes = limits.max_nodes.unwrap_or(u64::MAX).min(caps.nodes);
    let node_time = Duration::from_millis(nodes.saturating_mul(1000) / ADMISSION_NODES_PER_SECOND);
    let bound = time * searches;
    // The server's own depth cap is no cap a search ends on before its time.
    let depth_capped = limits.max_depth.is_some_and(|depth| depth < caps.depth);
    if !depth_capped && node_time >= time {
        return Work::bounded(kind, bound);
    }
    Work {
        kind,
        bound,
        cost: Cost::Learned {
            class: CostClass::capped(limits.max_depth, nodes, searches),
            prior: node_time.min(time) * searches,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAPS: SearchCaps = SearchCaps {
        depth: 32,
        time: Duration::from_secs(10),
        nodes: 1_000_000,
    };

    #[test]
    fn no_limits_leave_the_level_budget() {
        let limits = capped_limits(None, CAPS, None);
        assert!(limits.is_unbounded());
        let zero = pb::SearchLimits::default();
        assert!(capped_limits(Some(&zero), CAPS, None).is_unbounded());
    }

    #[test]
    fn zero_fields_mean_the_cap() {
        let given = pb::SearchLimits {
            max_depth: 4,
            ..pb::SearchLimits::default()
        };
        let limits = capped_limits(Some(&given), CAPS, None);
        assert_eq!(limits.max_depth, Some(4));
        assert_eq!(limits.max_time, Some(Duration::from_secs(10)));
        assert_eq!(limits.max_nodes, Some(1_000_000));
    }

    #[test]
    fn hostile_limits_are_capped() {
        let given = pb::SearchLimits {
            max_depth: 1000,
            max_time_ms: 86_400_000,
            max_nodes: u64::MAX,
        };
        let limits = capped_limits(Some(&given), CAPS, None);
        assert_eq!(limits.max_depth, Some(32));
        assert_eq!(limits.max_time, Some(Duration::from_secs(10)));
        assert_eq!(limits.max_nodes, Some(1_000_000));
    }

    #[test]
    fn small_limits_stay() {
        let given = pb::SearchLimits {
            max_depth: 3,
            max_time_ms: 50,
            max_nodes: 10,
        };
        let limits = capped_limits(Some(&given), CAPS, None);
        assert_eq!(limits.max_depth, Some(3));
        assert_eq!(limits.max_time, Some(Duration::from_millis(50)));
        assert_eq!(limits.max_nodes, Some(10));
    }

    #[test]
    fn a_depth_or_node_cap_makes_a_search_learned_from_those_before_it() {
        // Level 4's 20,000 nodes: 80 ms, under its 100 ms time cap; level 9's
        // 800,000 would be 3.2 s, but its depth cap may end it before its
        // 800 ms. Full strength with no bound has neither cap.
        let level = |n| Level::new(n).expect("a level");
        assert_eq!(
            SearchBudget::at_level(None, level(4), CAPS, None).work,
            Work {
                kind: WorkKind::Search,
                bound: Duration::from_millis(100),
                cost: Cost::Learned {
                    class: CostClass::capped(Some(2), 20_000, 1),
                    prior: Duration::from_millis(80),
                },
            }
        );
        let level_9 = level(9).time_cap().expect("a time cap");
        assert_eq!(
            SearchBudget::at_level(None, level(9), CAPS, None).work,
            Work {
                kind: WorkKind::Search,
                bound: level_9,
                cost: Cost::Learned {
                    class: CostClass::capped(Some(7), 800_000, 1),
                    prior: level_9,
                },
            }
        );
        // A review's position: its two searches of 50,000 nodes (200 ms each).
        let (_, review) = review_budget(None, Level::STRONGEST, 0, CAPS, None);
        assert_eq!(
            review,
            Work {
                kind: WorkKind::Search,
                bound: Duration::from_secs(2),
                cost: Cost::Learned {
                    class: CostClass::capped(None, 50_000, 2),
                    prior: Duration::from_millis(400),
                },
            }
        );
        assert_eq!(
            SearchBudget::at_level(None, Level::STRONGEST, CAPS, None).work,
            Work::bounded(WorkKind::Search, Duration::from_secs(1))
        );
        let long = pb::SearchLimits {
            max_time_ms: 3000,
            ..pb::SearchLimits::default()
        };
        assert_eq!(
            SearchBudget::at_level(Some(&long), Level::STRONGEST, CAPS, None).work,
            Work::bounded(WorkKind::Search, Duration::from_secs(3))
        );
    }

    /// A long game's clock: three minutes each, two seconds a move.
    fn long_game() -> Clock {
        Clock {
            remaining: Duration::from_secs(180),
            opponent_remaining: Duration::from_secs(180),
            increment: Duration::from_secs(2),
            ..Clock::default()
        }
    }

    #[test]
    fn on_a_clock_levels_keep_their_budget_and_level_0_spends_the_clocks() {
        let allocation = long_game().allocate(Duration::from_millis(50));
        assert!(allocation.soft > Duration::from_secs(1), "{allocation:?}");
        // Level 0: the clock's time, within the server's longest search; admission sees its
        // hard time as the search's bound.
        let full = SearchBudget::on_clock(None, None, allocation, CAPS, None);
        assert_eq!(full.limits.limits().soft_time, Some(allocation.soft));
        assert_eq!(
            full.limits.limits().max_time,
            Some(allocation.hard.min(CAPS.time))
        );
        assert_eq!(full.work.bound, allocation.hard.min(CAPS.time));
        // Levels 1-10: never past their own time, level 10's its second.
        for number in 1..=10 {
            let level = Level::new(number).expect("a level");
            let own = level.time_cap().unwrap_or(Level::STRONGEST_DEFAULT_TIME);
            let budget = SearchBudget::on_clock(None, Some(level), allocation, CAPS, None);
            let limits = budget.limits.limits();
            assert_eq!(limits.max_time, Some(own), "level {number}");
            assert!(budget.work.bound <= own, "level {number}");
            let settings = level.settings();
            assert_eq!(
                (limits.max_depth, limits.max_nodes),
                (settings.max_depth, settings.max_nodes),
                "level {number}"
            );
        }
        // A short clock shortens them; limits given shorten level 0 too.
        let short = Clock {
            remaining: Duration::from_secs(3),
            ..Clock::default()
        }
        .allocate(Duration::from_millis(50));
        let nine = SearchBudget::on_clock(None, Level::new(9), short, CAPS, None);
        assert_eq!(nine.limits.limits().max_time, Some(short.hard));
        let on_short = SearchBudget::on_clock(None, None, short, CAPS, None);
        assert_eq!(on_short.work.bound, short.hard);
        let given = pb::SearchLimits {
            max_time_ms: 700,
            ..pb::SearchLimits::default()
        };
        let bounded = SearchBudget::on_clock(Some(&given), None, allocation, CAPS, None);
        assert_eq!(
            bounded.limits.limits().max_time,
            Some(Duration::from_millis(700))
        );
    }

    #[test]
    fn a_clock_is_read_as_sent_and_periods_of_no_length_refused() {
        let sent = pb::Clock {
            remaining_ms: 180_000,
            opponent_remaining_ms: 170_000,
            increment_ms: 2000,
            overtime_ms: 0,
            overtime_periods: 0,
            moves_to_go: 0,
        };
        assert_eq!(
            Clock::try_from(&sent).expect("a clock"),
            Clock {
                opponent_remaining: Duration::from_secs(170),
                ..long_game()
            }
        );
        let huge = pb::Clock {
            remaining_ms: u64::MAX,
            overtime_ms: u64::MAX,
            overtime_periods: u32::MAX,
            ..sent
        };
        assert!(Clock::try_from(&huge).is_ok());
        let nothing = pb::Clock {
            overtime_periods: 3,
            ..sent
        };
        let error = Clock::try_from(&nothing).expect_err("periods of nothing");
        assert_eq!(
            error.to_string(),
            "clock.overtime_ms: 0 ms, but 3 overtime periods are left: give the period's \
             length, or 0 periods"
        );
        assert!(matches!(
            error,
            ServiceError::InvalidArgument {
                reason: Reason::BadLimits,
                ..
            }
        ));
    }

    #[test]
    fn an_analysis_without_bounds_runs_to_the_caps() {
        let (limits, work) = analysis_budget(None, CAPS, None);
        assert_eq!(limits.max_depth, Some(32));
        assert_eq!(limits.max_nodes, Some(1_000_000));
        // A million nodes at the pessimistic rate: four seconds, under the 10 s cap.
        assert_eq!(work.kind, WorkKind::Analysis);
        assert_eq!(work.bound, Duration::from_secs(10));
        assert!(matches!(
            work.cost,
            Cost::Learned { prior, .. } if prior == Duration::from_secs(4)
        ));
    }

    #[test]
    fn the_game_length_cap_blames_the_moves_or_the_next_move() {
        assert!(check_game_length(20, None, 20).is_ok());
        assert!(check_game_length(19, Some("a1-a2"), 20).is_ok());
        let too_long = check_game_length(21, Some("a1-a2"), 20).unwrap_err();
        assert_eq!(
            too_long.to_string(),
            "game.moves: the game holds 21 moves; this server takes games of at most 20 moves"
        );
        let one_more = check_game_length(20, Some("a1-a2"), 20).unwrap_err();
        assert_eq!(
            one_more.to_string(),
            "next_move: \"a1-a2\" would be move 21; this server takes games of at most 20 moves"
        );
        assert!(matches!(
            one_more,
            ServiceError::InvalidArgument { ply: Some(20), .. }
        ));
    }
}
