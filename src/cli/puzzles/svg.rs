//! A puzzle's board as a self-contained SVG (no script, no external file), in
//! the colours of the review graph: the position before the solver's first
//! move, the corners and the throne shaded, the files and ranks named, and a
//! title saying who is to move and what they must reach — what a site shows
//! a player as it is. The solution is not drawn.

use std::fmt::Write;

use tafl::rules::{Piece, Side};
use tafl::search::{Puzzle, PuzzleGoal};

/// One square, in pixels.
const SQUARE: u32 = 40;
/// Room for the ranks' numbers on the left and the files' letters below.
const MARGIN: u32 = 30;
/// Room for the title above the board.
const TITLE: u32 = 56;

/// What the solver must do, as the title says it.
fn goal_words(goal: PuzzleGoal) -> &'static str {
    match goal {
        PuzzleGoal::KingEscapes => "Bring the king to safety",
        PuzzleGoal::KingCaptured => "Capture the king",
        PuzzleGoal::WinMaterial => "Win at least two pieces",
    }
}

/// "Attackers", "Defenders".
fn side_words(side: Side) -> &'static str {
    match side {
        Side::Attackers => "Attackers",
        Side::Defenders => "Defenders",
    }
}

/// The drawing of `puzzle`.
pub fn board(puzzle: &Puzzle) -> String {
    let variant = puzzle.start.variant();
    let size = u32::from(variant.size.get());
    let width = MARGIN + size * SQUARE + MARGIN / 2;
    let height = TITLE + size * SQUARE + MARGIN;
    // The square's top-left corner: rank 1 at the bottom, file a on the left.
    let x = |file: u8| MARGIN + u32::from(file) * SQUARE;
    let y = |rank: u8| TITLE + (size - 1 - u32::from(rank)) * SQUARE;
    let moves = puzzle.solution.len().div_ceil(2);
    let in_moves = match moves {
        1 => "in one move".to_owned(),
        moves => format!("in {moves} moves"),
    };
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" font-family="sans-serif" font-size="13">"#
    );
    let mover = format!("{} to move", side_words(puzzle.solver));
    let task = format!("{} {in_moves}", goal_words(puzzle.goal));
    let _ = writeln!(svg, "<title>{mover}: {task}</title>");
    let _ = writeln!(
        svg,
        r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    let (mover_fill, mover_stroke) = piece_colours(match puzzle.solver {
        Side::Attackers => Piece::Attacker,
        Side::Defenders => Piece::Defender,
    });
    let _ = writeln!(
        svg,
        r##"<circle cx="{}" cy="21" r="8" fill="{mover_fill}" stroke="{mover_stroke}" stroke-width="1.5"/>"##,
        MARGIN + 8
    );
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="26" font-size="16" font-weight="bold">{mover}</text>"#,
        MARGIN + 24
    );
    let _ = writeln!(
        svg,
        r##"<text x="{}" y="46"><tspan>{task}</tspan><tspan dx="6" fill="#5a5248">· {variant}</tspan></text>"##,
        MARGIN + 24
    );
    let _ = writeln!(
        svg,
        r##"<rect x="{MARGIN}" y="{TITLE}" width="{}" height="{}" fill="#eeeae2" stroke="#8a8070"/>"##,
        size * SQUARE,
        size * SQUARE
    );
    let last = variant.size.get() - 1;
    let centre = last / 2;
    for (file, rank) in [(0, 0), (0, last), (last, 0), (last, last), (centre, centre)] {
        let _ = writeln!(
            svg,
            r##"<rect class="restricted" x="{}" y="{}" width="{SQUARE}" height="{SQUARE}" fill="#c9b99a"/>"##,
            x(file),
            y(rank)
        );
    }
    for line in 1..size {
        let offset = line * SQUARE;
        let _ = writeln!(
            svg,
            r##"<line x1="{}" y1="{TITLE}" x2="{}" y2="{}" stroke="#8a8070" stroke-width="0.6"/>"##,
            MARGIN + offset,
            MARGIN + offset,
            TITLE + size * SQUARE
        );
        let _ = writeln!(
            svg,
            r##"<line x1="{MARGIN}" y1="{}" x2="{}" y2="{}" stroke="#8a8070" stroke-width="0.6"/>"##,
            TITLE + offset,
            MARGIN + size * SQUARE,
            TITLE + offset
        );
    }
    for index in 0..variant.size.get() {
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            x(index) + SQUARE / 2,
            TITLE + size * SQUARE + 20,
            char::from(b'a' + index)
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            MARGIN - 8,
            y(index) + SQUARE / 2 + 5,
            index + 1
        );
    }
    for (piece, square) in puzzle.start.piece_squares() {
        let (fill, stroke) = piece_colours(piece);
        let (cx, cy) = (x(square.file()) + SQUARE / 2, y(square.rank()) + SQUARE / 2);
        let _ = writeln!(
            svg,
            r#"<circle class="{}" cx="{cx}" cy="{cy}" r="{}" fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>"#,
            piece_class(piece),
            SQUARE * 2 / 5
        );
        if piece == Piece::King {
            // A cross on the king, as tafl sets carve it.
            let arm = SQUARE / 5;
            let _ = writeln!(
                svg,
                r##"<path d="M{} {cy} H{} M{cx} {} V{}" stroke="#2b2b2b" stroke-width="2.5"/>"##,
                cx - arm,
                cx + arm,
                cy - arm,
                cy + arm
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// A piece's fill and outline.
fn piece_colours(piece: Piece) -> (&'static str, &'static str) {
    match piece {
        Piece::Attacker => ("#2b2b2b", "#000000"),
        Piece::Defender => ("#ffffff", "#2b2b2b"),
        Piece::King => ("#f2d17a", "#2b2b2b"),
    }
}

fn piece_class(piece: Piece) -> &'static str {
    match piece {
        Piece::Attacker => "attacker",
        Piece::Defender => "defender",
        Piece::King => "king",
    }
}
