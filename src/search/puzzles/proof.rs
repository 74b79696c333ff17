//! The proof: an exhaustive search of every solver move and every reply to
//! the solution's full depth, which says whether the solver reaches its goal
//! within so many moves, which first moves do, and what the opponent's
//! longest resistance is.
//!
//! Nothing is pruned that could change an answer: a solver node is won by
//! one move that forces the goal, a reply node is refuted by one reply that
//! escapes it, and only the order of the moves tried is heuristic (the move
//! that decided the last sibling at the same depth is tried first, as a mate
//! solver's killer). Positions are played without a game's history, as the
//! puzzle will be (see `goal.rs`).

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::goal::{Aim, PuzzleGoal};
use crate::rules::{Move, MoveList, Position};
use crate::search::{Control, evaluate};

/// The most solver moves a proof looks at (and so a puzzle may ask for).
pub const MAX_SOLVER_MOVES: u32 = 4;

/// Positions played between two looks at the stop flag and the clock.
const CHECK_EVERY: u64 = 4096;

/// Why a proof ended without an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cut {
    /// It played its budget of positions: the candidate is given up.
    OutOfNodes,
    /// The stop flag or the deadline: the whole search ends.
    Stopped,
}

/// A proof in progress: its aim, its budget and what move ordering learnt.
pub(super) struct Prover<'a> {
    aim: Aim,
    /// Positions played so far.
    pub nodes: u64,
    max_nodes: u64,
    control: Control<'a>,
    deadline: Option<Instant>,
    next_check: u64,
    /// By solver moves left: the move that last forced the goal there.
    forcing: [Option<Move>; MAX_SOLVER_MOVES as usize + 1],
    /// By solver moves left: the reply that last refuted a solver move there.
    refuting: [Option<Move>; MAX_SOLVER_MOVES as usize + 1],
}

impl<'a> Prover<'a> {
    pub fn new(
        aim: Aim,
        max_nodes: u64,
        control: Control<'a>,
        deadline: Option<Instant>,
    ) -> Prover<'a> {
        Prover {
            aim,
            nodes: 0,
            max_nodes,
            control,
            deadline,
            next_check: CHECK_EVERY,
            forcing: [None; MAX_SOLVER_MOVES as usize + 1],
            refuting: [None; MAX_SOLVER_MOVES as usize + 1],
        }
    }

    pub fn aim(&self) -> Aim {
        self.aim
    }

    /// Plays `mv` from `position`, counting it against the budget; also how
    /// many pieces it took.
    fn play(&mut self, position: &Position, mv: Move) -> Result<(Position, i32), Cut> {
        self.nodes += 1;
        if self.nodes >= self.max_nodes {
            return Err(Cut::OutOfNodes);
        }
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + CHECK_EVERY;
            // The processor's other searches have their turns here too.
            self.control
                .share
                .take_turn(self.deadline, self.control.stop);
            let late = self.deadline.is_some_and(|end| Instant::now() >= end);
            if late || self.control.stop.load(Ordering::Relaxed) {
                return Err(Cut::Stopped);
            }
        }
        let mut child = *position;
        let taken = child.play_unchecked(mv).len() as i32;
        Ok((child, taken))
    }

    /// Does the solver, to move in `position` and `net` pieces ahead since
    /// the start, reach the goal within `moves` of its moves whatever the
    /// opponent replies?
    pub fn forces(&mut self, position: &Position, net: i32, moves: u32) -> Result<bool, Cut> {
        if moves == 0 || position.status().is_over() {
            return Ok(false);
        }
        let list = position.legal_moves();
        // Reaching it now settles the node before any deeper look.
        for &mv in &list {
            let (after, taken) = self.play(position, mv)?;
            if self.aim.reached(&after, net + taken) {
                return Ok(true);
            }
        }
        if moves == 1 {
            return Ok(false);
        }
        for mv in first_if_legal(self.forcing[moves as usize], &list) {
            if self.forces_after(position, mv, net, moves)? {
                self.forcing[moves as usize] = Some(mv);
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// After the solver plays `mv` (its moves left `moves` counting this
    /// one), does it reach the goal now, or within the moves left whatever
    /// the opponent replies?
    pub fn forces_after(
        &mut self,
        position: &Position,
        mv: Move,
        net: i32,
        moves: u32,
    ) -> Result<bool, Cut> {
        let (after, taken) = self.play(position, mv)?;
        let net = net + taken;
        if self.aim.reached(&after, net) {
            return Ok(true);
        }
        if moves <= 1 || after.status().is_over() {
            return Ok(false);
        }
        let replies = after.legal_moves();
        for reply in first_if_legal(self.refuting[moves as usize], &replies) {
            let (replied, lost) = self.play(&after, reply)?;
            // A reply that ends the game wins or draws it for the opponent.
            let escapes =
                replied.status().is_over() || !self.forces(&replied, net - lost, moves - 1)?;
            if escapes {
                self.refuting[moves as usize] = Some(reply);
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The fewest solver moves, at most `max`, in which it forces the goal.
    pub fn shortest(
        &mut self,
        position: &Position,
        net: i32,
        max: u32,
    ) -> Result<Option<u32>, Cut> {
        for moves in 1..=max {
            if self.forces(position, net, moves)? {
                return Ok(Some(moves));
            }
        }
        Ok(None)
    }

    /// Every solver move that reaches the goal within `moves`, in square order.
    pub fn forcing_moves(
        &mut self,
        position: &Position,
        net: i32,
        moves: u32,
    ) -> Result<Vec<Move>, Cut> {
        let mut found = Vec::new();
        for mv in sorted(position.legal_moves()) {
            if self.forces_after(position, mv, net, moves)? {
                found.push(mv);
            }
        }
        Ok(found)
    }

    /// The solution from `position`, the solver to move, when it reaches the
    /// goal in exactly `moves` moves: each solver move the only one that
    /// does so as fast (any at the last), each reply the longest resistance.
    /// `None` when some solver move has a rival.
    pub fn line(
        &mut self,
        position: &Position,
        net: i32,
        moves: u32,
    ) -> Result<Option<Vec<Move>>, Cut> {
        let keys = self.forcing_moves(position, net, moves)?;
        let key = match keys.as_slice() {
            [key] => *key,
            [key, ..] if moves == 1 => *key,
            _ => return Ok(None),
        };
        if moves == 1 {
            return Ok(Some(vec![key]));
        }
        let (after, taken) = self.play(position, key)?;
        let net = net + taken;
        let Some(reply) = self.longest_resistance(&after, net, moves - 1)? else {
            return Ok(None);
        };
        let (replied, lost) = self.play(&after, reply)?;
        Ok(self
            .line(&replied, net - lost, moves - 1)?
            .map(|rest| [key, reply].into_iter().chain(rest).collect()))
    }

    /// The reply after which the solver (`net` ahead, `moves` left) needs
    /// all its moves. Of several: before the solver's last move, the one
    /// that leaves it the least material, then the fewest moves that finish;
    /// earlier, the first that leaves it a single way on (so the puzzle goes
    /// on), else the fewest; ties go to the reply the static evaluation
    /// likes best for the opponent (its most natural move), then to square
    /// order.
    fn longest_resistance(
        &mut self,
        after: &Position,
        net: i32,
        moves: u32,
    ) -> Result<Option<Move>, Cut> {
        let mut longest = Vec::new();
        for reply in after.legal_moves() {
            let (replied, lost) = self.play(after, reply)?;
            if moves > 1 && self.forces(&replied, net - lost, moves - 1)? {
                continue;
            }
            // The solver's view, so the opponent's favourite is the lowest.
            longest.push((evaluate(&replied), reply, replied, lost));
        }
        longest.sort_unstable_by_key(|&(score, reply, ..)| (score, reply));
        let mut best: Option<((i32, usize), Move)> = None;
        for (_, reply, replied, lost) in longest {
            let resistance = if moves == 1 {
                self.finishes(&replied, net - lost)?
            } else {
                (0, self.forcing_moves(&replied, net - lost, moves)?.len())
            };
            if best.is_none_or(|(least, _)| resistance < least) {
                best = Some((resistance, reply));
            }
            if moves > 1 && resistance.1 == 1 {
                break;
            }
        }
        Ok(best.map(|(_, reply)| reply))
    }

    /// The solver's moves that reach the goal at once from `position`: the
    /// most pieces ahead one leaves it (counted for a material goal only),
    /// and how many there are.
    fn finishes(&mut self, position: &Position, net: i32) -> Result<(i32, usize), Cut> {
        let (mut most, mut count) = (i32::MIN, 0);
        for mv in position.legal_moves() {
            let (after, taken) = self.play(position, mv)?;
            if self.aim.reached(&after, net + taken) {
                count += 1;
                most = most.max(net + taken);
            }
        }
        if self.aim.goal != PuzzleGoal::WinMaterial {
            most = 0;
        }
        Ok((most, count))
    }
}

/// `moves` in square order.
fn sorted(mut moves: MoveList) -> MoveList {
    moves.sort_unstable();
    moves
}

/// `moves` with `first` ahead of the rest when it is one of them.
fn first_if_legal(first: Option<Move>, moves: &MoveList) -> impl Iterator<Item = Move> + '_ {
    let first = first.filter(|mv| moves.contains(mv));
    first
        .into_iter()
        .chain(moves.iter().copied().filter(move |&mv| Some(mv) != first))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{PositionText, Rules, Side, Variant};
    use std::sync::atomic::AtomicBool;

    /// The king alone on e5, attackers on c5, g5, i9 and b9 (and e7 when `barred_up`):
    /// e5-e1 opens a1 and k1 at once; without e7, e5-e11 opens a11 and k11 as well.
    fn double_threat(barred_up: bool) -> Position {
        let text = if barred_up {
            "/11/11/1t6t2/11/4t6/11/2t1K1t4/11/11/11/11/ d"
        } else {
            "/11/11/1t6t2/11/11/11/2t1K1t4/11/11/11/11/ d"
        };
        let setup: PositionText = text.parse().expect("a position text");
        Position::from_setup(&setup, Variant::standard(Rules::Copenhagen)).expect("a position")
    }

    fn prover(stop: &AtomicBool) -> Prover<'_> {
        let aim = Aim {
            goal: PuzzleGoal::KingEscapes,
            solver: Side::Defenders,
        };
        Prover::new(aim, 10_000_000, Control::new(stop), None)
    }

    #[test]
    fn one_move_to_a_double_threat_wins_in_two_and_is_the_only_one() {
        let stop = AtomicBool::new(false);
        let mut prover = prover(&stop);
        let start = double_threat(true);
        assert_eq!(prover.shortest(&start, 0, 3), Ok(Some(2)));
        let line = prover.line(&start, 0, 2).expect("within budget");
        let line: Vec<String> = line
            .expect("unique")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(line[0], "e5-e1");
        assert_eq!(line.len(), 3);
    }

    #[test]
    fn two_moves_that_win_as_fast_make_no_line() {
        let stop = AtomicBool::new(false);
        let mut prover = prover(&stop);
        let start = double_threat(false);
        let keys: Vec<String> = prover
            .forcing_moves(&start, 0, 2)
            .expect("within budget")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(keys, ["e5-e1", "e5-e11"]);
        assert_eq!(prover.line(&start, 0, 2), Ok(None));
    }

    #[test]
    fn a_proof_stops_at_its_budget_and_at_the_flag() {
        let stop = AtomicBool::new(false);
        let aim = prover(&stop).aim();
        let start = double_threat(true);
        let mut starved = Prover::new(aim, 50, Control::new(&stop), None);
        assert_eq!(starved.shortest(&start, 0, 3), Err(Cut::OutOfNodes));
        let raised = AtomicBool::new(true);
        let mut stopped = Prover::new(aim, u64::MAX, Control::new(&raised), None);
        assert_eq!(stopped.forcing_moves(&start, 0, 3), Err(Cut::Stopped));
    }
}
