//! `Position::capturing_moves` checked the slow way: every legal move played.

use tafl::rules::{Move, Position};

/// The legal moves after which the rules report a capture, found by playing
/// each one: the slow baseline `capturing_moves` must equal.
pub fn captures_by_playing(position: &Position) -> Vec<Move> {
    position
        .legal_moves()
        .into_iter()
        .filter(|&mv| !{ *position }.play_unchecked(mv).is_empty())
        .collect()
}

/// `Err` names both lists when `capturing_moves` is not exactly the legal
/// moves after which the rules report a capture.
pub fn check_capturing_moves(position: &Position) -> Result<(), String> {
    let text = |moves: &[Move]| {
        moves
            .iter()
            .map(Move::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut expected = captures_by_playing(position);
    let mut found = position.capturing_moves().to_vec();
    expected.sort();
    found.sort();
    if found == expected {
        Ok(())
    } else {
        Err(format!(
            "capturing moves: expected [{}], got [{}]",
            text(&expected),
            text(&found)
        ))
    }
}
