//! A puzzle's themes, read off its solution move by move (docs/puzzles.md,
//! "Themes"): each is a fact of the moves played, never a guess from the
//! look of the board.

use crate::rules::{Bitboard, EndReason, Move, Position, Side, Square, Status};

/// What a puzzle trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Theme {
    /// A defenders' move of the solution leaves the king two corners to run to.
    CornerDoubleThreat,
    /// The king wins in an exit fort on the edge.
    EdgeFort,
    /// A solver move takes a row of pieces along the edge at once.
    Shieldwall,
    /// The king is taken on the throne or beside it.
    ThroneCapture,
    /// A solver move takes a piece standing beside a corner, against the corner.
    BlockedCorner,
    /// A solver move lets the opponent take a piece it could not take before.
    Sacrifice,
    /// The first move takes nothing and threatens no capture or win at once.
    QuietMove,
    /// The opponent threatens to win at once: the solver is the side attacked.
    Defence,
}

impl Theme {
    /// Its name in words: `"corner_double_threat"`.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// The themes of the solution `solution` from `start` (its solver to move),
/// in [`Theme`] order.
pub(super) fn themes(start: &Position, solution: &[Move]) -> Vec<Theme> {
    let solver = start.side_to_move();
    let mut found = Vec::new();
    let mut mark = |theme| {
        if !found.contains(&theme) {
            found.push(theme);
        }
    };
    if wins_at_once(&start.passed()) {
        mark(Theme::Defence);
    }
    let mut position = *start;
    for (ply, &mv) in solution.iter().enumerate() {
        let before = position;
        let captures = position.play_unchecked(mv);
        if ply % 2 == 1 {
            continue;
        }
        let last = ply + 1 == solution.len();
        if captures.iter().any(|square| !adjacent(square, mv.to)) {
            mark(Theme::Shieldwall);
        }
        if captures
            .iter()
            .any(|square| beside_corner(&position, square))
        {
            mark(Theme::BlockedCorner);
        }
        if last {
            match position.status() {
                Status::Won {
                    reason: EndReason::ExitFort,
                    ..
                } => mark(Theme::EdgeFort),
                Status::Won {
                    reason: EndReason::KingCaptured,
                    ..
                } if before.king().is_some_and(|king| by_throne(&position, king)) => {
                    mark(Theme::ThroneCapture);
                }
                _ => {}
            }
            continue;
        }
        if solver == Side::Defenders && escape_corners(&position.passed()) >= 2 {
            mark(Theme::CornerDoubleThreat);
        }
        if gives_material(&before, mv, &position) {
            mark(Theme::Sacrifice);
        }
        if ply == 0 && captures.is_empty() && threatens_nothing(&before, &position.passed()) {
            mark(Theme::QuietMove);
        }
    }
    found.sort_unstable();
    found
}

/// Does the side to move have a move that wins the game?
pub(super) fn wins_at_once(position: &Position) -> bool {
    let side = position.side_to_move();
    position.legal_moves().iter().any(|&mv| {
        let mut after = *position;
        after.play_unchecked(mv);
        after.status().winner() == Some(side)
    })
}

/// The corners the king (his side to move) can reach with his next move.
fn escape_corners(position: &Position) -> usize {
    let Some(king) = position.king() else {
        return 0;
    };
    position
        .legal_moves_from(king)
        .iter()
        .filter(|mv| corners(position).contains(mv.to))
        .count()
}

/// The opponent's pieces the side to move could take with one move.
pub(super) fn capturable(position: &Position) -> Bitboard {
    position
        .capturing_moves()
        .iter()
        .fold(Bitboard::EMPTY, |taken, &mv| {
            let mut after = *position;
            taken | after.play_unchecked(mv)
        })
}

/// After the solver's `mv` from `before` to `after`, can the opponent take a
/// solver piece it could not take before (the moved piece counted where it
/// went)?
fn gives_material(before: &Position, mv: Move, after: &Position) -> bool {
    let mut exposed = capturable(&before.passed());
    if exposed.contains(mv.from) {
        exposed = exposed.without(mv.from).with(mv.to);
    }
    !capturable(after).minus(exposed).is_empty()
}

/// The solver, were it to move again in `again` (after its move from
/// `before`), could neither win nor take a piece it could not take before.
pub(super) fn threatens_nothing(before: &Position, again: &Position) -> bool {
    !wins_at_once(again) && capturable(again).minus(capturable(before)).is_empty()
}

fn corners(position: &Position) -> Bitboard {
    let last = position.variant().size.get() - 1;
    [(0, 0), (0, last), (last, 0), (last, last)]
        .into_iter()
        .filter_map(|(file, rank)| Square::new(file, rank))
        .collect()
}

fn adjacent(a: Square, b: Square) -> bool {
    a.file().abs_diff(b.file()) + a.rank().abs_diff(b.rank()) == 1
}

fn beside_corner(position: &Position, square: Square) -> bool {
    corners(position)
        .iter()
        .any(|corner| adjacent(corner, square))
}

/// On the throne or next to it.
fn by_throne(position: &Position, square: Square) -> bool {
    let centre = position.variant().size.get() / 2;
    square.file().abs_diff(centre) + square.rank().abs_diff(centre) <= 1
}
