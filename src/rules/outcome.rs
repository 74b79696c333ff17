//! Judging a position: whether the last move ended the game, and how
//! (docs/RULES.md rules 5-10).

use super::bitboard::Bitboard;
use super::piece::Piece;
use super::position::Position;
use super::side::Side;
use super::square::Square;
use super::status::{EndReason, Status};
use super::variant::Geometry;

impl Position {
    /// Judges the game after `mover` brought `piece` to `to`, with the
    /// captures removed and the turn already passed (docs/RULES.md rule 11).
    /// Without `JUDGE_NO_MOVES`, a side left with no move is "ongoing".
    #[inline(always)]
    pub(crate) fn status_after<const JUDGE_NO_MOVES: bool>(
        &mut self,
        mover: Side,
        piece: Piece,
        to: Square,
        captured: bool,
    ) -> Status {
        let geometry = self.geometry();
        let rules = self.variant.rules;
        if piece == Piece::King && geometry.corners.contains(to) {
            return Status::Won {
                winner: Side::Defenders,
                reason: EndReason::KingEscaped,
            };
        }
        match mover {
            Side::Attackers => {
                if let Some(king) = self.captured_king(to) {
                    self.toggle_piece(Piece::King, king);
                    return Status::Won {
                        winner: Side::Attackers,
                        reason: EndReason::KingCaptured,
                    };
                }
                if rules.has_encirclement()
                    && (self.escape_unproven
                        || captured
                        || may_have_sealed(geometry, self.attackers, to))
                {
                    self.escape_unproven = self.defenders_encircled();
                    if self.escape_unproven {
                        return Status::Won {
                            winner: Side::Attackers,
                            reason: EndReason::Encircled,
                        };
                    }
                }
            }
            Side::Defenders => {
                if rules.has_exit_fort() && self.king_in_exit_fort() {
                    return Status::Won {
                        winner: Side::Defenders,
                        reason: EndReason::ExitFort,
                    };
                }
            }
        }
        if JUDGE_NO_MOVES {
            self.no_move_status()
        } else {
            Status::Ongoing
        }
    }

    /// Rule 10 and its Fetlar/Tablut form: what it means that the side to
    /// move has no legal move.
    #[inline(always)]
    pub(crate) fn no_move_status(&self) -> Status {
        if self.has_legal_move() {
            return Status::Ongoing;
        }
        let stuck = self.side_to_move;
        let has_pieces = !self.pieces(stuck).is_empty();
        if has_pieces && self.variant.rules.stuck_side_draws() {
            Status::Drawn {
                reason: EndReason::NoMoves,
            }
        } else {
            Status::Won {
                winner: stuck.opponent(),
                reason: EndReason::NoMoves,
            }
        }
    }

    /// The king's square if the attacker that just arrived on `to` captured
    /// him (rule 5; Tablut's edge-assisted form).
    #[inline(always)]
    fn captured_king(&self, to: Square) -> Option<Square> {
        if !self.king.intersects(Bitboard::neighbours_of(to)) {
            return None;
        }
        let king = self.king.first()?;
        let geometry = self.geometry();
        let around = Bitboard::neighbours_of(king) & geometry.board;
        let throne = Bitboard::from_square(geometry.throne);
        // The throne is empty: only the king may stand there.
        let sides = if !self.variant.rules.edge_shields_king() {
            // Off-board sides count by not being in `around`.
            self.attackers | throne | geometry.corners
        } else if geometry.edge.contains(king) {
            return None;
        } else {
            self.attackers | throne
        };
        around.minus(sides).is_empty().then_some(king)
    }

    /// Rule 8: no defender can reach the edge through squares free of
    /// attackers (public for hosts whose rules add it to a ruleset without
    /// it: `tafl otep` under OpenTafl's Fetlar).
    #[inline(always)]
    #[must_use]
    pub fn defenders_encircled(&self) -> bool {
        let geometry = self.geometry();
        let mut region = self.defenders | self.king;
        let passable = geometry.board.minus(self.attackers);
        loop {
            if region.intersects(geometry.edge) {
                return false;
            }
            let grown = region.grow() & passable;
            if grown == region {
                return true;
            }
            region = grown;
        }
    }

    /// Rule 7: the king on the edge, able to move, in a space no attacker
    /// touches, walled by defenders the attackers can never break.
    #[inline(always)]
    fn king_in_exit_fort(&self) -> bool {
        // Off the edge (nearly always) the king is in no fort, and an
        // attacker next to him (mostly, when he is on it) breaks any.
        self.king.intersects(self.geometry().edge)
            && self
                .king
                .first()
                .is_some_and(|king| !self.attackers.intersects(Bitboard::neighbours_of(king)))
            && self.king_in_exit_fort_on_edge()
    }

    /// Rule 7 for a king on the edge with no attacker next to him.
    fn king_in_exit_fort_on_edge(&self) -> bool {
        let geometry = self.geometry();
        let empty = geometry.board.minus(self.occupied());
        // An attacker next to the king's space breaks the fort: the flood
        // stops as soon as it reaches one, which is nearly always soon.
        let next_to_attackers = self.attackers.neighbours();
        let mut space = self.king.neighbours() & empty;
        if space.is_empty() {
            return false;
        }
        loop {
            if space.intersects(next_to_attackers) {
                return false;
            }
            let grown = space.grow() & empty;
            if grown == space {
                break;
            }
            space = grown;
        }
        let fort = space | self.king;
        let touching = fort.neighbours() & geometry.board;
        let mut safe = self.defenders;
        loop {
            let threats = geometry.board.minus(fort | safe);
            let pinched = (threats.east() & threats.west()) | (threats.north() & threats.south());
            let broken = safe & pinched;
            if broken.is_empty() {
                break;
            }
            safe = safe.minus(broken);
        }
        (touching & self.defenders).minus(safe).is_empty()
    }
}

/// Whether the attacker that just arrived on `to`, the attackers now being
/// `attackers`, may have cut the defenders off from the edge, when they
/// could reach it before.
///
/// A square no attacker holds is open. If the open squares among the eight
/// around `to` that touch it orthogonally all lie in one unbroken arc of
/// open squares around it, every path that went through `to` can go round
/// it instead, so closing `to` disconnects nothing; nor can it off the
/// board's edge, which `to` is not on. Defenders' moves and captures of
/// attackers only open squares, so the defenders could reach the edge after
/// the last attacker move judged, unless the position came from a setup
/// (`escape_unproven`).
#[inline(always)]
pub(super) fn may_have_sealed(geometry: &Geometry, attackers: Bitboard, to: Square) -> bool {
    if geometry.edge.contains(to) {
        return true;
    }
    // Off the edge, all eight neighbours are on the board: the attackers'
    // 3×3 window around `to`, three bits a rank from the one below, is
    // looked up whole.
    let row = |rank: u8| attackers.rank_bits(rank) >> (to.file() - 1) & 0b111;
    let window = row(to.rank() - 1) | row(to.rank()) << 3 | row(to.rank() + 1) << 6;
    SEALING_WINDOWS[window as usize]
}

/// For each window of attackers around a square (bit `3 × row + column`,
/// from the lower left; the centre is the attacker that arrived): whether
/// closing the centre may cut a path, that is whether the open squares of
/// its ring do not hold its open orthogonal neighbours in one arc.
static SEALING_WINDOWS: [bool; 512] = {
    let mut table = [false; 512];
    let mut window = 0;
    while window < 512 {
        // The ring clockwise from north: N NE E SE S SW W NW, orthogonal
        // ones even, each by its row and column in the window.
        let ring_squares = [
            (2, 1),
            (2, 2),
            (1, 2),
            (0, 2),
            (0, 1),
            (0, 0),
            (1, 0),
            (2, 0),
        ];
        let mut ring = 0u8;
        let mut bit = 0;
        while bit < 8 {
            let (row, column) = ring_squares[bit];
            let open = window >> (3 * row + column) & 1 == 0;
            ring |= (open as u8) << bit;
            bit += 1;
        }
        table[window] = !open_orthogonals_in_one_arc(ring);
        window += 1;
    }
    table
};

/// For a ring of eight neighbours (bit 0 north, clockwise, orthogonal
/// neighbours on even bits): whether its open orthogonal neighbours all lie
/// in one arc of consecutive open squares (or there are none).
const fn open_orthogonals_in_one_arc(ring: u8) -> bool {
    if ring == 0xff {
        return true;
    }
    // Start the walk just after a closed square, so no arc wraps round.
    let mut start = 0;
    while ring >> start & 1 == 1 {
        start += 1;
    }
    let (mut arcs, mut in_arc, mut touches) = (0, false, false);
    let mut step = 1;
    while step <= 8 {
        let bit = (start + step) % 8;
        if ring >> bit & 1 == 1 {
            if !in_arc {
                (in_arc, touches) = (true, false);
            }
            touches |= bit % 2 == 0;
        } else if in_arc {
            in_arc = false;
            if touches {
                arcs += 1;
            }
        }
        step += 1;
    }
    arcs <= 1
}

#[cfg(test)]
mod tests {
    use super::may_have_sealed;
    use crate::rules::{Bitboard, BoardSize, Square, splitmix};

    #[test]
    fn an_attacker_said_to_seal_nothing_cuts_no_open_square_off_the_edge() {
        let mut state = 5u64;
        let (mut sealing, mut harmless) = (0, 0);
        for size in BoardSize::ALL {
            let geometry = size.geometry();
            let squares: Vec<Square> = geometry.board.iter().collect();
            let inner: Vec<Square> = geometry.board.minus(geometry.edge).iter().collect();
            // The open squares from which the edge can be reached.
            let reach_edge = |attackers: Bitboard| {
                let open = geometry.board.minus(attackers);
                geometry.edge.minus(attackers).flood(open)
            };
            for density in [20, 40, 60] {
                for _ in 0..2000 {
                    let mut attackers = Bitboard::EMPTY;
                    for &square in &squares {
                        state = splitmix(state);
                        if state % 100 < density {
                            attackers = attackers.with(square);
                        }
                    }
                    state = splitmix(state);
                    let to = inner[(state % inner.len() as u64) as usize];
                    let before = reach_edge(attackers.without(to));
                    let after = attackers.with(to);
                    if may_have_sealed(geometry, after, to) {
                        sealing += 1;
                    } else {
                        harmless += 1;
                        assert_eq!(reach_edge(after), before.without(to), "{after:?} to {to}");
                    }
                }
            }
        }
        assert!(
            sealing > 1000 && harmless > 1000,
            "{sealing} sealing, {harmless} harmless"
        );
    }
}
