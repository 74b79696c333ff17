//! A real game from tests/data/copenhagen-games.csv, for the load tests and
//! the RPC benchmark: ordinary middlegame positions rather than the start.

use tafl::rules::{Game, Rules, Variant};

const GAMES: &str = include_str!("../data/copenhagen-games.csv");

/// Every recorded game, as move texts.
pub fn real_games() -> Vec<Vec<String>> {
    GAMES
        .lines()
        .filter_map(|line| line.split(',').next())
        .map(|moves| moves.split_whitespace().map(str::to_owned).collect())
        .collect()
}

/// The first `plies` + 1 moves of the first recorded game that is still going
/// after them: `plies` to replay and one more that is legal after them.
pub fn real_game_moves(plies: usize) -> Vec<String> {
    real_games()
        .into_iter()
        .map(|mut moves| {
            moves.truncate(plies + 1);
            moves
        })
        .find(|moves| moves.len() == plies + 1 && still_going(moves))
        .unwrap_or_else(|| panic!("no recorded game goes on past {plies} plies"))
}

/// Every move is legal and none ends the game.
fn still_going(moves: &[String]) -> bool {
    let mut game = Game::new(Variant::standard(Rules::Copenhagen));
    moves
        .iter()
        .all(|text| game.play(text).is_ok_and(|played| !played.status.is_over()))
}
