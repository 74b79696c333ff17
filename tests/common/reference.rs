//! A slow, plain reference implementation of docs/RULES.md, for tests only.
//!
//! It shares no code with `src/`: a grid of cells, one small function per
//! rule, written straight from the rule text, so that the fast bitboard
//! engine can be checked against it move by move and by perft. No history is
//! kept, so repetition (rule 9) is never applied.

use std::collections::VecDeque;
use std::fmt;

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

// ---------------------------------------------------------------- notation

impl Board {
    /// Parses a position text ("Notation") and checks it as a start: one king,
    /// not on a corner, nothing else on the throne or a corner. A side to move
    /// without a legal move loses (or draws) at once.
    pub fn parse(text: &str, rules: &str) -> Result<Board, String> {
        let rules = parse_rules(rules)?;
        let mut words = text.split_whitespace();
        let ranks_text = words.next().ok_or("empty position text")?;
        let side_text = words.next().ok_or("no side to move")?;
        if words.next().is_some() {
            return Err("trailing text after the side to move".into());
        }
        let to_move = match side_text.to_ascii_lowercase().as_str() {
            "a" => Side::Attackers,
            "d" => Side::Defenders,
            _ => return Err(format!("bad side to move {side_text:?}")),
        };
        let trimmed = ranks_text.strip_prefix('/').unwrap_or(ranks_text);
        let trimmed = trimmed.strip_suffix('/').unwrap_or(trimmed);
        let rows: Vec<Vec<Option<Piece>>> = trimmed
            .split('/')
            .map(parse_row)
            .collect::<Result<_, _>>()?;
        let size = rows.len();
        if ![9, 11, 13].contains(&size) {
            return Err(format!("{size} ranks: the board must be 9, 11 or 13"));
        }
        let mut board = Board {
            size,
            rules,
            grid: [[None; 13]; 13],
            to_move,
            outcome: Outcome::Ongoing,
        };
        for (row_index, row) in rows.iter().enumerate() {
            if row.len() != size {
                return Err(format!(
                    "rank {} has {} squares",
                    size - row_index,
                    row.len()
                ));
            }
            let rank = size - 1 - row_index; // the first row is the top rank
            for (file, &cell) in row.iter().enumerate() {
                board.set(Sq { file, rank }, cell);
            }
        }
        let kings = board
            .all_squares()
            .filter(|&sq| board.at(sq) == Some(Piece::King))
            .count();
        if kings != 1 {
            return Err(format!("{kings} kings"));
        }
        for sq in board.all_squares() {
            let restricted = board.is_throne(sq) || board.is_corner(sq);
            match board.at(sq) {
                Some(Piece::King) if board.is_corner(sq) => {
                    return Err(format!("king on corner {sq}"));
                }
                Some(Piece::Attacker) | Some(Piece::Defender) if restricted => {
                    return Err(format!("piece on restricted square {sq}"));
                }
                _ => {}
            }
        }
        board.outcome = board.no_move_outcome();
        Ok(board)
    }

    /// The position text: top rank first, outer slashes, then the side to move.
    pub fn text(&self) -> String {
        let mut out = String::from("/");
        for rank in (0..self.size).rev() {
            let mut empty_run = 0;
            for file in 0..self.size {
                match self.at(Sq { file, rank }) {
                    None => empty_run += 1,
                    Some(piece) => {
                        if empty_run > 0 {
                            out.push_str(&empty_run.to_string());
                            empty_run = 0;
                        }
                        out.push(match piece {
                            Piece::Attacker => 't',
                            Piece::Defender => 'T',
                            Piece::King => 'K',
                        });
                    }
                }
            }
            if empty_run > 0 {
                out.push_str(&empty_run.to_string());
            }
            out.push('/');
        }
        out.push(' ');
        out.push(match self.to_move {
            Side::Attackers => 'a',
            Side::Defenders => 'd',
        });
        out
    }
}

fn parse_row(row: &str) -> Result<Vec<Option<Piece>>, String> {
    let mut cells = Vec::new();
    let mut number = String::new();
    for ch in row.chars() {
        if ch.is_ascii_digit() {
            number.push(ch);
            continue;
        }
        if !number.is_empty() {
            let run: usize = number.parse().map_err(|_| "bad number")?;
            cells.extend(std::iter::repeat_n(None, run));
            number.clear();
        }
        cells.push(Some(match ch {
            't' => Piece::Attacker,
            'T' => Piece::Defender,
            'K' => Piece::King,
            _ => return Err(format!("bad character {ch:?} in {row:?}")),
        }));
    }
    if !number.is_empty() {
        let run: usize = number.parse().map_err(|_| "bad number")?;
        cells.extend(std::iter::repeat_n(None, run));
    }
    Ok(cells)
}

/// The standard start of a board size, straight from the "Boards" table,
/// attackers to move.
pub fn start_text(size: usize) -> String {
    let (attackers, defenders, king): (&str, &str, &str) = match size {
        9 => (
            "d1 e1 f1 e2 a4 a5 a6 b5 i4 i5 i6 h5 d9 e9 f9 e8",
            "e3 e4 c5 d5 f5 g5 e6 e7",
            "e5",
        ),
        11 => (
            "d1 e1 f1 g1 h1 f2 a4 a5 a6 a7 a8 b6 k4 k5 k6 k7 k8 j6 d11 e11 f11 g11 h11 f10",
            "f4 e5 f5 g5 d6 e6 g6 h6 e7 f7 g7 f8",
            "f6",
        ),
        13 => (
            "d1 e1 f1 g1 h1 i1 j1 g2 a4 a5 a6 a7 a8 a9 a10 b7 m4 m5 m6 m7 m8 m9 m10 l7 \
             d13 e13 f13 g13 h13 i13 j13 g12",
            "g4 g5 f6 g6 h6 d7 e7 f7 h7 i7 j7 f8 g8 h8 g9 g10",
            "g7",
        ),
        _ => panic!("no standard board of size {size}"),
    };
    position_text(size, attackers, defenders, king, 'a')
}

/// A position text from lists of squares ("d1 e1 ..."), `side` 'a' or 'd'.
pub fn position_text(
    size: usize,
    attackers: &str,
    defenders: &str,
    king: &str,
    side: char,
) -> String {
    let mut board = Board {
        size,
        rules: Ruleset::Copenhagen,
        grid: [[None; 13]; 13],
        to_move: if side == 'a' {
            Side::Attackers
        } else {
            Side::Defenders
        },
        outcome: Outcome::Ongoing,
    };
    for (list, piece) in [
        (attackers, Piece::Attacker),
        (defenders, Piece::Defender),
        (king, Piece::King),
    ] {
        for name in list.split_whitespace() {
            let sq = parse_square(name, size).unwrap();
            assert_eq!(board.at(sq), None, "{name} listed twice");
            board.set(sq, Some(piece));
        }
    }
    board.text()
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

// ---------------------------------------------------------------- text API

pub fn move_text(from: Sq, to: Sq) -> String {
    format!("{from}-{to}")
}

/// Parses "e1-e4" / "e1e4" (any capture list or marks after it are ignored).
pub fn parse_move(text: &str, size: usize) -> Result<(Sq, Sq), String> {
    let lower = text.to_ascii_lowercase();
    let body = lower.split('x').next().unwrap_or("");
    let body = body.trim_end_matches(['+', '-']);
    let (from, to) = match body.split_once('-') {
        Some(parts) => parts,
        None => {
            // "e1e4": the second square starts at the second letter
            let split = body
                .char_indices()
                .skip(1)
                .find(|(_, c)| c.is_ascii_alphabetic())
                .map(|(i, _)| i);
            let i = split.ok_or(format!("bad move {text:?}"))?;
            (&body[..i], &body[i..])
        }
    };
    Ok((parse_square(from, size)?, parse_square(to, size)?))
}

/// `perft` from a position text under `rules` ("copenhagen" | "fetlar" | "tablut").
pub fn perft(position_text: &str, rules: &str, depth: u32) -> u64 {
    Board::parse(position_text, rules)
        .expect("a valid position")
        .perft(depth)
}

/// The legal moves as "e1-e4", sorted as strings.
pub fn legal_moves(position_text: &str, rules: &str) -> Vec<String> {
    let board = Board::parse(position_text, rules).expect("a valid position");
    let mut moves: Vec<String> = board
        .legal_moves()
        .into_iter()
        .map(|(f, t)| move_text(f, t))
        .collect();
    moves.sort();
    moves
}

/// What one move does: captured squares (sorted by file, then rank),
/// the outcome ("ongoing", "attackers won by encircled", ...) and the next
/// position text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    pub captures: Vec<String>,
    pub result: String,
    pub position: String,
}

pub fn play(position_text: &str, rules: &str, mv: &str) -> Result<Played, String> {
    let mut board = Board::parse(position_text, rules)?;
    let (from, to) = parse_move(mv, board.size)?;
    let captures = board.play(from, to)?;
    Ok(Played {
        captures: captures.iter().map(|sq| sq.to_string()).collect(),
        result: board.outcome.to_string(),
        position: board.text(),
    })
}

// ---------------------------------------------------------------- random play for cross-checks

/// A tiny deterministic generator (xorshift64*), so every run plays the same games.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next number. The stream never ends, so it is no `Iterator`.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

impl Board {
    /// How much random play should favour a move: captures, king moves,
    /// edge squares and squares next to the king make the rare rules
    /// (shieldwalls, forts, encirclements, king captures) actually happen.
    pub fn move_weight(&self, from: Sq, to: Sq) -> u64 {
        let piece = self.at(from).expect("a piece to move");
        let mover_side = side_of(piece);
        let mut weight = 2;
        let mut worth_a_probe = piece == Piece::King;
        let mut occupied_neighbours = 0;
        if piece == Piece::King {
            weight += 6;
            if self.is_edge(to) {
                weight += 12;
            }
        }
        if self.is_edge(to) {
            weight += 3;
        }
        for n in self.neighbours(to) {
            if n == from {
                continue;
            }
            match self.at(n) {
                Some(Piece::King) if mover_side == Side::Attackers => {
                    weight += 10;
                    worth_a_probe = true;
                }
                Some(p) if side_of(p) != mover_side => {
                    weight += 3;
                    worth_a_probe = true;
                }
                Some(_) if mover_side == Side::Defenders && self.is_edge(to) => weight += 2,
                _ => {}
            }
            occupied_neighbours += usize::from(self.at(n).is_some());
        }
        // Captures, escapes, forts, rings: only a move next to pieces can make them.
        if worth_a_probe || occupied_neighbours >= 2 {
            let mut probe = *self;
            if let Ok(captures) = probe.play(from, to) {
                weight += 20 * captures.len() as u64;
                if probe.outcome.is_over() {
                    weight += 30;
                }
            }
        }
        weight
    }

    /// A legal move picked at random, weighted by [`Board::move_weight`]
    /// (or uniformly when `weighted` is false).
    pub fn random_move(&self, rng: &mut Rng, weighted: bool) -> Option<(Sq, Sq)> {
        let moves = self.legal_moves();
        if moves.is_empty() {
            return None;
        }
        if !weighted {
            return Some(moves[rng.below(moves.len() as u64) as usize]);
        }
        let weights: Vec<u64> = moves.iter().map(|&(f, t)| self.move_weight(f, t)).collect();
        let mut pick = rng.below(weights.iter().sum());
        for (mv, w) in moves.iter().zip(&weights) {
            if pick < *w {
                return Some(*mv);
            }
            pick -= w;
        }
        unreachable!()
    }
}

impl Board {
    /// How many pieces the shieldwalls of a move would take (for statistics).
    pub fn shieldwall_count(&self, from: Sq, to: Sq) -> usize {
        let mut probe = *self;
        let piece = probe.at(from);
        probe.set(from, None);
        probe.set(to, piece);
        probe.shieldwall_captures(to).len()
    }
}

/// A random legal start of `size` for the cross-checks: pieces scattered with
/// random densities, the king often near an edge, either side to move.
pub fn random_setup(rng: &mut Rng, size: usize) -> String {
    let probe = Board::parse(&start_text(size), "copenhagen").expect("the start parses");
    let attack_percent = 8 + rng.below(25);
    let defend_percent = 3 + rng.below(15);
    let free: Vec<Sq> = probe
        .all_squares()
        .filter(|&sq| !probe.is_corner(sq) && !probe.is_throne(sq))
        .collect();
    let king = if rng.chance(40) {
        let edge: Vec<Sq> = free
            .iter()
            .copied()
            .filter(|&sq| probe.is_edge(sq))
            .collect();
        edge[rng.below(edge.len() as u64) as usize]
    } else {
        free[rng.below(free.len() as u64) as usize]
    };
    let (mut attackers, mut defenders) = (Vec::new(), Vec::new());
    for sq in free {
        if sq == king {
            continue;
        }
        let near_king = sq.file.abs_diff(king.file) <= 2 && sq.rank.abs_diff(king.rank) <= 2;
        let roll = rng.below(100);
        if roll < attack_percent {
            attackers.push(sq.to_string());
        } else if roll < attack_percent + defend_percent + if near_king { 25 } else { 0 } {
            defenders.push(sq.to_string());
        }
    }
    let side = if rng.chance(50) { 'a' } else { 'd' };
    position_text(
        size,
        &attackers.join(" "),
        &defenders.join(" "),
        &king.to_string(),
        side,
    )
}

/// Places pieces on an empty board of `size` where the rules allow them
/// (nothing on the throne or a corner, nothing on a taken square).
struct Sketch {
    board: Board,
}

impl Sketch {
    fn new(size: usize) -> Sketch {
        let board = Board {
            size,
            rules: Ruleset::Copenhagen,
            grid: [[None; 13]; 13],
            to_move: Side::Attackers,
            outcome: Outcome::Ongoing,
        };
        Sketch { board }
    }

    fn put(&mut self, file: isize, rank: isize, piece: Piece) -> bool {
        let Some(sq) = self.board.square(file, rank) else {
            return false;
        };
        if self.board.at(sq).is_some()
            || self.board.is_corner(sq)
            || (self.board.is_throne(sq) && piece != Piece::King)
        {
            return false;
        }
        self.board.set(sq, Some(piece));
        true
    }

    fn scatter(&mut self, rng: &mut Rng, piece: Piece, percent: u64) {
        for sq in self.board.all_squares() {
            if rng.chance(percent) {
                self.put(sq.file as isize, sq.rank as isize, piece);
            }
        }
    }

    fn finish(mut self, side: Side) -> String {
        self.board.to_move = side;
        self.board.text()
    }
}

/// A start where the attackers nearly close a ring around the king and some
/// defenders: one or two ring pieces stand back, ready to close it (rule 8).
pub fn ring_setup(rng: &mut Rng, size: usize) -> String {
    loop {
        let mut sketch = Sketch::new(size);
        let n = size as isize;
        let width = 1 + rng.below(3) as isize;
        let height = 1 + rng.below(3) as isize;
        let f0 = 2 + rng.below((n - 4 - width + 1) as u64) as isize;
        let r0 = 2 + rng.below((n - 4 - height + 1) as u64) as isize;
        let (f1, r1) = (f0 + width - 1, r0 + height - 1);
        // The ring: each side of the rectangle, outward direction.
        let mut ring: Vec<(isize, isize, isize, isize)> = Vec::new();
        for r in r0..=r1 {
            ring.push((f0 - 1, r, -1, 0));
            ring.push((f1 + 1, r, 1, 0));
        }
        for f in f0..=f1 {
            ring.push((f, r0 - 1, 0, -1));
            ring.push((f, r1 + 1, 0, 1));
        }
        let king_file = f0 + rng.below(width as u64) as isize;
        let king_rank = r0 + rng.below(height as u64) as isize;
        if !sketch.put(king_file, king_rank, Piece::King) {
            continue;
        }
        let gaps = if rng.chance(80) { 1 } else { 2 };
        let mut ok = true;
        for (i, &(file, rank, df, dr)) in ring.iter().enumerate() {
            if i < gaps * 3 && i % 3 == 0 {
                // stand back in line, two or three squares out
                let back = 2 + rng.below(2) as isize;
                sketch.put(file + df * back, rank + dr * back, Piece::Attacker);
            } else {
                ok &= sketch.put(file, rank, Piece::Attacker);
            }
        }
        if !ok {
            continue; // the ring would cross the throne
        }
        for f in f0..=f1 {
            for r in r0..=r1 {
                if rng.chance(35) {
                    sketch.put(f, r, Piece::Defender);
                }
            }
        }
        sketch.scatter(rng, Piece::Attacker, 4);
        if rng.chance(20) {
            sketch.scatter(rng, Piece::Defender, 2);
        }
        let side = if rng.chance(90) {
            Side::Attackers
        } else {
            Side::Defenders
        };
        return sketch.finish(side);
    }
}

/// A start with a row of pieces on an edge, each pinned by an enemy on its
/// inner side and closed at one end: one flanking move onto the edge closes
/// a shieldwall (rule 4). Sometimes an inner piece is missing, and
/// sometimes the king is in the row or among the inner pieces.
pub fn wall_setup(rng: &mut Rng, size: usize) -> String {
    loop {
        let mut sketch = Sketch::new(size);
        let n = size as isize;
        let wall_side = if rng.chance(50) {
            Side::Attackers
        } else {
            Side::Defenders
        };
        let (captor, victim) = match wall_side {
            Side::Attackers => (Piece::Defender, Piece::Attacker),
            Side::Defenders => (Piece::Attacker, Piece::Defender),
        };
        let length = 2 + rng.below(4) as isize;
        // Build along the bottom edge, then turn the board.
        let start = 1 + rng.below((n - 2 - length) as u64) as isize; // first run square (file)
        let mut cells: Vec<(isize, isize, Piece)> = Vec::new();
        let king_at = rng.below(length as u64 + 3) as isize;
        for i in 0..length {
            let file = start + i;
            let runner = if victim == Piece::Defender && i == king_at {
                Piece::King
            } else {
                victim
            };
            cells.push((file, 0, runner));
            if !rng.chance(8) {
                let inner = if captor == Piece::Defender && i == king_at {
                    Piece::King
                } else {
                    captor
                };
                cells.push((file, 1, inner));
            }
        }
        // Closed on the left unless it touches the corner; the flanker comes to the right.
        if start > 1 && !rng.chance(8) {
            cells.push((start - 1, 0, captor));
        }
        let flank_file = start + length;
        if flank_file < n - 1 {
            let reach = 2 + rng.below(3) as isize;
            cells.push(if rng.chance(50) {
                (flank_file, reach, captor)
            } else {
                ((flank_file + reach).min(n - 2), 0, captor)
            });
        }
        let turn = rng.below(4);
        let mut placed_king = false;
        for &(file, rank, piece) in &cells {
            let (f, r) = match turn {
                0 => (file, rank),
                1 => (n - 1 - rank, file),
                2 => (n - 1 - file, n - 1 - rank),
                _ => (rank, n - 1 - file),
            };
            let ok = sketch.put(f, r, piece);
            placed_king |= ok && piece == Piece::King;
        }
        if !placed_king {
            let (kf, kr) = (
                rng.below(size as u64) as isize,
                rng.below(size as u64) as isize,
            );
            if !sketch.put(kf, kr, Piece::King) {
                continue;
            }
        }
        sketch.scatter(rng, Piece::Attacker, 4);
        sketch.scatter(rng, Piece::Defender, 3);
        let side = match captor {
            Piece::Attacker => Side::Attackers,
            _ => Side::Defenders,
        };
        return sketch.finish(side);
    }
}
