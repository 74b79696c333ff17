//! The processor's cores shared between the searches that run, as a plain
//! data structure: who computes now, who waits for a core, and whose turn
//! comes next. It has no clock of its own (every call is told `now`) and no
//! locks; [`super::CoreShare`] keeps it behind a mutex for the search threads.
//!
//! A running search computes only while it holds one of the cores. It holds
//! a core for a quantum at least; past that, at its next look at the clock,
//! it gives the core back if another search waits for one, and waits its
//! turn again. A free core goes to the waiting search whose connection has
//! had the least core time so far (its *virtual time*), the earliest come
//! among its own; so every connection with a search to run gets an equal
//! share of the cores, however many searches it runs and however long they
//! are, and a short search is never held up for longer than a few quanta.
//!
//! A connection that starts a search while none of its own runs starts at
//! the least virtual time of the connections whose searches do (it banks
//! nothing from its idle time, and is not behind for having been idle); one
//! that ran ahead keeps its lead until the others catch up, so leaving and
//! coming back buys nothing.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// How long a search holds a core before it gives way to a waiting one.
pub const QUANTUM: Duration = Duration::from_millis(5);

/// A search's place among those sharing the cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TakerId(u64);

/// The cores and the searches that share them.
#[derive(Debug)]
pub struct Cores {
    cores: usize,
    takers: HashMap<TakerId, Taker>,
    /// Core time given to each connection that runs searches or ran ahead of the others.
    accounts: HashMap<u64, Duration>,
    next_id: u64,
    /// Orders the waiting searches of one connection: first come, first served.
    next_arrival: u64,
}

#[derive(Debug)]
struct Taker {
    connection: u64,
    stage: Stage,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Computes on a core since then.
    Holding(Instant),
    /// Waits for a core; the number orders it among its connection's.
    Waiting(u64),
}

impl Cores {
    /// `cores` cores (at least one) to share.
    pub fn new(cores: usize) -> Cores {
        Cores {
            cores: cores.max(1),
            takers: HashMap::new(),
            accounts: HashMap::new(),
            next_id: 0,
            next_arrival: 0,
        }
    }

    /// A search of `connection` wants to compute: it gets a core now if one
    /// is free, else it waits (see [`Cores::holds`]). Returns its id and the
    /// searches that got a core (itself, or none).
    pub fn join(&mut self, connection: u64, now: Instant) -> (TakerId, Vec<TakerId>) {
        if !self.runs_searches(connection) {
            let floor = self.floor(now);
            let served = self.accounts.entry(connection).or_default();
            *served = (*served).max(floor);
        }
        let id = TakerId(self.next_id);
        self.next_id += 1;
        let stage = self.waiting_stage();
        self.takers.insert(id, Taker { connection, stage });
        (id, self.dispatch(now))
    }

    /// Whether the search computes now.
    pub fn holds(&self, id: TakerId) -> bool {
        self.takers
            .get(&id)
            .is_some_and(|taker| matches!(taker.stage, Stage::Holding(_)))
    }

    /// Searches waiting for a core.
    pub fn waiting(&self) -> usize {
        self.takers
            .values()
            .filter(|taker| matches!(taker.stage, Stage::Waiting(_)))
            .count()
    }

    /// Searches computing now.
    pub fn holding(&self) -> usize {
        self.takers.len() - self.waiting()
    }

    /// At a look at the clock: a search that has held its core for a
    /// quantum while another waits gives it back and waits its turn again
    /// (the core may come straight back to it). Returns the searches that
    /// got a core, and the core time the search is credited with.
    pub fn give_way(&mut self, id: TakerId, now: Instant) -> (Vec<TakerId>, Duration) {
        let Some(Stage::Holding(since)) = self.takers.get(&id).map(|taker| taker.stage) else {
            return (Vec::new(), Duration::ZERO);
        };
        if now.saturating_duration_since(since) < QUANTUM || self.waiting() == 0 {
            return (Vec::new(), Duration::ZERO);
        }
        let held = self.release(id, now);
        let stage = self.waiting_stage();
        if let Some(taker) = self.takers.get_mut(&id) {
            taker.stage = stage;
        }
        (self.dispatch(now), held)
    }

    /// The search is done computing (finished, stopped or gone): its core,
    /// if it holds one, goes to the next in turn. Returns the searches that
    /// got a core, and the core time the search is credited with.
    pub fn leave(&mut self, id: TakerId, now: Instant) -> (Vec<TakerId>, Duration) {
        let held = self.release(id, now);
        if self.takers.remove(&id).is_some() {
            self.forget_idle(now);
        }
        (self.dispatch(now), held)
    }

    /// Ends the search's hold on its core, crediting its connection; the core time it held.
    fn release(&mut self, id: TakerId, now: Instant) -> Duration {
        let Some(taker) = self.takers.get_mut(&id) else {
            return Duration::ZERO;
        };
        let Stage::Holding(since) = taker.stage else {
            return Duration::ZERO;
        };
        let held = now.saturating_duration_since(since);
        // Marked waiting until the caller says otherwise, so no core counts it.
        taker.stage = Stage::Waiting(u64::MAX);
        *self.accounts.entry(taker.connection).or_default() += held;
        held
    }

    fn waiting_stage(&mut self) -> Stage {
        self.next_arrival += 1;
        Stage::Waiting(self.next_arrival)
    }

    /// Gives the free cores to the waiting searches whose connections have
    /// had the least core time; returns those that got one.
    fn dispatch(&mut self, now: Instant) -> Vec<TakerId> {
        let mut started = Vec::new();
        while self.holding() < self.cores {
            let next = self
                .takers
                .iter()
                .filter_map(|(&id, taker)| match taker.stage {
                    Stage::Waiting(arrival) => {
                        Some((self.virtual_time(taker.connection, now), arrival, id))
                    }
                    Stage::Holding(_) => None,
                })
                .min();
            let Some((_, _, id)) = next else {
                break;
            };
            if let Some(taker) = self.takers.get_mut(&id) {
                taker.stage = Stage::Holding(now);
            }
            started.push(id);
        }
        started
    }

    /// The core time `connection` has had, counting what its searches hold now.
    fn virtual_time(&self, connection: u64, now: Instant) -> Duration {
        let holding: Duration = self
            .takers
            .values()
            .filter(|taker| taker.connection == connection)
            .filter_map(|taker| match taker.stage {
                Stage::Holding(since) => Some(now.saturating_duration_since(since)),
                Stage::Waiting(_) => None,
            })
            .sum();
        self.accounts.get(&connection).copied().unwrap_or_default() + holding
    }

    fn runs_searches(&self, connection: u64) -> bool {
        self.takers
            .values()
            .any(|taker| taker.connection == connection)
    }

    /// The least virtual time of the connections that run searches: where a
    /// newcomer starts (zero when none runs).
    fn floor(&self, now: Instant) -> Duration {
        self.takers
            .values()
            .map(|taker| self.virtual_time(taker.connection, now))
            .min()
            .unwrap_or_default()
    }

    /// Drops the accounts of the connections that no longer run searches
    /// and are not ahead of the floor (they would start there anyway), so
    /// the accounts stay as few as the connections that matter.
    fn forget_idle(&mut self, now: Instant) {
        let floor = self.floor(now);
        let running: HashSet<u64> = self.takers.values().map(|taker| taker.connection).collect();
        self.accounts.retain(|owner, served| {
            running.contains(owner) || (!running.is_empty() && *served > floor)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);
    const FLOOD: u64 = 1;
    const OTHER: u64 = 2;
    const THIRD: u64 = 3;

    fn joined(cores: &mut Cores, connection: u64, now: Instant) -> TakerId {
        cores.join(connection, now).0
    }

    #[test]
    fn free_cores_are_taken_at_once_and_the_rest_wait() {
        let now = Instant::now();
        let mut cores = Cores::new(2);
        let (first, started) = cores.join(FLOOD, now);
        assert_eq!(started, [first]);
        let second = joined(&mut cores, FLOOD, now);
        let third = joined(&mut cores, OTHER, now);
        assert!(cores.holds(first) && cores.holds(second));
        assert!(!cores.holds(third));
        assert_eq!((cores.holding(), cores.waiting()), (2, 1));
    }

    #[test]
    fn a_holder_keeps_its_core_for_a_quantum_and_while_none_waits() {
        let now = Instant::now();
        let mut cores = Cores::new(1);
        let alone = joined(&mut cores, FLOOD, now);
        // Nobody waits: no giving way, however long.
        assert_eq!(cores.give_way(alone, now + 100 * MS).0, []);
        assert!(cores.holds(alone));
        let other = joined(&mut cores, OTHER, now + 100 * MS);
        // Within its quantum of the last grant it keeps the core ...
        let mut fresh = Cores::new(1);
        let holder = joined(&mut fresh, FLOOD, now);
        let waiter = joined(&mut fresh, OTHER, now);
        assert_eq!(fresh.give_way(holder, now + QUANTUM / 2).0, []);
        // ... and past it gives way to the waiting one.
        let (started, held) = fresh.give_way(holder, now + QUANTUM);
        assert_eq!(started, [waiter]);
        assert_eq!(held, QUANTUM);
        assert!(!fresh.holds(holder));
        // The long holder had 100 ms: the newcomer, at the floor, comes first.
        let (started, held) = cores.give_way(alone, now + 100 * MS);
        assert_eq!((started, held), (vec![other], 100 * MS));
    }

    #[test]
    fn a_newcomer_waits_at_most_a_quantum_beside_a_flood_of_long_searches() {
        let now = Instant::now();
        let mut cores = Cores::new(2);
        let flood: Vec<TakerId> = (0..8).map(|_| joined(&mut cores, FLOOD, now)).collect();
        let mut time = now;
        // The flood's searches take turns for a while.
        for round in 0..20 {
            time += QUANTUM;
            for &id in &flood {
                if cores.holds(id) {
                    cores.give_way(id, time);
                }
            }
            assert_eq!(cores.holding(), 2, "round {round}");
        }
        let newcomer = joined(&mut cores, OTHER, time);
        assert!(!cores.holds(newcomer));
        // The next holder to reach its quantum gives its core to the newcomer.
        time += QUANTUM;
        let holder = *flood.iter().find(|&&id| cores.holds(id)).unwrap();
        assert_eq!(cores.give_way(holder, time).0, [newcomer]);
    }

    #[test]
    fn connections_share_the_cores_equally_whatever_their_number_of_searches() {
        let now = Instant::now();
        let mut cores = Cores::new(2);
        let mut searches: Vec<(u64, TakerId)> = Vec::new();
        for _ in 0..6 {
            searches.push((FLOOD, joined(&mut cores, FLOOD, now)));
        }
        searches.push((OTHER, joined(&mut cores, OTHER, now)));
        searches.push((THIRD, joined(&mut cores, THIRD, now)));
        let mut given: HashMap<u64, Duration> = HashMap::new();
        let mut time = now;
        for _ in 0..3000 {
            time += MS;
            for &(connection, id) in &searches {
                if cores.holds(id) {
                    let (_, held) = cores.give_way(id, time);
                    *given.entry(connection).or_default() += held;
                }
            }
        }
        let total: Duration = given.values().sum();
        for connection in [FLOOD, OTHER, THIRD] {
            let share = given[&connection].as_secs_f64() / total.as_secs_f64();
            assert!((share - 1.0 / 3.0).abs() < 0.02, "{connection}: {share}");
        }
    }

    #[test]
    fn a_connection_that_comes_back_starts_where_the_others_stand() {
        let now = Instant::now();
        let mut cores = Cores::new(1);
        let long = joined(&mut cores, FLOOD, now);
        // OTHER runs 10 ms beside it, then leaves for a while.
        let mut time = now + QUANTUM;
        let short = joined(&mut cores, OTHER, time);
        cores.give_way(long, time);
        assert!(cores.holds(short));
        time += 10 * MS;
        cores.leave(short, time);
        // The long search computes alone for a second: nobody is behind for it.
        time += Duration::from_secs(1);
        let back = joined(&mut cores, OTHER, time);
        // Both stand at the floor now: the one that waits first goes first, and the newcomer
        // gets the core at the long one's next quantum.
        let (started, _) = cores.give_way(long, time + QUANTUM);
        assert_eq!(started, [back]);
        // And it cannot go ahead by leaving: after its quantum the long one has its turn.
        let (started, _) = cores.give_way(back, time + 2 * QUANTUM);
        assert_eq!(started, [long]);
    }

    #[test]
    fn a_search_that_leaves_hands_its_core_on_and_is_forgotten() {
        let now = Instant::now();
        let mut cores = Cores::new(1);
        let first = joined(&mut cores, FLOOD, now);
        let second = joined(&mut cores, OTHER, now);
        let (started, held) = cores.leave(first, now + 3 * MS);
        assert_eq!((started, held), (vec![second], 3 * MS));
        // Leaving twice, or giving way when gone, changes nothing.
        assert_eq!(
            cores.leave(first, now + 4 * MS),
            (Vec::new(), Duration::ZERO)
        );
        assert_eq!(
            cores.give_way(first, now + 4 * MS),
            (Vec::new(), Duration::ZERO)
        );
        cores.leave(second, now + 5 * MS);
        assert_eq!((cores.holding(), cores.waiting()), (0, 0));
        assert!(cores.accounts.is_empty());
    }

    #[test]
    fn accounts_stay_as_few_as_the_connections_that_run() {
        let now = Instant::now();
        let mut cores = Cores::new(1);
        let long = joined(&mut cores, 0, now);
        let mut time = now;
        for connection in 1..1000 {
            let id = joined(&mut cores, connection, time);
            time += QUANTUM;
            cores.give_way(long, time);
            time += MS;
            cores.leave(id, time);
        }
        assert!(cores.accounts.len() <= 2, "{}", cores.accounts.len());
    }
}
