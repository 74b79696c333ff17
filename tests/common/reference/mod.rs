//! A slow, plain reference implementation of docs/RULES.md, for tests only.
//!
//! It shares no code with `src/`: a grid of cells, one small function per
//! rule, written straight from the rule text, so that the fast bitboard
//! engine can be checked against it move by move and by perft. No history is
//! kept, so repetition (rule 9) is never applied.

use std::collections::VecDeque;
use std::fmt;

mod notation;
mod random;

pub use notation::{
    Played, legal_moves, move_text, parse_move, perft, play, position_text, start_text,
};
pub use random::{Rng, random_setup, ring_setup, wall_setup};

/// A piece on the board. The king belongs to the defenders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    Attacker,
    Defender,
    King,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Attackers,
    Defenders,
}

impl Side {
    pub fn opponent(self) -> Side {
        match self {
            Side::Attackers => Side::Defenders,
            Side::Defenders => Side::Attackers,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::Attackers => "attackers",
            Side::Defenders => "defenders",
        }
    }
}

pub fn side_of(piece: Piece) -> Side {
    match piece {
        Piece::Attacker => Side::Attackers,
        Piece::Defender | Piece::King => Side::Defenders,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ruleset {
    Copenhagen,
    Fetlar,
    Tablut,
}

pub fn parse_rules(text: &str) -> Result<Ruleset, String> {
    match text.to_ascii_lowercase().as_str() {
        "copenhagen" => Ok(Ruleset::Copenhagen),
        "fetlar" => Ok(Ruleset::Fetlar),
        "tablut" => Ok(Ruleset::Tablut),
        _ => Err(format!("unknown rules {text:?}")),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    KingEscaped,
    ExitFort,
    KingCaptured,
    Encircled,
    NoMoves,
}

impl Reason {
    pub fn name(self) -> &'static str {
        match self {
            Reason::KingEscaped => "king-escaped",
            Reason::ExitFort => "exit-fort",
            Reason::KingCaptured => "king-captured",
            Reason::Encircled => "encircled",
            Reason::NoMoves => "no-moves",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Ongoing,
    Won(Side, Reason),
    Drawn(Reason),
}

impl Outcome {
    pub fn is_over(self) -> bool {
        self != Outcome::Ongoing
    }
}

/// "ongoing", "attackers won by king-captured", "drawn by no-moves".
impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Ongoing => write!(f, "ongoing"),
            Outcome::Won(side, reason) => write!(f, "{} won by {}", side.name(), reason.name()),
            Outcome::Drawn(reason) => write!(f, "drawn by {}", reason.name()),
        }
    }
}

/// A square, 0-based; the derived order is by file, then rank (the printing order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sq {
    pub file: usize,
    pub rank: usize,
}

impl fmt::Display for Sq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file as u8) as char, self.rank + 1)
    }
}

/// Parses "e4" / "E4" on a board of `size`.
pub fn parse_square(text: &str, size: usize) -> Result<Sq, String> {
    let lower = text.to_ascii_lowercase();
    let mut chars = lower.chars();
    let letter = chars.next().ok_or("empty square")?;
    if !letter.is_ascii_lowercase() {
        return Err(format!("bad square {text:?}"));
    }
    let file = (letter as u8 - b'a') as usize;
    let rank: usize = chars
        .as_str()
        .parse()
        .map_err(|_| format!("bad square {text:?}"))?;
    if file >= size || rank < 1 || rank > size {
        return Err(format!("square {text:?} is off the board"));
    }
    Ok(Sq {
        file,
        rank: rank - 1,
    })
}

const DIRECTIONS: [(isize, isize); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

/// The board: a plain grid indexed `[file][rank]`, plus the side to move and
/// the outcome the rules have given so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Board {
    pub size: usize,
    pub rules: Ruleset,
    grid: [[Option<Piece>; 13]; 13],
    pub to_move: Side,
    pub outcome: Outcome,
}

// ---------------------------------------------------------------- geometry

impl Board {
    pub fn at(&self, sq: Sq) -> Option<Piece> {
        self.grid[sq.file][sq.rank]
    }

    fn set(&mut self, sq: Sq, piece: Option<Piece>) {
        self.grid[sq.file][sq.rank] = piece;
    }

    fn square(&self, file: isize, rank: isize) -> Option<Sq> {
        let n = self.size as isize;
        if file < 0 || rank < 0 || file >= n || rank >= n {
            None
        } else {
            Some(Sq {
                file: file as usize,
                rank: rank as usize,
            })
        }
    }

    fn step(&self, sq: Sq, dir: (isize, isize)) -> Option<Sq> {
        self.square(sq.file as isize + dir.0, sq.rank as isize + dir.1)
    }

    pub fn neighbours(&self, sq: Sq) -> Vec<Sq> {
        DIRECTIONS
            .iter()
            .filter_map(|&d| self.step(sq, d))
            .collect()
    }

    pub fn all_squares(&self) -> impl Iterator<Item = Sq> + use<> {
        let size = self.size;
        (0..size).flat_map(move |file| (0..size).map(move |rank| Sq { file, rank }))
    }

    pub fn throne(&self) -> Sq {
        Sq {
            file: self.size / 2,
            rank: self.size / 2,
        }
    }

    pub fn is_throne(&self, sq: Sq) -> bool {
        sq == self.throne()
    }

    pub fn is_corner(&self, sq: Sq) -> bool {
        let last = self.size - 1;
        (sq.file == 0 || sq.file == last) && (sq.rank == 0 || sq.rank == last)
    }

    pub fn is_edge(&self, sq: Sq) -> bool {
        let last = self.size - 1;
        sq.file == 0 || sq.file == last || sq.rank == 0 || sq.rank == last
    }

    pub fn king_square(&self) -> Option<Sq> {
        self.all_squares()
            .find(|&sq| self.at(sq) == Some(Piece::King))
    }

    fn is_side(&self, sq: Sq, side: Side) -> bool {
        self.at(sq).map(side_of) == Some(side)
    }

    pub fn pieces_of(&self, side: Side) -> Vec<Sq> {
        self.all_squares()
            .filter(|&sq| self.is_side(sq, side))
            .collect()
    }
}

// ---------------------------------------------------------------- rule 1: movement

impl Board {
    /// Only the king may stop on the throne or a corner.
    fn may_stop_on(&self, piece: Piece, sq: Sq) -> bool {
        piece == Piece::King || !(self.is_throne(sq) || self.is_corner(sq))
    }

    /// An empty square a piece may pass over: in Tablut only the king may pass
    /// through the throne; elsewhere anyone may pass over the empty throne.
    fn may_pass_over(&self, piece: Piece, sq: Sq) -> bool {
        !(self.rules == Ruleset::Tablut && piece != Piece::King && self.is_throne(sq))
    }

    /// Rook moves of the piece on `from`, whoever's turn it is.
    pub fn moves_of_piece(&self, from: Sq) -> Vec<(Sq, Sq)> {
        let mut moves = Vec::new();
        let Some(piece) = self.at(from) else {
            return moves;
        };
        for dir in DIRECTIONS {
            let mut current = from;
            while let Some(next) = self.step(current, dir) {
                if self.at(next).is_some() {
                    break;
                }
                if self.may_stop_on(piece, next) {
                    moves.push((from, next));
                }
                if !self.may_pass_over(piece, next) {
                    break;
                }
                current = next;
            }
        }
        moves
    }

    pub fn moves_of_side(&self, side: Side) -> Vec<(Sq, Sq)> {
        self.pieces_of(side)
            .into_iter()
            .flat_map(|sq| self.moves_of_piece(sq))
            .collect()
    }

    /// The legal moves of the side to move, none once the game is over.
    pub fn legal_moves(&self) -> Vec<(Sq, Sq)> {
        if self.outcome.is_over() {
            return Vec::new();
        }
        self.moves_of_side(self.to_move)
    }
}

// ---------------------------------------------------------------- rules 2-4: captures

impl Board {
    /// Rule 2 (and Tablut's throne): is `sq` hostile to a `victim` piece?
    fn hostile_to(&self, sq: Sq, victim: Piece) -> bool {
        let victim_side = side_of(victim);
        if let Some(piece) = self.at(sq)
            && side_of(piece) != victim_side
        {
            return true;
        }
        if self.is_corner(sq) {
            return true;
        }
        if self.is_throne(sq) {
            if self.rules == Ruleset::Tablut {
                return true;
            }
            return match self.at(sq) {
                None => true,
                Some(_) => victim_side == Side::Attackers,
            };
        }
        false
    }

    /// Rule 3: enemy non-king pieces next to `to` with a hostile square beyond.
    fn custodial_captures(&self, to: Sq) -> Vec<Sq> {
        let mover_side = side_of(self.at(to).expect("the moved piece"));
        let mut captured = Vec::new();
        for dir in DIRECTIONS {
            let Some(victim_sq) = self.step(to, dir) else {
                continue;
            };
            let Some(victim) = self.at(victim_sq) else {
                continue;
            };
            if side_of(victim) == mover_side || victim == Piece::King {
                continue;
            }
            let Some(beyond) = self.step(victim_sq, dir) else {
                continue;
            };
            if self.hostile_to(beyond, victim) {
                captured.push(victim_sq);
            }
        }
        captured
    }

    /// Rule 4 (Copenhagen only): shieldwalls closed by a move onto the edge.
    pub fn shieldwall_captures(&self, to: Sq) -> Vec<Sq> {
        let mut captured = Vec::new();
        if self.rules != Ruleset::Copenhagen || !self.is_edge(to) || self.is_corner(to) {
            return captured;
        }
        let mover_side = side_of(self.at(to).expect("the moved piece"));
        let last = self.size - 1;
        // A non-corner edge square lies on exactly one edge.
        let (along, inward): ((isize, isize), (isize, isize)) = if to.rank == 0 {
            ((1, 0), (0, 1))
        } else if to.rank == last {
            ((1, 0), (0, -1))
        } else if to.file == 0 {
            ((0, 1), (1, 0))
        } else {
            ((0, 1), (-1, 0))
        };
        for dir in [along, (-along.0, -along.1)] {
            let mut run = Vec::new();
            let mut current = self.step(to, dir);
            while let Some(sq) = current {
                match self.at(sq) {
                    Some(piece) if side_of(piece) != mover_side => {
                        run.push(sq);
                        current = self.step(sq, dir);
                    }
                    _ => break,
                }
            }
            let closed = match current {
                Some(end) => self.is_corner(end) || self.is_side(end, mover_side),
                None => false,
            };
            if !closed || run.len() < 2 {
                continue;
            }
            let all_pinned = run.iter().all(|&sq| {
                self.step(sq, inward)
                    .is_some_and(|inner| self.is_side(inner, mover_side))
            });
            if all_pinned {
                captured.extend(
                    run.into_iter()
                        .filter(|&sq| self.at(sq) != Some(Piece::King)),
                );
            }
        }
        captured
    }
}

// ---------------------------------------------------------------- rules 5-8: wins

impl Board {
    /// Rule 5 / Tablut: after an attacker move to `to`, is the king captured?
    fn king_captured_by(&self, to: Sq) -> bool {
        let Some(king) = self.king_square() else {
            return false;
        };
        if !self.neighbours(king).contains(&to) {
            return false;
        }
        match self.rules {
            Ruleset::Copenhagen | Ruleset::Fetlar => {
                if self.is_edge(king) {
                    return false;
                }
                self.neighbours(king).into_iter().all(|n| {
                    self.at(n) == Some(Piece::Attacker)
                        || (self.is_throne(n) && self.at(n).is_none())
                })
            }
            Ruleset::Tablut => DIRECTIONS.iter().all(|&dir| match self.step(king, dir) {
                None => true,
                Some(n) => {
                    self.at(n) == Some(Piece::Attacker) || self.is_throne(n) || self.is_corner(n)
                }
            }),
        }
    }

    /// Rule 6.
    fn king_on_corner(&self) -> bool {
        self.king_square().is_some_and(|k| self.is_corner(k))
    }

    /// The empty squares joined to `start` by orthogonal steps through empty squares.
    fn empty_region_around(&self, start: Sq) -> Vec<Sq> {
        let mut seen = [[false; 13]; 13];
        seen[start.file][start.rank] = true;
        let mut region = Vec::new();
        let mut queue = VecDeque::from([start]);
        while let Some(sq) = queue.pop_front() {
            for n in self.neighbours(sq) {
                if self.at(n).is_none() && !seen[n.file][n.rank] {
                    seen[n.file][n.rank] = true;
                    region.push(n);
                    queue.push_back(n);
                }
            }
        }
        region
    }

    /// Rule 7 (Copenhagen only), checked after a defender move.
    fn exit_fort(&self) -> bool {
        let Some(king) = self.king_square() else {
            return false;
        };
        if !self.is_edge(king) || self.moves_of_piece(king).is_empty() {
            return false;
        }
        let fort_inside = self.empty_region_around(king);
        let mut in_fort = [[false; 13]; 13];
        for sq in &fort_inside {
            in_fort[sq.file][sq.rank] = true;
        }
        let mut king_and_inside = fort_inside.clone();
        king_and_inside.push(king);
        for &sq in &king_and_inside {
            if self
                .neighbours(sq)
                .into_iter()
                .any(|n| self.at(n) == Some(Piece::Attacker))
            {
                return false;
            }
        }
        let mut safe = [[false; 13]; 13];
        for sq in self.all_squares() {
            if self.at(sq) == Some(Piece::Defender) {
                safe[sq.file][sq.rank] = true;
            }
        }
        let is_threat = |square: Option<Sq>, safe: &[[bool; 13]; 13]| -> bool {
            match square {
                None => false,
                Some(sq) => {
                    !(in_fort[sq.file][sq.rank]
                        || self.at(sq) == Some(Piece::King)
                        || (self.at(sq) == Some(Piece::Defender) && safe[sq.file][sq.rank]))
                }
            }
        };
        loop {
            let mut changed = false;
            for sq in self.all_squares() {
                if !safe[sq.file][sq.rank] {
                    continue;
                }
                let rank_pair = is_threat(self.step(sq, (1, 0)), &safe)
                    && is_threat(self.step(sq, (-1, 0)), &safe);
                let file_pair = is_threat(self.step(sq, (0, 1)), &safe)
                    && is_threat(self.step(sq, (0, -1)), &safe);
                if rank_pair || file_pair {
                    safe[sq.file][sq.rank] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        king_and_inside.iter().all(|&sq| {
            self.neighbours(sq)
                .into_iter()
                .all(|n| self.at(n) != Some(Piece::Defender) || safe[n.file][n.rank])
        })
    }

    /// Rule 8 (Copenhagen only), checked after an attacker move.
    fn encircled(&self) -> bool {
        let mut queue: VecDeque<Sq> = self.pieces_of(Side::Defenders).into_iter().collect();
        let mut seen = [[false; 13]; 13];
        for sq in &queue {
            seen[sq.file][sq.rank] = true;
        }
        while let Some(sq) = queue.pop_front() {
            if self.is_edge(sq) {
                return false;
            }
            for n in self.neighbours(sq) {
                if self.at(n) != Some(Piece::Attacker) && !seen[n.file][n.rank] {
                    seen[n.file][n.rank] = true;
                    queue.push_back(n);
                }
            }
        }
        true
    }

    /// Rule 10 and its Fetlar/Tablut form, for the side to move.
    fn no_move_outcome(&self) -> Outcome {
        let has_a_move = self
            .pieces_of(self.to_move)
            .into_iter()
            .any(|sq| !self.moves_of_piece(sq).is_empty());
        if has_a_move {
            return Outcome::Ongoing;
        }
        let has_pieces = !self.pieces_of(self.to_move).is_empty();
        match self.rules {
            Ruleset::Copenhagen => Outcome::Won(self.to_move.opponent(), Reason::NoMoves),
            Ruleset::Fetlar | Ruleset::Tablut if has_pieces => Outcome::Drawn(Reason::NoMoves),
            Ruleset::Fetlar | Ruleset::Tablut => {
                Outcome::Won(self.to_move.opponent(), Reason::NoMoves)
            }
        }
    }
}

// ---------------------------------------------------------------- rule 11: one move

impl Board {
    /// Plays a move in the order of rule 11 and returns the captured squares,
    /// sorted by file, then rank (the king is never among them).
    pub fn play(&mut self, from: Sq, to: Sq) -> Result<Vec<Sq>, String> {
        if self.outcome.is_over() {
            return Err("the game is over".into());
        }
        let Some(piece) = self.at(from) else {
            return Err(format!("no piece on {from}"));
        };
        let mover_side = side_of(piece);
        if mover_side != self.to_move {
            return Err(format!("{from} is not a piece of the side to move"));
        }
        if !self.moves_of_piece(from).contains(&(from, to)) {
            return Err(format!("{from}-{to} is not a legal move"));
        }
        self.set(from, None);
        self.set(to, Some(piece));

        let mut captures = self.custodial_captures(to);
        captures.extend(self.shieldwall_captures(to));
        captures.sort();
        captures.dedup();
        for &sq in &captures {
            self.set(sq, None);
        }

        let copenhagen = self.rules == Ruleset::Copenhagen;
        if self.king_on_corner() {
            self.outcome = Outcome::Won(Side::Defenders, Reason::KingEscaped);
        } else if mover_side == Side::Attackers && self.king_captured_by(to) {
            let king = self.king_square().expect("a king");
            self.set(king, None); // he leaves the board
            self.outcome = Outcome::Won(Side::Attackers, Reason::KingCaptured);
        } else if copenhagen && mover_side == Side::Defenders && self.exit_fort() {
            self.outcome = Outcome::Won(Side::Defenders, Reason::ExitFort);
        } else if copenhagen && mover_side == Side::Attackers && self.encircled() {
            self.outcome = Outcome::Won(Side::Attackers, Reason::Encircled);
        }
        self.to_move = self.to_move.opponent();
        if !self.outcome.is_over() {
            self.outcome = self.no_move_outcome();
        }
        Ok(captures)
    }

    /// Leaf count to `depth`; terminal positions have no children.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|(from, to)| {
                let mut child = *self;
                child.play(from, to).expect("a generated move is legal");
                child.perft(depth - 1)
            })
            .sum()
    }
}
