//! Quiet moves known before they are played: a soldier's move that captures
//! nothing and after which the game goes on, whatever repetition says.
//!
//! A board UI previews every legal move of a turn (`Game::previewed_moves`),
//! and nearly all of them are quiet. Playing each one out on a copy of the
//! position, to find what the rules would say, costs several times what
//! these few tests of squares cost, worked out once for all the moves.

use super::bitboard::Bitboard;
use super::moves::Move;
use super::outcome::may_have_sealed;
use super::piece::Piece;
use super::position::Position;
use super::side::Side;
use super::square::Square;
use super::variant::Geometry;
use super::zobrist::{piece_key, side_key};

/// The quiet moves of one position ([`Position::quiet_moves`]).
pub(crate) struct QuietMoves {
    /// The mover's soldiers: the king's moves are never taken as quiet.
    soldiers: Bitboard,
    /// Where a soldier may arrive and be sure to capture nothing, to leave
    /// the king uncaptured and the opponent a move, to build no fort, and
    /// to encircle no one.
    arrivals: Bitboard,
    /// Where a soldier may arrive and be sure of all the above but the last:
    /// an attacker arriving there may encircle the defenders (rule 8), so
    /// the move needs a closer look. Empty when no arrival can encircle.
    sealing_arrivals: Bitboard,
    /// The attackers, whom that closer look moves.
    attackers: Bitboard,
    piece: Piece,
    hash: u64,
    geometry: &'static Geometry,
}

impl Position {
    /// The quiet moves of the side to move: each is known, before it is
    /// played, to capture nothing and to leave the game going on, unless
    /// repetition ends it (which the caller, who holds the history, judges
    /// with [`QuietMoves::hash_after`]).
    ///
    /// Exact where it answers: [`QuietMoves::contains`] never holds a move
    /// that [`Position::play_unchecked`] would find capturing or ending the
    /// game; it may leave out moves that are quiet all the same.
    pub(crate) fn quiet_moves(&self) -> QuietMoves {
        let geometry = self.geometry();
        let rules = self.variant.rules;
        let mover = self.side_to_move;
        // Captures (rules 3 and 4): the mover's first square is never the
        // hostile square beyond a victim, so these are known before the move.
        let mut arrivals = geometry
            .board
            .minus(self.custodial_capture_squares())
            .minus(self.shieldwall_squares());
        // Rule 10: the opponent keeps a move if one of its pieces can still
        // step east or west onto a square any piece may stop on; the arrival
        // can close one such square, and the mover's first square opens one.
        let steps = self.sideways_steps(self.pieces(mover.opponent()));
        match steps.len() {
            0 => arrivals = Bitboard::EMPTY,
            1 => arrivals = arrivals.minus(steps),
            _ => {}
        }
        let mut sealing_arrivals = Bitboard::EMPTY;
        match mover {
            Side::Attackers => {
                // Rule 5: only an attacker arriving next to the king takes him.
                arrivals = arrivals.minus(self.king.neighbours());
                if rules.has_encirclement() {
                    if self.escape_unproven {
                        arrivals = Bitboard::EMPTY;
                    }
                    sealing_arrivals = self.squares_on_every_way_out();
                }
            }
            Side::Defenders => {
                // Rule 7: a soldier may close a fort round a king on the edge.
                if rules.has_exit_fort() && self.king.intersects(geometry.edge) {
                    arrivals = Bitboard::EMPTY;
                }
            }
        }
        if self.status.is_over() {
            arrivals = Bitboard::EMPTY;
        }
        // Split once here, so that most moves pass one test of their arrival.
        sealing_arrivals &= arrivals;
        arrivals = arrivals.minus(sealing_arrivals);
        let (soldiers, piece) = match mover {
            Side::Attackers => (self.attackers, Piece::Attacker),
            Side::Defenders => (self.defenders, Piece::Defender),
        };
        QuietMoves {
            soldiers,
            arrivals,
            sealing_arrivals,
            attackers: self.attackers,
            piece,
            hash: self.hash ^ side_key(Side::Defenders),
            geometry,
        }
    }
}

impl Position {
    /// The squares that lie on every straight way out: a line from a
    /// defender (the king too) to the edge with no attacker on it. An
    /// attacker arriving anywhere else leaves one such line open (its first
    /// square was no part of any), so it encircles no one (rule 8). No
    /// square at all when a defender stands on the edge; the whole board
    /// when no line is open.
    fn squares_on_every_way_out(&self) -> Bitboard {
        let geometry = self.geometry();
        let mut common = geometry.board;
        for defender in (self.defenders | self.king).squares() {
            if geometry.edge.contains(defender) {
                return Bitboard::EMPTY;
            }
            for step in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let mut line = Bitboard::EMPTY;
                let (mut file, mut rank) = (defender.file(), defender.rank());
                while let Some(square) = Square::new(
                    file.wrapping_add_signed(step.0),
                    rank.wrapping_add_signed(step.1),
                )
                .filter(|&square| geometry.board.contains(square))
                {
                    line = line.with(square);
                    (file, rank) = (square.file(), square.rank());
                }
                if !line.intersects(self.attackers) {
                    common &= line;
                    if common.is_empty() {
                        return common;
                    }
                }
            }
        }
        common
    }
}

impl QuietMoves {
    /// Whether the legal move `mv` is quiet, known without playing it.
    #[inline(always)]
    pub(crate) fn contains(&self, mv: Move) -> bool {
        self.soldiers.contains(mv.from)
            && (self.arrivals.contains(mv.to)
                || self.sealing_arrivals.contains(mv.to) && {
                    let after = self.attackers.without(mv.from).with(mv.to);
                    !may_have_sealed(self.geometry, after, mv.to)
                })
    }

    /// The hash of the position after the quiet move `mv`, as playing it
    /// would leave it.
    #[inline(always)]
    pub(crate) fn hash_after(&self, mv: Move) -> u64 {
        self.hash ^ piece_key(self.piece, mv.from) ^ piece_key(self.piece, mv.to)
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::{Game, Rules, Variant};

    /// On every ply of a sample of the real games: each move taken as quiet
    /// is quiet when played out, and most moves are taken as quiet (the
    /// previews that skip playing them out; tests/rules checks those
    /// previews against the moves previewed alone).
    #[test]
    fn most_moves_of_real_games_are_known_quiet_and_all_of_those_are() {
        let games = include_str!("../../tests/data/copenhagen-games.csv");
        let (mut moves, mut quiet) = (0, 0);
        for line in games.lines().step_by(9) {
            let mut game = Game::new(Variant::standard(Rules::Copenhagen));
            for text in line.split(',').next().unwrap().split_whitespace() {
                let position = *game.position();
                let known = position.quiet_moves();
                for mv in position.legal_moves() {
                    moves += 1;
                    if known.contains(mv) {
                        quiet += 1;
                        let mut next = position;
                        assert!(next.play_unchecked(mv).is_empty(), "{position} {mv}");
                        assert!(!next.status().is_over(), "{position} {mv}");
                        assert_eq!(known.hash_after(mv), next.hash(), "{position} {mv}");
                    }
                }
                if game.play(text).is_err() {
                    break;
                }
            }
        }
        assert!(5 * quiet > 4 * moves, "{quiet} quiet moves of {moves}");
    }
}
