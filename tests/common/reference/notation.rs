//! The reference's text: position texts read and written (RULES.md,
//! "Notation"), the standard starts, and the text API the tests call.

use super::*;

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
