//! The tactical picture of a position for a board UI, from the side to
//! move's view: its winning moves, the other side's wins it must parry, its
//! double threats, and the pieces either side can take next.
//!
//! Every move is judged by the game ([`Game::preview`]), so repetition
//! counts with the game's history. A double threat is proven by an exact
//! three-ply search (the move, every reply, a win), not by a pattern.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::limits::{Control, Limits, Stopwatch};
use crate::rules::{Game, Move, PlayedMove, Side, Square, Status};

/// The tactical picture; every list empty once the game is over.
#[derive(Clone, Debug, Default)]
pub struct Threats {
    /// Moves of the side to move that win now.
    pub winning_moves: Vec<PlayedMove>,
    /// Moves that would win for the other side if it were to move now.
    pub opponent_wins: Vec<PlayedMove>,
    /// Moves after which every reply of the other side loses or leaves a win.
    pub double_threats: Vec<PlayedMove>,
    /// The other side's pieces the side to move can take now, by square,
    /// with the moves that take each.
    pub can_capture: Vec<(Square, Vec<PlayedMove>)>,
    /// The side to move's pieces the other side could take next.
    pub in_danger: Vec<(Square, Vec<PlayedMove>)>,
}

/// The tactical picture of the game's position. Moves come sorted by from
/// square, then to square; pieces by square.
#[must_use]
pub fn threats(game: &Game) -> Threats {
    threats_until(game, None, Control::new(&AtomicBool::new(false))).unwrap_or_default()
}

/// [`threats`], given up (`None`) once `deadline` passes or `stop` is set
/// (from any thread) before the double threats are proven.
#[must_use]
pub fn threats_until(
    game: &Game,
    deadline: Option<Instant>,
    control: Control<'_>,
) -> Option<Threats> {
    if game.status().is_over() {
        return Some(Threats::default());
    }
    let clock = Stopwatch::new(
        &Limits {
            deadline,
            ..Limits::default()
        },
        control,
    );
    let position = game.position();
    let side = position.side_to_move();
    let opponent = side.opponent();
    let ours: Vec<PlayedMove> = sorted(position.legal_moves().as_slice())
        .filter_map(|mv| game.preview(mv).ok())
        .collect();
    let theirs: Vec<PlayedMove> = sorted(position.passed().legal_moves().as_slice())
        .filter_map(|mv| game.look_ahead_for_opponent().preview(mv).ok())
        .collect();
    let mut double_threats = Vec::new();
    for played in ours
        .iter()
        .filter(|played| played.status == Status::Ongoing)
    {
        if forces_win(game, played.played, side, &clock)? {
            double_threats.push(*played);
        }
    }
    Some(Threats {
        winning_moves: winners(&ours, side),
        opponent_wins: winners(&theirs, opponent),
        double_threats,
        can_capture: by_captured_square(&ours),
        in_danger: by_captured_square(&theirs),
    })
}

fn sorted(moves: &[Move]) -> impl Iterator<Item = Move> {
    let mut moves = moves.to_vec();
    moves.sort_unstable();
    moves.into_iter()
}

fn wins_for(played: &PlayedMove, side: Side) -> bool {
    matches!(played.status, Status::Won { winner, .. } if winner == side)
}

fn winners(moves: &[PlayedMove], side: Side) -> Vec<PlayedMove> {
    moves
        .iter()
        .filter(|played| wins_for(played, side))
        .copied()
        .collect()
}

fn by_captured_square(moves: &[PlayedMove]) -> Vec<(Square, Vec<PlayedMove>)> {
    let mut by_square: BTreeMap<Square, Vec<PlayedMove>> = BTreeMap::new();
    for played in moves {
        for square in played.captures.iter() {
            by_square.entry(square).or_default().push(*played);
        }
    }
    by_square.into_iter().collect()
}

/// After `mv` (which does not end the game), does every reply of the other
/// side either lose at once or leave `side` a winning move? An exact
/// three-ply search: every reply, and for each a win found or every move
/// tried. `None` once the clock says stop.
fn forces_win(game: &Game, mv: Move, side: Side, clock: &Stopwatch<'_>) -> Option<bool> {
    let mut after = game.look_ahead();
    if after.play(mv).is_err() {
        return Some(false);
    }
    // The win that answered the last reply is the likeliest to answer the next.
    let mut last_win: Option<Move> = None;
    let replies = after.position().legal_moves();
    for &reply in replies.iter() {
        clock.take_turn();
        if clock.past_deadline() {
            return None;
        }
        let mut replied = after.clone();
        let parried = match replied.play(reply) {
            Ok(played) if played.status.is_over() => !wins_for(&played, side),
            Ok(_) => {
                let wins = |win: &Move| {
                    replied
                        .preview(*win)
                        .is_ok_and(|played| wins_for(&played, side))
                };
                if last_win.as_ref().is_some_and(wins) {
                    continue;
                }
                last_win = replied.position().legal_moves().iter().copied().find(wins);
                last_win.is_none()
            }
            Err(_) => true,
        };
        if parried {
            return Some(false);
        }
    }
    Some(true)
}
